"""Parsing skill documents and evidence, matching quotes, and the rules of ``skillcite check``."""

from .checker import Report, check

__all__ = ["Report", "check"]
