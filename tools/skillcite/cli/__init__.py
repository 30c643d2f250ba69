"""The click command line, a thin layer over the library (the only package that imports click)."""

from .app import CONTEXT, fail, main

__all__ = ["CONTEXT", "fail", "main"]
