"""Provenance written as header lines (``Source: ...``) turned into YAML front matter.

Many skill repositories open each cached source with a few ``Key: value``
lines instead of a ``---`` block. This module reads such a header, maps its
keys onto the evidence keys of docs/citations.md, and renders the front
matter that replaces it. It decides nothing about files or anchors: that is
``adopt.evidence``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

# A header line: an optional list bullet, a key of a few words (optionally in
# bold), a colon, a value. ``https:`` inside a value never reads as a key
# because the key must start the line.
_HEADER_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?(?P<key>[A-Za-z][A-Za-z ._-]{0,30}?)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*(?P<value>.*?)[ \t]*\r?$")

# Header key (lower case, single spaces) -> evidence key.
KEY_MAP = {
    "source": "source",
    "url": "source",
    "link": "source",
    "source url": "source",
    "url source": "source",
    "original url": "source",
    "canonical url": "source",
    "title": "title",
    "author": "author",
    "authors": "author",
    "by": "author",
    "date": "published",
    "published": "published",
    "year": "published",
    "publication date": "published",
    "published time": "published",
    "published date": "published",
    "retrieved": "retrieved",
    "accessed": "retrieved",
    "fetched": "retrieved",
    "retrieved on": "retrieved",
    "date accessed": "retrieved",
    "license": "license",
    "licence": "license",
    "via": "via",
    "kind": "kind",
    "type": "kind",
    "note": "note",
    "notes": "note",
}

# The order keys are written in (others follow, in the order found).
KEY_ORDER = ("source", "title", "author", "published", "retrieved", "via", "kind", "format", "license", "note")
REQUIRED = ("source", "title", "author", "retrieved", "kind", "license")
KINDS = ("excerpt", "transcript", "notes")


@dataclass(slots=True)
class Header:
    """A header block found in the first lines of a file.

    The block occupies the 0-based lines ``start`` to ``lines`` (exclusive):
    the ``Key: value`` lines, the blank lines between them, a ``Markdown
    Content:`` marker when there is one, and the blank lines that separate
    the block from the body when nothing is kept above it. Lines above
    ``start`` (a ``# Title`` heading, say) stay in the body.
    """

    fields: dict[str, str] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)  # keys we do not map, kept under their own name
    lines: int = 0  # end of the block (exclusive, 0-based)
    start: int = 0  # first line of the block (0-based)
    key_lines: list[int] = field(default_factory=list)  # 1-based lines the fields came from
    title_line: int = 0  # 1-based line of the heading the title came from (0: none)

    def render_origin(self) -> str:
        """Where the fields came from, for the report: ``lines 3-5, title from the heading on line 1``."""
        first, last = self.key_lines[0], self.key_lines[-1]
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        return where + (f", title from the heading on line {self.title_line}" if self.title_line else "")


# Lines searched for a header block.
WINDOW = 25
_HEADING = re.compile(r"^[ \t]{0,3}#{1,2}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*\r?$")
_COMMENT = re.compile(r"^[ \t]*<!--.*-->[ \t]*\r?$")
# A key with no value that ends a header block and goes with it (page-to-Markdown tools write it).
CONTENT_MARKERS = ("markdown content", "content", "text content")


def _key(m: re.Match[str]) -> str:
    return " ".join(m.group("key").lower().replace("_", " ").replace("-", " ").split())


def _blank(line: str) -> bool:
    return not line.strip("\r \t")


def read_header(text: str) -> Header | None:
    """The header block in the first lines of ``text``, or None when there is none.

    Three forms are read: ``Key: value`` lines at the top (blank lines
    between them allowed, as page-to-Markdown tools write ``Title:`` /
    ``URL Source:`` / ``Markdown Content:``); a ``# Title`` heading followed
    by such lines (one ``Source:`` line is enough there, the heading gives
    the title); and a block further down the first lines, which must name an
    http(s) source. At least two ``Key: value`` lines are needed otherwise
    (one line such as ``Note: ...`` is too weak a sign to rewrite a file
    for), and at least one must map to an evidence key.
    """
    lines = text.split("\n")
    window = min(len(lines), WINDOW)
    i = 0
    while i < window and (_blank(lines[i]) or _COMMENT.match(lines[i])):
        i += 1
    heading: tuple[int, str] | None = None
    m = _HEADING.match(lines[i]) if i < window else None
    if m:
        heading = (i + 1, m.group("title"))
        i += 1
    # The first block at i (after a heading), or else the first one in the window that names a URL.
    header = _block(lines, i, window)
    if header is not None and _enough(header, heading is not None):
        pass
    else:
        header = None
        for j in range(i, window):
            found = _block(lines, j, window) if _HEADER_LINE.match(lines[j]) else None
            if found is not None and _is_url(found.fields.get("source", "")) and _enough(found, False):
                header = found
                break
    if header is None:
        return None
    if heading is not None and "title" not in header.fields and heading[0] <= header.start:
        header.fields["title"] = heading[1]
        header.title_line = heading[0]
    kept_above = any(not _blank(line) for line in lines[: header.start])
    end = header.lines
    if kept_above:
        # Keep one blank line between what stays above and the body.
        if header.start > 0 and _blank(lines[header.start - 1]):
            while end < len(lines) - 1 and _blank(lines[end]):
                end += 1
    else:
        header.start = 0
        while end < len(lines) - 1 and _blank(lines[end]):
            end += 1
    header.lines = end
    return header


def _enough(header: Header, after_heading: bool) -> bool:
    if not header.fields:
        return False
    if len(header.key_lines) >= 2:
        return True
    return after_heading and "source" in header.fields


def _block(lines: list[str], start: int, window: int) -> Header | None:
    """The ``Key: value`` lines from ``start`` on (blank lines between them allowed)."""
    header = Header(start=start)
    i = start
    end = start
    after_blank = False
    while i < len(lines) and i < window + 10:
        line = lines[i]
        if _blank(line):
            i += 1
            after_blank = True
            continue
        m = _HEADER_LINE.match(line)
        if not m:
            break
        key = _key(m)
        if after_blank and header.key_lines and key not in KEY_MAP and key not in CONTENT_MARKERS:
            break  # past a blank line only known keys continue the block: "Always be ablating: ..." is the body
        after_blank = False
        value = m.group("value")
        if not value:
            if key in CONTENT_MARKERS and header.key_lines:
                end = i + 1
            break
        target = KEY_MAP.get(key)
        if target is None:
            header.extra.setdefault(key.replace(" ", "_"), value)
        elif target == "source" and "source" in header.fields and not _is_url(header.fields["source"]):
            header.fields["source"] = value  # "Source: Blog" then "URL: https://...": the URL wins
        elif target == "source" and "source" in header.fields:
            header.extra.setdefault(key.replace(" ", "_"), value)
        else:
            header.fields.setdefault(target, value)
        header.key_lines.append(i + 1)
        i += 1
        end = i
    if not header.key_lines:
        return None
    header.lines = end
    return header


def _is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


def render_front_matter(values: dict[str, str], newline: str = "\n") -> str:
    """A ``---`` block with ``values`` in the usual key order, safely quoted YAML.

    An empty value is written as a bare ``key:`` line (YAML null), the place
    to fill it in.
    """
    ordered = [k for k in KEY_ORDER if k in values] + [k for k in values if k not in KEY_ORDER]
    lines = ["---"]
    for key in ordered:
        if values[key] == "":
            lines.append(f"{key}:")  # a required key to fill in: its line is there, so filling it moves nothing
            continue
        dumped = yaml.safe_dump({key: values[key]}, allow_unicode=True, default_flow_style=False, width=10_000)
        lines.append(dumped.rstrip("\n"))
    lines.append("---")
    return newline.join(lines) + newline
