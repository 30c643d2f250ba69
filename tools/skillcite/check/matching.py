"""Finding a quote in an evidence file: verified, moved, altered or not found.

Order of work, cheapest first (docs/citations.md):

1. the quote, normalized, as a literal inside the cited ranges, first in a
   narrow stretch of whole blocks around them
   (:meth:`~skillcite.check.evidence.Evidence.narrow`, which reads as the
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
most :data:`FUZZY_FULL` characters, and longer quotes are aligned inside one
window the word count picked; quotes over :data:`FUZZY_CAP` characters, or
with more than :data:`MAX_MARKS` editorial marks, skip the costly step.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations
from typing import Literal

from ..core.textio import drop_html_comments
from .anchors import Range
from .evidence import Evidence
from .normalize import LINE_HYPHEN, Normalized, normalize
from .sentences import cut_context, force_words, frames_next, frames_section, next_sentence, previous_sentence, script_negations, sentence_ends, sentence_span, takes_back

ALTERED_THRESHOLD = 80.0
NEAR_LINES = 40  # how far around the cited lines the first fuzzy pass looks
ELISION_SPAN = 20_000  # most normalized characters one [...] may stand for
INSERTION_SPAN = 80  # most characters one [word] may stand for
FUZZY_FULL = 400  # longest quote aligned over a whole region (cost ~ region x quote)
FUZZY_CAP = 20_000  # longest quote aligned at all (inside one window; cost ~ quote^2)
MAX_MARKS = 100  # more editorial marks than this: the quote is matched literally only
DIFF_WORDS = 400  # longest word lists compared with difflib; longer ones with rapidfuzz
_MARKER = re.compile(r"\[(?:\.\.\.|[^\[\]]{1,60})\]")
_EDGE = " .,;:"
_OMISSION = "[...]"  # an omission line of the evidence, normalized

# Negations an editorial mark may neither drop nor add (docs/citations.md).
_NEG_WORDS = frozenset(
    ["not", "no", "non", "never", "without", "none", "nor", "neither", "nothing", "nobody", "nowhere", "cannot", "cant", "wont", "dont",
     "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "shouldnt", "wouldnt", "couldnt", "mustnt", "neednt", "hasnt", "havent", "hadnt", "aint"]
)
# Editor's notes that stand for no source text and change none.
_NOTES = frozenset({"sic", "emphasis added", "emphasis mine", "emphasis in original", "italics added", "italics mine"})
_NEG_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir")
_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?:/\d+)?[kKmMbB%]?")
# Scripts that write words without spaces: a quote may start or stop between
# any two of their letters (Thai, Lao, Tibetan, Myanmar, Khmer, CJK, kana, Yi).
_UNSPACED = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fdf\u3000-\u312f\u3190-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua000-\ua4cf\uf900-\ufaff\U00020000-\U0003134f]"
)
# Chinese and Japanese negations glued to the word they negate: a quote must
# not start right after the first, nor stop right before the second.
_CJK_NEG_BEFORE = frozenset("不没沒未无無非别別勿莫否")
_CJK_NEG_AFTER = ("ない", "なかった", "ません", "ぬ", "ず")


# The outcomes of matching one quote, best first (check/report.py ranks them).
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


def _spaced_letter(ch: str) -> bool:
    """A letter of a script that separates words with spaces (Latin, Hangul, Georgian, ...).

    Chinese, Japanese, Thai and their kin write words without spaces, so a
    quote may start or stop between any two of their letters.
    """
    return ch.isalpha() and not _UNSPACED.match(ch)


def _scripted(ch: str) -> bool:
    return unicodedata.decomposition(ch).startswith(("<super>", "<sub>"))


def _token_char(ch: str) -> bool:
    """A character that belongs to a word or number token of a spaced script."""
    if ch.isdigit() or ch == "_":
        return True
    return _spaced_letter(ch)


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


# -- the editorial policy ------------------------------------------------------
def _negations(text: str) -> Counter[str]:
    """Negation words of ``text`` (``n't`` forms counted as ``not``)."""
    out: Counter[str] = Counter()
    for w in _WORDS.findall(text.lower()):
        if w.endswith("n't") or w.replace("'", "") in _NEG_WORDS:
            out["not" if w.endswith("n't") else w.replace("'", "")] += 1
    return out


def _affix_flip(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by a negating prefix or the suffix ``-less``."""
    a, b = a.lower(), b.lower()
    if a == b:
        return False
    for p in _NEG_PREFIXES:
        if a == p + b or b == p + a:
            return True
    return a[:3] == b[:3] and a.endswith("less") != b.endswith("less")


# Numbers written as words count as numbers, compared as written: "[five]"
# for "three" changes a number, and so does "[3]" for "three".
_NUMBER_WORD_TEXT = (
    "zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion trillion "
    "dozen dozens hundreds thousands millions billions twice thrice"
)
_NUMBER_WORDS = frozenset(_NUMBER_WORD_TEXT.split())  # not "one": it is a pronoun as often


def _numbers(text: str) -> Counter[str]:
    found = Counter(m.group().lstrip("+").rstrip(",") for m in _NUMBER.finditer(text))
    found.update(ch for ch in text if _scripted(ch) and ch.isdigit())
    found.update(w for w in _WORDS.findall(text.lower()) if w in _NUMBER_WORDS)
    return found


def _is_number(token: str) -> bool:
    token = token.strip(_EDGE + "()[]")
    return bool(token) and (bool(_NUMBER.fullmatch(token)) or token.lower() in _NUMBER_WORDS)


def _word_at(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to the whole token(s) it touches."""
    while start > 0 and _inside(text, start):
        start -= 1
    while end < len(text) and _inside(text, end):
        end += 1
    return start, end


def _token(text: str, pos: int) -> tuple[int, int]:
    """The token holding the character at ``pos``."""
    if not 0 <= pos < len(text) or text[pos].isspace():
        return pos, pos
    return _word_at(text, pos, pos + 1)


def _sentence_part(dropped: str, before: str) -> str:
    """The part of a dropped stretch that belongs to a sentence the quote shows.

    An elision that runs past a sentence end drops whole sentences there;
    only the stretch up to the first end (unless the quoted text before the
    elision ended its sentence already), and the stretch after the last one,
    are inside a sentence the quote shows.
    """
    ends = list(sentence_ends(dropped))
    if not ends:
        return dropped
    joined = before + dropped
    closed = any(e == len(before.rstrip()) for _s, e in sentence_ends(joined, max(0, len(before.rstrip()) - 4), len(before.rstrip()) + 1))
    head = "" if closed else dropped[: ends[0][0]]
    return head + " " + dropped[ends[-1][1] :]


def _check_insertion(inserted: str, quoted: str, source: str, glued: bool) -> tuple[str, str] | None:
    """Policy for one insertion: ``quoted`` is the word(s) it forms, ``source`` what it replaces there."""
    if _negations(inserted) != _negations(source) or any(
        _affix_flip(q, s) for q in _WORDS.findall(quoted) for s in _WORDS.findall(source)
    ):
        return "SC311", f"insertion [{inserted}] turns {source.strip()!r} into {quoted.strip()!r}: it adds or removes a negation"
    if _numbers(inserted) != _numbers(source) and not glued or glued and _numbers(quoted) != _numbers(source):
        return "SC312", f"insertion [{inserted}] turns {source.strip()!r} into {quoted.strip()!r}: it changes a number"
    return None


def _check_marks(qp: QuotePattern, spans: list[tuple[int, int]], text: str, lo: int, hi: int) -> tuple[str, str] | None:
    """The first editorial mark of a found chain that breaks the policy, as (code, detail)."""
    segs = qp.segmented or ()
    # A leading or trailing elision stands for the rest of the clause it cuts.
    for mark, at_start in ((qp.lead, True), (qp.tail, False)):
        if mark is None or not mark.elided:
            continue
        before, after = cut_context(text, spans[0][0], spans[-1][1], lo, hi)
        rest = before if at_start else after
        neg = _negations(rest)
        if neg:
            where = "before" if at_start else "after"
            return "SC311", f"[...] {where} the quote drops {next(iter(neg))!r} from {_clip(rest)}: it removes a negation"
    for k in range(1, len(segs)):
        seg, prev = segs[k], segs[k - 1]
        mark = seg.mark
        if mark is None:
            continue
        a, b = spans[k - 1][1], spans[k][0]
        dropped = text[a:b]
        if mark.elided:
            part = _sentence_part(dropped, text[spans[k - 1][0] : a])
            neg = _negations(part)
            if neg:
                word = next(iter(neg))
                return "SC311", f"[...] drops {word!r} from {_clip(text[spans[k - 1][0] : spans[k][1]])}: it removes a negation"
            before, after = text[spans[k - 1][0] : a], text[b : spans[k][1]]
            last = before.split()[-1] if before.split() else ""
            first = after.split()[0] if after.split() else ""
            if _is_number(last) and _is_number(first):
                return "SC312", f"[...] joins two numbers: {_clip(before + dropped + after)}"
            if _is_number(last) and dropped.strip()[:1].isalnum() and first[:1].isalpha():
                # "5 [...] seeds" for "5 epochs and 3 seeds": the number now counts another word.
                return "SC312", f"[...] binds the number {last!r} to {first!r}: {_clip(before + dropped + after)}"
        if mark.inserted:
            if prev.glued_end and seg.glued_start:
                return "SC310", f"insertion [{mark.inserted}] sits inside the word {_clip(text[slice(*_word_at(text, a, b))])}"
            if seg.glued_start:
                w0, w1 = _token(text, b)
                found = _check_insertion(mark.inserted, mark.inserted + text[b:w1], text[w0:w1], True)
            elif prev.glued_end:
                w0, w1 = _token(text, a - 1)
                found = _check_insertion(mark.inserted, text[w0:a] + mark.inserted, text[w0:w1], True)
            else:
                found = _check_insertion(mark.inserted, mark.inserted, dropped, False)
            if found:
                return found
            if mark.inserted.lower() in _NOTES and dropped.strip() and not mark.elided:
                return "SC310", f"editor's note [{mark.inserted}] stands for {_clip(dropped)}: a note replaces no source text"
            if not dropped.strip() and mark.inserted.lower() not in _NOTES:
                return "SC310", f"insertion [{mark.inserted}] replaces nothing in the source: {_clip(text[spans[k - 1][0] : spans[k][1]])}"
    for mark, at_start in ((qp.lead, True), (qp.tail, False)):
        if mark is None or not mark.inserted:
            continue
        seg = segs[0] if at_start else segs[-1]
        edge = spans[0][0] if at_start else spans[-1][1]
        glued = seg.glued_start if at_start else seg.glued_end
        if glued:
            w0, w1 = _token(text, edge if at_start else edge - 1)
            replaced = text[w0:edge] if at_start else text[edge:w1]
            quoted = mark.inserted + text[edge:w1] if at_start else text[w0:edge] + mark.inserted
            found = _check_insertion(mark.inserted, quoted, text[w0:w1], True)
        else:
            replaced = _neighbour_words(text, edge, len(mark.inserted.split()) or 1, at_start, lo, hi)
            # What it replaces is not marked: every word of the sentence it
            # stands beside is a candidate ("[Always]" for "Do not ever").
            rest = _before_in_sentence(text, edge, lo) if at_start else _after_in_sentence(text, edge, hi)
            found = _check_insertion(mark.inserted, mark.inserted, rest if replaced.strip() else replaced, False)
        if found:
            return found
        if not replaced.strip() and mark.inserted.lower() not in _NOTES:
            where = "before" if at_start else "after"
            return "SC310", f"insertion [{mark.inserted}] replaces nothing in the source {where} {_clip(text[spans[0][0] : spans[-1][1]])}"
    return None


def _neighbour_words(text: str, edge: int, count: int, before: bool, lo: int, hi: int) -> str:
    """Up to ``count`` words next to ``edge`` inside the same sentence (what a leading or trailing insertion replaces)."""
    if before:
        stretch = _before_in_sentence(text, edge, lo)
        words = stretch.split()
        return " ".join(words[-count:]) if words else ""
    stretch = _after_in_sentence(text, edge, hi)
    end = next(sentence_ends(stretch), None)
    if end:
        stretch = stretch[: end[0]]
    words = stretch.split()
    return " ".join(words[:count])


def _clip(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def find_exact(qp: QuotePattern, text: str, lo: int = 0, hi: int | None = None, context: tuple[int, int] | None = None) -> Hit | None:
    """The quote in ``text[lo:hi]``: literal first, then segments (with the editorial policy).

    A match must begin and end on token boundaries (see :func:`_whole_words`).
    ``context`` bounds what is read around a hit for the sentences before
    and after it (default: ``lo`` and ``hi``).
    """
    end = len(text) if hi is None else hi
    ctx = context if context is not None else (lo, end)
    best = -1
    for variant in qp.literal:
        i = text.find(variant, lo, end)
        while i != -1 and not _whole_words(text, i, i + len(variant)):
            i = text.find(variant, i + 1, end)
        if i != -1 and (best == -1 or i < best):
            best, length = i, len(variant)
    if best != -1:
        edits = []
        found = text[best : best + length]
        if found != qp.text:
            edits.append(f"first letter {_first_letter(qp.text)!r} for {_first_letter(found)!r}")
        if _OMISSION in found:
            # The excerpt itself omits text there: what the [...] stands for is not in the cache.
            edits.append("crosses an omission [...] of the evidence: the text it stands for is not in the cache")
        edits.extend(_truncations(text, best, best + length, lo, end, ctx))
        return Hit(best, best + length, None, tuple(edits), sentence_span(text, best, best + length, lo, end))
    if not qp.segmented:
        return None
    spans = _find_segments(qp.segmented, text, lo, end)
    if spans is None:
        return None
    problem = _check_marks(qp, spans, text, lo, end)
    edits = _mark_edits(qp, spans, text, lo, end)
    edits.extend(_truncations(text, spans[0][0], spans[-1][1], lo, end, ctx))
    return Hit(spans[0][0], spans[-1][1], problem, tuple(edits), sentence_span(text, spans[0][0], spans[-1][1], lo, end))


def _first_letter(text: str) -> str:
    return next((ch for ch in text if ch.isalnum()), "")


# Departures a quote writes itself (its marks, its first letter, a respelled Greek letter):
# the same wherever its words are found. Every other departure depends on the source
# around the words (a cut next to "not", a lead-in left out, an omission crossed).
_OWN_EDITS = re.compile(r"(?:first letter |elision |insertion \[|editor's note \[|'[^']+' written for the source's ')")


def own_edit(edit: str) -> bool:
    """True when departure ``edit`` is one the quote writes itself, not one its place in the source makes."""
    return _OWN_EDITS.match(edit) is not None


def _truncations(text: str, start: int, end: int, lo: int, hi: int, ctx: tuple[int, int]) -> list[str]:
    """Departures of a quote that cuts its sentence where the part left out holds a word that changes its force.

    Also the context that qualifies a quote of whole sentences (issue 28):
    a next sentence that takes it back, a sentence before that frames it,
    the source quoting the words from someone else; read within ``ctx``.
    """
    before, after = cut_context(text, start, end, lo, hi)
    out = []
    a, b = sentence_span(text, start, end, lo, hi)
    sentence = text[a:b].rstrip("\"')]\u201d\u2019 ")
    if sentence.endswith("?") and "?" not in text[start:end]:
        out.append(f"leaves out the question mark of {_clip(text[a:b])}: the source asks, the quote states")
    if end >= b - 1:  # the quote ends its sentence: the next one may take it back
        nxt = next_sentence(text, b, max(hi, ctx[1]))
        if takes_back(nxt):
            out.append(f"the next sentence qualifies it: {_clip(nxt)}")
    prev = previous_sentence(text, a, min(lo, ctx[0]))
    if prev and frames_next(prev):
        out.append(f"the sentence before frames it: {_clip(prev)}")
    speech = _reported_speech(text, start, end, min(lo, ctx[0]), max(hi, ctx[1]))
    if speech is not None:
        out.append(f"the source quotes these words from someone else: {_clip(speech)}")
    head, tail = text[max(a - 2, 0) : start], text[end : b + 2]
    if "~~" in head and "~~" in tail:
        out.append("quotes text the source strikes through (~~)")
    if before.rstrip().endswith(":") and len(before.split()) <= 4 and not _NOTE_LABEL.fullmatch(before.strip()):
        # A short label before a colon frames what follows ("Myth: you never
        # have a bug."): without it the words may say the opposite.
        out.append(f"leaves out the lead-in {_clip(before.strip())} before it")
    # A contrast that opens the sentence ("However, ...") qualifies what came
    # before it; one after the quote ("..., but hurts RNNs") qualifies the quote.
    words = [w for w in force_words(before) if w not in _AFTER_ONLY] + script_negations(before)
    if words:
        out.append(f"leaves out {_clip(before.strip())} before it, which holds {', '.join(repr(w) for w in dict.fromkeys(words))}")
    words = force_words(after) + script_negations(after)
    if words:
        out.append(f"leaves out {_clip(after.strip())} after it, which holds {', '.join(repr(w) for w in dict.fromkeys(words))}")
    return out


_NOTE_LABEL = re.compile(r"\[\^[^\]\s]+\]:")  # a footnote definition's label: not a lead-in


def _reported_speech(text: str, start: int, end: int, lo: int, hi: int) -> str | None:
    """The lead-in when ``text[start:end]`` lies inside quotation marks of the source ("He wrote: '...'"), else None.

    The normalized text writes every quotation mark as ``'``: one that opens
    right before the quote's first word (after a space, a colon, a bracket
    or the start) and one that closes at or right after its end. An
    apostrophe inside a word ("don't") is never preceded by a space.
    """
    i = start
    while i > lo and text[i - 1] == " ":
        i -= 1
    if i <= lo or text[i - 1] not in "'\"":
        return None
    if i - 1 > lo and text[i - 2] not in " :([":
        return None
    j = end
    while j < hi and text[j] in ".,;:!? ":
        j += 1
    if not (j < hi and text[j] in "'\"") and text[end - 1 : end] not in ("'", '"'):
        return None
    a, _ = sentence_span(text, i - 1, i - 1, lo, hi)
    return text[a : i - 1].strip() or "'"


# Words that change a quote's force after it only: a contrast ("..., but
# hurts RNNs") or a report ("..., or so they say"); before it they qualify
# what came earlier ("However, ...") or introduce the author's own words
# ("The paper says that ...").
_AFTER_ONLY = frozenset({"but", "however", "although", "though", "say", "says", "said"})


def _mark_edits(qp: QuotePattern, spans: list[tuple[int, int]], text: str, lo: int, hi: int) -> list[str]:
    """What each editorial mark of a found chain stands for, in the quote's order."""
    segs = qp.segmented or ()
    out: list[str] = []
    if qp.lead is not None:
        out.extend(_describe_mark(qp.lead, _before_in_sentence(text, spans[0][0], lo), "at the start"))
    first = text[spans[0][0] : spans[0][1]]
    if segs and segs[0].written and first != segs[0].written and first.lower() == segs[0].written.lower():
        out.append(f"first letter {_first_letter(segs[0].written)!r} for {_first_letter(first)!r}")
    for k in range(1, len(segs)):
        mark = segs[k].mark
        if mark is not None:
            where = f"between {_clip(_tail_words(text[slice(*spans[k - 1])]))} and {_clip(_head_words(text[slice(*spans[k])]))}"
            out.extend(_describe_mark(mark, text[spans[k - 1][1] : spans[k][0]], where))
        found = text[spans[k][0] : spans[k][1]]
        if segs[k].written and found != segs[k].written:
            out.append(f"first letter {_first_letter(segs[k].written)!r} for {_first_letter(found)!r}")
    if qp.tail is not None:
        out.extend(_describe_mark(qp.tail, _after_in_sentence(text, spans[-1][1], hi), "at the end"))
    return out


def _describe_mark(mark: Mark, stands_for: str, where: str) -> list[str]:
    out = []
    inserted = mark.inserted
    shown = " ".join(stands_for.split())
    if inserted and inserted.lower() in _NOTES:
        out.append(f"editor's note [{inserted}] {where}" + (f", standing for {_clip(shown)}" if shown and not mark.elided else ""))
        inserted = ""
    if mark.elided and inserted:
        out.append(f"elision and insertion [{inserted}] {where}, for {_clip(shown)}")
    elif mark.elided:
        out.append(f"elision [...] {where}, for {_clip(shown)}" if shown else f"elision [...] {where}")
    elif inserted:
        out.append(f"insertion [{inserted}] {where}, for {_clip(shown)}" if shown else f"insertion [{inserted}] {where}, for nothing")
    return out


def _head_words(text: str, n: int = 3) -> str:
    return " ".join(text.split()[:n])


def _tail_words(text: str, n: int = 3) -> str:
    return " ".join(text.split()[-n:])


def _before_in_sentence(text: str, edge: int, lo: int) -> str:
    a, _ = sentence_span(text, edge, edge, lo, edge)
    return text[a:edge]


def _after_in_sentence(text: str, edge: int, hi: int) -> str:
    _, b = sentence_span(text, edge, edge, edge, hi)
    return text[edge:b]


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


def word_diff(quoted: str, found: str, context: int = 3, trim: bool = False, shown: str | None = None, mark_elisions: bool = False) -> str:
    """A compact word diff: ``[-quoted-]{+source+}`` with a little context.

    With ``trim``, ``found`` is a stretch of the source around the quote:
    source words before the quote's first word and after its last are not
    differences, so they are left out rather than shown as insertions. A
    ``[...]`` is shown as itself (a finding's diff marks only real
    differences) unless ``mark_elisions``: a reviewer sees what it stands for.
    """
    a, b = quoted.split(), found.split()
    out: list[str] = []
    # Shown: the quote's own quotation marks (", not the normalized '), when normalization kept its words one for one.
    display = a
    if shown is not None and len(shown.split()) == len(a):
        display = [w if _fold_quotes(w) == q else q for w, q in zip(shown.split(), a, strict=True)]
    # Compare words without edge punctuation, and source words without the
    # quotation marks or emphasis around them: a quote may end before the
    # source's full stop, and ``'the`` or ``*a*`` in the source is ``the``
    # or ``a`` in a quote. Quotation marks the quote adds stay differences.
    # Quotation marks the quote adds are differences; parentheses and emphasis around a word are not.
    keys_a = [w if w in _ELISIONS else w.strip(_EDGE).strip(_NOT_QUOTES).strip(_EDGE) or w for w in a]
    keys_b = [_diff_key(w) for w in b]
    ops = _word_opcodes(keys_a, keys_b)
    if keys_a and keys_a[0]:
        # The quote's first letter may change case (docs/citations.md): only
        # for the source word the quote's first word faces, never for the
        # same word further on ("The ... the" is no change).
        first = keys_a[0]
        facing = next((op for op in ops if op[1] == 0 and op[2] > 0 and op[0] == "replace"), None)
        if facing is not None:
            j = next((j for j in range(facing[3], facing[4]) if keys_b[j] != first and keys_b[j][1:] == first[1:] and keys_b[j][:1].lower() == first[:1].lower()), None)
            if j is not None:
                keys_b = keys_b[:j] + [first] + keys_b[j + 1 :]
                ops = _word_opcodes(keys_a, keys_b)
    if trim:
        # Keep only the source words facing the quote: as many before the
        # first equal run as the quote has there, and as many after the last,
        # but never across a sentence's end: a quote that adds words after
        # the source's full stop changed those words, not the next sentence.
        equal = [op for op in ops if op[0] == "equal"]
        if equal:
            lo = max(0, equal[0][3] - equal[0][1])
            hi = min(len(b), equal[-1][4] + (len(a) - equal[-1][2]))
            if hi > equal[-1][4] and b[equal[-1][4] - 1].rstrip(_CLOSERS).endswith(_STOPS):
                hi = equal[-1][4]
            if lo < equal[0][3] and b[equal[0][3] - 1].rstrip(_CLOSERS).endswith(_STOPS):
                lo = equal[0][3]
            b, keys_b = b[lo:hi], keys_b[lo:hi]
            ops = _word_opcodes(keys_a, keys_b)
    # A word written the same on both sides is no difference, whatever its keys say
    # (a prime, x', is a quotation mark to the keys: the quote's is kept, the source's stripped).
    same_a = [w.strip(_EDGE) or w for w in a]
    same_b = [w.strip(_EDGE) or w for w in b]
    ops = _only_differences(ops, lambda i, j: keys_a[i] == keys_b[j] or same_a[i] == same_b[j])
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            words = display[i1:i2]
            if len(words) > 2 * context:
                head = words[:context] if k > 0 else []
                tail = words[-context:] if k < len(ops) - 1 else []
                words = head + ["..."] + tail
            out.extend(words)
        elif i2 > i1 and not mark_elisions and all(key in _ELISIONS for key in keys_a[i1:i2]):
            out.extend(display[i1:i2])  # a legitimate [...] stands for the source words it leaves out: no difference
        else:
            if i2 > i1:
                out.append("[-" + " ".join(display[i1:i2]) + "-]")
            if j2 > j1:
                out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)


_STOPS = (".", "!", "?")
_CLOSERS = "\"')]*_\u2019\u201d"


_QUOTE_CHARS = "\"\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f"


def _fold_quotes(word: str) -> str:
    """``word`` with every quotation mark as the normalized text writes it (')."""
    return word.translate({ord(c): "'" for c in _QUOTE_CHARS})


_ELISIONS = frozenset({"[...]", "[…]", "...", "…", "(...)", "[..]"})
_MARKUP = "*_`'\"\u2018\u2019\u201c\u201d\u00ab\u00bb()"
_NOT_QUOTES = "*_`()"  # markup around a word that is no quotation mark


def _diff_key(word: str) -> str:
    """A word as the diff compares it: edge punctuation, quotation marks and emphasis off (case counts)."""
    if word in _ELISIONS:
        return word
    key = word.strip(_EDGE + _MARKUP).strip(_EDGE)
    return key or word


def _only_differences(ops: list[tuple[str, int, int, int, int]], eq: Callable[[int, int], bool]) -> list[tuple[str, int, int, int, int]]:
    """``ops`` with the equal words (``eq(i, j)``) at either end of a replace block split off as equal runs."""
    out: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace":
            out.append((tag, i1, i2, j1, j2))
            continue
        head = 0
        while i1 + head < i2 and j1 + head < j2 and eq(i1 + head, j1 + head):
            head += 1
        tail = 0
        while i2 - tail > i1 + head and j2 - tail > j1 + head and eq(i2 - tail - 1, j2 - tail - 1):
            tail += 1
        if head:
            out.append(("equal", i1, i1 + head, j1, j1 + head))
        mid = (i1 + head, i2 - tail, j1 + head, j2 - tail)
        if mid[0] < mid[1] or mid[2] < mid[3]:
            kind = "replace" if mid[0] < mid[1] and mid[2] < mid[3] else "delete" if mid[0] < mid[1] else "insert"
            out.append((kind, *mid))
        if tail:
            out.append(("equal", i2 - tail, i2, j2 - tail, j2))
    merged: list[tuple[str, int, int, int, int]] = []
    for op in out:
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    return merged


def _word_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Opcodes turning word list ``a`` into ``b``; rapidfuzz past :data:`DIFF_WORDS` (difflib is quadratic)."""
    if len(a) <= DIFF_WORDS and len(b) <= DIFF_WORDS:
        import difflib  # here only: a verbatim quote needs no diff

        return [tuple(op) for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()]  # type: ignore[misc]
    from rapidfuzz.distance import Indel

    ops: list[tuple[str, int, int, int, int]] = []
    for op in Indel.opcodes(a, b):
        tag = op.tag
        if ops and ops[-1][0] in ("delete", "insert") and tag in ("delete", "insert") and ops[-1][0] != tag:
            prev = ops.pop()
            ops.append(("replace", prev[1], op.src_end, prev[3], op.dest_end))
        else:
            ops.append((tag, op.src_start, op.src_end, op.dest_start, op.dest_end))
    return ops


def _fuzzy(qp: QuotePattern, text: str, lo: int, hi: int) -> tuple[float, tuple[int, int]] | None:
    """Best alignment of the quote in ``text[lo:hi]`` scoring at least the threshold.

    Short quotes are aligned over the whole region (rapidfuzz's partial
    alignment, linear in the region for a bounded quote). A longer quote
    costs that alignment its length squared per window, so it is aligned
    only inside the window of its own length that holds most of its words
    (:func:`_closest`), and not at all past :data:`FUZZY_CAP`.
    """
    if hi <= lo:
        return None
    from rapidfuzz import fuzz  # only quotes that failed to match pay for the import

    quote = qp.fuzzy_text
    if len(quote) <= FUZZY_FULL:
        res = fuzz.partial_ratio_alignment(quote, text[lo:hi], score_cutoff=ALTERED_THRESHOLD)
        if res is None:
            return None
        start, end = lo + res.dest_start, lo + res.dest_end
        score = res.score
    elif len(quote) <= FUZZY_CAP:
        near = _closest(quote, text, lo, hi)
        if near is None:
            return None
        slack = len(quote) // 4 + 20
        w0, w1 = max(lo, near[0] - slack), min(hi, near[1] + slack)
        start, end = _align(quote, text, w0, w1)
        score = fuzz.ratio(quote, text[start:end])
        if score < ALTERED_THRESHOLD:
            return None
    else:
        return None
    a, b = _word_bounds(text, start, end, quote)
    if a < start or b > end:
        # Widened to a whole source word the quote cut short ("can" of
        # "can't"): the alignment's own score (100) would hide the change.
        return fuzz.ratio(quote, text[a:b]), (a, b)
    return score, (a, b)


def _align(quote: str, text: str, lo: int, hi: int) -> tuple[int, int]:
    """The stretch of ``text[lo:hi]`` an indel alignment matches to ``quote``."""
    from rapidfuzz.distance import Indel

    blocks = [blk for blk in Indel.opcodes(quote, text[lo:hi]).as_matching_blocks() if blk.size]
    if not blocks:
        return lo, lo
    return lo + blocks[0].b, lo + blocks[-1].b + blocks[-1].size


_TOKEN_RUN = re.compile(r"\S+")


def _closest(quote: str, text: str, lo: int, hi: int) -> tuple[int, int, int, int] | None:
    """The stretch of ``text[lo:hi]``, as long as the quote in words, holding most of its words.

    Returns ``(start, end, words held, words in the quote)`` or None when no
    word of the quote is there. One pass over the region with a sliding
    window of word counts (memory bounded by the quote), then one more to
    place the best window: linear in the region plus the quote.
    """
    need = Counter(w.strip(_EDGE) for w in quote.split())
    need.pop("", None)
    size = sum(need.values())
    if not size:
        return None
    window: deque[str] = deque()
    have: Counter[str] = Counter()
    held = best = 0
    best_at = -1
    for k, m in enumerate(_TOKEN_RUN.finditer(text, lo, hi)):
        w = m.group().strip(_EDGE)
        window.append(w)
        if w in need:
            if have[w] < need[w]:
                held += 1
            have[w] += 1
        if len(window) > size:
            old = window.popleft()
            if old in need:
                have[old] -= 1
                if have[old] < need[old]:
                    held -= 1
        if held > best:
            best, best_at = held, k
    if best == 0:
        return None
    first = max(0, best_at - size + 1)
    start = end = -1
    for k, m in enumerate(_TOKEN_RUN.finditer(text, lo, hi)):
        if k > best_at:
            break
        if k >= first and m.group().strip(_EDGE) in need:
            start = m.start() if start < 0 else start
            end = m.end()
    return start, end, best, size


ONE_WORD_MIN = 3  # fewest words a quote needs for "all its words but one, in order" to mean altered


def _one_word_changed(quote: str, text: str, lo: int, hi: int) -> tuple[float, tuple[int, int]] | None:
    """The stretch of ``text[lo:hi]`` that is ``quote`` with one word replaced by another, and its score; None when there is none.

    Words are compared in order, position by position, edge punctuation
    aside. The replaced word may be the quote's first or last only in a
    quote of four words or more (in three, an edge word could be any
    neighbour of a quote that dropped words); a quote of fewer than
    :data:`ONE_WORD_MIN` words never matches this way. A word dropped or
    added is not this case (an omission in the evidence, text a comment
    hid): it stays not found. Among several stretches, the closest in characters.
    """
    from rapidfuzz import fuzz

    words = [w.strip(_EDGE) for w in quote.split()]
    n = len(words)
    if n < ONE_WORD_MIN or hi <= lo:
        return None
    runs = list(_TOKEN_RUN.finditer(text, lo, hi))
    tokens = [m.group().strip(_EDGE) for m in runs]
    best: tuple[float, tuple[int, int]] | None = None
    for i in range(len(tokens) - n + 1):
        if tokens[i] != words[0] and tokens[i + 1] != words[1]:
            continue  # at most one of the first two can be the replaced word
        wrong = [k for k in range(n) if tokens[i + k] != words[k]]
        if len(wrong) != 1 or (wrong[0] in (0, n - 1) and n < 4):
            continue
        start, end = runs[i].start(), runs[i + n - 1].end()
        while end > start and text[end - 1] in _EDGE:
            end -= 1
        score = fuzz.ratio(quote.strip(_EDGE), text[start:end])
        if best is None or score > best[0]:
            best = (score, (start, end))
    return best


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
            while start > 0 and _inside(text, start):
                start -= 1
        else:
            start = space + 1 if space != -1 else start
    while start < end and not (text[start].isalnum() or text[start] in "'(-"):
        start += 1
    if start < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        space = text.rfind(" ", start, end)
        if words and text[space + 1 : end] == words[-1]:
            while end < len(text) and _inside(text, end):
                end += 1
        else:
            end = space if space > start else end
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


def _context(text: str, start: int, end: int, words: int = 2) -> str:
    """``text[start:end]`` with up to ``words`` whole words more on each side (for a trimmed diff)."""
    a = start
    for _ in range(words + 1):
        a = text.rfind(" ", 0, max(a - 1, 0)) + 1 if a > 0 else 0
    b = end
    for _ in range(words + 1):
        nxt = text.find(" ", min(b + 1, len(text)))
        b = len(text) if nxt == -1 else nxt
    return text[a:b]


def valid_anchors(anchors: list[list[Range]], total: int) -> list[list[Range]]:
    """The anchors' ranges that lie inside a file of ``total`` lines (anchors left empty dropped)."""
    valid = [[r for r in ranges if 1 <= r.start <= r.end <= total] for ranges in anchors]
    return [v for v in valid if v]


def cited_span(valid: list[list[Range]]) -> tuple[int, int] | None:
    """First and last line the valid anchors cite, or None: the lines a narrow stretch must hold."""
    if not valid:
        return None
    return min(r.start for v in valid for r in v), max(r.end for v in valid for r in v)


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


# A word broken by a hyphen at the end of a line (PDF text): "dis-" / "tributions".
_LINE_BREAK_HYPHEN = re.compile(r"-[ \t]*\r?\n[ \t>]*")
_QUOTE_WORD = re.compile(r"[^\W\d_]+(?:- ?[^\W\d_]+)?")


def _letter(ch: str) -> bool:
    return ch.isalpha()


@lru_cache(maxsize=64)
def _line_hyphens(source: str) -> dict[str, str]:
    """Words the evidence breaks with a hyphen at a line end: quote spelling -> evidence spelling.

    ``distributions``, ``dis-tributions`` and ``dis- tributions`` all map to
    the evidence's normalized form, ``dis`` U+2E17 space ``tributions``:
    that form exists only where a line ended after the hyphen.

    Linear in the source: each hyphen at a line end is found by a pattern
    that starts at the hyphen (a pattern starting with the word before it
    retried from every letter of a long run: 20 s for 30,000 letters), and
    the words on both sides are read outwards from it.
    """
    found: dict[str, str] = {}
    for m in _LINE_BREAK_HYPHEN.finditer(source):
        a = m.start()
        while a > 0 and _letter(source[a - 1]):
            a -= 1
        b = m.end()
        while b < len(source) and _letter(source[b]):
            b += 1
        left, right = source[a : m.start()], source[m.end() : b]
        if not left or not right:
            continue
        spaced = f"{left}{LINE_HYPHEN} {right}"
        found[left + right] = spaced
        found[f"{left}-{right}"] = spaced
        found[f"{left}- {right}"] = spaced
    return found


def is_title(quote: str, ev: Evidence) -> bool:
    """True when ``quote`` is the evidence's ``title`` (normalized; a title, not a quote).

    The front matter may hold the title with more after it, as pages and
    ``evidence adopt`` write it ("A Recipe for Training Neural Networks - A.
    Karpathy blog", "Title: Subtitle"): the quote is the title when it is
    the part before such a separator, never a few of its first words.
    """
    data = ev.front.data if ev.front is not None else None
    title = data.get("title") if isinstance(data, dict) else None
    if not isinstance(title, str) or not title.strip():
        return False
    qp = compile_quote(quote)
    return qp is not None and _title_matches(qp.text, normalize(title).text.strip(_EDGE))


# What may follow a title in a longer one: a subtitle, a site or author name.
_TITLE_TAIL = re.compile(r"\s*(?::|\||-|\u2013|\u2014|\u00b7|\(|,)\s*\S")
# A title as a footnote definition names it: in quotation marks or in emphasis.
_NAMED_TITLE = re.compile(r'"([^"\n]{2,300})"|\u201c([^\u201d\n]{2,300})\u201d|\*([^*\n]{2,300})\*|(?<!\w)_([^_\n]{2,300})_(?!\w)')


def _title_matches(quoted: str, title: str) -> bool:
    """True when ``quoted`` is ``title``, or ``title`` is it followed by a separator and more."""
    if not quoted:
        return False
    if quoted == title:
        return True
    return title.startswith(quoted) and _TITLE_TAIL.match(title, len(quoted)) is not None


def names_title(quote: str, definition: str) -> bool:
    """True when ``quote`` is a title the footnote definition names (in quotation marks or emphasis).

    ``Author, "Title"[^b]`` citing a book whose footnote has no cache: the
    quoted words are the work's name as the footnote gives it, not a
    quotation of it.
    """
    qp = compile_quote(quote)
    if qp is None:
        return False
    for m in _NAMED_TITLE.finditer(definition):
        named = normalize(next(g for g in m.groups() if g is not None)).text.strip(_EDGE)
        if _title_matches(qp.text, named):
            return True
    return False


def is_pdf(ev: Evidence) -> bool:
    """True when the evidence was extracted from a PDF: ``format: pdf``, or a ``source`` naming a ``.pdf`` file.

    PDF text extraction leaves a typesetter's hyphenation inside lines too
    (``dis-tributions``), so in such a file a quote may write those words whole.
    Real caches of papers cite the abstract page, not the PDF, so the front
    matter says what the text is (``evidence adopt`` writes ``format: pdf``
    when the header names a PDF URL, an arXiv or a DOI source).
    """
    data = ev.front.data if ev.front is not None else None
    if not isinstance(data, dict):
        return False
    fmt = data.get("format")
    if isinstance(fmt, str) and fmt.strip().lower() == "pdf":
        return True
    source = data.get("source")
    if not isinstance(source, str):
        return False
    path = source.split("#", 1)[0].split("?", 1)[0]
    return path.lower().endswith(".pdf")


@lru_cache(maxsize=64)
def _inline_hyphens(text: str) -> dict[str, str]:
    """Words of normalized PDF text hyphenated between two letters: whole spelling -> hyphenated spelling.

    One scan from each hyphen outwards (linear, see :func:`_line_hyphens`).
    A word hyphenated in the source (``re-sign``) maps too: in a PDF the two
    cannot be told apart.
    """
    found: dict[str, str] = {}
    i = text.find("-")
    while i != -1:
        if 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha():
            a, b = i - 1, i + 2
            while a > 0 and text[a - 1].isalpha():
                a -= 1
            while b < len(text) and text[b].isalpha():
                b += 1
            found.setdefault(text[a:i] + text[i + 1 : b], text[a:b])
        i = text.find("-", i + 1)
    return found


# Words of one quote whose hyphenation is tried one by one; past this many,
# only "every such word hyphenated" is tried (2**8 searches at most).
_PDF_JOIN_WORDS = 8


def _pdf_hyphenated(qp: QuotePattern, text: str) -> Iterator[QuotePattern]:
    """The quote spelled as the PDF may have it where it is: some of its words hyphenated, the rest whole.

    A word the PDF hyphenates somewhere (``statis-tically``) may be whole
    where the quote is, so rewriting every such word would break the quote;
    each choice of which occurrences to hyphenate is tried instead, fewest
    first, and only a choice whose every word sits where the quote is can
    match. Beyond :data:`_PDF_JOIN_WORDS` candidate words, only the
    all-hyphenated spelling is tried.
    """
    hyphens = _inline_hyphens(text)
    if not hyphens:
        return
    spots = [m for m in _WHOLE_WORD.finditer(qp.text) if m.group() in hyphens]
    if not spots:
        return
    if len(spots) > _PDF_JOIN_WORDS:
        chosen_sets: Iterable[tuple[int, ...]] = [tuple(range(len(spots)))]
    else:
        chosen_sets = (c for k in range(1, len(spots) + 1) for c in combinations(range(len(spots)), k))
    for chosen in chosen_sets:
        pieces: list[str] = []
        pos = 0
        for k in chosen:
            m = spots[k]
            pieces.append(qp.text[pos : m.start()])
            pieces.append(hyphens[m.group()])
            pos = m.end()
        pieces.append(qp.text[pos:])
        compiled = _compile("".join(pieces))
        if compiled is not None:
            yield compiled


_WHOLE_WORD = re.compile(r"[^\W\d_]+")


def _unhyphenated(qp: QuotePattern, source: str) -> QuotePattern | None:
    """The quote with each word the evidence hyphenates at a line break spelled as the evidence does.

    The join applies only where the evidence breaks that word at a line end
    (U+2E17 marks those places); anywhere else the spellings stay different.
    """
    if "-" not in source:
        return None
    hyphens = _line_hyphens(source)
    if not hyphens:
        return None
    changed = _QUOTE_WORD.sub(lambda m: hyphens.get(m.group(), m.group()), qp.text)
    if changed == qp.text:
        return None
    return _compile(changed)


# A footnote mark of the source glued to a word or to the punctuation after
# it: superscript digits ("bug\u00b9") or a bracketed number ("bug[1]",
# "works.[2,3]"). A quote may leave it out, as it leaves out a Markdown
# footnote reference (issue 28 §6).
_SUPERSCRIPTS = "\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079"
_FOOTNOTE_MARK = re.compile(
    # A word from its start (lookbehind) and without backtracking into it
    # (possessive): one step per letter, so a run of 100,000 letters costs
    # one scan, not one per letter.
    # Superscript digits count as letters for \w: kept out of the word.
    rf"((?<![^\W\d_{_SUPERSCRIPTS}])[^\W\d_{_SUPERSCRIPTS}]{{3,}}+[.,;:!?)]?)([{_SUPERSCRIPTS}]+|\[\d{{1,3}}(?:[,\u2013-] ?\d{{1,3}})*\])(?=[\s.,;:!?)']|$)"
)
_MARKABLE = re.compile(r"[^\W\d_]+[.,;:!?)]?")


@lru_cache(maxsize=8)
def _source_marks(text: str) -> dict[str, str]:
    """Each word of ``text`` that carries a footnote mark -> the word with its (first) mark; one scan per text."""
    marks: dict[str, str] = {}
    for m in _FOOTNOTE_MARK.finditer(text):
        marks.setdefault(m.group(1), m.group(0))
    return marks


def _footnote_marked(qp: QuotePattern, text: str) -> QuotePattern | None:
    """The quote with the source's footnote marks put back after the words that carry them in ``text`` (None: no change).

    Only where the quote has no mark of its own there; a word marked
    differently in two places takes its first mark.
    """
    marks = _source_marks(text)
    if not marks:
        return None
    quote = qp.text

    def put(m: re.Match[str]) -> str:
        after = quote[m.end() : m.end() + 1]
        if after and (after in _SUPERSCRIPTS or after == "["):
            return m.group()
        return marks.get(m.group(), m.group())

    changed = _MARKABLE.sub(put, quote)
    return None if changed == quote else _compile(changed)
