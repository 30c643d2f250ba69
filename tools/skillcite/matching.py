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


@dataclass(frozen=True, slots=True)
class Match:
    """Where a quote was found. ``status`` is one of the four outcomes."""

    status: str  # verified | moved | altered | notfound
    lines: tuple[int, int] | None = None
    score: float | None = None
    diff: str | None = None


@dataclass(frozen=True, slots=True)
class QuotePattern:
    """A quote compiled for searching: literal and segmented forms."""

    text: str
    literal: tuple[str, ...]  # the text with each case of its first letter
    segmented: tuple[re.Pattern[str], ...] | None
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


def _first_letter_variants(segment: str) -> list[str]:
    """The segment as escaped regex, with both cases of its first letter."""
    for k, ch in enumerate(segment):
        if ch.isalpha():
            variants = {segment[:k] + ch.lower() + segment[k + 1 :], segment[:k] + ch.upper() + segment[k + 1 :]}
            return [re.escape(v) for v in sorted(variants)]
        if ch.isalnum():
            break
    return [re.escape(segment)]


@lru_cache(maxsize=4096)
def compile_quote(quote: str) -> QuotePattern | None:
    """Normalize and compile a quote; None when nothing is left to match."""
    text = normalize(quote).text.strip(_EDGE)
    if not text:
        return None
    literal = _first_letter_literals(text)
    segmented = None
    if _MARKER.search(text):
        parts: list[str] = []
        pos = 0
        pieces = []
        for m in _MARKER.finditer(text):
            pieces.append(text[pos : m.start()])
            pieces.append(m.group())
            pos = m.end()
        pieces.append(text[pos:])
        first_variants: list[str] | None = None
        for piece in pieces:
            if piece == "[...]":
                if parts:
                    parts.append(f".{{0,{ELISION_SPAN}}}?")
            elif _MARKER.fullmatch(piece):
                if parts:
                    parts.append(f".{{0,{INSERTION_SPAN}}}?")
            else:
                seg = piece.strip(" ")
                if not seg:
                    continue
                if first_variants is None:
                    first_variants = _first_letter_variants(seg.lstrip(_EDGE))
                    parts.append("\x00")
                else:
                    # After an elision the case of the next word may change.
                    parts.append("(?:" + "|".join(_first_letter_variants(seg)) + ")")
        while parts and parts[-1].startswith("."):
            parts.pop()
        if first_variants:
            tail = "".join(parts[1:])
            segmented = tuple(re.compile(v + tail, re.DOTALL) for v in first_variants)
    fuzzy_text = _MARKER.sub(" ", text) if segmented else text
    return QuotePattern(text, literal, segmented, " ".join(fuzzy_text.split()))


def _search(patterns: tuple[re.Pattern[str], ...], haystack: str, lo: int = 0, hi: int | None = None) -> re.Match[str] | None:
    best = None
    end = len(haystack) if hi is None else hi
    for p in patterns:
        m = p.search(haystack, lo, end)
        if m and (best is None or m.start() < best.start()):
            best = m
    return best


def find_exact(qp: QuotePattern, text: str, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """Span of the quote in ``text[lo:hi]``: literal first, then segments."""
    end = len(text) if hi is None else hi
    best = -1
    for variant in qp.literal:
        i = text.find(variant, lo, end)
        if i != -1 and (best == -1 or i < best):
            best, length = i, len(variant)
    if best != -1:
        return best, best + length
    m = _search(qp.segmented, text, lo, hi) if qp.segmented else None
    return m.span() if m else None


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
    a, b = _word_bounds(text, lo + res.dest_start, lo + res.dest_end)
    return res.score, (a, b)


def _word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a character alignment to whole words.

    rapidfuzz aligns characters, so a span may begin with the tail of the
    previous word or stop inside the next one; reporting those would point
    at the wrong lines and clutter the word diff.
    """
    if 0 < start < end and text[start - 1].isalnum() and text[start].isalnum():
        space = text.find(" ", start, end)
        start = space + 1 if space != -1 else start
    while start < end and not (text[start].isalnum() or text[start] in "'(-"):
        start += 1
    if start < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        space = text.rfind(" ", start, end)
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
        spans = [ev.norm_span(r.start, r.end) for r in ranges]
        if len(spans) == 1:
            if find_exact(qp, text, *spans[0]):
                return Match("verified")
        elif find_exact(qp, " ".join(text[a:b].strip(" ") for a, b in spans)):
            return Match("verified")
    if len(valid) > 1:
        union = sorted({r for v in valid for r in v}, key=lambda r: (r.start, r.end))
        joined = " ".join(text[a:b].strip(" ") for a, b in (ev.norm_span(r.start, r.end) for r in union))
        if find_exact(qp, joined):
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
