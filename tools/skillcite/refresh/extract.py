"""Turning a response body into text: charset decoding and HTML extraction.

Decoding follows what browsers do, in order: a byte-order mark, the
``charset`` of the Content-Type header, a ``<meta charset>`` in the first
bytes of HTML, UTF-8, and finally windows-1252 (which never fails and is
the usual encoding of undeclared Western pages). Only the text encodings a
browser accepts are honoured: a server that names ``rot13``, ``base64``,
``zlib`` or ``punycode`` gets the fallback, never a crash.

HTML is bounded before any parser sees it (:func:`check_markup`: libxml2
spends quadratic time on a tag with many attributes), parsed once with lxml,
stripped of the text a reader never sees (:func:`drop_hidden`), and then goes
through trafilatura. lxml and trafilatura are imported only when a page is
extracted: ``skillcite check`` must not pay for them or need them installed.
"""

from __future__ import annotations

import codecs
import copy
import re
from typing import Any

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_PLAIN_TYPES = frozenset({"application/json", "application/xml", "application/x-markdown", "application/x-tex", "application/x-yaml"})


def media_type(content_type: str) -> tuple[str, dict[str, str]]:
    """``text/html; charset=UTF-8`` -> ``("text/html", {"charset": "UTF-8"})``."""
    head, *params = content_type.split(";")
    out: dict[str, str] = {}
    for p in params:
        key, eq, value = p.partition("=")
        if eq:
            out[key.strip().lower()] = value.strip().strip('"').strip("'")
    return head.strip().lower(), out


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
# Browsers treat these labels as windows-1252 (WHATWG Encoding); so do we,
# because servers that say latin-1 often send curly quotes from cp1252.
_LATIN1_LABELS = frozenset({"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii", "cp819", "ibm819"})


# The encodings of the WHATWG Encoding Standard that Python has, by Python's
# own name for them. Anything else a server names (rot13, base64, zlib,
# punycode, idna, unicode-escape, ...) is not how browsers read the page.
TEXT_CODECS = frozenset(
    {"utf-8", "utf-16", "utf-16-le", "utf-16-be", "cp866", "koi8-r", "koi8-u", "mac-roman", "mac-cyrillic", "cp874"}
    | {f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)}
    | {f"cp{n}" for n in range(1250, 1259)}
    | {"gbk", "gb2312", "gb18030", "big5", "big5hkscs", "euc_jp", "iso2022_jp", "shift_jis", "cp932", "euc_kr", "cp949"}
)


def _codec(label: str | None) -> str | None:
    """The Python codec for a charset label, or None when it is not a browser text encoding."""
    if not label:
        return None
    label = label.strip().lower()
    if label in _LATIN1_LABELS:
        return "cp1252"
    try:
        name = codecs.lookup(label).name
    except (LookupError, ValueError):  # ValueError: a label with a NUL byte
        return None
    return name if name in TEXT_CODECS else None


