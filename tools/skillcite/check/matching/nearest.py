"""Where a quote nearly is: fuzzy alignment (rapidfuzz), the closest stretch, one changed word.

Each step is bounded: the character-level pass runs on a whole region only
for quotes of at most :data:`FUZZY_FULL` characters, and quotes over
:data:`FUZZY_CAP` characters are not aligned at all.
"""


from __future__ import annotations

import re
from collections import Counter, deque

from .chars import _EDGE
from .pattern import QuotePattern, _inside

ALTERED_THRESHOLD = 80.0
FUZZY_FULL = 400  # longest quote aligned over a whole region (cost ~ region x quote)
FUZZY_CAP = 20_000  # longest quote aligned at all (inside one window; cost ~ quote^2)


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
