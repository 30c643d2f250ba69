"""Finding a quote in an evidence file: verified, moved, altered or not found.

Order of work, cheapest first (docs/citations.md):

1. the quote, normalized, as a literal inside the cited ranges, first in a
   narrow stretch of whole blocks around them
   (:meth:`~skillcite.check.parsing.evidence.Evidence.narrow`, which reads as the
   whole file does there), so a file that is mostly never quoted is not
   parsed and normalized whole when its quotes are where they say;
2. if it has elisions (``[...]``) or insertions (``[word]``), its segments in
   order inside the cited ranges (a literal match is tried first because
   sources have brackets and ellipses of their own), and what each mark
   stands for is checked against the editorial policy: a mark that drops or
   adds a negation or changes a number, or an insertion that replaces
   nothing or sits inside a word, is a finding of its own (*marks*);
3. the same anywhere in the file: *moved*, with the lines where it is now;
4. a fuzzy alignment with rapidfuzz, near the cited lines, then in the whole
   file: *altered* when the best score reaches the threshold;
5. otherwise *not found*, with the closest stretch of the file (where, and
   how many of the quote's words it holds).

Every step is bounded so that no quote makes a check slower than linear in
the evidence's size: literal and segment search are linear scans; the
character-level fuzzy pass runs on the whole region only for quotes of at
most :data:`~skillcite.check.matching.nearest.FUZZY_FULL` characters, and longer quotes are aligned inside one
window the word count picked; quotes over :data:`~skillcite.check.matching.nearest.FUZZY_CAP` characters, or
with more than :data:`~skillcite.check.matching.pattern.MAX_MARKS` editorial marks, skip the costly step.
"""


from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from ..parsing.anchors import Range, cited_span, valid_anchors
from ..parsing.evidence import Evidence
from ..parsing.normalize import Normalized
from ..parsing.sentences import frames_section
from .chars import _EDGE
from .diff import word_diff
from .marks import _clip, find_exact
from .nearest import _closest, _context, _fuzzy, _one_word_changed
from .pattern import _OMISSION, Hit, QuotePattern, _compile, compile_quote
from .variants import _footnote_marked, _pdf_hyphenated, _unhyphenated, is_pdf

NEAR_LINES = 40  # how far around the cited lines the first fuzzy pass looks


# The outcomes of matching one quote, best first (check/judging/outcome.py ranks them).
Status = Literal["verified", "moved", "marks", "altered", "notfound", "notes"]


@dataclass(frozen=True, slots=True)
class Match:
    """Where a quote was found. ``status`` is one of the outcomes (:data:`Status`).

    ``verified``, ``moved``, ``altered``, ``notfound``, or ``marks`` (found,
    but an editorial mark breaks the policy: ``code`` and ``detail`` say how);
    ``notes`` is set by the quote rule, without matching, for evidence of kind
    ``notes`` (SC306).
    For ``notfound``, ``lines`` and ``score`` describe the closest stretch
    (``score`` is then the number of the quote's words it holds, of ``words``).
    """

    status: Status
    lines: tuple[int, int] | None = None
    score: float | None = None
    diff: str | None = None
    code: str | None = None
    detail: str | None = None
    words: int | None = None
    # Departures from verbatim of a found quote (verified or marks): each
    # says what a reviewer must judge; empty for a verbatim quote.
    edits: tuple[str, ...] = ()
    source: str = ""  # the sentence(s) of the evidence the quote stands for, normalized
    marked: str = ""  # the quote against that source, the departures marked ([-quote-]{+source+})


