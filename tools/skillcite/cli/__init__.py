"""The click command line, a thin layer over the library."""

from .app import CONTEXT, fail, main

__all__ = ["CONTEXT", "fail", "main"]
