"""Finding a quote in an evidence file: verified, moved, altered or not found.

Order of work, cheapest first (DESIGN §3):

1. the quote, normalized, as a literal inside the cited ranges;
2. if it has elisions (``[...]``) or insertions (``[word]``), its segments in
   order inside the cited ranges (a literal match is tried first because
   sources have brackets and ellipses of their own);
3. the same anywhere in the file: *moved*, with the lines where it is now;
4. a fuzzy alignment with rapidfuzz, near the cited lines, then in the whole
   file: *altered* when the best score reaches the threshold;
5. otherwise *not found*.
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from .anchors import Range
from .evidence import Evidence
from .normalize import Normalized, normalize

ALTERED_THRESHOLD = 80.0
NEAR_LINES = 40  # how far around the cited lines the first fuzzy pass looks
ELISION_SPAN = 20_000  # most normalized characters one [...] may stand for
INSERTION_SPAN = 80  # most characters one [word] may stand for
_MARKER = re.compile(r"\[(?:\.\.\.|[^\[\]]{1,60})\]")
_EDGE = " .,;:"
_OMISSION = "[...]"  # an omission line of the evidence, normalized


@dataclass(frozen=True, slots=True)
class Match:
    """Where a quote was found. ``status`` is one of the four outcomes."""

    status: str  # verified | moved | altered | notfound
    lines: tuple[int, int] | None = None
    score: float | None = None
    diff: str | None = None


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of a quote between elisions or insertions.

    ``gap`` is the most characters allowed between the previous segment and
    this one (0 for the first); ``bridges`` says whether that gap may cross
    an omission line (``[...]``) of the evidence: an elision may, since it
    marks an omission too, but an insertion stands for a few words and must
    not join passages that are not adjacent in the source.
    """

    variants: tuple[str, ...]  # the text with each case of its first letter
    gap: int
    bridges: bool
    # An edge glued to an elision or insertion ("[T]he", "model[s]") may
    # fall inside a source word; the others must fall on word boundaries.
    glued_start: bool = False
    glued_end: bool = False


@dataclass(frozen=True, slots=True)
class QuotePattern:
    """A quote compiled for searching: literal and segmented forms."""

    text: str
    literal: tuple[str, ...]  # the text with each case of its first letter
    segmented: tuple[Segment, ...] | None
    fuzzy_text: str


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
    """Normalize and compile a quote; None when nothing is left to match."""
    text = normalize(quote).text.strip(_EDGE)
    if not text:
        return None
    literal = _first_letter_literals(text)
    segmented = None
    if _MARKER.search(text):
        segments: list[Segment] = []
        pos = 0
        pieces = []
        for m in _MARKER.finditer(text):
            pieces.append(text[pos : m.start()])
            pieces.append(m.group())
            pos = m.end()
        pieces.append(text[pos:])
        gap, bridges = 0, True
        for k, piece in enumerate(pieces):
            if piece == "[...]":
                if segments:
                    gap, bridges = gap + ELISION_SPAN, True
            elif _MARKER.fullmatch(piece):
                if segments:
                    gap += INSERTION_SPAN
            else:
                seg = piece.strip(" ") if segments else piece.strip(_EDGE)
                if not seg:
                    continue
                # The first letter of the quote, and after an elision the
                # first letter of the next word, may change case.
                glued_start = k > 0 and not piece.startswith(" ")
                glued_end = k < len(pieces) - 1 and not piece.endswith(" ")
                segments.append(Segment(_first_letter_literals(seg), gap, bridges, glued_start, glued_end))
                gap, bridges = 0, False
        if segments:
            segmented = tuple(segments)
    fuzzy_text = _MARKER.sub(" ", text) if segmented else text
    return QuotePattern(text, literal, segmented, " ".join(fuzzy_text.split()))


def _spaced_letter(ch: str) -> bool:
    """A letter of a script that separates words with spaces.

    Chinese, Japanese, Thai and their kin write words without spaces, so a
    quote may start or stop between any two of their letters.
    """
    return ch.isalpha() and (ch < "\u0e00" or "\u1e00" <= ch < "\u2000")


def _inside(text: str, i: int) -> bool:
    """True when offset ``i`` falls inside one word or one number of ``text``."""
    if not 0 < i < len(text):
        return False
    a, b = text[i - 1], text[i]
    if a.isdigit():
        # 1,000|,000 and 2|.5 continue a number; a full stop before a space does not.
        return b.isdigit() or (b in ".," and i + 1 < len(text) and text[i + 1].isdigit())
    if b.isdigit():
        return a in ".," and i >= 2 and text[i - 2].isdigit()
    return _spaced_letter(a) and _spaced_letter(b)


