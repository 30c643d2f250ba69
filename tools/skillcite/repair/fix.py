"""``skillcite fix``: rewrite line anchors that drifted, and nothing else.

Only the anchor text inside footnote definitions changes. Each change has
the code of the finding it repairs, so ``--select``/``--ignore`` choose among
them (docs/maintaining.md, "Repairing anchors"):

SC403  **Carry through a diff.** When an evidence file's lines changed, its
       earlier version is diffed against the current one line by line and
       every anchor into it (quoted or paraphrase) is mapped to its new
       lines. The earlier version is, in order: the revision given with
       ``--from``; the version whose body the ``sha256`` lock names, found in
       git history, while the lock is stale; else the last committed version
       (``HEAD``), which covers a lock run before ``fix``. Only anchors still
       as they were written at that revision are carried (an anchor already
       moved, by hand or by an earlier run, is left alone), so a second run
       changes nothing. A range whose end lines were deleted or rewritten, or
       that would land on blank lines, ``[...]`` or the front matter, is
       reported, never guessed.
SC301  **Follow moved quotes.** A quote the check reports as *moved* gets its
       anchor pointed at the lines where it now is, when exactly one anchor
       of its cache link is free (no other quote relies on it); else the
       lines are added as a new anchor and the note names the candidates.
       When every moved quote into one evidence file moved by the same
       offset, and that offset keeps every other quote into the file
       verified, all the file's anchors move by it (paraphrases included).
SC209  A cache link without anchors gets the lines of the quotes citing it.

The result is re-checked in memory. A change after which the check reports
a finding it did not report before (compared by identity: code, file and
subject, never by message) is refused with the finding as its reason, with
every other change of the same footnote definition; the rest is kept. A
document is written only if its bytes on disk are still those ``fix`` read.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..check.anchors import Anchor, CacheLink, Range
from ..check.report import QuoteOutcome, Report
from ..check.run import check
from ..check.workspace import Workspace
from ..check.document import Document, FootnoteDef, parse_document
from ..check.evidence import Evidence, body_sha256, lock_sha256, split_front_matter
from ..check.matching import locate
from ..core.config import Config, load_config
from ..core.diagnostics import Diagnostic, matches_prefix
from ..core.textio import (
    BOM,
    InputError,
    TextFile,
    atomic_write,
    decode,
    line_starts,
    resolve,
)

HISTORY_DEPTH = 200  # commits searched for a locked evidence body
_HEX = re.compile(r"[0-9a-f]{64}")
_ELISION = "[...]"
_LIST_AFTER_LINK = re.compile(r"[ \t]*:(?P<list>[^;()\[\]\n]*)")
# tempfile.mkstemp's names: prefix, 8 characters of its alphabet, suffix.
_TEMP = "[a-z0-9_]{8}"

REPAIR_CODES = ("SC403", "SC301", "SC209")


class ChangedOnDisk(InputError):
    """A document changed between ``fix`` reading it and writing it."""


@dataclass(frozen=True, slots=True)
class Change:
    """One anchor rewrite: ``text[start:end]`` of a document becomes ``new``."""

    path: Path  # the document's resolved path
    start: int
    end: int
    new: str
    code: str  # the finding it repairs (see the module docstring)
    where: str  # "SKILL.md:12: [^src]" for messages
    group: int  # line of the footnote definition: refusals drop whole groups


@dataclass(frozen=True, slots=True)
class Refusal:
    """Changes of one footnote definition that were not made, and why."""

    where: str
    changes: tuple[str, ...]  # "L12 -> L14"
    reasons: tuple[str, ...]  # the findings they would add

    def format(self) -> str:
        """One line: where, what, why."""
        return f"{self.where}: {', '.join(self.changes)}: would add {'; '.join(self.reasons)}"


@dataclass(frozen=True, slots=True)
class Note:
    """Something ``fix`` could not repair, with the code it concerns."""

    code: str
    text: str


@dataclass(slots=True)
class FixPlan:
    """What ``fix`` would change, what it refuses, and what it could not repair."""

    root: Path
    original: dict[Path, str] = field(default_factory=dict)
    raw: dict[Path, bytes] = field(default_factory=dict)  # bytes read, compared again before writing
    bom: dict[Path, bool] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    @property
    def fixed(self) -> dict[Path, str]:
        """Each document's text with every accepted change applied."""
        out = dict(self.original)
        by_path: dict[Path, list[Change]] = {}
        for c in self.changes:
            by_path.setdefault(c.path, []).append(c)
        for path, changes in by_path.items():
            text = out[path]
            for c in sorted(changes, key=lambda c: c.start, reverse=True):
                text = text[: c.start] + c.new + text[c.end :]
            out[path] = text
        return out

    @property
    def changed(self) -> list[Path]:
        """Documents whose text would change."""
        fixed = self.fixed
        return sorted(p for p, text in fixed.items() if text != self.original[p])

    @property
    def unresolved(self) -> list[str]:
        """The notes' texts."""
        return [n.text for n in self.notes]

    @property
    def refused(self) -> list[str]:
        """The refusals, one line each."""
        return [r.format() for r in self.refusals]

    def count(self, code: str) -> int:
        """Accepted changes repairing ``code``."""
        return sum(c.code == code for c in self.changes)

    @property
    def carried(self) -> int:
        """Anchors carried through an evidence diff."""
        return self.count("SC403")

    @property
    def followed(self) -> int:
        """Anchors rewritten or added for moved quotes."""
        return self.count("SC301") + self.count("SC209")

    def diff(self) -> str:
        """A unified diff of every accepted change, paths relative to the root."""
        out: list[str] = []
        fixed = self.fixed
        root = resolve(self.root)
        for path in self.changed:
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                rel = path.as_posix()
            out.extend(
                difflib.unified_diff(
                    self.original[path].splitlines(keepends=True),
                    fixed[path].splitlines(keepends=True),
                    f"a/{rel}",
                    f"b/{rel}",
                )
            )
        return "".join(out)


