"""Where an evidence file's Markdown markup is, as the parser reads it.

The quote side of a comparison is text markdown-it-py already rendered:
emphasis, escapes, links, code-span backticks, footnote references and list
markers are gone, and every other character is text. The evidence side is
raw Markdown, so it must lose exactly the same characters and no others: a
``*`` the parser took for emphasis is markup, a ``*`` in ``2*10`` or in a
code span is text. :func:`markup_offsets` parses the evidence with the same
parser and returns the offsets of its markup characters, which
:func:`~skillcite.check.parsing.normalize.normalize` drops (``drop=``).

markdown-it-py's inline tokens carry no source positions, so each inline
rule is wrapped to note where it started and ended, and the emphasis
delimiters are read after pairing (an unpaired ``*`` stays text). A line
whose inline text cannot be placed in the source (tab expansion) keeps all
its characters: that can only make a quote fail, never pass.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
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
# Characters without which no inline rule we note can fire (emphasis,
# escape, code span, link, image, autolink, footnote reference): most lines
# of prose have none, and skip the inline parse.
_INLINE_MARKUP = re.compile(r"[*_`\\\[<]")
_NOTED = frozenset({"escape", "backticks", "emphasis", "link", "image", "autolink", "footnote_ref"})
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\n")  # CommonMark's escapable ASCII punctuation, and a line break
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
        # The backslash of an escape (\*) or a hard break (the newline
        # stays); before any other character ($\nabla$, C:\temp) it is
        # text, which the parser keeps and so must the evidence.
        if state.src[start + 1 : start + 2] in _ESCAPABLE:
            drop.append(start)
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


@lru_cache(maxsize=2)
def _parser(front: bool = True) -> MarkdownIt:
    """The skill documents' parser (CommonMark, front matter, footnotes, tables), instrumented.

    Without ``front``, for a stretch of a file that does not start at its
    first line: a ``---`` opening the stretch is a rule there, not front matter.
    """
    md = MarkdownIt("commonmark")
    if front:
        md.use(front_matter_plugin)
    md.use(footnote_plugin, inline=False, move_to_end=False)
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


def _source(text: str) -> str:
    """``text`` as the parser reads it: CR LF and lone CR line ends turned into one character each."""
    return text.replace("\r\n", "\n").replace("\r", " ") if "\r" in text else text


def top_blocks(text: str) -> tuple[list[int], dict[str, Any]]:
    """The first line (0-based) of each top-level block of ``text``, and the parse's definitions.

    Block structure only, no inline parse: what :func:`markup_offsets`
    needs to parse a stretch of the file on its own. From the first line of
    a top-level block no container is open, so the stretch parses as it
    does inside the whole file, given the definitions (link references,
    footnotes) that the whole file makes, which the second value holds.
    """
    env: dict[str, Any] = {}
    tokens = _parser().parse(_source(text), env)
    starts = sorted({tok.map[0] for tok in tokens if tok.level == 0 and tok.nesting >= 0 and tok.map})
    return starts, env


# A line that opens a top-level block after a blank line: at column 0, and
# not what could continue or reopen a container or a list (markers, rules,
# setext lines, fences, HTML, indentation).
_CUT = re.compile(r"\n[ \t\r]*\n(?=[^ \t\r\n\-+*_=~`<0-9])")
# Each pattern below starts at a line break, so that the regular expression
# engine looks for that character only; the scan reads "\n" + the text.
_FENCE_LINE = re.compile(r"\n([ \t>]*)(`{3,}|~{3,})([^\n]*)")
# What the scan below cannot place: link or footnote definitions (``]:``,
# they change how other blocks read), HTML blocks that run past blank lines.
_UNSCANNED_HTML = re.compile(r"(?i)\n[ \t>]*<(?:[!?]|(?:script|pre|style|textarea)(?:[\s>]|$))")
_HTML_LINE = re.compile(r"\n[ \t>]*<")


def plain_starts(text: str) -> list[int] | None:
    """Lines (0-based) where a top-level block surely starts, from a scan of the text; None when unsure.

    A line after a blank line, at column 0, that no container can hold and
    that opens no list item: every container and list is closed there,
    unless a fenced code block is open, which the scan follows. Files with
    definitions, HTML blocks that cross blank lines, fences inside
    containers, or fence lines next to HTML give None (:func:`top_blocks`
    parses those). A subset of :func:`top_blocks`' starts, which
    ``tests/test_narrow.py`` checks on generated Markdown.
    """
    if "]:" in text:
        return None
    source = "\n" + _source(text)  # same lines as ``text``, one line break ahead
    if _UNSCANNED_HTML.search(source):
        return None
    fences = list(_FENCE_LINE.finditer(source))
    if fences and (_HTML_LINE.search(source) or any(m.group(1) for m in fences)):
        return None  # a fence line inside an HTML block or a container: only the parser can place it
    cuts = [m.end() for m in _CUT.finditer(source)]
    # Drop the cuts inside fenced code: an opener is ``` or ~~~ (a backtick
    # fence's info string holds no backtick); its closer is the same
    # character, at least as long, nothing else on the line; an unclosed
    # fence runs to the end.
    inside: list[int] = []  # flat (open, close) offsets, ascending
    open_at, char, width = -1, "", 0
    for m in fences:
        run, rest = m.group(2), m.group(3)
        if open_at < 0:
            if run[0] == "`" and "`" in rest:
                continue
            open_at, char, width = m.start() + 1, run[0], len(run)
        elif run[0] == char and len(run) >= width and not rest.strip(" \t"):
            inside += (open_at, m.end())
            open_at = -1
    if open_at >= 0:
        inside += (open_at, len(source))
    # A cut is inside a fence when an odd number of bounds lie before it.
    kept = [c for c in cuts if bisect_left(inside, c) % 2 == 0] if inside else cuts
    return _line_numbers(source, kept)


def _line_numbers(source: str, offsets: list[int]) -> list[int]:
    """0-based line numbers of line-start ``offsets`` in ``source`` ("\n" + the text), with line 0 first."""
    out = [0]
    line, pos = 0, 1
    for off in offsets:
        line += source.count("\n", pos, off)
        pos = off
        out.append(line)
    return out


def copy_env(env: dict[str, Any]) -> dict[str, Any]:
    """A copy of a parse's definitions that a second parse may update without touching the first."""
    out: dict[str, Any] = {}
    if "references" in env:
        out["references"] = dict(env["references"])
    if "footnotes" in env:
        out["footnotes"] = {"refs": dict(env["footnotes"].get("refs", {})), "list": {}}
    return out


def markup_offsets(text: str, env: dict[str, Any] | None = None, front: bool = True) -> list[int]:
    """Offsets in ``text`` (raw Markdown) of the characters that are markup.

    Emphasis delimiters the parser paired, backslashes of escapes, code-span
    backticks, link and image syntax around their text, autolink brackets,
    footnote references, list markers and ATX heading markers. A footnote
    definition's label (``[^1]:``) stays: it keeps the note apart from the
    body text before it, so no quote joins the two (issue 28 §6). For a stretch of a file that starts on a top-level
    block (see :func:`top_blocks`), pass a copy of the whole file's ``env``
    and ``front=False``.
    """
    md = _parser(front)
    source = _source(text)
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    env = {} if env is None else env
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
