"""Where an anchor's ranges are written in a document, and how to write new ones there.

Anchors in an anchor list (``: label L12-20``) carry their span; an anchor
from a GitHub fragment (``x.md#L12-L18``) does not, so its span is found in
the link's target here, and new ranges are spelled as GitHub spells them.
"""

from __future__ import annotations

import re

from ..check.parsing.anchors import LINE_RANGE, Anchor, CacheLink, Range
from .plan import render_ranges

_FRAGMENT = re.compile("#" + LINE_RANGE.pattern + r"(?=[>)\s\"])")


def editable(text: str, link: CacheLink, anchor: Anchor) -> tuple[int, int, bool] | None:
    """``(start, end, is_fragment)``: where the ranges of ``anchor`` are written; None when not found."""
    if anchor.span is not None:
        return anchor.span[0], anchor.span[1], False
    target = text.find("](", link.offset, link.end)
    m = _FRAGMENT.search(text, target if target >= 0 else link.offset, link.end)
    if m is None:
        return None
    return m.start() + 1, m.end(), True


def spell(ranges: list[Range], fragment: bool) -> str | None:
    """``ranges`` as the anchor writes them; None when a fragment cannot hold them (several ranges)."""
    if not fragment:
        return render_ranges(ranges)
    if len(ranges) != 1:
        return None
    r = ranges[0]
    return f"L{r.start}" if r.start == r.end else f"L{r.start}-L{r.end}"


def merged(spans: list[tuple[int, int]]) -> list[Range]:
    """Ranges covering ``spans``: overlapping or touching ones merged."""
    out: list[list[int]] = []
    for a, b in sorted(set(spans)):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [Range(a, b) for a, b in out]
