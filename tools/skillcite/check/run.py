"""``skillcite check`` as a library call: a workspace, every rule, one report."""

from __future__ import annotations

from pathlib import Path

from ..core.config import Config
from ..core.diagnostics import Diagnostic
from .report import QuoteOutcome, Report
from .rules import all_rules
from .rules.quotes import quote_outcomes
from .workspace import Workspace


def run_rules(ws: Workspace) -> Report:
    """Run every rule over ``ws`` and return the report (diagnostics sorted)."""
    diagnostics: list[Diagnostic] = []
    for rule in all_rules():
        diagnostics.extend(rule.run(ws))
    diagnostics.sort(key=Diagnostic.sort_key)
    return Report(ws.root, diagnostics, ws.checked_documents(), ws.evidence, quote_outcomes(ws))


def check(
    root: Path,
    config: Config | None = None,
    *,
    cache: bool = False,
    overrides: dict[Path, str] | None = None,
) -> Report:
    """Run the full check on ``root`` and return its :class:`Report`.

    ``cache=True`` reuses parses and normalizations from the on-disk cache
    (see :mod:`skillcite.check.cache`); results are the same either way.
    ``overrides`` checks the given text instead of the files at those
    resolved paths (``fix`` checks its result before writing).
    """
    return run_rules(Workspace(root, config, overrides, use_cache=cache))


__all__ = ["QuoteOutcome", "Report", "Workspace", "check", "run_rules"]
