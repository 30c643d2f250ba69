"""The click command line, a thin layer over the library (the only package that imports click).

:mod:`skillcite.cli.app` (click) is imported on first use of a name below:
:func:`skillcite.cli.fast.run`, the console entry point, serves a warm
``check`` from the result cache without importing click.
"""

from __future__ import annotations

# Not typing's: a warm check pays for every module it imports, and type checkers read this name alike.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from .app import CONTEXT, fail, main

__all__ = ["CONTEXT", "fail", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
