"""What a reviewer is shown around a quote, and what a review therefore binds to.

A review (docs/citations.md, "Verified") covers the source sentence(s) a
quote stands for and their context in the evidence: the sentence before
and the sentence after within the same paragraph, and the nearest heading
above. Editing any of them (a next sentence turned into a take-back, a
heading changed to "What did not work") makes the review out of date.

The context is read from the evidence file's own lines around the cited
span: the paragraph is the run of non-blank lines holding it (at most
:data:`PARAGRAPH_REACH` lines on each side, so a file without blank lines
costs no more than that per quote), normalized as the matcher normalizes
evidence. Where the source sentence(s) cannot be placed inside that
paragraph (a quote stitched across paragraphs), the whole paragraph stands
for both neighbours: any change to it then counts. Headings are indexed
once per file, so the cost per quote is a lookup.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from ..matching.locate import Match
from ..parsing.document import Document, FootnoteDef
from ..parsing.evidence import Evidence, normalize_markdown
from ..parsing.sentences import sentence_ends
from .outcome import QuoteOutcome
from .reviews import Shown

PARAGRAPH_REACH = 40  # lines read above and below the cited span, at most
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(?P<text>.*?))?[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_FENCE = re.compile(r" {0,3}(```+|~~~+)")


@dataclass(frozen=True, slots=True)
class Context:
    """The sentence before, the sentence after (within the paragraph) and the nearest heading above."""

    before: str = ""
    after: str = ""
    heading: str = ""


@dataclass(slots=True)
class ContextReader:
    """Reads the context of cited spans; keeps one heading index per evidence file."""

    _headings: dict[str, tuple[list[int], list[str]]] = field(default_factory=dict)

    def context(self, ev: Evidence, lines: tuple[int, int], source: str) -> Context:
        """The context of the source sentence(s) ``source`` (normalized) found at file lines ``lines``."""
        if ev.file is None:
            return Context()
        first = _body_start(ev)
        lo, hi = max(lines[0], first), min(lines[1], ev.line_count)
        if lo > hi:
            return Context()
        top = lo
        while top > max(first, lo - PARAGRAPH_REACH) and ev.file.line(top - 1).strip():
            top -= 1
        bottom = hi
        while bottom < min(ev.line_count, hi + PARAGRAPH_REACH) and ev.file.line(bottom + 1).strip():
            bottom += 1
        raw = "\n".join(ev.file.line(n) for n in range(top, bottom + 1))
        paragraph = " ".join(normalize_markdown(raw).text.split())
        at = paragraph.find(source) if source else -1
        if at < 0:
            before, after = paragraph, ""
        else:
            before, after = last_sentence(paragraph[:at]), first_sentence(paragraph[at + len(source) :])
        return Context(before, after, self.heading_above(ev, lo))

    def heading_above(self, ev: Evidence, line: int) -> str:
        """The text of the nearest Markdown heading above file line ``line`` ("" when none)."""
        index = self._headings.get(ev.rel)
        if index is None:
            index = self._headings[ev.rel] = _heading_index(ev)
        numbers, texts = index
        k = bisect_left(numbers, line) - 1
        return texts[k] if k >= 0 else ""


def _body_start(ev: Evidence) -> int:
    """The first line after the front matter."""
    return (ev.front.end_line + 1) if ev.front is not None and ev.front.end_line else 1


def _heading_index(ev: Evidence) -> tuple[list[int], list[str]]:
    """The lines of the file's headings and their text, in order (one pass; fenced code is skipped)."""
    assert ev.file is not None
    numbers: list[int] = []
    texts: list[str] = []
    fence = ""
    previous = ""
    for n in range(_body_start(ev), ev.line_count + 1):
        line = ev.file.line(n)
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
                fence = ""
            previous = ""
            continue
        if opened:
            fence = opened.group(1)
            previous = ""
            continue
        atx = _ATX.match(line)
        if atx:
            numbers.append(n)
            texts.append(" ".join((atx.group("text") or "").split()))
        elif _SETEXT.match(line) and previous.strip() and not _ATX.match(previous):
            numbers.append(n)
            texts.append(" ".join(previous.split()))
        previous = line
    return numbers, texts


def last_sentence(text: str) -> str:
    """The last sentence of ``text`` (normalized), "" when it is empty."""
    text = text.strip()
    start = 0
    for _s, e in sentence_ends(text):
        if e < len(text):
            start = e
    return text[start:].strip()


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (normalized), "" when it is empty."""
    text = text.strip()
    stop = next(sentence_ends(text), None)
    return (text[: stop[1]] if stop else text).strip()


_LABEL = re.compile(r"\s*\[\^[^\]]*\]:\s*")


def attribution(doc: Document, d: FootnoteDef) -> str:
    """The footnote's attribution: its text before its first cache link (author, title, year, URL).

    The cache links and what follows them (the line numbers or anchor
    names ``fix`` rewrites when the cited lines move, and the anchors other
    quotes add) are no part of it, nor is the footnote's label.
    """
    text = doc.file.text
    starts = [c.offset for c in d.cache_links if d.start <= c.offset < d.end]
    words = text[d.start : min(starts, default=d.end)]
    label = _LABEL.match(words)
    if label:
        words = words[label.end() :]
    return " ".join(words.split()).rstrip(" ([{:;,")


def departures_of(m: Match) -> tuple[str, ...]:
    """The departures a reviewer judges: each found, then the reviewer's warning (SC310-SC312) if any."""
    warning = (f"warning {m.code}: {m.detail}",) if m.status == "marks" and m.code else ()
    return (*m.edits, *warning)


def author_of(ev: Evidence) -> str:
    """The evidence's ``author`` as one text (a list is joined with "; ")."""
    value = ev.front.data.get("author") if ev.front is not None and ev.front.data else None
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return "" if value is None else str(value)


def source_of(ev: Evidence) -> str:
    """The evidence's ``source`` URL as written."""
    value = ev.front.data.get("source") if ev.front is not None and ev.front.data else None
    return "" if value is None else str(value)


def shown_for(o: QuoteOutcome, reader: ContextReader, paths: dict[str, str] | None = None) -> Shown | None:
    """What ``review`` shows of a quote found with departures; None for any other outcome.

    ``paths`` maps the paths of an installed copy to the package's own (the
    review file names the package's documents and evidence files).
    """
    m, ev, d = o.match, o.evidence, o.definition
    if m is None or ev is None or d is None or not m.edits or m.lines is None or m.status not in ("verified", "marks"):
        return None
    around = reader.context(ev, m.lines, m.source)
    return Shown(
        (paths or {}).get(o.doc.rel, o.doc.rel), o.quote.text, 1, (paths or {}).get(ev.rel, ev.rel), source_of(ev), author_of(ev), m.source,
        around.before, around.after, around.heading, attribution(o.doc, d), departures_of(m),
    ).normalized()
