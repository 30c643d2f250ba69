"""Each quotation with the footnotes it cites, their cache links and the evidence those name, as plain records.

This is the one place a citation is resolved in the workspace: a footnote
label to its first definition, each cache link of the definition to an
evidence file, loaded. Matching and judging read the records and never
look anything up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..parsing.anchors import CacheLink, Range, cited_span, valid_anchors
from ..parsing.document import Document, FootnoteDef, Quote
from ..parsing.evidence import Evidence
from ..parsing.workspace import Workspace

# A blockquote's closing attribution: a dash, then a short name (and title), after the quote's last sentence.
_ATTRIBUTION = re.compile(r"(?<=[.!?\"\u201d\u2019)\]])\s+(?:\u2014|\u2015|\u2013|--|~)\s*(?P<who>[^\u2014\u2015]{1,160})$")


@dataclass(frozen=True, slots=True)
class CitedSource:
    """One cache link of a footnote whose evidence file could be read, and the line ranges of each of its anchors."""

    link: CacheLink
    evidence: Evidence

    @property
    def ranges(self) -> list[list[Range]]:
        """The ranges of each anchor of the link, as :func:`~skillcite.check.matching.locate.locate` takes them."""
        return [a.ranges for a in self.link.anchors]


@dataclass(frozen=True, slots=True)
class Citation:
    """A footnote a quote cites: its first definition and each of its cache links that names readable evidence.

    ``definition.cache_links`` holds every cache link; ``sources`` only those
    that resolved to an evidence file that could be read as text.
    """

    definition: FootnoteDef
    sources: tuple[CitedSource, ...]


@dataclass(frozen=True, slots=True)
class CitedQuote:
    """A quotation of a document with each footnote it cites that is defined, in the order it cites them (each once)."""

    doc: Document
    quote: Quote
    citations: tuple[Citation, ...]


def first_definitions(doc: Document) -> dict[str, FootnoteDef]:
    """Each footnote label's first definition (a later one is SC103 and dead text)."""
    out: dict[str, FootnoteDef] = {}
    for d in doc.definitions:
        out.setdefault(d.label, d)
    return out


def without_attribution(quote: Quote) -> str | None:
    """A blockquote's words without a closing ``— Author, Title`` line; None when it has none.

    The attribution names the source, the footnote cites it: the words before
    it are the quote. At most 12 words, after the end of a sentence.
    """
    if not quote.block:
        return None
    m = _ATTRIBUTION.search(quote.text.rstrip())
    if m is None or len(m.group("who").split()) > 12:
        return None
    return quote.text[: m.start()].rstrip()


def cite(ws: Workspace, doc: Document, quote: Quote, definitions: dict[str, FootnoteDef] | None = None) -> CitedQuote:
    """The record of ``quote``: each defined footnote it cites, with the evidence each cache link names."""
    if definitions is None:
        definitions = first_definitions(doc)
    citations = []
    for label in dict.fromkeys(quote.labels):
        d = definitions.get(label)
        if d is not None:
            citations.append(Citation(d, tuple(_sources(ws, doc, d))))
    return CitedQuote(doc, quote, tuple(citations))


def _sources(ws: Workspace, doc: Document, d: FootnoteDef) -> list[CitedSource]:
    out = []
    for link in d.cache_links:
        path, problem = ws.resolve_cache(doc, link)
        if problem or path is None:
            continue  # SC2xx report the link itself
        ev = ws.load_evidence(path)
        if ev.file is not None:  # unreadable evidence is SC4xx's finding
            out.append(CitedSource(link, ev))
    return out


def cited_quotes(ws: Workspace) -> list[CitedQuote]:
    """Every quotation of every checked document, cited, in document order.

    Before anything is matched, each evidence file is told which lines its
    quotes cite (:meth:`~skillcite.check.parsing.evidence.Evidence.expect`),
    so that a file quoted all over is normalized whole once, not stretch by
    stretch.
    """
    out: list[CitedQuote] = []
    for doc in ws.checked_documents():
        definitions = first_definitions(doc)
        out.extend(cite(ws, doc, quote, definitions) for quote in doc.quotes)
    for cq in out:
        for c in cq.citations:
            for s in c.sources:
                span = cited_span(valid_anchors(s.ranges, s.evidence.line_count))
                if span is not None:
                    s.evidence.expect(*span)
    return out
