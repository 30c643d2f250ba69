"""What a file is, read from its first lines: a cached source or not, and what it says of itself.

``init`` asks :func:`evidence_reason` whether a Markdown file is a cached
source (evidence) rather than skill text; ``evidence adopt`` asks
:func:`pdf_source` whether the cached text came from a PDF (so in-line
hyphenation may be joined where a quote needs it). Nothing here reads the
network or guesses from a file's name: only what the file says at its top.
"""

from __future__ import annotations

import re

from .headers import read_header

# Folder names that mean "cached sources" when the files inside agree.
EVIDENCE_FOLDER_NAMES = frozenset({"evidence", "sources", "references", "cache"})

_FRONT_SOURCE = re.compile(r"\A---[ \t]*\r?\n(?:.*\r?\n){0,40}?source[ \t]*:[ \t]*\S", re.IGNORECASE)
_PAGE_HEADER = re.compile(r"^URL Source:[ \t]*https?://", re.MULTILINE)
_ARXIV = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>[^\s?#]+?)(?:v\d+)?(?:\.pdf)?/?$", re.IGNORECASE)
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)10\.\d{4,}/\S+$", re.IGNORECASE)


def evidence_reason(text: str) -> str | None:
    """Why ``text`` is a cached source, in a few words; None when nothing at its top says so."""
    head = text[:8000]
    if _FRONT_SOURCE.match(head):
        return "front matter with source"
    if _PAGE_HEADER.search("\n".join(head.split("\n")[:25])):
        return "page-to-Markdown header"
    header = read_header(head)
    if header is not None and header.fields.get("source"):
        return "# Title + Source: header" if header.title_line else "Source: header"
    return None


def pdf_source(*values: str) -> str | None:
    """Why the cached text is a PDF's, from its source URL or header values; None when nothing says so.

    A URL ending in ``.pdf``, an arXiv address (abstract or PDF: arXiv's
    full text is a PDF), a DOI, or a ``Number of Pages:`` header value all
    count; a plain web page does not.
    """
    for value in values:
        v = value.strip()
        if not v:
            continue
        if _ARXIV.match(v):
            return "an arXiv source"
        if _DOI.match(v):
            return "a DOI source"
        if re.match(r"^https?://\S+\.pdf(?:[?#]\S*)?$", v, re.IGNORECASE) or v.lower().endswith(".pdf"):
            return "a PDF URL"
    return None
