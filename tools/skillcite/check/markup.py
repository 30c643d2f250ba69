"""Where an evidence file's Markdown markup is, as the parser reads it.

The quote side of a comparison is text markdown-it-py already rendered:
emphasis, escapes, links, code-span backticks, footnote references and list
markers are gone, and every other character is text. The evidence side is
raw Markdown, so it must lose exactly the same characters and no others: a
``*`` the parser took for emphasis is markup, a ``*`` in ``2*10`` or in a
code span is text. :func:`markup_offsets` parses the evidence with the same
parser and returns the offsets of its markup characters, which
:func:`~skillcite.check.normalize.normalize` drops (``drop=``).

markdown-it-py's inline tokens carry no source positions, so each inline
rule is wrapped to note where it started and ended, and the emphasis
delimiters are read after pairing (an unpaired ``*`` stays text). A line
whose inline text cannot be placed in the source (tab expansion) keeps all
its characters: that can only make a quote fail, never pass.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkLabel
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

_LIST_MARKER = re.compile(r"[ \t>]*(\d{1,9}[.)]|[-+*])(?=[ \t]|$)")
_HEADING = re.compile(r"[ \t>]*(#{1,6})(?=[ \t]|$)")
_FOOTNOTE_LABEL = re.compile(r"[ \t>]*(\[\^[^\]\s]+\]:)")
# Characters without which no inline rule we note can fire (emphasis,
# escape, code span, link, image, autolink, footnote reference): most lines
# of prose have none, and skip the inline parse.
_INLINE_MARKUP = re.compile(r"[*_`\\\[<]")
_NOTED = frozenset({"escape", "backticks", "emphasis", "link", "image", "autolink", "footnote_ref"})
_KEY = "skillcite_markup"  # the env entry holding the spans of the inline text being parsed


def _wrap(name: str, rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """``rule`` with a note of the markup it consumed (top-level inline text only)."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        ok = rule(state, silent)
        notes = state.env.get(_KEY)
        if ok and not silent and notes is not None and state.src is notes["src"]:
            _note(name, state, start, count, notes)
        return ok

    return wrapped


def _note(name: str, state: StateInline, start: int, count: int, notes: dict[str, Any]) -> None:
    end = state.pos
    drop: list[int] = notes["drop"]
    new = state.tokens[count:]
    if name == "escape":
        drop.append(start)  # the backslash; a hard break's too (the newline stays)
    elif name == "backticks":
        code = next((t for t in new if t.type == "code_inline"), None)
        if code is not None:
            width = len(code.markup)
            drop.extend(range(start, start + width))
            drop.extend(range(end - width, end))
    elif name == "emphasis":
        for k, tok in enumerate(t for t in new if t.type == "text" and t.content in ("*", "_")):
            notes["delims"].append((start + k, tok))
    elif name in ("link", "image"):
        head = 2 if name == "image" else 1
        label_end = parseLinkLabel(state, start + head - 1, True)
        drop.extend(range(start, start + head))
        if label_end >= 0:
            drop.extend(range(label_end, end))  # "](target)" or "][ref]"
        state.pos = end
    elif name == "autolink":
        drop.extend((start, end - 1))
    elif name == "footnote_ref":
        drop.extend(range(start, end))


def _pair_delimiters(state: StateInline) -> None:
    """After emphasis pairing: paired delimiters are markup, the rest text."""
    notes = state.env.get(_KEY)
    if notes is None or state.src is not notes["src"]:
        return
    for pos, tok in notes["delims"]:
        if tok.type != "text" or tok.content == "":
            notes["drop"].append(pos)
    notes["delims"].clear()


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """The skill documents' parser (CommonMark, front matter, footnotes, tables), instrumented."""
    md = MarkdownIt("commonmark").use(front_matter_plugin).use(footnote_plugin, inline=False, move_to_end=False)
    md.enable("table")
    # Excerpts keep the indentation their passages had inside the source's
    # lists; an indented passage is the source's text, not a code block.
    md.disable("code")
    for rule in md.inline.ruler.__rules__:
        if rule.name in _NOTED:
            rule.fn = _wrap(rule.name, rule.fn)
    md.inline.ruler.__compiled__ = None  # type: ignore[attr-defined]  # markdown-it recompiles a ruler whose cache is cleared
    md.inline.ruler2.before("fragments_join", "skillcite_pairs", _pair_delimiters)
    # Blocks only: each inline text is parsed on its own below, with notes.
    md.core.ruler.disable(["inline", "text_join"])
    return md