def _render(ranges: list[Range]) -> str:
    return "+".join(r.render() for r in ranges)


def _merge(spans: list[tuple[int, int]]) -> str:
    """Ranges covering ``spans``: overlapping or touching ones merged."""
    merged: list[list[int]] = []
    for a, b in sorted(set(spans)):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return _render([Range(a, b) for a, b in merged])


# -- the check, as fix uses it ------------------------------------------------
def _check(root: Path, config: Config, overrides: dict[Path, str] | None = None) -> Report:
    return check(root, config, overrides=overrides)


def _identity(d: Diagnostic) -> tuple[str, ...]:
    """What a finding is about (never its message): code, file, subject."""
    return d.identity


# -- git ------------------------------------------------------------------------
def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=False)
    except OSError:
        return None


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError:
        return None


def file_at(path: Path, rev: str) -> str | None:
    """The text of ``path`` at git revision ``rev``; None when absent or not in git.

    git runs in the file's own folder with a ``./`` path: the evidence folder
    may lie outside the root (``evidence = "../ev"``).
    """
    real = resolve(path)
    done = _git(real.parent, "show", f"{rev}:./{real.name}")
    if done is None or done.returncode != 0:
        return None
    return _decode(done.stdout)


def verify_revision(root: Path, rev: str) -> None:
    """Raise :class:`InputError` unless ``rev`` names a commit of the repository at ``root``."""
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if done is None or done.returncode != 0:
        raise InputError(f"--from {rev}: not a git revision of {root}")


def locked_version(ev: Evidence) -> tuple[str, str] | None:
    """``(text, revision)`` from git history whose body matches the current lock.

    The revision is the newest one where the file still had that body: the
    documents at that revision hold the anchors written for it.
    """
    if ev.front is None or not ev.front.data:
        return None
    locked = ev.front.data.get("sha256")
    if not isinstance(locked, str):
        return None
    real = resolve(ev.path)
    log = _git(real.parent, "log", f"-n{HISTORY_DEPTH}", "--format=%H", "--", f"./{real.name}")
    if log is None or log.returncode != 0:
        return None
    commits = log.stdout.decode("ascii", "replace").split()
    for i, commit in enumerate(commits):
        text = file_at(real, commit)
        if text is None:
            continue
        tf = TextFile(Path(real.name), text, False, line_starts(text))
        fm = split_front_matter(tf)
        # A version locked before the lock covered the front matter holds its body's digest.
        if fm.end_line and locked in (lock_sha256(tf, fm), body_sha256(text, fm.body_offset)):
            return text, ("HEAD" if i == 0 else f"{commits[i - 1]}^")
    return None


