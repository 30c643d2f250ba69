"""SC403: carry anchors through a diff of their evidence file (docs/maintaining.md, "Repairing anchors")."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from ..check.parsing.anchors import Anchor, CacheLink, Range
from ..check.parsing.builder import parse_document
from ..check.parsing.document import Document, FootnoteDef
from ..check.parsing.evidence import Evidence
from ..check.parsing.workspace import Workspace
from ..check.reporting.report import Report
from ..core.textio import InputError, TextFile, line_starts, resolve
from .context import FixContext
from .fragments import editable, spell
from .history import file_at, locked_version
from .plan import Change

_HEX = re.compile(r"[0-9a-f]{64}")
_ELISION = "[...]"


def line_map(old: str, new: str) -> dict[int, int]:
    """Old line number -> new line number, for lines the diff kept."""
    a, b = old.split("\n"), new.split("\n")
    mapping: dict[int, int] = {}
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                mapping[i1 + k + 1] = j1 + k + 1
    return mapping


def carry_range(r: Range, mapping: dict[int, int]) -> Range | None:
    """Map a range's ends; None when an end line did not survive or the range is reversed."""
    start, end = mapping.get(r.start), mapping.get(r.end)
    if start is None or end is None or end < start:
        return None
    return Range(start, end)


def usable(ev: Evidence, r: Range) -> bool:
    """True when lines ``r`` could hold a quoted or paraphrased passage.

    They must lie in the body and hold at least one line that is neither
    blank nor an elision line ``[...]``.
    """
    if ev.file is None or ev.front is None or not 1 <= r.start <= r.end <= ev.line_count:
        return False
    if r.start <= ev.front.end_line:
        return False
    return any(ev.file.line(n).strip() not in ("", _ELISION) for n in range(r.start, r.end + 1))


def _pair_anchors(now: list[Anchor], then: list[Anchor]) -> dict[int, Anchor]:
    """Index in ``now`` -> the anchor it was at the base revision.

    Lists of the same length pair by position; otherwise only labels that
    occur once on each side pair. Unpaired anchors are new or edited.
    """
    if len(now) == len(then):
        return dict(enumerate(then))
    count_now = Counter(a.label for a in now if a.label)
    count_then = Counter(a.label for a in then if a.label)
    by_label = {a.label: a for a in then if a.label and count_then[a.label] == 1}
    return {i: by_label[a.label] for i, a in enumerate(now) if a.label and count_now[a.label] == 1 and a.label in by_label}


def _same(a: Anchor, b: Anchor) -> bool:
    return a.label == b.label and a.ranges == b.ranges


@dataclass(slots=True)
class _Old:
    """An earlier version of one evidence file and the revision of its documents."""

    text: str
    rev: str
    why: str  # for notes: "the lock", "HEAD", "--from REV"


class Carrying(FixContext):
    """SC403: anchors carried through a diff of their evidence file."""

    def old_version(self, ev: Evidence, stale_lock: bool) -> _Old | None:
        """The earlier version to carry anchors from, or None when there is none to use."""
        if ev.file is None:
            return None
        if self.base is not None:
            text = file_at(ev.path, self.base)
            return _Old(text, self.base, f"--from {self.base}") if text is not None else None
        if stale_lock:
            found = locked_version(ev)
            if found is not None:
                return _Old(found[0], found[1], "its lock")
        text = file_at(ev.path, "HEAD")
        if text is not None:
            return _Old(text, "HEAD", "HEAD")
        if stale_lock:
            self.note(
                "SC403",
                f"{ev.rel}: body changed since its lock and it is not in git history (no locked or committed version); "
                "anchors into it were not carried (try: skillcite fix --from REV)",
            )
        return None

    def base_document(self, doc: Document, rev: str) -> Document | None:
        """``doc`` as it was at ``rev``, parsed; None when it was not there."""
        key = (resolve(doc.path), rev)
        if key not in self._base_docs:
            text = file_at(doc.path, rev)
            parsed = None
            if text is not None:
                ws = Workspace(self.root, self.config)
                try:
                    parsed = parse_document(doc.path, doc.rel, TextFile(doc.path, text, False, line_starts(text)), ws.is_cache_for(doc.path))
                except InputError:
                    parsed = None
            self._base_docs[key] = parsed
        return self._base_docs[key]

    def carry(self, report: Report, docs: list[Document]) -> list[Change]:
        """Map every anchor that still reads as written at the earlier version."""
        changes: list[Change] = []
        if not self.wanted("SC403"):
            return changes
        stale = {d.path for d in report.diagnostics if d.code == "SC403"}
        ws = Workspace(self.root, self.config)
        for key, ev in sorted(report.evidence.items()):
            if ev.file is None or ev.front is None:
                continue
            lock = str((ev.front.data or {}).get("sha256", ""))
            old = self.old_version(ev, ev.rel in stale and bool(_HEX.fullmatch(lock)))
            if old is None or old.text == ev.file.text:
                continue
            mapping = line_map(old.text, ev.file.text)
            for doc in docs:
                for d in doc.definitions:
                    for i, link in enumerate(d.cache_links):
                        path, problem = ws.resolve_cache(doc, link)
                        if problem or path is None or resolve(path) != key:
                            continue
                        then = self._base_link(doc, old.rev, d, link, i)
                        if then is None:
                            if link.anchors:
                                self.note("SC403", f"{doc.rel}:{d.line}: [^{d.label}] is not in git at {old.rev}; its anchors into {ev.rel} were not carried")
                            continue
                        paired = _pair_anchors(link.anchors, then.anchors)
                        for j, anchor in enumerate(link.anchors):
                            if j not in paired or not _same(anchor, paired[j]):
                                continue  # new, or already moved since that revision: written for today's text
                            changes.extend(self._carry_anchor(doc, d, ev, link, anchor, mapping, old))
        return changes

    def _base_link(self, doc: Document, rev: str, d: FootnoteDef, link: CacheLink, index: int) -> CacheLink | None:
        base = self.base_document(doc, rev)
        if base is None:
            return None
        then = next((x for x in base.definitions if x.label == d.label), None)
        if then is None:
            return None
        same_target = [x for x in then.cache_links if x.target == link.target]
        position = [x for x in d.cache_links if x.target == link.target].index(link)
        return same_target[position] if position < len(same_target) else None

    def _carry_anchor(self, doc: Document, d: FootnoteDef, ev: Evidence, link: CacheLink, anchor: Anchor, mapping: dict[int, int], old: _Old) -> list[Change]:
        place = editable(doc.file.text, link, anchor)
        if place is None:
            return []
        where = f"{doc.rel}:{d.line}: [^{d.label}]"
        name = f"{anchor.label} {anchor.render_ranges()}".strip()
        moved = [carry_range(r, mapping) for r in anchor.ranges]
        if any(m is None for m in moved):
            why = (
                "is reversed (SC206)" if any(r.start > r.end for r in anchor.ranges)
                else f"covers lines of {ev.rel} that were rewritten or deleted since {old.why}"
            )
            self.note("SC403", f"{where} anchor {name} {why}; re-anchor by hand", (resolve(doc.path), place[0], place[1]))
            return []
        ranges = [m for m in moved if m is not None]
        if not all(usable(ev, r) for r in ranges):
            self.note(
                "SC403", f"{where} anchor {name}: would land on blank lines, [...] or front matter of {ev.rel}; re-anchor by hand", (resolve(doc.path), place[0], place[1])
            )
            return []
        new = spell(ranges, place[2])
        if new is None or ranges == anchor.ranges:
            return []
        return [Change(resolve(doc.path), place[0], place[1], new, "SC403", where, d.line)]
