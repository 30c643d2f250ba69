"""The package's own policy on findings: inline suppressions that cannot work or do nothing, stale baseline entries.

SC009 is a rule like any other. SC005 and SC006 are about the other rules'
findings, so :func:`skillcite.check.run.run_rules` asks for them after every
rule ran (:func:`policy_findings`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from functools import partial

from ...core.diagnostics import Diagnostic
from ...core.textio import InputError
from ..judging.baseline import load_baseline
from ..judging.suppress import find_suppressions, is_suppressed
from ..parsing.workspace import Workspace
from .base import Rule

# Findings about the policy itself: a repair that fixes a suppressed or
# baselined finding makes them appear, and is not to be refused for it.
POLICY_CODES = frozenset({"SC005", "SC006"})


def suppressions(ws: Workspace) -> Iterator[Diagnostic]:
    """A ``<!-- skillcite: ignore ... -->`` that names no known code, or has no block after it."""
    for doc in ws.checked_documents():
        _found, problems = ws.derived(f"suppressions:{doc.rel}", partial(find_suppressions, doc.file.text))
        for line, message in problems:
            yield Diagnostic.make("SC009", doc.rel, line, 1, message, subject=doc.file.line(line).strip())


def policy_findings(ws: Workspace, raw: list[Diagnostic], kept: list[Diagnostic]) -> Iterator[Diagnostic]:
    """SC005 for each suppression no finding of ``raw`` falls under; SC006 for each entry of the settings' baseline no finding of ``kept`` has."""
    by_file: dict[str, list[Diagnostic]] = {}
    for d in raw:
        by_file.setdefault(d.path, []).append(d)
    for doc in ws.checked_documents():
        found, _problems = ws.derived(f"suppressions:{doc.rel}", partial(find_suppressions, doc.file.text))
        for s in found:
            if not any(is_suppressed(d, [s]) for d in by_file.get(doc.rel, ())):
                codes = ", ".join(s.codes)
                where = "in this file" if s.first == 1 and s.last >= doc.file.text.count("\n") else f"on lines {s.first}-{s.last}"
                message = f"suppression comment ignores {codes} but no such finding is {where}: remove it"
                yield Diagnostic.make("SC005", doc.rel, s.line, 1, message, subject=doc.file.line(s.line).strip())
    if ws.config.baseline:
        yield from _stale_baseline(ws, kept)


def _stale_baseline(ws: Workspace, kept: list[Diagnostic]) -> Iterator[Diagnostic]:
    """Entries of ``[tool.skillcite] baseline`` that no current finding has (fixed, or suppressed since)."""
    path = ws.root / ws.config.baseline
    try:
        accepted = load_baseline(path).accepted
        text = path.read_text(encoding="utf-8")
    except (InputError, OSError, UnicodeDecodeError):
        return  # the selection step reports an unreadable baseline (exit 2)
    stale = accepted - Counter(d.identity for d in kept if d.code not in POLICY_CODES)
    rel = ws.config.baseline.replace("\\", "/")
    for (code, where, subject), n in sorted(stale.items()):
        at = text.find(json.dumps(subject, ensure_ascii=False))
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        message = f"baseline entry {code} in {where} matches no finding (fixed, or suppressed since): rewrite the baseline with --write-baseline"
        for _ in range(n):
            yield Diagnostic.make("SC006", rel, line, 1, message, subject=f"{code} {where} {subject}")


RULE = Rule("suppressions", ("SC005", "SC006", "SC009"), suppressions)
