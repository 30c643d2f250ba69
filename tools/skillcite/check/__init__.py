"""Parsing skill documents and evidence, matching quotes, and the rules of ``skillcite check``.

:class:`~skillcite.check.parsing.workspace.Workspace` loads and resolves; the rules in
:mod:`skillcite.check.rules` yield diagnostics; :func:`check` composes them.

The names below are imported on first use: a warm check served from the
result cache (:mod:`skillcite.check.resultcache`) imports this package but
must not import the Markdown parser, YAML or the fuzzy matcher.
"""

from __future__ import annotations

from importlib import import_module

# Not typing's: a warm check pays for every module it imports, and type checkers read this name alike.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from .judging.outcome import QuoteOutcome
    from .parsing.workspace import Workspace
    from .reporting.report import Report
    from .run import check, run_rules

_HOMES = {"QuoteOutcome": "judging.outcome", "Report": "reporting.report", "check": "run", "run_rules": "run", "Workspace": "parsing.workspace"}
__all__ = ["QuoteOutcome", "Report", "Workspace", "check", "run_rules"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