# -- carrying anchors through an evidence diff ------------------------------------
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


class Fixer:
    """Builds a :class:`FixPlan` for one root."""

    def __init__(
        self,
        root: Path,
        config: Config | None = None,
        *,
        base: str | None = None,
        select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
    ) -> None:
        self.root = root
        self.config = config if config is not None else load_config(root)
        self.base = base
        self.select, self.ignore = select, ignore
        self.plan = FixPlan(root)
        self._base_docs: dict[tuple[Path, str], Document | None] = {}

    def wanted(self, code: str) -> bool:
        """True when ``--select``/``--ignore`` let ``fix`` make repairs for ``code``."""
        if self.select and not matches_prefix(code, self.select):
            return False
        return not (self.ignore and matches_prefix(code, self.ignore))

    def note(self, code: str, text: str) -> None:
        if self.wanted(code):
            self.plan.notes.append(Note(code, text))

    def check(self, changes: list[Change] | None = None) -> Report:
        saved = self.plan.changes
        if changes is not None:
            self.plan.changes = changes
        try:
            fixed = self.plan.fixed
        finally:
            self.plan.changes = saved
        overrides = {p: t for p, t in fixed.items() if t != self.plan.original[p]}
        return _check(self.root, self.config, overrides)

    def _remember(self, report: Report) -> list[Document]:
        """Read each real document once; return one document per real file.

        A symlinked document (``AGENTS.md -> SKILL.md``) is the same file
        as its target: it is edited once, through the first path found.
        """
        canonical: list[Document] = []
        for doc in report.documents:
            key = resolve(doc.path)
            if key in self.plan.original:
                continue
            raw = key.read_bytes()
            text, bom = decode(raw, key)
            if text != doc.file.text:
                raise ChangedOnDisk(f"{doc.path}: changed while fix ran; nothing written (run fix again)")
            self.plan.raw[key] = raw
            self.plan.original[key] = text
            self.plan.bom[key] = bom
            canonical.append(doc)
        return canonical

    # -- SC403: carry -----------------------------------------------------------
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
                            if any(a.span for a in link.anchors):
                                self.note("SC403", f"{doc.rel}:{d.line}: [^{d.label}] is not in git at {old.rev}; its anchors into {ev.rel} were not carried")
                            continue
                        paired = _pair_anchors(link.anchors, then.anchors)
                        for j, anchor in enumerate(link.anchors):
                            if anchor.span is None or j not in paired or not _same(anchor, paired[j]):
                                continue  # new, or already moved since that revision: written for today's text
                            changes.extend(self._carry_anchor(doc, d, ev, anchor, mapping, old))
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

    def _carry_anchor(self, doc: Document, d: FootnoteDef, ev: Evidence, anchor: Anchor, mapping: dict[int, int], old: _Old) -> list[Change]:
        assert anchor.span is not None
        where = f"{doc.rel}:{d.line}: [^{d.label}]"
        name = f"{anchor.label} {anchor.render_ranges()}".strip()
        moved = [carry_range(r, mapping) for r in anchor.ranges]
        if any(m is None for m in moved):
            why = (
                "is reversed (SC206)" if any(r.start > r.end for r in anchor.ranges)
                else f"covers lines of {ev.rel} that were rewritten or deleted since {old.why}"
            )
            self.note("SC403", f"{where} anchor {name} {why}; re-anchor by hand")
            return []
        ranges = [m for m in moved if m is not None]
        if not all(usable(ev, r) for r in ranges):
            self.note("SC403", f"{where} anchor {name}: would land on blank lines, [...] or front matter of {ev.rel}; re-anchor by hand")
            return []
        new = _render(ranges)
        if new == anchor.render_ranges():
            return []
        return [Change(resolve(doc.path), *anchor.span, new, "SC403", where, d.line)]

    # -- SC301 / SC209: follow ------------------------------------------------
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
            code = "SC301" if o.link.anchors else "SC209"
            if not self.wanted(code):
                continue
            candidates = [a for a in o.link.anchors if a.span is not None]
            if not candidates and o.link.anchors:
                self.note("SC301", f"{o.doc.rel}:{o.quote.line}: quote moved to {_merge([lines])} but [^{o.definition.label}] uses a #L fragment; edit it by hand")
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
                        f"{o.doc.rel}:{o.quote.line}: quote moved to {_merge([lines])}, added as a new anchor of "
                        f"[^{o.definition.label}]: any of {names} may be the one it left (or hold a paraphrase); remove the stale one by hand",
                    )
        for anchor_id, (anchor, doc, d) in rewrite.items():
            assert anchor.span is not None
            where = f"{doc.rel}:{d.line}: [^{d.label}]"
            changes.append(Change(resolve(doc.path), *anchor.span, _merge(replaced[anchor_id]), "SC301", where, d.line))
        for link, doc, d, spans in appended.values():
            changes.extend(self._append(doc, d, link, _merge(spans)))
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
        m = _LIST_AFTER_LINK.match(text, link.end)
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
            assert o.match is not None and o.link is not None
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
                        new = _render([Range(r.start + delta, r.end + delta) for r in anchor.ranges])
                        changes.append(Change(resolve(doc.path), *anchor.span, new, "SC301", f"{doc.rel}:{d.line}: [^{d.label}]", d.line))
        return changes

    # -- the safety net -------------------------------------------------------
    def vet(self, before: Report, changes: list[Change]) -> list[Change]:
        """Drop the changes of every definition whose result adds a finding; record why.

        Findings are compared as multisets of identities (code, file,
        subject). A new finding is laid at the door of the definition it is
        on, or of the definitions the quote it is about cites; one that
        belongs to none refuses every change left.
        """
        old = Counter(_identity(d) for d in before.diagnostics)
        kept = list(changes)
        for _ in range(len({(c.path, c.group) for c in changes}) + 1):
            if not kept:
                break
            after = self.check(kept)
            extra = Counter(_identity(d) for d in after.diagnostics) - old
            if not extra:
                break
            new = [d for d in after.diagnostics if extra[_identity(d)] > 0]
            blame: dict[tuple[Path, int], list[str]] = {}
            for d in new:
                for group in self._culprits(after, d, kept):
                    blame.setdefault(group, []).append(d.format())
            if not blame:  # nothing to lay it on: refuse everything
                reasons = [d.format() for d in new]
                blame = {(c.path, c.group): reasons for c in kept}
            for group, reasons in blame.items():
                dropped = [c for c in kept if (c.path, c.group) == group]
                if dropped:
                    self.plan.refusals.append(Refusal(dropped[0].where, tuple(_describe(self.plan.original[c.path], c) for c in dropped), tuple(dict.fromkeys(reasons))))
            kept = [c for c in kept if (c.path, c.group) not in blame]
        return kept

    def _culprits(self, report: Report, d: Diagnostic, changes: list[Change]) -> set[tuple[Path, int]]:
        groups = {(c.path, c.group) for c in changes}
        docs = [doc for doc in report.documents if doc.rel == d.path]
        out: set[tuple[Path, int]] = set()
        for doc in docs:
            key = resolve(doc.path)
            if (key, d.line) in groups:
                out.add((key, d.line))
            labels = {label for q in doc.quotes if q.line == d.line for label in q.labels}
            for fd in doc.definitions:
                if fd.label in labels and (key, fd.line) in groups:
                    out.add((key, fd.line))
        return out

    def run(self) -> FixPlan:
        before = _check(self.root, self.config)
        docs = self._remember(before)
        carried = self.carry(before, docs)
        self.plan.changes = carried
        if carried:
            middle = self.check()
            followed = [_to_original(carried, c) for c in self.follow(middle, _canonical(middle.documents))]
        else:
            followed = self.follow(before, docs)
        followed = _dedupe(followed)
        # Following a quote overrides the carried change of the same anchor.
        spans = {(c.path, c.start, c.end) for c in followed}
        merged = [c for c in carried if (c.path, c.start, c.end) not in spans] + followed
        self.plan.changes = self.vet(before, merged) if merged else []
        return self.plan


