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


# The value written for a required key nobody can tell; ``check`` reports it once per file (SC402).
TODO = "TODO"

_AUTHOR_LINE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?(?:authors?|written by|posted by|by)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*(?P<value>\S.*?)[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
# Lines of the page read for an author line (a citation block under the title, say).
AUTHOR_WINDOW = 60
_CC = re.compile(r"creativecommons\.org/licenses/(?P<kind>by(?:-nc)?(?:-sa|-nd)?)/(?P<version>\d\.\d)", re.IGNORECASE)
_CC0 = re.compile(r"creativecommons\.org/publicdomain/zero/1\.0", re.IGNORECASE)
_ARXIV_LICENSE = re.compile(r"arxiv\.org/licenses/nonexclusive-distrib/1\.0", re.IGNORECASE)
_STATED = re.compile(r"\b[Ll]icen[sc]ed under (?:the )?(?P<name>[A-Z][\w.\- ]{1,60}?\b(?:License|Licence)(?:,? [Vv]ersion \d(?:\.\d)?)?)")
# Publishers whose every page states one licence for its text (in each page's footer).
KNOWN_PUBLISHERS = {
    "en.wikipedia.org": "CC BY-SA 4.0",
    "developers.google.com": "CC BY 4.0",
    "distill.pub": "CC BY 4.0",
}


def page_author(text: str) -> str | None:
    """The author an ``Author:``/``Authors:``/``By:``/``Posted by:`` line near the top of the page names; None when none does."""
    head = "\n".join(text.split("\n")[:AUTHOR_WINDOW])
    m = _AUTHOR_LINE.search(head)
    if m is None:
        return None
    value = m.group("value").split(" | ", 1)[0].strip().strip("*").strip()  # "u/name | Score: 4 | 7 comments" -> "u/name"
    value = re.sub(r"\s*\([^()]*\)\s*$", "", value)  # "A. Author (then at X)" -> "A. Author"
    return value or None


def page_license(text: str, source: str) -> tuple[str, str] | None:
    """The licence the page or its publisher states, and where it was read; None when nothing says.

    Read, in order: a Creative Commons link on the page, arXiv's licence
    link (an abstract page carries one), a sentence "licensed under the ...
    License", and the few publishers that state one licence on every page.
    Nothing is assumed from a site being public.
    """
    m = _CC.search(text)
    if m:
        return f"CC {m.group('kind').upper()} {m.group('version')}", "the page's Creative Commons link"
    if _CC0.search(text):
        return "CC0 1.0", "the page's Creative Commons link"
    if _ARXIV_LICENSE.search(text):
        return "arXiv.org perpetual, non-exclusive license", "the page's arXiv licence link"
    m = _STATED.search(text)
    if m:
        return m.group("name").strip(), "a sentence on the page"
    host = re.sub(r"^https?://([^/\s?#]+).*$", r"\1", source.strip()).lower().removeprefix("www.")
    if host in KNOWN_PUBLISHERS:
        return KNOWN_PUBLISHERS[host], f"{host} states it on every page"
    return None


def license_todo(source: str) -> str:
    """The TODO written where no licence could be read, with a hint when the publisher has a place for it."""
    if _ARXIV.match(source.strip()):
        return f"{TODO}: arXiv names each paper's licence on its abstract page"
    return TODO
