"""A quote compiled for searching, and its exact search.

A quote becomes a :class:`QuotePattern`: its literal form, and, when it
holds editorial marks (``[...]``, ``[word]``), the segments between them
with the most characters each mark may stand for. The search is a linear
scan for each segment, in order, on word boundaries.
"""


from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from ...core.textio import drop_html_comments
from ..parsing.normalize import LINE_HYPHEN, normalize
from .chars import _CJK_NEG_AFTER, _CJK_NEG_BEFORE, _EDGE, _scripted, _token_char

ELISION_SPAN = 20_000  # most normalized characters one [...] may stand for
INSERTION_SPAN = 80  # most characters one [word] may stand for
MAX_MARKS = 100  # more editorial marks than this: the quote is matched literally only
_MARKER = re.compile(r"\[(?:\.\.\.|[^\[\]]{1,60})\]")
_OMISSION = "[...]"  # an omission line of the evidence, normalized


@dataclass(frozen=True, slots=True)
class Mark:
    """The editorial marks between two segments (or before the first, after the last)."""

    elided: bool  # a [...] is among them
    inserted: str  # the text of the insertions, joined ("" for none)


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of a quote between elisions or insertions.

    ``gap`` is the most characters allowed between the previous segment and
    this one (0 for the first); ``bridges`` says whether that gap may cross
    an omission line (``[...]``) of the evidence: an elision may, since it
    marks an omission too, but an insertion stands for a few words and must
    not join passages that are not adjacent in the source. ``mark`` is what
    stands between the previous segment and this one.
    """

    variants: tuple[str, ...]  # the text with each case of its first letter
    gap: int
    bridges: bool
    # An edge glued to an insertion ("[T]he", "model[s]") may fall inside a
    # source word; the others must fall on word boundaries.
    glued_start: bool = False
    glued_end: bool = False
    mark: Mark | None = None
    written: str = ""  # the segment as the quote writes it


@dataclass(frozen=True, slots=True)
class QuotePattern:
    """A quote compiled for searching: literal and segmented forms."""

    text: str
    literal: tuple[str, ...]  # the text with each case of its first letter
    segmented: tuple[Segment, ...] | None
    fuzzy_text: str
    lead: Mark | None = None  # marks before the first segment
    tail: Mark | None = None  # marks after the last segment
    diff_text: str = ""  # as fuzzy_text, with each elision kept as [...]: a word diff shows what it cut as no change


@dataclass(frozen=True, slots=True)
class Hit:
    """A span of the evidence holding the quote; ``problem`` is a broken mark, if any."""

    start: int
    end: int
    problem: tuple[str, str] | None = None  # (code, detail)
    edits: tuple[str, ...] = ()  # departures from verbatim (see Match.edits)
    source: tuple[int, int] = (0, 0)  # the sentence(s) the quote stands for


def _first_letter_literals(text: str) -> tuple[str, ...]:
    """``text`` with its first letter in either case (plain strings, no regex).

    Literal search is the common path; ``str.find`` spares compiling one
    regular expression per quote, which dominated a cold check.
    """
    for k, ch in enumerate(text):
        if ch.isalpha():
            return tuple(sorted({text[:k] + ch.lower() + text[k + 1 :], text[:k] + ch.upper() + text[k + 1 :]}))
        if ch.isalnum():
            break
    return (text,)


@lru_cache(maxsize=4096)
def compile_quote(quote: str) -> QuotePattern | None:
    """Normalize and compile a quote; None when nothing is left to match.

    An HTML comment inside a quote is hidden from readers, so it is no
    elision there (in the evidence it is a gap): it is dropped, and the
    words on both sides must be adjacent in the source.
    """
    # The parser decoded the quote's entities already: "&amp;lt;" shows as
    # "&lt;", and a second decoding must not turn it into "<".
    text = normalize(drop_html_comments(quote, " ").replace("&", "&amp;")).text.strip(_EDGE)
    if len(text) > 2 and text[0] in "'\"" and text[-1] == text[0] and text[0] not in text[1:-1]:
        # A blockquote wrapped in quotation marks ("> "If one part ..."[^g]"):
        # the marks say it is a quote, they are not the author's.
        text = text[1:-1].strip(_EDGE)
    return _compile(text)


# A plain ellipsis the quote writes (``...``; ``…`` normalizes to it), not the
# bracketed mark: an elision too, where the source has no ellipsis there.
_BARE_ELLIPSIS = re.compile(r"(?<![\[.])\.\.\.(?![\].])")


def _compile(text: str) -> QuotePattern | None:
    """Compile normalized quote text (see :func:`compile_quote`)."""
    if not text:
        return None
    literal = _first_letter_literals(text)
    segmented = None
    lead = tail = None
    whole = text  # the literal form; the segmented one reads a plain ellipsis as [...]
    if "..." in text:
        text = " ".join(_BARE_ELLIPSIS.sub(" [...] ", text).split()).strip(_EDGE)
    markers = list(_MARKER.finditer(text)) if "[" in text else []
    if markers and len(markers) <= MAX_MARKS:
        pieces: list[str] = []
        pos = 0
        for m in markers:
            pieces.append(text[pos : m.start()])
            pieces.append(m.group())
            pos = m.end()
        pieces.append(text[pos:])
        segments: list[Segment] = []
        gap, bridges, elided, inserted = 0, True, False, []
        for k, piece in enumerate(pieces):
            if piece == "[...]":
                elided = True
                if segments:
                    gap, bridges = gap + ELISION_SPAN, True
            elif _MARKER.fullmatch(piece):
                inserted.append(piece[1:-1])
                if segments:
                    gap += INSERTION_SPAN
            else:
                seg = piece.strip(" ") if segments else piece.strip(_EDGE)
                if not seg:
                    continue
                mark = Mark(elided, " ".join(inserted)) if (elided or inserted) else None
                # Only an insertion may glue to a word ("[T]he", "model[s]").
                glued_start = k > 0 and not piece.startswith(" ") and pieces[k - 1] != "[...]"
                glued_end = k < len(pieces) - 1 and not piece.endswith(" ") and pieces[k + 1] != "[...]"
                if segments:
                    segments.append(Segment(_first_letter_literals(seg), gap, bridges, glued_start, glued_end, mark, seg))
                else:
                    lead = mark
                    segments.append(Segment(_first_letter_literals(seg), gap, bridges, glued_start, glued_end, None, seg))
                gap, bridges, elided, inserted = 0, False, False, []
        if segments:
            segmented = tuple(segments)
            if inserted or elided:
                tail = Mark(elided, " ".join(inserted))
    fuzzy_text = _MARKER.sub(" ", text) if segmented else whole
    diff_text = _MARKER.sub(lambda m: " [...] " if m.group() == "[...]" else " ", text) if segmented else whole
    return QuotePattern(whole, literal, segmented, " ".join(fuzzy_text.split()), lead, tail, " ".join(diff_text.split()))


def _inside(text: str, i: int) -> bool:
    """True when offset ``i`` falls inside one token of ``text``.

    Tokens are words and numbers as a reader takes them: ``can't``,
    ``non-convex``, ``3e-4``, ``10k``, ``1/10``, ``-3``, ``resnet50``,
    ``1,000`` and ``2.5`` are one token each. A superscript or subscript
    after a word (a footnote mark, ``bug¹``) starts a new token; after a
    digit or a lone letter (``10⁶``, ``σ²``, ``x₁``) it is part of the token. In scripts without spaces a boundary may fall anywhere, except
    right after a Chinese negation or right before a Japanese one.
    """
    if not 0 < i < len(text):
        return False
    a, b = text[i - 1], text[i]
    if _scripted(b) and not _scripted(a):
        # After a digit (10⁶) or a lone letter (σ², x₁) it is an exponent or
        # an index, part of the token; after a word it is a footnote mark.
        return a.isdigit() or (a.isalpha() and not (i >= 2 and text[i - 2].isalnum()))
    if _scripted(a) and not _scripted(b):
        return False
    if _token_char(a) and _token_char(b):
        return True
    nxt = text[i + 1] if i + 1 < len(text) else ""
    prev = text[i - 2] if i >= 2 else ""
    if b == LINE_HYPHEN or (a == " " and prev == LINE_HYPHEN):
        return True  # dis|- tributions, dis- |tributions: one word broken at a line end
    if _token_char(a) and b in "'-/" and _token_char(nxt):
        return True  # can|'t, non|-convex, 3e|-4, 1|/10
    if a in "'-/" and _token_char(b) and _token_char(prev):
        return True  # can'|t, non-|convex, 1/|10
    if a.isdigit() and b in ".," and nxt.isdigit():
        return True  # 1|,000 and 2|.5; a full stop before a space is not
    if b.isdigit() and a in ".," and prev.isdigit():
        return True
    if a == "-" and b.isdigit() and (not prev or prev in " ([{'"):
        return True  # -|3: the minus belongs to the number
    if a in _CJK_NEG_BEFORE and b.isalpha():
        return True
    return a.isalpha() and text.startswith(_CJK_NEG_AFTER, i)


def _whole_words(text: str, start: int, end: int, glued_start: bool = False, glued_end: bool = False) -> bool:
    """True when ``text[start:end]`` neither starts nor ends inside a token.

    A quote that stops inside a source token is not that token: "you can" is
    not in "you can't", nor "0.1" in "0.15", nor "convex" in "non-convex",
    nor "50" in "resnet50". A glued edge is not checked here (the editorial
    policy checks it).
    """
    if not glued_start and _inside(text, start):
        return False
    return glued_end or not _inside(text, end)


def _occurrences(seg: Segment, text: str, lo: int, hi: int) -> list[int]:
    """Start offsets of the segment in ``text[lo:hi]``, overlaps included, ascending."""
    found: list[int] = []
    for v in seg.variants:
        n = len(v)
        i = text.find(v, lo, hi)
        while i != -1:
            if _whole_words(text, i, i + n, seg.glued_start, seg.glued_end):
                found.append(i)
            i = text.find(v, i + 1, hi)
    found.sort()
    return found


# A chain link: (start, end, previous link) of one segment's occurrence.
_Link = tuple[int, int, "_Link | None"]


def _find_segments(segments: tuple[Segment, ...], text: str, lo: int, hi: int) -> list[tuple[int, int]] | None:
    """Earliest chain of ``text[lo:hi]`` holding the segments in order, each gap in bounds.

    Returns the span of each segment. A regular expression with lazy
    ``.{0,N}?`` gaps backtracks polynomially in the number of elisions
    (three elisions of a common phrase took 21 s on 1 MB). Instead, for each
    segment in turn we keep every occurrence that some chain of earlier
    occurrences reaches, with the earliest start of such a chain: a sliding
    window over the previous segment's ends, so the work is linear in the
    occurrences of each segment.
    """
    # A segment absent from the region fails the quote at once: checking
    # every one first (one fast scan each) spares the chain work when a quote
    # of many common segments has one that is not there at all.
    for seg in segments:
        if all(text.find(v, lo, hi) == -1 for v in seg.variants):
            return None
    first = segments[0]
    size = len(first.variants[0])
    # (end, origin, link) of each reachable occurrence of the current segment, by end.
    reach: list[tuple[int, int, _Link]] = [(i + size, i, (i, i + size, None)) for i in _occurrences(first, text, lo, hi)]
    for seg in segments[1:]:
        if not reach:
            return None
        size = len(seg.variants[0])
        region_hi = min(hi, reach[-1][0] + seg.gap + size)
        starts = _occurrences(seg, text, reach[0][0], region_hi)
        omissions = [] if seg.bridges else _omission_starts(text, reach[0][0], region_hi)
        window: deque[tuple[int, int, _Link]] = deque()  # origins increase from the left
        nxt: list[tuple[int, int, _Link]] = []
        j = k = 0
        floor_omission = -1
        for s in starts:
            while j < len(reach) and reach[j][0] <= s:
                while window and window[-1][1] >= reach[j][1]:
                    window.pop()
                window.append(reach[j])
                j += 1
            while k < len(omissions) and omissions[k] + len(_OMISSION) <= s:
                floor_omission = omissions[k] + 1
                k += 1
            floor = max(s - seg.gap, floor_omission)
            while window and window[0][0] < floor:
                window.popleft()
            if window:
                nxt.append((s + size, window[0][1], (s, s + size, window[0][2])))
        reach = nxt
    if not reach:
        return None
    link: _Link | None = min(reach, key=lambda r: (r[1], r[0]))[2]
    spans: list[tuple[int, int]] = []
    while link is not None:
        spans.append((link[0], link[1]))
        link = link[2]
    return spans[::-1]


def _omission_starts(text: str, lo: int, hi: int) -> list[int]:
    """Offsets of the evidence's omission marks ``[...]`` in ``text[lo:hi]``."""
    found: list[int] = []
    i = text.find(_OMISSION, lo, hi)
    while i != -1:
        found.append(i)
        i = text.find(_OMISSION, i + 1, hi)
    return found