def _to_original(carried: list[Change], c: Change) -> Change:
    """``c``, computed on the text with ``carried`` applied, in the original text's offsets.

    Changes never overlap and never add lines: a span outside every carried
    change moves back by the length they added before it; the span of a
    carried anchor's new text is that anchor's original span; an insertion
    right after it goes right after the original anchor.
    """
    shift = 0
    for k in sorted((x for x in carried if x.path == c.path), key=lambda x: x.start):
        new_start = k.start + shift
        new_end = new_start + len(k.new)
        if c.start >= new_end:
            shift += len(k.new) - (k.end - k.start)
            continue
        if (c.start, c.end) == (new_start, new_end):
            return Change(c.path, k.start, k.end, c.new, c.code, c.where, c.group)
        break
    return Change(c.path, c.start - shift, c.end - shift, c.new, c.code, c.where, c.group)


def _canonical(docs: list[Document]) -> list[Document]:
    seen: set[Path] = set()
    out = []
    for doc in docs:
        key = resolve(doc.path)
        if key not in seen:
            seen.add(key)
            out.append(doc)
    return out


def _dedupe(changes: list[Change]) -> list[Change]:
    seen: set[tuple[Path, int, int]] = set()
    out = []
    for c in changes:
        if (c.path, c.start, c.end) not in seen:
            seen.add((c.path, c.start, c.end))
            out.append(c)
    return out