def _passage(ev: Evidence, norm: Normalized, ranges: list[Range]) -> tuple[str, list[tuple[int, int]]]:
    """The normalized text of ``ranges``, in line order, as one string.

    Ranges that touch, overlap or are separated by blank lines only are one
    passage; between the others goes an omission mark, so a quote can span
    them only with an elision of its own (they are not adjacent in the source).
    Also returns, for each part, its offset in the passage and in ``text``.
    """
    blocks: list[list[int]] = []
    for r in sorted(ranges, key=lambda r: (r.start, r.end)):
        if blocks and (r.start <= blocks[-1][1] + 1 or ev.is_blank(blocks[-1][1] + 1, r.start - 1)):
            blocks[-1][1] = max(blocks[-1][1], r.end)
        else:
            blocks.append([r.start, r.end])
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    size = 0
    sep = f" {_OMISSION} "
    text = norm.text
    for first, last in blocks:
        a, b = _norm_span(ev, norm, first, last)
        piece = text[a:b]
        stripped = piece.lstrip(" ")
        a += len(piece) - len(stripped)
        piece = stripped.rstrip(" ")
        if parts:
            size += len(sep)
        offsets.append((size, a))
        parts.append(piece)
        size += len(piece)
    return sep.join(parts), offsets


def _passage_lines(ev: Evidence, norm: Normalized, offsets: list[tuple[int, int]], hit: Hit) -> tuple[int, int]:
    """Lines of a hit in a passage built by :func:`_passage`."""

    def back(i: int) -> int:
        base = max((o for o in offsets if o[0] <= i), default=offsets[0])
        return base[1] + (i - base[0])

    return _lines(ev, norm, (back(hit.start), back(max(hit.end - 1, hit.start)) + 1))


def _norm_span(ev: Evidence, norm: Normalized, first: int, last: int) -> tuple[int, int]:
    """Bounds in ``norm`` (the whole file or a narrow stretch of it) of lines ``first..last``."""
    assert ev.file is not None
    start, end = ev.file.line_span(first, last)
    return norm.from_source(start), norm.from_source(end)


def _lines(ev: Evidence, norm: Normalized, span: tuple[int, int]) -> tuple[int, int]:
    assert ev.file is not None
    start, end = norm.source_span(*span)
    return ev.file.line_of(start), ev.file.line_of(max(end - 1, start))


def locate(quote: str, ev: Evidence, anchors: list[list[Range]]) -> Match:
    """Find ``quote`` in ``ev`` given the footnote's anchors (lists of ranges).

    Each anchor (a comma item: one or more ranges joined with ``+``) is tried
    on its own, then all of them together, so a quote may sit in any one
    anchor or span several. The cited lines are tried first in a narrow
    stretch around them; past that, the evidence file is normalized once
    and every region is a slice of it, so many quotes citing one file stay
    cheap.
    """
    qp = compile_quote(quote)
    if qp is None or ev.file is None:
        return Match("verified")
    valid = valid_anchors(anchors, ev.line_count)
    span = cited_span(valid)
    if span is not None:
        # The common case, cheaply: the quote at its cited lines, in a narrow
        # stretch around them that reads as the whole file does there.
        stretch = ev.narrow(*span)
        if stretch is not None:
            found = _at_cited(qp, ev, stretch, valid)
            if found is not None:
                return found
    whole = ev.whole()
    text = whole.text
    found = _exact(qp, ev, whole, valid)
    if found is None:
        joined = _unhyphenated(qp, ev.file.text)
        if joined is not None:
            found = _exact(joined, ev, whole, valid)
    if found is None and is_pdf(ev):
        for joined in _pdf_hyphenated(qp, text):
            found = _exact(joined, ev, whole, valid)
            if found is not None:
                break
    if found is None:
        marked = _footnote_marked(qp, text)
        if marked is not None:
            found = _exact(marked, ev, whole, valid)
    if found is None:
        found = _transliterated(qp, ev, whole, valid)
    if found is not None:
        return found

    best: tuple[float, tuple[int, int]] | None = None
    if span is not None:
        lo_line, hi_line = max(1, span[0] - NEAR_LINES), min(ev.line_count, span[1] + NEAR_LINES)
        best = _fuzzy(qp, text, *_norm_span(ev, whole, lo_line, hi_line))
    if best is None or best[0] < 100:
        got = _fuzzy(qp, text, 0, len(text))
        if got and (best is None or got[0] > best[0] + 1e-9):
            best = got
    if best is None and span is not None:
        # A short quote with one word changed scores below the threshold
        # (one word of five is a fifth of its characters): altered, at the
        # cited lines, with the changed word, rather than not found.
        best = _one_word_changed(qp.fuzzy_text, text, *_norm_span(ev, whole, *span))
    if best is None:
        near = _closest(qp.fuzzy_text, text, 0, len(text))
        if near is None:
            return Match("notfound", words=len(qp.fuzzy_text.split()))
        start, end, held, size = near
        return Match("notfound", _lines(ev, whole, (start, end)), float(held), text[start:end], words=size)
    score, span = best
    # The alignment is as long as the quote's words; an elision's cut words lie inside it, so the
    # source past its end is what the quote's last words face: widen the window by a stretch per [...].
    cuts = (qp.diff_text or "").split().count("[...]")
    around = _context(text, span[0], span[1], words=2 + min(60 * cuts, 240))
    keys = {w.strip(_EDGE) for w in qp.fuzzy_text.split()}
    if any(w.strip(_EDGE) in keys for w in around.split()):
        diff = word_diff(qp.diff_text or qp.fuzzy_text, around, trim=True, shown=quote)
    else:
        diff = word_diff(qp.diff_text or qp.fuzzy_text, text[span[0] : span[1]], shown=quote)  # no word in common: the aligned stretch alone
    return Match("altered", _lines(ev, whole, span), round(score, 1), diff)