def _content_lines(content: str, first: int, lines: list[str], starts: list[int], cursor: dict[int, int], cell: bool) -> list[int] | None:
    """Source offset of each line of an inline token's content, or None where lost."""
    out: list[int] = []
    for k, piece in enumerate(content.split("\n")):
        number = first + k
        if number >= len(lines):
            return None
        line = lines[number].rstrip("\r")
        col = -1
        if not cell:
            trimmed = line.rstrip(" \t")
            if trimmed.endswith(piece.rstrip(" \t")):
                col = len(trimmed) - len(piece.rstrip(" \t"))
        if col < 0:
            col = line.find(piece, cursor.get(number, 0))
        if col < 0:
            return None
        cursor[number] = col + len(piece)
        out.append(starts[number] + col)
    return out


def markup_offsets(text: str) -> list[int]:
    """Offsets in ``text`` (raw Markdown) of the characters that are markup.

    Emphasis delimiters the parser paired, backslashes of escapes, code-span
    backticks, link and image syntax around their text, autolink brackets,
    footnote references and definition labels, list markers and ATX
    heading markers.
    """
    md = _parser()
    source = text.replace("\r\n", "\n").replace("\r", " ") if "\r" in text else text
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    env: dict[str, Any] = {}
    tokens = md.parse(source, env)
    drop: list[int] = []
    cursor: dict[int, int] = {}
    marker_cursor: dict[int, int] = {}
    for k, tok in enumerate(tokens):
        if tok.type == "list_item_open" and tok.map:
            number = tok.map[0]
            m = _LIST_MARKER.match(lines[number], marker_cursor.get(number, 0))
            if m:
                drop.extend(range(starts[number] + m.start(1), starts[number] + m.end(1)))
                marker_cursor[number] = m.end(1)
        elif tok.type == "footnote_reference_open" and tok.map:
            m = _FOOTNOTE_LABEL.match(lines[tok.map[0]])
            if m:
                drop.extend(range(starts[tok.map[0]] + m.start(1), starts[tok.map[0]] + m.end(1)))
        elif tok.type == "heading_open" and tok.markup.startswith("#") and tok.map:
            m = _HEADING.match(lines[tok.map[0]])
            if m:
                drop.extend(range(starts[tok.map[0]] + m.start(1), starts[tok.map[0]] + m.end(1)))
        elif tok.type == "inline" and tok.map and _INLINE_MARKUP.search(tok.content):
            cell = k > 0 and tokens[k - 1].type in ("td_open", "th_open")
            places = _content_lines(tok.content, tok.map[0], lines, starts, cursor, cell)
            if places is None:
                continue
            notes: dict[str, Any] = {"src": tok.content, "drop": [], "delims": []}
            env[_KEY] = notes
            md.inline.parse(tok.content, md, env, [])
            env.pop(_KEY)
            line_starts = [0]
            for piece in tok.content.split("\n")[:-1]:
                line_starts.append(line_starts[-1] + len(piece) + 1)
            for pos in notes["drop"]:
                n = _line_index(line_starts, pos)
                drop.append(places[n] + pos - line_starts[n])
    return sorted(set(drop))


def _line_index(starts: list[int], pos: int) -> int:
    return bisect_right(starts, pos) - 1
