"""``skillcite fix``: rewrite line anchors that drifted, and nothing else.

Two repairs, both limited to the anchor text inside footnote definitions:

1. **Carry through a diff.** When an evidence body changed since its lock,
   the locked version is looked up in git history by its ``sha256``, the two
   versions are diffed line by line, and every anchor into that file (quoted
   or paraphrase) is mapped to its new lines. Ranges whose lines were
   deleted or rewritten cannot be carried and are reported, not guessed.
2. **Follow moved quotes.** A quote the check reports as *moved* gets its
   anchor rewritten to the lines where the quote now is, when its cache link
   has exactly one anchor that no other quote relies on; else the lines are
   added as a new anchor. With several such anchors, which one the quote
   left is a guess (the nearest is often a paraphrase's anchor shifted by the
   same edit), so none is rewritten and the note asks for a look.

The result is re-checked in memory; a result with any finding that was not
there before is refused. Writes are atomic and keep every other byte.
"""

from __future__ import annotations

import difflib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..check.anchors import Anchor, CacheLink, Range
from ..check.checker import Checker, QuoteOutcome, Report
from ..core.config import Config, load_config
from ..check.evidence import Evidence, body_sha256, lock_sha256, split_front_matter
from ..check.matching import locate
from ..core.textio import TextFile, atomic_write, line_starts, read_text

HISTORY_DEPTH = 200
_HEX = re.compile(r"[0-9a-f]{64}")  # commits searched for a locked evidence body


@dataclass(slots=True)
class Edit:
    """Replace ``text[start:end]`` of one document by ``new``."""

    start: int
    end: int
    new: str


@dataclass(slots=True)
class FixPlan:
    """What ``fix`` would change, and what it could not repair."""

    root: Path
    original: dict[Path, str] = field(default_factory=dict)
    fixed: dict[Path, str] = field(default_factory=dict)
    bom: dict[Path, bool] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    carried: int = 0
    followed: int = 0

    @property
    def changed(self) -> list[Path]:
        """Documents whose text would change."""
        return sorted(p for p, text in self.fixed.items() if text != self.original[p])

    def diff(self) -> str:
        """A unified diff of every change, paths relative to the root."""
        out: list[str] = []
        for path in self.changed:
            rel = path.relative_to(self.root.resolve()).as_posix()
            out.extend(
                difflib.unified_diff(
                    self.original[path].splitlines(keepends=True),
                    self.fixed[path].splitlines(keepends=True),
                    f"a/{rel}",
                    f"b/{rel}",
                )
            )
        return "".join(out)


def _apply(text: str, edits: list[Edit]) -> str:
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: e.start] + e.new + text[e.end :]
    return text


def _render(ranges: list[Range]) -> str:
    return "+".join(r.render() for r in ranges)