def _exact(qp: QuotePattern, ev: Evidence, whole: Normalized, valid: list[list[Range]]) -> Match | None:
    """Verified, moved or marks when the quote is in the file as written; None otherwise.

    At the cited lines a verbatim hit wins over one with departures from
    verbatim, and that over one whose marks break the editorial policy.
    """
    best = _at_cited(qp, ev, whole, valid)
    if best is not None:
        return best
    text = whole.text
    hit = find_exact(qp, text)
    if hit:
        lines = _lines(ev, whole, (hit.start, hit.end))
        found = _found(qp, _framed(ev, hit, lines[0]), text, lines)
        return found if found.status == "marks" else Match("moved", lines, edits=found.edits, source=found.source, marked=found.marked)
    return None


def _at_cited(qp: QuotePattern, ev: Evidence, norm: Normalized, valid: list[list[Range]]) -> Match | None:
    """The best match at the cited lines, in ``norm`` (the whole file or a stretch holding them); None if none.

    A verbatim hit wins over one with departures from verbatim, and that
    over one whose marks break the editorial policy.
    """
    text = norm.text
    best: Match | None = None
    tries: list[list[Range]] = list(valid)
    if len(valid) > 1:
        tries.append([r for v in valid for r in v])
    for ranges in tries:
        if len(ranges) == 1:
            lo, hi = _norm_span(ev, norm, ranges[0].start, ranges[0].end)
            hit = find_exact(qp, text, lo, hi, _context_span(ev, norm, ranges[0].start, ranges[0].end))
            lines = _lines(ev, norm, (hit.start, hit.end)) if hit else (0, 0)
            found = _found(qp, _framed(ev, hit, lines[0]), text, lines) if hit else None
        else:
            passage, offsets = _passage(ev, norm, ranges)
            hit = find_exact(qp, passage)
            lines = _passage_lines(ev, norm, offsets, hit) if hit else (0, 0)
            found = _found(qp, _framed(ev, hit, lines[0]), passage, lines) if hit else None
        if found is not None and (best is None or _quality(found) < _quality(best)):
            best = found
            if _quality(best) == (False, False):
                return best
    return best


# How far the context of a quote is read in the raw evidence lines: its
# paragraph, the next one, and the nearest heading above (bounded, so a
# file of one endless paragraph costs no more than this per quote).
_CONTEXT_LINES = 60
_NON_SPACE = re.compile(r"\S")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*)")  # the closing #s are stripped apart: no backtracking


def _body_first_line(ev: Evidence) -> int:
    assert ev.file is not None
    return ev.file.line_of(ev.front.body_offset) if ev.front is not None and ev.front.end_line else 1


