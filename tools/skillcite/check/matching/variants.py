"""Forms of a quote that follow the source's own typography: line-break and PDF hyphenation, footnote marks.

A source converted from a PDF splits words at line ends (``dis-tributions``)
and sets footnote marks after words; a quote that joins the word or leaves
the mark out is still the author's words. Each variant is tried only at
the positions the quote needs.
"""


from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import combinations

from ..parsing.evidence import Evidence
from ..parsing.normalize import LINE_HYPHEN
from .pattern import QuotePattern, _compile

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
