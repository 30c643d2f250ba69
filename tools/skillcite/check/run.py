"""``skillcite check`` as a library call: a workspace, every rule, one report."""

from __future__ import annotations

from pathlib import Path

from ..core.config import Config
from ..core.diagnostics import Diagnostic, matches_prefix
from .judging.outcome import QuoteOutcome
from .judging.suppress import find_suppressions, is_suppressed
from .judging.verdicts import quote_outcomes
from .parsing.workspace import Workspace
from .reporting.report import Report
from .rules import all_rules
from .rules.suppressions import policy_findings


def run_rules(ws: Workspace) -> Report:
    """Run every rule over ``ws`` and return the report (diagnostics sorted).

    Findings the package itself switched off, with an inline suppression
    comment or ``per_file_ignores``, are left out and counted in
    :attr:`Report.suppressed`: they are the package's declared policy, so
    ``fix`` and ``install`` see the same findings as ``check``. Then the
    findings about that policy: suppressions that suppress nothing (SC005)
    and entries of the settings' baseline that no finding has (SC006).
    """
    diagnostics: list[Diagnostic] = []
    for rule in all_rules():
        diagnostics.extend(rule.run(ws))
    kept = [d for d in diagnostics if not _switched_off(ws, d)]
    suppressed = len(diagnostics) - len(kept)
    kept.extend(policy_findings(ws, diagnostics, kept))  # SC005, SC006: about the others, so after them
    kept.sort(key=Diagnostic.sort_key)
    report = Report(ws.root, kept, ws.checked_documents(), ws.evidence, quote_outcomes(ws))
    report.suppressed = suppressed
    return report


def _switched_off(ws: Workspace, d: Diagnostic) -> bool:
    """True when ``per_file_ignores`` or an inline comment of ``d``'s file covers it."""
    if d.code == "SC009":  # a broken suppression comment is never suppressed by another
        return False
    ignored = ws.config.ignored_here(d.path)
    if ignored and matches_prefix(d.code, tuple(ignored)):
        return True
    doc = ws.documents.get(ws.real(ws.root / d.path))
    if doc is None:
        return False
    found, _problems = ws.derived(f"suppressions:{doc.rel}", lambda: find_suppressions(doc.file.text))
    return is_suppressed(d, found)


def check(
    root: Path,
    config: Config | None = None,
    *,
    cache: bool | None = None,
    overrides: dict[Path, str] | None = None,
) -> Report:
    """Run the full check on ``root`` and return its :class:`Report`.

    ``cache=True`` reuses parses and normalizations from the on-disk cache
    (see :mod:`skillcite.check.parsing.cache`); results are the same either way.
    The default, None, uses it unless it is turned off (``SKILLCITE_NO_CACHE``):
    ``fix``, ``install`` and ``stats`` check the package again and again,
    and each parse of an unchanged file is the same.
    ``overrides`` checks the given text instead of the files at those
    resolved paths (``fix`` checks its result before writing).
    """
    if cache is None:
        from .parsing.cache import enabled

        cache = enabled()
    return run_rules(Workspace(root, config, overrides, use_cache=cache))


__all__ = ["QuoteOutcome", "Report", "Workspace", "check", "run_rules"]
