"""Text edits: one representation and one rule for applying several to a text.

``fix``, ``bundle``, ``install`` and ``evidence adopt`` all rewrite documents
as a set of replacements computed on the original text. An :data:`Edit`
replaces ``text[start:end]`` by a string (an insertion when ``start ==
end``). They are applied in order of position; an edit overlapping one
applied before it is dropped, never merged, so the result never depends on
the order the edits were listed in beyond that tie-break.
"""

from __future__ import annotations

from collections.abc import Iterable

Edit = tuple[int, int, str]  # replace text[start:end] with the string


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with each ``(start, end, new)`` applied; an edit overlapping an earlier one is dropped.

    Edits are taken in order of ``(start, end)``, then in the order given
    (two insertions at one offset keep their order); a repeated edit is
    applied once.
    """
    out, pos = [], 0
    for start, end, new in sorted(dict.fromkeys(edits), key=lambda e: (e[0], e[1])):
        if start < pos:
            continue
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)