def _by_evidence(outcomes: list[QuoteOutcome]) -> dict[Path, list[QuoteOutcome]]:
    out: dict[Path, list[QuoteOutcome]] = {}
    for o in outcomes:
        if o.evidence is not None:
            out.setdefault(resolve(o.evidence.path), []).append(o)
    return out


def _describe(text: str, c: Change) -> str:
    old = text[c.start : c.end]
    return f"{old} -> {c.new}" if old else f"add {c.new.lstrip(',: ')}"


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


def plan_fixes(
    root: Path,
    config: Config | None = None,
    *,
    base: str | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
) -> FixPlan:
    """Work out every anchor repair under ``root`` without writing.

    ``base`` is a git revision to carry anchors from (``--from``);
    ``select``/``ignore`` are code prefixes choosing the repairs.
    """
    if base is not None:
        verify_revision(root, base)
    return Fixer(root, config, base=base, select=select, ignore=ignore).run()


def remove_stale_temps(path: Path) -> list[Path]:
    """Delete temporary files an interrupted write of ``path`` left beside it.

    :func:`~skillcite.core.textio.atomic_write` writes ``.<name>.XXXXXXXX.tmp``
    in the same folder and renames it over the target; a kill between the
    two leaves it behind. Only names of exactly that shape are removed.
    """
    pattern = re.compile(rf"\.{re.escape(path.name)}\.{_TEMP}\.tmp")
    removed = []
    try:
        names = os.listdir(path.parent)
    except OSError:
        return removed
    for name in names:
        if pattern.fullmatch(name):
            try:
                os.unlink(path.parent / name)
                removed.append(path.parent / name)
            except OSError:
                pass
    return removed


def write(plan: FixPlan) -> list[Path]:
    """Write the changed documents atomically; return their paths.

    Each file is read again just before it is replaced: if its bytes are no
    longer those the plan was made from (an editor saved it meanwhile), it
    is left alone and :class:`ChangedOnDisk` is raised after the others.
    """
    written: list[Path] = []
    moved_on: list[str] = []
    fixed = plan.fixed
    for path in plan.changed:
        remove_stale_temps(path)
        try:
            now = path.read_bytes()
        except OSError:
            now = None
        if now != plan.raw.get(path):
            moved_on.append(str(path))
            continue
        data = (BOM if plan.bom.get(path) else "") + fixed[path]
        atomic_write(path, data.encode("utf-8"))
        written.append(path)
    if moved_on:
        raise ChangedOnDisk(f"{', '.join(moved_on)}: changed while fix ran; nothing written to it (run fix again)")
    return written
