"""SC401-SC404: evidence files: front matter, lock, and whether anything cites them."""

from __future__ import annotations

from collections.abc import Iterator

from ...core.diagnostics import Diagnostic
from ..workspace import Workspace
from .base import Rule


def evidence(ws: Workspace) -> Iterator[Diagnostic]:
    """Front matter and lock of every evidence file (SC401-SC403); uncited files (SC404)."""
    cited = ws.cited()
    for path in cited.values():
        ws.load_evidence(path)  # a cited file is validated even where the folder listing skips it
    for key, ev in sorted(ws.all_evidence().items()):
        for code, line, message, subject in ev.validate():
            yield Diagnostic.make(code, ev.rel, line, 1, message, subject=subject)
        if key not in cited and ws.in_evidence_dir(key):
            yield Diagnostic.make("SC404", ev.rel, 1, 1, "evidence file is cited by nothing; cite it or delete it", subject=ev.rel)


RULE = Rule("evidence", ("SC401", "SC402", "SC403", "SC404"), evidence)