def _whole_words(text: str, start: int, end: int, glued_start: bool = False, glued_end: bool = False) -> bool:
    """True when ``text[start:end]`` neither starts nor ends inside a word.

    A quote that stops inside a source word is not that word: "you can" is
    not in "you cannot", nor "0.1" in "0.15", nor "5 ms" in "2.5 ms". Letters
    after digits and digits after letters are allowed (footnote numbers:
    "bug¹" normalizes to "bug1"). A glued edge is not checked.
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


def _find_segments(segments: tuple[Segment, ...], text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Earliest span of ``text[lo:hi]`` holding the segments in order, each gap in bounds.

    A regular expression with lazy ``.{0,N}?`` gaps backtracks polynomially
    in the number of elisions (three elisions of a common phrase took 21 s
    on 1 MB). Instead, for each segment in turn we keep every occurrence that
    some chain of earlier occurrences reaches, with the earliest start of such
    a chain: a sliding window over the previous segment's ends, so the work
    is linear in the occurrences of each segment.
    """
    # A segment absent from the region fails the quote at once: checking
    # every one first (one fast scan each) spares the chain work when a quote
    # of many common segments has one that is not there at all.
    for seg in segments:
        if all(text.find(v, lo, hi) == -1 for v in seg.variants):
            return None
    first = segments[0]
    size = len(first.variants[0])
    # (end, origin) of each reachable occurrence of the current segment, by end.
    reach = [(i + size, i) for i in _occurrences(first, text, lo, hi)]
    for seg in segments[1:]:
        if not reach:
            return None
        size = len(seg.variants[0])
        region_hi = min(hi, reach[-1][0] + seg.gap + size)
        starts = _occurrences(seg, text, reach[0][0], region_hi)
        omissions = [] if seg.bridges else _omission_starts(text, reach[0][0], region_hi)
        window: deque[tuple[int, int]] = deque()  # origins increase from the left
        nxt: list[tuple[int, int]] = []
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
                nxt.append((s + size, window[0][1]))
        reach = nxt
    if not reach:
        return None
    end, origin = min(reach, key=lambda r: (r[1], r[0]))
    return origin, end


def _omission_starts(text: str, lo: int, hi: int) -> list[int]:
    """Offsets of the evidence's omission marks ``[...]`` in ``text[lo:hi]``."""
    found: list[int] = []
    i = text.find(_OMISSION, lo, hi)
    while i != -1:
        found.append(i)
        i = text.find(_OMISSION, i + 1, hi)
    return found


def find_exact(qp: QuotePattern, text: str, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """Span of the quote in ``text[lo:hi]``: literal first, then segments.

    A match must begin and end on word boundaries (see :func:`_whole_words`).
    """
    end = len(text) if hi is None else hi
    best = -1
    for variant in qp.literal:
        i = text.find(variant, lo, end)
        while i != -1 and not _whole_words(text, i, i + len(variant)):
            i = text.find(variant, i + 1, end)
        if i != -1 and (best == -1 or i < best):
            best, length = i, len(variant)
    if best != -1:
        return best, best + length
    return _find_segments(qp.segmented, text, lo, end) if qp.segmented else None


def _passage(ev: Evidence, text: str, ranges: list[Range]) -> str:
    """The normalized text of ``ranges``, in line order, as one string.

    Ranges that touch, overlap or are separated by blank lines only are one
    passage; between the others goes an omission mark, so a quote can span
    them only with an elision of its own (they are not adjacent in the source).
    """
    blocks: list[list[int]] = []
    for r in sorted(ranges, key=lambda r: (r.start, r.end)):
        if blocks and (r.start <= blocks[-1][1] + 1 or ev.is_blank(blocks[-1][1] + 1, r.start - 1)):
            blocks[-1][1] = max(blocks[-1][1], r.end)
        else:
            blocks.append([r.start, r.end])
    parts = (text[a:b].strip(" ") for a, b in (ev.norm_span(first, last) for first, last in blocks))
    return f" {_OMISSION} ".join(parts)


def _lines(ev: Evidence, norm: Normalized, span: tuple[int, int]) -> tuple[int, int]:
    assert ev.file is not None
    start, end = norm.source_span(*span)
    return ev.file.line_of(start), ev.file.line_of(max(end - 1, start))


def word_diff(quoted: str, found: str, context: int = 3) -> str:
    """A compact word diff: ``[-quoted-]{+source+}`` with a little context."""
    a, b = quoted.split(), found.split()
    out: list[str] = []
    # Compare words without their edge punctuation: a quote may end before
    # the source's full stop without that being a difference worth showing.
    keys_a = [w.strip(_EDGE) for w in a]
    keys_b = [w.strip(_EDGE) for w in b]
    ops = difflib.SequenceMatcher(a=keys_a, b=keys_b, autojunk=False).get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            words = a[i1:i2]
            if len(words) > 2 * context:
                head = words[:context] if k > 0 else []
                tail = words[-context:] if k < len(ops) - 1 else []
                words = head + ["..."] + tail
            out.extend(words)
        else:
            if i2 > i1:
                out.append("[-" + " ".join(a[i1:i2]) + "-]")
            if j2 > j1:
                out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)


