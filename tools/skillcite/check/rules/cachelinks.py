"""SC201-SC209: cache links from footnotes to evidence files, and their line anchors."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...core.diagnostics import Diagnostic
from ..anchors import CacheLink
from ..document import Document
from ..workspace import Workspace, position
from .base import Rule

_ITEM_END = re.compile(r"[,;)\n]")


def _item_at(doc: Document, offset: int) -> str:
    """The anchor-list item written at ``offset`` (up to the next , ; or ) on its line)."""
    text = doc.file.text
    m = _ITEM_END.search(text, offset)
    return text[offset : m.start() if m else len(text)].strip()


def cache_links(ws: Workspace) -> Iterator[Diagnostic]:
    """Every cache link of every checked document."""
    for doc in ws.checked_documents():
        for d in doc.definitions:
            for link in d.cache_links:
                yield from check_cache_link(ws, doc, link)


def _missing_folders(ws: Workspace) -> str:
    """``; ... does not exist: is [tool.skillcite] evidence right?`` for configured folders that are not there."""
    missing = [ws.rel(d) for d in ws.evidence_dirs if not d.is_dir()]
    if not missing:
        return ""
    return f"; {', '.join(m + '/' for m in missing)} {'does' if len(missing) == 1 else 'do'} not exist: is [tool.skillcite] evidence right?"


def check_cache_link(ws: Workspace, doc: Document, link: CacheLink) -> Iterator[Diagnostic]:
    """Findings for one cache link: where it leads (SC201-SC203) and its anchors (SC204-SC209)."""
    rel, target = doc.rel, link.target
    line, col = position(doc, link.offset)
    path, problem = ws.resolve_cache(doc, link)
    if problem == "SC202":
        yield Diagnostic.make(
            "SC202", rel, line, col,
            f"cache link {target!r} points outside the evidence folder{'s' * (len(ws.evidence_dirs) > 1)} {', '.join(f + '/' for f in ws.config.evidence_folders)}"
            + _missing_folders(ws),
            subject=target,
        )
        return
    if problem == "SC201" or path is None:
        yield Diagnostic.make("SC201", rel, line, col, f"cache link {target!r}: no such file", subject=target)
        return
    ev = ws.load_evidence(path)
    if ev.file is None:
        yield Diagnostic.make("SC203", rel, line, col, f"cache link {target!r}: {ev.error}", subject=target)
        return
    for offset, message in link.errors:
        yield Diagnostic.make("SC204", rel, *position(doc, offset), message, subject=f"{target} {_item_at(doc, offset)}")
    if not link.anchors and not link.errors:
        yield Diagnostic.make(
            "SC209", rel, line, col, f"cache link to {target} has no line anchors (add ': L<start>-<end>')", subject=target
        )
    total = ev.line_count
    for anchor in link.anchors:
        aline, acol = position(doc, anchor.span[0] if anchor.span else anchor.offset)
        for r in anchor.ranges:
            where = f"anchor {r.render()} of {target}"
            subject = f"{target} {r.render()}"
            if r.start == 0:
                yield Diagnostic.make("SC205", rel, aline, acol, f"{where}: lines are numbered from 1", subject=subject)
            elif r.start > r.end:
                yield Diagnostic.make("SC206", rel, aline, acol, f"{where}: start is after end", subject=subject)
            elif r.end > total:
                yield Diagnostic.make("SC207", rel, aline, acol, f"{where}: the file has {total} lines", subject=subject)
            elif ev.is_blank(r.start, r.end):
                yield Diagnostic.make("SC208", rel, aline, acol, f"{where}: only blank lines", subject=subject)


RULE = Rule("cachelinks", ("SC201", "SC202", "SC203", "SC204", "SC205", "SC206", "SC207", "SC208", "SC209"), cache_links)
