"""SC301/SC209: follow moved quotes (docs/maintaining.md, "Repairing anchors")."""

from __future__ import annotations

from pathlib import Path

from ..check.anchors import ANCHOR_LIST, Anchor, CacheLink, Range
from ..check.document import Document, FootnoteDef
from ..check.matching import locate
from ..check.report import QuoteOutcome, Report
from ..check.workspace import Workspace
from ..core.textio import resolve
from .carry import usable
from .context import FixContext
from .plan import Change, merge_spans, render_ranges


class Following(FixContext):
    """SC301 and SC209: anchors pointed at the lines where moved quotes now are."""

    def follow(self, report: Report, docs: list[Document]) -> list[Change]:
        """Point anchors at the lines where moved quotes now are."""
        real = {resolve(doc.path): doc.path for doc in docs}
        outcomes = [o for o in report.outcomes if real.get(resolve(o.doc.path)) == o.doc.path]
        changes: list[Change] = []
        for o in outcomes:
            if o.match is None or o.link is None or o.evidence is None:
                continue
            if o.match.status in ("altered", "notfound"):
                code = "SC302" if o.match.status == "altered" else "SC303"
                state = "altered" if o.match.status == "altered" else "not found"
                what = "blockquote" if o.quote.block else "quote"
                self.note(code, f"{o.doc.rel}:{o.quote.line}: {what} is {state} in {o.evidence.rel}; fix the quote by hand")
        moved = [o for o in outcomes if o.match and o.match.status == "moved" and o.link is not None]
        if not moved:
            return changes
        shifted: set[Path] = set()
        if self.wanted("SC301"):
            for key, group in _by_evidence(moved).items():
                shift = self._uniform_offset(report, outcomes, key, group)
                if shift is not None:
                    changes.extend(self._shift_all(docs, key, shift, report))
                    shifted.add(key)
        replaced: dict[int, list[tuple[int, int]]] = {}
        rewrite: dict[int, tuple[Anchor, Document, FootnoteDef]] = {}
        appended: dict[int, tuple[CacheLink, Document, FootnoteDef, list[tuple[int, int]]]] = {}
        for o in moved:
            assert o.link is not None and o.match is not None and o.evidence is not None and o.definition is not None
            if resolve(o.evidence.path) in shifted:
                continue
            lines = o.match.lines
            assert lines is not None  # a moved quote has the lines it moved to
            code = "SC301" if o.link.anchors else "SC209"
            if not self.wanted(code):
                continue
            candidates = [a for a in o.link.anchors if a.span is not None]
            if not candidates and o.link.anchors:
                self.note("SC301", f"{o.doc.rel}:{o.quote.line}: quote moved to {merge_spans([lines])} but [^{o.definition.label}] uses a #L fragment; edit it by hand")
                continue
            gone = set(replaced)
            free = [a for a in candidates if id(a) in replaced or not _relied_on(a, o.link, report, o, gone)]
            if len(free) == 1:
                target = free[0]
                replaced.setdefault(id(target), []).append(lines)
                rewrite[id(target)] = (target, o.doc, o.definition)
            else:
                entry = appended.setdefault(id(o.link), (o.link, o.doc, o.definition, []))
                entry[3].append(lines)
                if free:
                    names = ", ".join(f"{a.label} {a.render_ranges()}".strip() for a in free)
                    self.note(
                        "SC301",
                        f"{o.doc.rel}:{o.quote.line}: quote moved to {merge_spans([lines])}, added as a new anchor of "
                        f"[^{o.definition.label}]: any of {names} may be the one it left (or hold a paraphrase); remove the stale one by hand",
                    )
        for anchor_id, (anchor, doc, d) in rewrite.items():
            assert anchor.span is not None
            where = f"{doc.rel}:{d.line}: [^{d.label}]"
            changes.append(Change(resolve(doc.path), *anchor.span, merge_spans(replaced[anchor_id]), "SC301", where, d.line))
        for link, doc, d, spans in appended.values():
            changes.extend(self._append(doc, d, link, merge_spans(spans)))
        return changes

    def _append(self, doc: Document, d: FootnoteDef, link: CacheLink, new: str) -> list[Change]:
        """Add ``new`` as the last anchor of ``link`` (or as its first one)."""
        key = resolve(doc.path)
        where = f"{doc.rel}:{d.line}: [^{d.label}]"
        spans = [a.span for a in link.anchors if a.span is not None]
        if spans:
            end = max(s[1] for s in spans)
            return [Change(key, end, end, f", {new}", "SC301", where, d.line)]
        text = doc.file.text
        m = ANCHOR_LIST.match(text, link.end)
        if m is None:
            return [Change(key, link.end, link.end, f": {new}", "SC209", where, d.line)]
        if m.group("list").strip():
            self.note("SC209", f"{where}: its anchor list cannot be parsed; add {new} by hand")
            return []
        # ``: `` with nothing after it: fill the empty list, keep one space.
        return [Change(key, m.start("list"), m.end("list"), f" {new}", "SC209", where, d.line)]

    def _uniform_offset(self, report: Report, outcomes: list[QuoteOutcome], key: Path, moved: list[QuoteOutcome]) -> int | None:
        """The one offset by which every moved quote into one evidence file moved, if any.

        Offsets are those that put each moved quote back inside one of its
        anchors shifted by them. One that is shared by all moved quotes is
        used when shifting every anchor into the file by it keeps every
        anchor on usable lines and verifies every quote into the file; when
        none or several offsets qualify, quotes are followed one by one.
        """
        common: set[int] | None = None
        for o in moved:
            assert o.match is not None and o.link is not None and o.match.lines is not None
            a, b = o.match.lines
            offsets = {
                delta
                for anchor in o.link.anchors if anchor.span is not None
                for r in anchor.ranges if r.start <= r.end
                for delta in range(b - r.end, a - r.start + 1)
            }
            common = offsets if common is None else common & offsets
        ev = report.evidence.get(key)
        if not common or ev is None:
            return None
        citing = [o for o in outcomes if o.evidence is not None and resolve(o.evidence.path) == key and o.link is not None]
        links = [o.link for o in citing]
        good = []
        for delta in sorted(common - {0}, key=abs):
            moved_links = {id(link): [[Range(r.start + delta, r.end + delta) for r in a.ranges] for a in link.anchors] for link in links if link is not None}
            if not all(usable(ev, r) for ranges in moved_links.values() for anchor in ranges for r in anchor):
                continue
            if all(o.match is not None and o.match.status in ("verified", "moved") and locate(o.quote.text, ev, moved_links[id(o.link)]).status == "verified" for o in citing):
                good.append(delta)
        return good[0] if len(good) == 1 else None

    def _shift_all(self, docs: list[Document], key: Path, delta: int, report: Report) -> list[Change]:
        """Every anchor into evidence ``key``, moved by ``delta`` lines."""
        ws = Workspace(self.root, self.config)
        changes: list[Change] = []
        for doc in docs:
            for d in doc.definitions:
                for link in d.cache_links:
                    path, problem = ws.resolve_cache(doc, link)
                    if problem or path is None or resolve(path) != key:
                        continue
                    for anchor in link.anchors:
                        if anchor.span is None:
                            continue
                        new = render_ranges([Range(r.start + delta, r.end + delta) for r in anchor.ranges])
                        changes.append(Change(resolve(doc.path), *anchor.span, new, "SC301", f"{doc.rel}:{d.line}: [^{d.label}]", d.line))
        return changes


def _by_evidence(outcomes: list[QuoteOutcome]) -> dict[Path, list[QuoteOutcome]]:
    out: dict[Path, list[QuoteOutcome]] = {}
    for o in outcomes:
        if o.evidence is not None:
            out.setdefault(resolve(o.evidence.path), []).append(o)
    return out


def _relied_on(anchor: Anchor, link: CacheLink, report: Report, skip: QuoteOutcome, gone: set[int]) -> bool:
    """True when a verified quote citing ``link`` needs ``anchor``.

    It does when the quote is no longer verified by the other anchors of the
    link, less those already being rewritten (ids in ``gone``): a quote may
    rest on two anchors together, and testing ``anchor`` alone missed that.
    """
    rest = [a.ranges for a in link.anchors if a is not anchor and id(a) not in gone]
    for o in report.outcomes:
        if o is skip or o.link is not link or o.match is None or o.match.status != "verified" or o.evidence is None:
            continue
        if locate(o.quote.text, o.evidence, rest).status != "verified":
            return True
    return False
