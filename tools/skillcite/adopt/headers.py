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
    "title": "title",
    "author": "author",
    "authors": "author",
    "by": "author",
    "date": "published",
    "published": "published",
    "year": "published",
    "publication date": "published",
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
KEY_ORDER = ("source", "title", "author", "published", "retrieved", "via", "kind", "license", "note")
REQUIRED = ("source", "title", "author", "retrieved", "kind", "license")
KINDS = ("excerpt", "transcript", "notes")


@dataclass(slots=True)
class Header:
    """A header found at the top of a file.

    ``lines`` is how many physical lines the header occupies, including the
    blank lines that separate it from the body (they go too, so the body
    starts where it did after the header).
    """

    fields: dict[str, str] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)  # keys we do not map, kept under their own name
    lines: int = 0


def read_header(text: str) -> Header | None:
    """The header-line block at the top of ``text``, or None when there is none.

    At least two ``Key: value`` lines must open the file (one line such as
    ``Note: ...`` is too weak a sign to rewrite a file for), and at least one
    of them must map to an evidence key.
    """
    lines = text.split("\n")
    header = Header()
    count = 0
    for line in lines:
        m = _HEADER_LINE.match(line)
        if not m or not m.group("value"):
            break
        key = " ".join(m.group("key").lower().replace("_", " ").replace("-", " ").split())
        target = KEY_MAP.get(key)
        value = m.group("value")
        if target is None:
            header.extra.setdefault(key.replace(" ", "_"), value)
        elif target == "source" and "source" in header.fields and not _is_url(header.fields["source"]):
            header.fields["source"] = value  # "Source: Blog" then "URL: https://...": the URL wins
        elif target == "source" and "source" in header.fields:
            header.extra.setdefault(key.replace(" ", "_"), value)
        else:
            header.fields.setdefault(target, value)
        count += 1
    if count < 2 or not header.fields:
        return None
    while count < len(lines) - 1 and not lines[count].strip("\r \t"):
        count += 1
    header.lines = count
    return header


def _is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


def render_front_matter(values: dict[str, str], newline: str = "\n") -> str:
    """A ``---`` block with ``values`` in the usual key order, safely quoted YAML."""
    ordered = [k for k in KEY_ORDER if k in values] + [k for k in values if k not in KEY_ORDER]
    lines = ["---"]
    for key in ordered:
        dumped = yaml.safe_dump({key: values[key]}, allow_unicode=True, default_flow_style=False, width=10_000)
        lines.append(dumped.rstrip("\n"))
    lines.append("---")
    return newline.join(lines) + newline
