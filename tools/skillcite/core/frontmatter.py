"""Front matter as lines: where the ``---`` block ends, where each top-level key is, and editing one key's line.

Parsing the YAML is :func:`skillcite.check.parsing.evidence.split_front_matter`'s
job; this module works on the raw lines, so that ``lock`` (the ``sha256``
line), ``install`` (a sub-skill's ``name``), the lock digest (which skips
its own lines) and the findings that point at a key all find a key the same
way: a line starting at column 0 with a YAML plain key and a colon.
"""

from __future__ import annotations

import re

from .edits import Edit
from .textio import TextFile

FENCE = re.compile(r"---[ \t]*\r?")  # a front matter delimiter line
TOP_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:")  # a top-level key at the start of a line


def closing_fence(tf: TextFile) -> int:
    """Line of the ``---`` that closes front matter opened on line 1; 0 when there is none."""
    if not tf.text.startswith("---") or not FENCE.fullmatch(tf.line(1)):
        return 0
    for number in range(2, len(tf.line_starts) + 1):
        if FENCE.fullmatch(tf.line(number)):
            return number
    return 0


def top_key(line: str) -> str | None:
    """The top-level key a front matter line starts, if it starts one."""
    m = TOP_KEY.match(line)
    return m.group(1) if m else None


def key_lines(tf: TextFile, end_line: int) -> dict[str, int]:
    """Line of the first occurrence of each top-level key in front matter closing at ``end_line``."""
    found: dict[str, int] = {}
    for number in range(2, end_line):
        key = top_key(tf.line(number))
        if key is not None:
            found.setdefault(key, number)
    return found


def set_key(tf: TextFile, end_line: int, key: str, value: str, *, add: bool = True) -> Edit | None:
    """The edit that makes ``key: value`` the line of ``key`` (its first one).

    Only that line changes (its line ending is kept); when the key is
    absent and ``add`` holds, the line is added just before the closing
    ``---``, with the line ending the block uses. None when there is no
    front matter, or the key is absent and ``add`` is false.
    """
    if end_line < 2:
        return None
    line = key_lines(tf, end_line).get(key)
    if line is not None:
        start = tf.line_starts[line - 1]
        return start, start + len(tf.line(line)), f"{key}: {value}"
    if not add:
        return None
    head_end = tf.line_starts[end_line - 1]
    newline = "\r\n" if tf.text[:head_end].endswith("\r\n") else "\n"
    return head_end, head_end, f"{key}: {value}{newline}"
