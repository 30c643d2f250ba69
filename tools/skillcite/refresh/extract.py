"""Turning a response body into text: charset decoding and HTML extraction.

Decoding follows what browsers do, in order: a byte-order mark, the
``charset`` of the Content-Type header, a ``<meta charset>`` in the first
bytes of HTML, UTF-8, and finally windows-1252 (which never fails and is
the usual encoding of undeclared Western pages).

HTML goes through trafilatura, imported only when a page is extracted:
``skillcite check`` imports the CLI, which imports :mod:`.refresh`, and must
not pay for trafilatura or need it installed.
"""

from __future__ import annotations

import codecs
import re

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


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().lower()
    if label in _LATIN1_LABELS:
        return "cp1252"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


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
        except UnicodeDecodeError:
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


def extract_text(body: bytes, content_type: str) -> tuple[str, list[str]]:
    """``(upstream_text, texts_to_search)`` for a response body.

    For HTML the upstream text is trafilatura's main-content extraction; the
    search also covers the whole page's text, because main-content
    extraction sometimes drops a stretch the excerpt quotes (a caption, a
    table, a sidebar note) and that is not a change upstream.
    """
    kind, _ = media_type(content_type)
    if not kind or kind == "application/octet-stream":
        kind = _sniff(body)
    if kind in _HTML_TYPES:
        import trafilatura

        html = decode_body(body, content_type)
        main = trafilatura.extract(html, favor_recall=True, include_comments=False, include_tables=True) or ""
        whole = trafilatura.html2txt(html) or ""
        return (main or whole), [main, whole]
    if kind.startswith("text/") or kind in _PLAIN_TYPES or kind.endswith(("+json", "+xml")):
        text = decode_body(body, content_type)
        return text, [text]
    raise Unsupported(f"{kind} is not HTML or plain text; no text extraction for it")
