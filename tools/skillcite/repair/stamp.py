"""Stamping an evidence file: ``checked:`` and ``upstream_sha256:`` in its front matter.

``skillcite refresh --write`` records what it observed upstream without
touching the excerpt body, so the content lock stays valid. Every other
byte of the file is kept, and a result whose YAML would read back
differently is refused.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from ..check.evidence import split_front_matter
from ..core.textio import BOM, InputError, TextFile, atomic_write, line_starts, read_text


def set_front_matter_keys(text: str, values: dict[str, str]) -> str:
    """Set top-level ``key: value`` lines in the front matter of ``text``.

    An existing line is replaced in place, a missing one is added before the
    closing ``---`` with the block's own line ending; every other byte stays.
    """
    tf = TextFile(Path("-"), text, False, line_starts(text))
    fm = split_front_matter(tf)
    if fm.end_line == 0 or fm.data is None:
        raise InputError(fm.error or "no YAML front matter")
    head_end = tf.line_starts[fm.end_line - 1]
    head, rest = text[:head_end], text[head_end:]
    newline = "\r\n" if head.endswith("\r\n") else "\n"
    for key, value in values.items():
        line = re.compile(rf"^{re.escape(key)}:[^\r\n]*", re.MULTILINE)
        m = line.search(head)
        if m:
            head = head[: m.start()] + f"{key}: {value}" + head[m.end() :]
        else:
            head += f"{key}: {value}{newline}"
    return head + rest


def record_check(path: Path, checked: str, upstream_sha256: str) -> bool:
    """Write ``checked`` and ``upstream_sha256`` into ``path``; True if it changed.

    The body is never touched (its lock stays valid); the result is re-parsed
    and refused if the YAML would no longer read back the same.
    """
    tf = read_text(path)
    old = split_front_matter(tf)
    try:
        new_text = set_front_matter_keys(tf.text, {"checked": checked, "upstream_sha256": upstream_sha256})
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    new = split_front_matter(TextFile(path, new_text, tf.bom, line_starts(new_text)))
    expected = {**(old.data or {}), "checked": dt.date.fromisoformat(checked), "upstream_sha256": upstream_sha256}
    if new.data != expected or new_text[new.body_offset :] != tf.text[old.body_offset :]:
        raise InputError(f"{path}: refusing to write: front matter would not read back as intended")
    if new_text == tf.text:
        return False
    atomic_write(path, ((BOM if tf.bom else "") + new_text).encode("utf-8"))
    return True