def decode_body(body: bytes, content_type: str) -> str:
    """Decode a response body: BOM, then header charset, then ``<meta>``, then UTF-8, then cp1252."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace")
    kind, params = media_type(content_type)
    codec = _codec(params.get("charset"))
    if codec is None and ("html" in kind or "xml" in kind or not kind):
        m = _META_CHARSET.search(body[:4096])
        codec = _codec(m.group(1).decode("ascii", "replace")) if m else None
    if codec is not None:
        try:
            return body.decode(codec)
        except UnicodeError:
            if codec == "cp1252":
                return body.decode("latin-1")  # the five bytes cp1252 leaves undefined
            return body.decode(codec, errors="replace")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


class Unsupported(Exception):
    """The response holds something we cannot turn into text."""


def _sniff(body: bytes) -> str:
    head = body[:2048].lstrip().lower()
    if head.startswith(b"%pdf"):
        return "application/pdf"
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head:
        return "text/html"
    return "text/plain"


# --- bounding and cleaning HTML ----------------------------------------------

MAX_TAG_ATTRIBUTES = 512  # no real page comes near; libxml2's cost grows with its square
MAX_SCAN_FACTOR = 8  # markup scanning may read each character this many times, no more
_TAG_START = re.compile(r"</?[A-Za-z]")
# One attribute as the HTML tokenizer reads it (libxml2 2.14 follows HTML5):
# a name (any first character but space, / and >), then an optional value,
# quoted (to the closing quote, or to the end of the input) or bare.
_ATTRIBUTE = re.compile(r"""[\s/]*([^\s/>][^\s/>=]*)(?:\s*=\s*(?:"[^"]*(?:"|\Z)|'[^']*(?:'|\Z)|[^\s>]*))?""")
_TAG_NAME = re.compile(r"</?[^\s/>]*")


def check_markup(html: str) -> None:
    """Raise :class:`Unsupported` for markup no parser should be given.

    Every place a tag can start is read the way the HTML tokenizer reads it,
    so a tag hidden from a sloppier scan (inside a quote, a comment, a
    script) is still counted. The reading stops after
    :data:`MAX_TAG_ATTRIBUTES` attributes, and the total work is capped at
    :data:`MAX_SCAN_FACTOR` readings of the page, so the check is linear.
    """
    budget = MAX_SCAN_FACTOR * len(html) + 65536
    for start in _TAG_START.finditer(html):
        pos = _TAG_NAME.match(html, start.start()).end()  # type: ignore[union-attr]  # always matches "<" + letter
        count = 0
        while pos < len(html) and html[pos] != ">":
            m = _ATTRIBUTE.match(html, pos)
            if m is None or m.end() == pos:
                break
            budget -= m.end() - pos
            pos = m.end()
            count += 1
            if count > MAX_TAG_ATTRIBUTES:
                raise Unsupported(f"a tag with more than {MAX_TAG_ATTRIBUTES} attributes (at character {start.start():,}); not extracted")
            if budget < 0:
                raise Unsupported("markup too convoluted to read in linear time (unclosed quotes across tags); not extracted")
        budget -= pos - start.end()


# Inline styles that hide an element: display:none, visibility:hidden or
# collapse, and fonts of size zero in any unit.
_HIDING_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*(?:0+\.?0*|\.0+)(?:[a-z%]+)?\s*(?:!important\s*)?(?:;|$))",
    re.IGNORECASE,
)
HIDDEN_ELEMENTS = ("noscript", "template")


def is_hidden(element: Any) -> bool:
    """True for an element whose text a reader of the page never sees."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag.lower() in HIDDEN_ELEMENTS or element.get("hidden") is not None:
        return True
    style = element.get("style")
    return bool(style) and _HIDING_STYLE.search(style) is not None


def drop_hidden(root: Any) -> int:
    """Remove hidden elements (with their text, keeping what follows them); return how many."""
    doomed = [el for el in root.iter() if isinstance(el.tag, str) and is_hidden(el)]
    dropped = 0
    for el in doomed:
        if el.getparent() is None or any(is_hidden(a) for a in el.iterancestors()):
            continue  # the root, or inside an element already dropped
        el.drop_tree()  # keeps el.tail: the text after a hidden span is visible
        dropped += 1
    return dropped


def html_texts(html: str) -> tuple[str, str]:
    """``(main_text, whole_text)`` of an HTML page, hidden text left out."""
    import lxml.html
    import trafilatura

    check_markup(html)
    try:
        root = lxml.html.document_fromstring(html)
    except Exception as exc:  # lxml raises ParserError/ValueError for empty or odd input
        raise Unsupported(f"HTML could not be parsed: {type(exc).__name__}") from None
    drop_hidden(root)
    # trafilatura cleans the tree it is given in place: give each call its own.
    main = trafilatura.extract(copy.deepcopy(root), favor_recall=True, include_comments=False, include_tables=True) or ""
    whole = trafilatura.html2txt(root) or ""
    return main, whole


def extract_text(body: bytes, content_type: str) -> tuple[str, list[str]]:
    """``(upstream_text, texts_to_search)`` for a response body.

    For HTML the upstream text is trafilatura's main-content extraction; the
    search also covers the whole page's text, because main-content
    extraction sometimes drops a stretch the excerpt quotes (a caption, a
    table, a sidebar note) and that is not a change upstream. Text a reader
    never sees (``hidden``, ``display:none``, ``<noscript>``, ``<template>``,
    zero-size fonts) is in neither.
    """
    kind, _ = media_type(content_type)
    if not kind or kind == "application/octet-stream":
        kind = _sniff(body)
    if kind in _HTML_TYPES:
        main, whole = html_texts(decode_body(body, content_type))
        return (main or whole), [main, whole]
    if kind.startswith("text/") or kind in _PLAIN_TYPES or kind.endswith(("+json", "+xml")):
        text = decode_body(body, content_type)
        return text, [text]
    raise Unsupported(f"{kind} is not HTML or plain text; no text extraction for it")
