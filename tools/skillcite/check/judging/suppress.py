"""Inline suppression: an HTML comment in a Markdown file that switches codes off.

Two forms, each on its own line (an HTML block to the Markdown parser)::

    <!-- skillcite: ignore SC304, SC5 -->       the next block only
    <!-- skillcite: ignore-file SC506 -->       the whole file

Codes are full codes or prefixes, as with ``--ignore``. The "next block" is
the next Markdown block at the comment's own nesting level (a paragraph, a
blockquote, a list, a footnote definition ...), found by the parser, so a
comment inside a list item covers the next block of that item. A directive
that names no known code is itself a finding (SC009): a typo must not
silently leave a finding visible, or worse, look like it hid one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.diagnostics import CODES, Diagnostic, matches_prefix

if TYPE_CHECKING:
    from markdown_it.token import Token

_DIRECTIVE = re.compile(r"<!--\s*skillcite:\s*(?P<verb>ignore-file|ignore)\b(?P<codes>[^>]*?)\s*-->", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Suppression:
    """Codes switched off on lines ``first..last`` (1-based, inclusive) of one file."""

    codes: tuple[str, ...]
    first: int
    last: int
    line: int  # where the directive is


def _codes(text: str) -> tuple[tuple[str, ...], list[str]]:
    """The codes of a directive and the words that name no known code."""
    words = [w.strip().upper() for w in re.split(r"[,\s]+", text) if w.strip()]
    unknown = [w for w in words if not any(code.startswith(w) for code in CODES) or not w.startswith("SC")]
    return tuple(w for w in words if w not in unknown), unknown


def find_suppressions(text: str) -> tuple[list[Suppression], list[tuple[int, str]]]:
    """Suppressions in one Markdown file, and problems as ``(line, message)``.

    Cheap when the file has no directive: the parser runs only if the text
    holds something shaped like one (a file that only mentions
    ``skillcite:``, as this project's docs do, is not parsed a second time).
    """
    if "skillcite:" not in text or _DIRECTIVE.search(text) is None:
        return [], []
    tokens = _blocks(text)
    total = text.count("\n") + 1
    found: list[Suppression] = []
    problems: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.type != "html_block" or tok.map is None:
            continue
        m = _DIRECTIVE.search(tok.content)
        if not m:
            continue
        line = tok.map[0] + 1
        codes, unknown = _codes(m.group("codes"))
        if unknown or not codes:
            named = ", ".join(unknown) if unknown else "nothing"
            problems.append((line, f"suppression comment names {named}: give codes or prefixes such as SC304 or SC3"))
            continue
        if m.group("verb").lower() == "ignore-file":
            found.append(Suppression(codes, 1, total, line))
            continue
        nxt = next((t for t in tokens[i + 1 :] if t.map is not None and t.level <= tok.level and t.nesting >= 0), None)
        if nxt is None or nxt.level < tok.level or nxt.map is None:
            problems.append((line, "suppression comment has no block after it to apply to"))
            continue
        found.append(Suppression(codes, nxt.map[0] + 1, nxt.map[1], line))
    return found, problems


def _blocks(text: str) -> list[Token]:
    """The block tokens of ``text`` from the check's parser, without its inline pass.

    A directive and the block it covers are block-level facts (type, line
    map, level, nesting), the same with or without inline parsing; skipping
    it halves the cost of this second look at a file that holds a directive.
    """
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_core.normalize import normalize

    from ..parsing.document import parser

    md = parser()
    state = StateCore(text, md, {})
    normalize(state)
    md.block.parse(state.src, md, state.env, state.tokens)
    return state.tokens


def is_suppressed(d: Diagnostic, suppressions: list[Suppression]) -> bool:
    """True when a suppression of ``d``'s file covers its line and code."""
    return any(s.first <= d.line <= s.last and matches_prefix(d.code, s.codes) for s in suppressions)