def _context_span(ev: Evidence, norm: Normalized, first: int, last: int) -> tuple[int, int]:
    """Bounds in ``norm`` of the context read around lines ``first..last``: from their paragraph's start to the end of the next paragraph.

    Paragraphs are runs of non-blank lines of the evidence file; the
    narrow stretch holds whole blocks around the cited lines and one
    block after them, so it reads the same context as the whole file.
    """
    assert ev.file is not None
    file = ev.file

    def is_blank(number: int) -> bool:
        # The first non-space character answers: a long line costs no more than a short one.
        a, b = file.line_span(number, number)
        return _NON_SPACE.search(file.text, a, b) is None

    top = _body_first_line(ev)
    start = first
    while start > top and first - start < _CONTEXT_LINES and not is_blank(start - 1):
        start -= 1
    end, total, seen_blank = last, ev.line_count, False
    while end < total and end - last < _CONTEXT_LINES:
        blank = is_blank(end + 1)
        if blank and seen_blank and not is_blank(end):
            break  # the end of the paragraph after the quote's
        seen_blank = seen_blank or blank
        end += 1
    return _norm_span(ev, norm, start, end)


def _section_heading(ev: Evidence, line: int) -> str | None:
    """The text of the nearest Markdown heading above ``line`` in the evidence body, outside code fences (None when there is none)."""
    assert ev.file is not None
    numbers, texts = _headings(ev.file.text, _body_first_line(ev))
    k = bisect_right(numbers, line - 1) - 1  # strictly above: a heading the quote is in does not frame itself
    return texts[k] if k >= 0 else None


@lru_cache(maxsize=16)
def _headings(text: str, top: int) -> tuple[list[int], list[str]]:
    """Line numbers and texts of the ATX headings of ``text`` from line ``top`` on, skipping fenced code (once per file)."""
    numbers: list[int] = []
    texts: list[str] = []
    fence = ""
    for number, line in enumerate(text.split("\n")[top - 1 :], start=top):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            continue
        opener = _FENCE.match(line)
        if opener:
            fence = opener.group(1)
            continue
        m = _ATX_HEADING.match(line.rstrip("\r"))
        if m:
            numbers.append(number)
            texts.append(m.group(2).rstrip(" \t#"))
    return numbers, texts


def _framed(ev: Evidence, hit: Hit, line: int) -> Hit:
    """``hit`` with one more departure when the heading of its section frames it ("What did not work", "Myths")."""
    heading = _section_heading(ev, line)
    if heading is None or not frames_section(heading):
        return hit
    return replace(hit, edits=(*hit.edits, f"the heading above frames it: {_clip(heading)}"))


def _transliterated(qp: QuotePattern, ev: Evidence, whole: Normalized, valid: list[list[Range]]) -> Match | None:
    """The quote found once its Greek letters are spelled as the source spells them (:mod:`.transliterate`).

    Each respelling is a departure from verbatim, listed with the edits, so
    the quote is verified only once reviewed (SC313), and a moved one is one
    ``fix`` can place.
    """
    from .transliterate import transliterate  # here only: most quotes are found before

    spelled = transliterate(qp.text, whole.text)
    alt = _compile(spelled[0]) if spelled is not None else None
    if spelled is None or alt is None:
        return None
    found = _exact(alt, ev, whole, valid)
    if found is None or found.status not in ("verified", "moved"):
        return found
    lines = found.lines
    if lines is None:  # verbatim at the cited lines once respelled: name them, as for any departure
        hit = find_exact(alt, whole.text)
        lines = _lines(ev, whole, (hit.start, hit.end)) if hit else None
    marked = word_diff(qp.text, found.source, context=10_000, mark_elisions=True) if found.source else ""
    return replace(found, lines=lines, edits=found.edits + spelled[1], marked=marked)


def _quality(m: Match) -> tuple[bool, bool]:
    return m.status == "marks", bool(m.edits)


def _found(qp: QuotePattern, hit: Hit, text: str, lines: tuple[int, int]) -> Match:
    """The match of a hit in ``text``: its departures, and the sentence(s) it stands for."""
    source = " ".join(text[hit.source[0] : hit.source[1]].split())
    marked = word_diff(qp.text, source, context=10_000, mark_elisions=True) if hit.edits else ""
    if hit.problem is None:
        # A verbatim match names no lines (they are the cited ones); one with departures does, for review.
        return Match("verified", lines if hit.edits else None, edits=hit.edits, source=source, marked=marked)
    code, detail = hit.problem
    return Match("marks", lines, code=code, detail=detail, edits=hit.edits, source=source, marked=marked)
