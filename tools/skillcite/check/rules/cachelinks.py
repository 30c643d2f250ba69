"""SC201-SC210: cache links from footnotes to evidence files, and their line anchors."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...core.diagnostics import Diagnostic
from ..parsing.anchors import CacheLink
from ..parsing.document import Document
from ..parsing.workspace import Workspace, position
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
        quoted = {label for q in doc.quotes for label in q.labels}
        for d in doc.definitions:
            for link in d.cache_links:
                yield from check_cache_link(ws, doc, link)
                if d.label not in quoted:
                    yield from stale_labels(ws, doc, link)


# Words too common to tell where a label points.
_COMMON = frozenset(["the", "and", "for", "with", "from", "that", "this", "into", "over", "not", "are", "was", "its", "their", "your", "you", "our", "out"])
_WORD = re.compile(r"[0-9a-z]+")


def _label_words(label: str) -> list[str]:
    return list(dict.fromkeys(w for w in _WORD.findall(label.lower()) if len(w) >= 3 and w not in _COMMON))


def stale_labels(ws: Workspace, doc: Document, link: CacheLink) -> Iterator[Diagnostic]:
    """SC210: an anchor of a footnote no quote cites, whose lines hold none of its label's words, found together elsewhere.

    No quote verifies such an anchor (a paraphrase's), so after an edit of
    the evidence only its label can tell that it points at the wrong lines:
    it does when the label has two words or more, the anchored lines hold
    none of them, and one line of the body holds them all.
    """
    path, problem = ws.resolve_cache(doc, link)
    if problem or path is None:
        return
    ev = ws.load_evidence(path)
    if ev.file is None:
        return
    total = ev.line_count
    first_body = (ev.front.end_line if ev.front is not None else 0) + 1
    lines: list[set[str]] | None = None
    for anchor in link.anchors:
        words = _label_words(anchor.label)
        ranges = [r for r in anchor.ranges if 1 <= r.start <= r.end <= total]
        if len(words) < 2 or not ranges or len(ranges) != len(anchor.ranges):
            continue  # no telling label, or a broken range SC205-SC207 report
        if lines is None:
            lines = [set(_WORD.findall(ev.file.line(n).lower())) for n in range(1, total + 1)]
        cited = {n for r in ranges for n in range(r.start, r.end + 1)}
        if any(w in lines[n - 1] for n in cited for w in words):
            continue
        there = [n for n in range(first_body, total + 1) if n not in cited and all(w in lines[n - 1] for w in words)]
        if not there:
            continue
        at = ", ".join(f"L{n}" for n in there[:3]) + (" ..." if len(there) > 3 else "")
        written = f"{anchor.label} {anchor.render_ranges()}"
        yield Diagnostic.make(
            "SC210", doc.rel, *position(doc, anchor.span[0] if anchor.span else anchor.offset),
            f"anchor {written!r} of {link.target}: its lines hold none of the label's words ({', '.join(words)}), "
            f"which are at {at}: stale after an edit of the evidence? Point it at its passage (skillcite fix --from REV carries it through git history)",
            subject=f"{link.target} {anchor.label}",
        )


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


RULE = Rule("cachelinks", ("SC201", "SC202", "SC203", "SC204", "SC205", "SC206", "SC207", "SC208", "SC209", "SC210"), cache_links)