def _fuzzy(qp: QuotePattern, text: str, lo: int, hi: int) -> tuple[float, tuple[int, int]] | None:
    if hi <= lo:
        return None
    from rapidfuzz import fuzz  # only quotes that failed to match pay for the import

    res = fuzz.partial_ratio_alignment(qp.fuzzy_text, text[lo:hi], score_cutoff=ALTERED_THRESHOLD)
    if res is None:
        return None
    a, b = _word_bounds(text, lo + res.dest_start, lo + res.dest_end, qp.fuzzy_text)
    if a < lo + res.dest_start or b > lo + res.dest_end:
        # Widened to a whole source word the quote cut short ("can" of
        # "cannot"): the alignment's own score (100) would hide the change.
        return fuzz.ratio(qp.fuzzy_text, text[a:b]), (a, b)
    return res.score, (a, b)


def _word_bounds(text: str, start: int, end: int, quote: str = "") -> tuple[int, int]:
    """Move a character alignment to whole words.

    rapidfuzz aligns characters, so a span may begin with the tail of the
    previous word or stop inside the next one; reporting those would point
    at the wrong lines and clutter the word diff, so such edges shrink to
    the next whole word. Except when the partial word is the quote's own
    first or last word: the quote cut a source word short, and the span
    widens to show the whole of it.
    """
    words = quote.split()
    if 0 < start < end and text[start - 1].isalnum() and text[start].isalnum():
        space = text.find(" ", start, end)
        if words and text[start : space if space != -1 else end] == words[0]:
            while start > 0 and text[start - 1].isalnum():
                start -= 1
        else:
            start = space + 1 if space != -1 else start
    while start < end and not (text[start].isalnum() or text[start] in "'(-"):
        start += 1
    if start < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        space = text.rfind(" ", start, end)
        if words and text[space + 1 : end] == words[-1]:
            while end < len(text) and text[end].isalnum():
                end += 1
        else:
            end = space if space > start else end
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


def locate(quote: str, ev: Evidence, anchors: list[list[Range]]) -> Match:
    """Find ``quote`` in ``ev`` given the footnote's anchors (lists of ranges).

    Each anchor (a comma item: one or more ranges joined with ``+``) is tried
    on its own, then all of them together, so a quote may sit in any one
    anchor or span several. The evidence file is normalized once and every
    region is a slice of it, so many quotes citing one file stay cheap.
    """
    qp = compile_quote(quote)
    if qp is None or ev.file is None:
        return Match("verified")
    total = ev.line_count
    whole = ev.whole()
    text = whole.text
    valid = [[r for r in ranges if 1 <= r.start <= r.end <= total] for ranges in anchors]
    valid = [v for v in valid if v]
    for ranges in valid:
        if len(ranges) == 1:
            if find_exact(qp, text, *ev.norm_span(ranges[0].start, ranges[0].end)):
                return Match("verified")
        elif find_exact(qp, _passage(ev, text, ranges)):
            return Match("verified")
    if len(valid) > 1 and find_exact(qp, _passage(ev, text, [r for v in valid for r in v])):
        return Match("verified")

    span = find_exact(qp, text)
    if span:
        return Match("moved", _lines(ev, whole, span))

    best: tuple[float, tuple[int, int]] | None = None
    if valid:
        lo_line = max(1, min(r.start for v in valid for r in v) - NEAR_LINES)
        hi_line = min(total, max(r.end for v in valid for r in v) + NEAR_LINES)
        best = _fuzzy(qp, text, *ev.norm_span(lo_line, hi_line))
    if best is None or best[0] < 100:
        got = _fuzzy(qp, text, 0, len(text))
        if got and (best is None or got[0] > best[0] + 1e-9):
            best = got
    if best is None:
        return Match("notfound")
    score, span = best
    found = text[span[0] : span[1]]
    return Match("altered", _lines(ev, whole, span), round(score, 1), word_diff(qp.fuzzy_text, found))
