"""A line scan of a document that can hold no quotation, footnote or link: what the model needs, without markdown-it-py.

A document with no ``[``, ``<`` or ``>`` holds no footnote reference or
definition, no link, no blockquote and no HTML, so no quotation either (an
inline quote counts only with a footnote reference after it). What its model
still needs is where the front matter ends, the text of each heading (for
link fragments) and the fences left open; :func:`scan` reads them from the
lines, in order. It answers only where the reading is certain and returns
None everywhere else, and the document is then parsed in full: a tab or a
carriage return, a setext underline, a heading or fence inside a list item
or indented four spaces or more, a heading whose text holds inline markup or
a ``#``, deep indentation, and front matter it cannot close.
``tests/test_prescan.py`` compares its models with the full parse's on
every Markdown file of the repository and on generated documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...core.textio import TextFile
from .document import Document, Located, SlugCounter, parser, read_front_matter

TRIGGERS = "[<>\r\t"  # any of these: parse in full
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ ]+(.*))?")
_UNDERLINE = re.compile(r" {0,3}(?:=+|-+) *")
_LIST_MARKER = re.compile(r" *(?:[-+*]|\d{1,9}[.)])(?: +|$)")
_HEADING_MARKUP = "\\`*_&#"  # inline markup a heading's text may hold (commonmark preset), and closing #s
_DEEP = 12  # leading spaces from which list nesting (two levels a list) could approach markdown-it's maxNesting (20)


@dataclass(frozen=True, slots=True)
class Fence:
    """A fence's opening: its 1-based line, its marker, and the column the marker starts at."""

    line: int
    marker: str
    column: int


@dataclass(frozen=True, slots=True)
class Scan:
    """What a plain document's model needs: the front matter's last line (0: none), headings' text in order, the fence left open."""

    front_matter_end: int
    headings: tuple[str, ...]
    unclosed: Fence | None


def front_matter_end(lines: list[str]) -> int | None:
    """The 1-based line closing the front matter opened on line 1, 0 when there is none, None when unsure."""
    if not lines or not lines[0].startswith("---"):
        return 0
    if lines[0] != "---":
        return None  # "--- x", "----": the plugin's own reading; the full parse decides
    for k in range(1, len(lines)):
        if lines[k] == "---":
            return k + 1
    return None


def scan(text: str) -> Scan | None:
    """The model's needs of ``text`` read line by line, or None when only the full parse can tell."""
    if any(ch in text for ch in TRIGGERS):
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    end = front_matter_end(lines)
    if end is None:
        return None
    headings: list[str] = []
    fence: Fence | None = None
    previous_blank = True
    for k in range(end, len(lines)):
        line = lines[k]
        if fence is not None:
            m = _FENCE.fullmatch(line)
            if m and m.group(2)[0] == fence.marker[0] and len(m.group(2)) >= len(fence.marker) and not m.group(3).strip(" "):
                fence = None
                previous_blank = True
            continue
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if indent >= _DEEP:
            return None
        marker = _LIST_MARKER.match(line)
        if marker:
            rest = line[marker.end() :]
            if rest.startswith(("#", "`", "~", "=")) or _LIST_MARKER.match(rest) or _UNDERLINE.fullmatch(rest):
                return None  # a heading, fence or list opened inside a list item's first line
        if not stripped:
            previous_blank = True
            continue
        if _UNDERLINE.fullmatch(line):
            if not previous_blank:
                return None  # a setext heading, or a thematic break: the full parse tells
            previous_blank = False
            continue
        if stripped.startswith(("```", "~~~")):
            m = _FENCE.fullmatch(line)
            if indent or m is None or (m.group(2)[0] == "`" and "`" in m.group(3)):
                return None  # a fence inside a list item (or code), or backticks that open no fence
            fence = Fence(k + 1, m.group(2), 1)
            continue
        if stripped.startswith("#"):
            if indent >= 4:
                return None
            h = _ATX.fullmatch(line)
            if h is not None:
                content = (h.group(2) or "").strip(" ")
                if any(ch in content for ch in _HEADING_MARKUP):
                    return None
                headings.append(content)
                previous_blank = True
                continue
        previous_blank = False
    if fence is not None and len(lines) - fence.line >= 1:
        # As the full parse's builder does: a fence that runs to the end counts as closed when its last
        # line reads as a closing fence at any indentation.
        closing = re.compile(r"[ \t>]*" + re.escape(fence.marker[0]) + "{" + str(len(fence.marker)) + r",}[ \t]*")
        if closing.fullmatch(lines[-1]):
            fence = None
    return Scan(end, tuple(headings), fence)


def plain_document(path: Path, rel: str, file: TextFile) -> Document | None:
    """The model of a document :func:`scan` can read, as the full parse builds it; None for any other document."""
    found = scan(file.text)
    if found is None:
        return None
    doc = Document(path, rel, file)
    if found.front_matter_end:
        # The front matter's own lines go through the parser that reads it in a full parse (its plugin
        # decides where it ends); the scan only found where it should.
        head = file.text[: file.line_starts[found.front_matter_end] if found.front_matter_end < file.line_count else len(file.text)]
        tokens = parser().parse(head, {})
        if not tokens or tokens[0].type != "front_matter" or tokens[0].map != [0, found.front_matter_end]:
            return None
        read_front_matter(doc, tokens[0].content)
    slugs = SlugCounter()
    doc.slugs.update(slugs.add_text(text) for text in found.headings)
    if found.unclosed is not None:
        doc.unclosed_fences.append(Located(found.unclosed.marker, found.unclosed.line, found.unclosed.column))
    return doc
