"""``skillcite lock``: record the SHA-256 of each evidence file (front matter and body) in its front matter."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..check.parsing.evidence import lock_sha256, split_front_matter
from ..core.edits import apply_edits
from ..core.frontmatter import set_key
from ..core.textio import BOM, InputError, TextFile, atomic_write, line_starts, read_text


@dataclass(frozen=True, slots=True)
class LockResult:
    """What locking one file did: ``status`` is ok, stale, or locked."""

    path: Path
    status: str
    digest: str


def relock_text(text: str) -> tuple[str, str, bool]:
    """Return ``(new_text, digest, changed)`` with the ``sha256:`` line set.

    Only the ``sha256`` line changes (or is added before the closing
    ``---``); every other byte, line endings included, is kept.
    """
    tf = TextFile(Path("-"), text, False, line_starts(text))
    fm = split_front_matter(tf)
    if fm.end_line == 0:
        raise InputError("no YAML front matter to hold the lock")
    for key, _, first in fm.duplicates[:1]:
        # YAML keeps the last of two equal keys, this function edits the first
        # sha256 line: an ambiguous file is never locked (check reports SC402).
        raise InputError(f"key {key!r} is given twice (first at line {first}); remove one, then lock")
    digest = lock_sha256(tf, fm)  # the sha256 line itself is not covered, so writing it keeps the lock
    edit = set_key(tf, fm.end_line, "sha256", digest)
    assert edit is not None  # front matter is there, and a missing key is added
    new_text = apply_edits(text, [edit])
    return new_text, digest, new_text != text


def lock_file(path: Path, write: bool = True) -> LockResult:
    """Lock one evidence file; with ``write=False`` only report staleness."""
    tf = read_text(path)
    try:
        new_text, digest, changed = relock_text(tf.text)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    if not changed:
        return LockResult(path, "ok", digest)
    if not write:
        return LockResult(path, "stale", digest)
    atomic_write(path, ((BOM if tf.bom else "") + new_text).encode("utf-8"))
    return LockResult(path, "locked", digest)
