"""SC401-SC404: evidence files: front matter, lock, and whether anything cites them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from ...core.diagnostics import Diagnostic
from ...core.textio import resolve
from ..parsing.document import local_target
from ..parsing.workspace import Workspace
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
            plain = _plain_links(ws).get(key)
            if plain:
                message = (f"evidence file is cited by no footnote cache link; {plain} links to it with a plain link, which cites no lines: "
                           "cite it in a footnote ([cache](...): L12-20) or delete it")
            else:
                message = "evidence file is cited by nothing; cite it or delete it"
            yield Diagnostic.make("SC404", ev.rel, 1, 1, message, subject=ev.rel)


def _plain_links(ws: Workspace) -> dict[Path, str]:
    """Evidence files that documents link to outside footnote cache links: resolved path -> ``doc.md:12``."""

    def compute() -> dict[Path, str]:
        out: dict[Path, str] = {}
        for path in ws.discover():
            doc = ws.load_document(path)
            for link in doc.links:
                local = local_target(link.value)
                if local is None or not local[0]:
                    continue
                target = resolve(path.parent / unquote(local[0]))
                out.setdefault(target, f"{doc.rel}:{link.line}")
        return out

    return ws.derived("plain-evidence-links", compute)


RULE = Rule("evidence", ("SC401", "SC402", "SC403", "SC404"), evidence)
