"""SC301/SC209: follow moved quotes (docs/maintaining.md, "Repairing anchors")."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..check.judging.outcome import QuoteOutcome
from ..check.matching.locate import locate
from ..check.parsing.anchors import ANCHOR_LIST, Anchor, CacheLink, Range
from ..check.parsing.document import Document, FootnoteDef
from ..check.parsing.evidence import Evidence
from ..check.parsing.workspace import Workspace
from ..check.reporting.report import Report
from ..check.rules.quotes import describe
from ..core.textio import resolve
from .carry import line_map, usable
from .context import FixContext
from .fragments import editable, merged, spell
from .history import before_last_change, file_at
from .plan import Change, merge_spans


class Following(FixContext):
    """SC301 and SC209: anchors pointed at the lines where moved quotes now are."""

    def follow(self, report: Report, docs: list[Document]) -> list[Change]:
        """Point anchors at the lines where moved quotes now are."""
        real = {resolve(doc.path): doc.path for doc in docs}
        outcomes = [o for o in report.outcomes if real.get(resolve(o.doc.path)) == o.doc.path]
        # Findings the check would not report (an inline suppression, per-file ignores, select/ignore,
        # the baseline) are the package's accepted state: fix leaves them, so fix --check agrees with check --strict.
        reported = self.reported(report)
        outcomes = [o for o in outcomes if (f := describe(o)) is None or f.identity in reported]
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
        rewrite: dict[int, tuple[Anchor, CacheLink, Document, FootnoteDef]] = {}
        appended: dict[int, tuple[CacheLink, Document, FootnoteDef, list[tuple[int, int]]]] = {}
        pending: list[tuple[QuoteOutcome, list[Anchor]]] = []
        for o in moved:
            assert o.link is not None and o.match is not None and o.evidence is not None and o.definition is not None
            if resolve(o.evidence.path) in shifted:
                continue
            code = "SC301" if o.link.anchors else "SC209"
            if not self.wanted(code):
                continue
            candidates = [a for a in o.link.anchors if editable(o.doc.file.text, o.link, a) is not None]
            gone = set(replaced)
            free = [a for a in candidates if id(a) in replaced or not _relied_on(a, o.link, report, o, gone)]
            if len(free) == 1:
                assert o.match.lines is not None  # a moved quote has the lines it moved to
                replaced.setdefault(id(free[0]), []).append(o.match.lines)
                rewrite[id(free[0])] = (free[0], o.link, o.doc, o.definition)
            else:
                pending.append((o, free))
        # Several anchors are free: the one the quote left is the one its label names, the
        # one the evidence's history maps onto the quote's new lines, or the only one that
        # can hold nothing any more (past the end, blank lines). Decisive picks go first.
        while pending:
            sharing = Counter(id(o.link) for o, _ in pending)
            picks = [(o, self._pick(o, [a for a in free if id(a) not in replaced], sharing[id(o.link)] == 1)) for o, free in pending]
            decided = [(o, a) for o, a in picks if a is not None]
            if not decided:
                break
            o, anchor = decided[0]
            assert o.link is not None and o.definition is not None and o.match is not None and o.match.lines is not None
            replaced.setdefault(id(anchor), []).append(o.match.lines)
            rewrite[id(anchor)] = (anchor, o.link, o.doc, o.definition)
            pending = [(x, f) for x, f in pending if x is not o]
        for o, free in pending:
            assert o.link is not None and o.match is not None and o.definition is not None and o.match.lines is not None
            lines = o.match.lines
            entry = appended.setdefault(id(o.link), (o.link, o.doc, o.definition, []))
            entry[3].append(lines)
            if free:
                names = ", ".join(f"{a.label} {a.render_ranges()}".strip() for a in free)
                self.note(
                    "SC301",
                    f"{o.doc.rel}:{o.quote.line}: quote moved to {merge_spans([lines])}, added as a new anchor of "
                    f"[^{o.definition.label}]: any of {names} may be the one it left (no label names the quote, "
                    "the history does not tell, each could hold a paraphrase); remove the stale one by hand",
                )
        for anchor_id, (anchor, link, doc, d) in rewrite.items():
            where = f"{doc.rel}:{d.line}: [^{d.label}]"
            place = editable(doc.file.text, link, anchor)
            assert place is not None
            new = spell(merged(replaced[anchor_id]), place[2])
            if new is None:
                self.note("SC301", f"{where}: quotes moved to {merge_spans(replaced[anchor_id])}, more than a #L fragment holds; write an anchor list")
                continue
            changes.append(Change(resolve(doc.path), place[0], place[1], new, "SC301", where, d.line))
        for link, doc, d, spans in appended.values():
            changes.extend(self._append(doc, d, link, merge_spans(spans)))
        return changes

    def _pick(self, o: QuoteOutcome, free: list[Anchor], alone: bool) -> Anchor | None:
        """The one anchor of ``free`` that quote ``o`` left, when labels, history or usability tell.

        An anchor that can hold nothing any more (past the end, blank lines)
        is the one left only when ``o`` is the one quote of its link still
        without an anchor: with two, either could have left it.
        """
        if not free or o.evidence is None or o.match is None or o.match.lines is None:
            return None
        if len(free) == 1:
            return free[0]
        a, b = o.match.lines
        words = set(_words(o.quote.text))
        scores = [_label_score(x.label, words) for x in free]
        best = max(scores)
        if best >= 0.5 and scores.count(best) == 1:
            return free[scores.index(best)]
        mapping = self._history_map(o.evidence)
        if mapping is not None:
            hits = [x for x in free if any(_lands_near(r, mapping, a, b) for r in x.ranges)]
            if len(hits) == 1:
                return hits[0]
        dead = [x for x in free if not all(usable(o.evidence, r) for r in x.ranges)]
        if alone and len(dead) == 1:
            return dead[0]
        return None

    def _history_map(self, ev: Evidence) -> dict[int, int] | None:
        """Old line -> current line of ``ev`` from its last change in git (or ``--from``); None without one."""
        key = resolve(ev.path)
        if key in self._history:
            return self._history[key]
        mapping = None
        if ev.file is not None:
            now = ev.file.text
            old = file_at(ev.path, self.base) if self.base is not None else None
            if old is None or old == now:
                head = file_at(ev.path, "HEAD")
                old = head if head is not None and head != now else before_last_change(ev.path)
            if old is not None and old != now:
                mapping = line_map(old, now)
        self._history[key] = mapping
        return mapping

    def _append(self, doc: Document, d: FootnoteDef, link: CacheLink, new: str) -> list[Change]:
        """Add ``new`` as the last anchor of ``link`` (or as its first one, before words that stood in its place)."""
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
            # Words where the anchors go ("tweets 1-3 verbatim", SC204) and not one anchor: the
            # lines go first and the words become the free note after ';' (docs/citations.md), kept as written.
            words = m.group("list")
            at = m.start("list") + len(words) - len(words.lstrip())
            return [Change(key, at, at, f"{'' if at > m.start('list') else ' '}{new}; ", "SC209", where, d.line)]
        # ``: `` with nothing after it: fill the empty list, keep one space.
        return [Change(key, m.start("list"), m.end("list"), f" {new}", "SC209", where, d.line)]

    def _uniform_offset(self, report: Report, outcomes: list[QuoteOutcome], key: Path, moved: list[QuoteOutcome]) -> int | None:
        """The one offset by which every moved quote into one evidence file moved, if any.

        Offsets are those that put each moved quote back inside one of its
        anchors shifted by them (inside the one its label names, when one does). One that is shared by all moved quotes is
        used when shifting every anchor into the file by it keeps every
        anchor on usable lines and verifies every quote into the file; when
        none or several offsets qualify, quotes are followed one by one.
        """
        common: set[int] | None = None
        for o in moved:
            assert o.match is not None and o.link is not None and o.match.lines is not None
            a, b = o.match.lines
            anchors = [x for x in o.link.anchors if editable(o.doc.file.text, o.link, x) is not None]
            # A label that names the quote's words says which anchor it left: an offset that
            # would put the quote inside another one swaps the labels' lines.
            words = set(_words(o.quote.text))
            scores = [_label_score(x.label, words) for x in anchors]
            if scores and max(scores) >= 0.5 and scores.count(max(scores)) == 1:
                anchors = [anchors[scores.index(max(scores))]]
            offsets = {
                delta
                for anchor in anchors
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
                        place = editable(doc.file.text, link, anchor)
                        new = spell([Range(r.start + delta, r.end + delta) for r in anchor.ranges], place[2]) if place else None
                        if place is None or new is None:
                            continue
                        changes.append(Change(resolve(doc.path), place[0], place[1], new, "SC301", f"{doc.rel}:{d.line}: [^{d.label}]", d.line))
        return changes


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", text.lower()) if w]


def _label_score(label: str, words: set[str]) -> float:
    """The share of a label's words that the quote holds (``Always-Be-Ablating`` names "always be ablating")."""
    mine = _words(label)
    return sum(w in words for w in mine) / len(mine) if mine else 0.0


def _lands_near(r: Range, mapping: dict[int, int], a: int, b: int) -> bool:
    """True when old range ``r``, mapped through the history's line diff, overlaps lines ``a..b``.

    Lines the diff rewrote have no mapping: the range then spans from the
    nearest kept line above it to the nearest kept line below it.
    """
    inside = [mapping[n] for n in range(r.start, r.end + 1) if n in mapping]
    if inside:
        lo, hi = min(inside), max(inside)
    else:
        above = [mapping[n] for n in mapping if n < r.start]
        below = [mapping[n] for n in mapping if n > r.end]
        if not above or not below:
            return False
        lo, hi = max(above) + 1, min(below) - 1
    return lo <= b and a <= hi


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
