"""The click command line, a thin layer over the library (the only package that imports click).

:mod:`skillcite.cli.app` (click) is imported on first use of a name below:
:func:`skillcite.cli.fast.run`, the console entry point, serves a warm
``check`` from the result cache without importing click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import CONTEXT, fail, main

__all__ = ["CONTEXT", "fail", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
