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
       of its cache link is free (no other quote relies on it), or when
       among several free ones a label names the quote's words, the
       evidence's line diff maps one onto the quote, or only one can hold
       nothing any more; else the lines are added as a new anchor and the
       note names the candidates. ``#L12-L18`` fragments are rewritten as
       fragments. Findings the check does not report (suppressed, ignored,
       accepted by the baseline) are left alone.
       When every moved quote into one evidence file moved by the same
       offset, and that offset keeps every other quote into the file
       verified, all the file's anchors move by it (paraphrases included).
SC209  A cache link without anchors gets the lines of the quotes citing it;
       words where the anchors go stay, as the note after ``;``.

The result is re-checked in memory. A change after which the check reports
a finding it did not report before (compared by identity: code, file and
subject, never by message) is refused with the finding as its reason, with
every other change of the same footnote definition; the rest is kept. A
document is written only if its bytes on disk are still those ``fix`` read.
"""

from __future__ import annotations

from pathlib import Path

from ..check.parsing.document import Document
from ..core.config import Config
from ..core.textio import resolve
from .carry import Carrying, carry_range, line_map, usable
from .context import run_check
from .follow import Following
from .history import HISTORY_DEPTH, file_at, locked_version, verify_revision
from .plan import REPAIR_CODES, Change, ChangedOnDisk, FixPlan, Note, Refusal
from .safety import SafetyNet
from .writing import remove_stale_temps, write

__all__ = [
    "HISTORY_DEPTH",
    "REPAIR_CODES",
    "Change",
    "ChangedOnDisk",
    "FixPlan",
    "Fixer",
    "Note",
    "Refusal",
    "carry_range",
    "file_at",
    "line_map",
    "locked_version",
    "plan_fixes",
    "remove_stale_temps",
    "usable",
    "verify_revision",
    "write",
]


class Fixer(Carrying, Following, SafetyNet):
    """Builds a :class:`FixPlan` for one root: carry (SC403), then follow (SC301/SC209), then vet."""

    def run(self) -> FixPlan:
        before = run_check(self.root, self.config)
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
        # An anchor the diff could not carry but a moved quote's lines repaired needs no hand.
        self.plan.notes = [n for n in self.plan.notes if n.about is None or n.about not in spans]
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
