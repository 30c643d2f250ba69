"""Glob matching of ``/``-separated relative paths, as the configuration's globs are read.

The globs read as gitignore-style globs do, anchored at the root: ``*``,
``?`` and ``[...]`` never cross a ``/`` (``refs/*.md`` takes ``refs/a.md``,
not ``refs/old/a.md``); ``**`` as a whole path segment matches any number
of folders, none included (``**/*.md`` takes ``SKILL.md`` and ``a/b/c.md``,
``refs/**`` everything under ``refs/``, ``a/**/b.md`` ``a/b.md`` too). A
``**`` inside a segment (``a**b``) is read as ``*``.

Its own module, importing only :mod:`re` and :mod:`functools`, so that the
result cache's warm path can match exclusions without loading the
configuration.
"""

from __future__ import annotations

import re
from functools import lru_cache


def glob_match(rel: str, pattern: str) -> bool:
    """True when the relative path ``rel`` matches ``pattern`` (see the module's docstring)."""
    return _compiled(pattern).fullmatch(rel) is not None


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    """The regular expression of one glob."""
    segments = pattern.split("/")
    out: list[str] = []
    last = len(segments) - 1
    for i, segment in enumerate(segments):
        if segment == "**":
            if i == last:
                out.append(".*")  # `a/**`: everything below a
            else:
                out.append("(?:[^/]*/)*")  # `**/`: any number of folders, none included
            continue
        out.append(_segment(segment))
        if i != last:
            out.append("/")
    return re.compile("".join(out), re.DOTALL)


def _segment(segment: str) -> str:
    """One path segment of a glob as a regular expression that never crosses ``/``."""
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        ch = segment[i]
        if ch == "*":
            while i < n and segment[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = _class_end(segment, i)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = segment[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                body = body.replace("\\", "\\\\").replace("[", "\\[")
                out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")
                i = end + 1
                continue
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _class_end(segment: str, start: int) -> int:
    """The index of the ``]`` closing the class opened at ``start``; -1 when none does (a literal ``[``)."""
    i = start + 1
    if i < len(segment) and segment[i] in "!^":
        i += 1
    if i < len(segment) and segment[i] == "]":
        i += 1  # a `]` first in the class is one of its characters
    end = segment.find("]", i)
    return end


# Names no literal glob character matches: a glob of literals, `*` and `**`
# matches these probes under a folder only when it matches every path there.
_PROBES = ("\0", "\0" * 9, "\0/\0", "\0/\0/\0")


def covers_folder(rel: str, pattern: str) -> bool:
    """True when ``pattern`` matches every path under the folder ``rel`` (so a walk may skip it).

    Exact for globs of literals, ``*`` and ``**``; a glob with ``?`` or a
    ``[...]`` class is never taken to cover a whole folder (the folder is
    walked, which is only slower).
    """
    if "?" in pattern or "[" in pattern:
        return False
    rx = _compiled(pattern)
    return all(rx.fullmatch(f"{rel}/{probe}") is not None for probe in _PROBES)
