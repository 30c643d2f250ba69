"""What ``skillcite fix`` would change: changes, refusals, notes, and the plan that holds them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from ..check.parsing.anchors import Range
from ..core.edits import Edit, apply_edits
from ..core.textio import InputError, resolve

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

    @property
    def edit(self) -> Edit:
        """The text edit this change makes in its document."""
        return self.start, self.end, self.new


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
    about: tuple[Path, int, int] | None = None  # the anchor's span, when the note is about one anchor


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
    awaiting: list[str] = field(default_factory=list)  # SC313 of quotes placed by the changes: for ``review``

    @property
    def fixed(self) -> dict[Path, str]:
        """Each document's text with every accepted change applied."""
        out = dict(self.original)
        by_path: dict[Path, list[Change]] = {}
        for c in self.changes:
            by_path.setdefault(c.path, []).append(c)
        for path, changes in by_path.items():
            out[path] = apply_edits(out[path], (c.edit for c in changes))
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


def render_ranges(ranges: list[Range]) -> str:
    """Ranges as an anchor spells them: ``L12-14+L20``."""
    return "+".join(r.render() for r in ranges)


def merge_spans(spans: list[tuple[int, int]]) -> str:
    """Ranges covering ``spans``: overlapping or touching ones merged."""
    merged: list[list[int]] = []
    for a, b in sorted(set(spans)):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return render_ranges([Range(a, b) for a, b in merged])