# -- 1. carrying anchors through an evidence diff ----------------------------
def locked_version(ev: Evidence) -> str | None:
    """The file text, from git history, whose body matches the current lock."""
    if ev.front is None or not ev.front.data:
        return None
    locked = ev.front.data.get("sha256")
    if not isinstance(locked, str):
        return None
    # Ask git from the file's own folder, with a ``./`` path: the evidence
    # folder may lie outside the root (``evidence = "../ev"``), where a path
    # relative to the root does not exist.
    real = ev.path.resolve()
    folder, rel = str(real.parent), f"./{real.name}"
    try:
        log = subprocess.run(
            ["git", "-C", folder, "log", f"-n{HISTORY_DEPTH}", "--format=%H", "--", rel],
            capture_output=True, text=True, check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    for commit in log:
        show = subprocess.run(["git", "-C", folder, "show", f"{commit}:{rel}"], capture_output=True)
        if show.returncode != 0:
            continue
        try:
            text = show.stdout.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            continue
        tf = TextFile(Path(rel), text, False, line_starts(text))
        fm = split_front_matter(tf)
        # A version locked before the lock covered the front matter holds its body's digest.
        if fm.end_line and locked in (lock_sha256(tf, fm), body_sha256(text, fm.body_offset)):
            return text
    return None


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
    """Map a range's ends; None when an end line did not survive the edit."""
    start, end = mapping.get(r.start), mapping.get(r.end)
    if start is None or end is None or end < start:
        return None
    return Range(start, end)


# -- 2. following moved quotes -----------------------------------------------
def _relied_on(anchor: Anchor, link: CacheLink, report: Report, skip: QuoteOutcome, gone: set[int]) -> bool:
    """True when a verified quote citing ``link`` needs ``anchor``.

    It does when the quote is no longer verified by the other anchors of the
    link, less those already being rewritten (ids in ``gone``): a quote may
    rest on two anchors together, and testing ``anchor`` alone missed that.
    """
    rest = [a.ranges for a in link.anchors if a is not anchor and id(a) not in gone]
    for o in report.outcomes:
        if o is skip or o.link is not link or o.match is None or o.match.status != "verified":
            continue
        if locate(o.quote.text, o.evidence, rest).status != "verified":
            return True
    return False


class Fixer:
    """Builds a :class:`FixPlan` for one root."""

    def __init__(self, root: Path, config: Config | None = None) -> None:
        self.root = root
        self.config = config if config is not None else load_config(root)
        self.plan = FixPlan(root)

    def check(self) -> Report:
        overrides = {p: t for p, t in self.plan.fixed.items()}
        return Checker(self.root, self.config, overrides).run()

    def _remember(self, report: Report) -> None:
        for doc in report.documents:
            key = doc.path.resolve()
            if key not in self.plan.original:
                tf = read_text(doc.path)
                self.plan.original[key] = tf.text
                self.plan.bom[key] = tf.bom
                self.plan.fixed[key] = tf.text

    def carry(self, report: Report) -> None:
        """Repair 1: map every anchor into a re-edited evidence file."""
        edits: dict[Path, list[Edit]] = {}
        stale = {d.path for d in report.diagnostics if d.code == "SC403"}
        for ev in report.evidence.values():
            if ev.rel not in stale or ev.file is None or ev.front is None or not ev.front.data:
                continue
            if not _HEX.fullmatch(str(ev.front.data.get("sha256", ""))):
                continue  # never locked: there is no earlier version to diff against
            old = locked_version(ev)
            if old is None:
                self.plan.unresolved.append(f"{ev.rel}: body changed since its lock and the locked version is not in git history; anchors into it were not carried")
                continue
            mapping = line_map(old, ev.file.text)
            checker = Checker(self.root, self.config)
            for doc in report.documents:
                for d in doc.definitions:
                    for link in d.cache_links:
                        path, problem = checker.resolve_cache(doc, link)
                        if problem or path is None or path.resolve() != ev.path.resolve():
                            continue
                        for anchor in link.anchors:
                            if anchor.span is None:
                                continue
                            moved = [carry_range(r, mapping) for r in anchor.ranges]
                            if any(m is None for m in moved):
                                self.plan.unresolved.append(f"{doc.rel}:{d.line}: [^{d.label}] anchor {anchor.render_ranges()}: lines of {ev.rel} were rewritten or deleted; re-anchor by hand")
                                continue
                            new = _render(moved)  # type: ignore[arg-type]
                            if new != anchor.render_ranges():
                                edits.setdefault(doc.path.resolve(), []).append(Edit(*anchor.span, new))
                                self.plan.carried += 1
        for path, path_edits in edits.items():
            self.plan.fixed[path] = _apply(self.plan.fixed[path], path_edits)

    def follow(self, report: Report) -> None:
        """Repair 2: point anchors at the lines where moved quotes now are."""
        edits: dict[Path, list[Edit]] = {}
        replaced: dict[int, list[tuple[int, int]]] = {}
        appended: dict[int, tuple[CacheLink, Path, list[tuple[int, int]]]] = {}
        for o in report.outcomes:
            if o.match is None or o.link is None:
                continue
            if o.match.status in ("altered", "notfound"):
                self.plan.unresolved.append(f"{o.doc.rel}:{o.quote.line}: quote is {o.match.status} in {o.evidence.rel}; fix the quote by hand")
                continue
            if o.match.status != "moved":
                continue
            lines = o.match.lines
            key = o.doc.path.resolve()
            candidates = [a for a in o.link.anchors if a.span is not None]
            if not candidates and any(a.span is None for a in o.link.anchors):
                self.plan.unresolved.append(f"{o.doc.rel}:{o.quote.line}: quote moved to L{lines[0]}-{lines[1]} but [^{o.definition.label}] uses a #L fragment; edit it by hand")
                continue
            gone = set(replaced)
            free = [a for a in candidates if id(a) in replaced or not _relied_on(a, o.link, report, o, gone)]
            if len(free) == 1:
                target = free[0]
                replaced.setdefault(id(target), []).append(lines)
                edits.setdefault(key, [])
                edits[key] = [e for e in edits[key] if e.start != target.span[0]]
                edits[key].append(Edit(*target.span, _merge(replaced[id(target)])))
            else:
                entry = appended.setdefault(id(o.link), (o.link, key, []))
                entry[2].append(lines)
                if free:
                    names = ", ".join(f"{a.label} {a.render_ranges()}".strip() for a in free)
                    self.plan.unresolved.append(
                        f"{o.doc.rel}:{o.quote.line}: quote moved to {_merge([lines])}, added as a new anchor of "
                        f"[^{o.definition.label}]: any of {names} may be the one it left (or hold a paraphrase); remove the stale one by hand"
                    )
            self.plan.followed += 1
        for link, key, spans in appended.values():
            new = _merge(spans)
            if link.anchors:
                last = max((a for a in link.anchors if a.span), key=lambda a: a.span[1])
                edits.setdefault(key, []).append(Edit(last.span[1], last.span[1], f", {new}"))
            else:
                edits.setdefault(key, []).append(Edit(link.end, link.end, f": {new}"))
        for path, path_edits in edits.items():
            self.plan.fixed[path] = _apply(self.plan.fixed[path], path_edits)

    def run(self) -> FixPlan:
        before = self.check()
        self._remember(before)
        self.carry(before)
        self.follow(self.check() if self.plan.changed else before)
        if self.plan.changed:
            after = self.check()
            old = {_identity(d) for d in before.diagnostics}
            new = [d for d in after.diagnostics if _identity(d) not in old and d.code != "SC403"]
            self.plan.refused = [d.format() for d in new]
        return self.plan


def _merge(spans: list[tuple[int, int]]) -> str:
    """Ranges covering ``spans``: overlapping or touching ones merged."""
    merged: list[list[int]] = []
    for a, b in sorted(set(spans)):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return _render([Range(a, b) for a, b in merged])


def _identity(d) -> tuple[str, str, int, str]:
    return (d.code, d.path, d.line, d.message)


def plan_fixes(root: Path, config: Config | None = None) -> FixPlan:
    """Work out every anchor repair under ``root`` without writing."""
    return Fixer(root, config).run()


def write(plan: FixPlan) -> list[Path]:
    """Write the changed documents atomically; return their paths."""
    if plan.refused:
        raise RuntimeError("refusing to write a result with new findings")
    written = []
    for path in plan.changed:
        data = ("\ufeff" if plan.bom.get(path) else "") + plan.fixed[path]
        atomic_write(path, data.encode("utf-8"))
        written.append(path)
    return written
