"""skillcite: verify that every quotation in a skill package matches its cached evidence.

Layers, each importing only those before it: ``core`` (text I/O, configuration,
diagnostics) <- ``check`` (parsing, matching, rules) <- ``repair``, ``deliver``,
``refresh`` <- ``cli``. The library entry point is ``skillcite.check.check``.

The names below are imported on first use, so that a warm ``check`` served
from the result cache starts without them (:mod:`skillcite.cli.fast`).
"""

from __future__ import annotations

# Not typing's: a warm check pays for every module it imports, and type checkers read this name alike.
TYPE_CHECKING = False

__version__ = "0.5.0"

if TYPE_CHECKING:
    from typing import Any

    from .core.config import Config, load_config
    from .core.diagnostics import CODES, Diagnostic, Severity

_HOMES = {"Config": "config", "load_config": "config", "CODES": "diagnostics", "Diagnostic": "diagnostics", "Severity": "diagnostics"}
__all__ = ["CODES", "Config", "Diagnostic", "Severity", "__version__", "load_config"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.core.{home}"), name)
