"""The model of one Markdown document, built from markdown-it-py tokens.

Everything structural (blocks, footnotes, links, headings, fences, front
matter) comes from the parser. Raw text is consulted only to place a finding
at an exact line and column, and to read anchor lists after cache links.
"""


from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from ...core.textio import TextFile
from .anchors import CacheLink
from .yamltext import parse_yaml

CODE = "\ue001"  # masks code characters in the scan text so they never delimit a quote
IsCache = Callable[[str, str], bool]  # (link text, target) -> is it a cache link?
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
_BETWEEN_REFS = re.compile(r"[\s.,;:!?)\]\"'\u201d\u2019]*")  # refs separated by this form one group


TOO_DEEP = "skillcite_too_deep"  # env key: first line markdown-it left unparsed (nesting)


def _needed_inline(state: StateCore) -> None:
    """markdown-it's core ``inline`` rule, for the inline tokens a document model reads.

    Those of headings (slugs) and blockquotes (quoted text), and those
    holding a ``[`` or a ``<``: without one there is no link, footnote
    reference, autolink or inline HTML, so a paragraph's inline parse adds
    nothing to the model (its inline quotes need a reference in the same
    paragraph). The others keep no children. ``tests/test_document.py``
    compares models built both ways.
    """
    depth = 0
    tokens = state.tokens
    for k, tok in enumerate(tokens):
        if tok.type == "blockquote_open":
            depth += 1
        elif tok.type == "blockquote_close":
            depth -= 1
        elif tok.type == "inline":
            if tok.children is None:
                tok.children = []
            if depth or "[" in tok.content or "<" in tok.content or (k and tokens[k - 1].type == "heading_open"):
                state.md.inline.parse(tok.content, state.md, state.env, tok.children)


@lru_cache(maxsize=2)
def parser(model: bool = False) -> MarkdownIt:
    """The shared CommonMark parser with front matter, footnotes and tables.

    markdown-it stops parsing a container nested ``maxNesting`` (20) levels
    deep and drops its content without a word. The block tokenizer is
    wrapped so that such a stop is recorded in the parse's ``env`` under
    :data:`TOO_DEEP` (the first skipped line), and the check can report it.
    With ``model``, the parser :func:`parse_document` uses: inline tokens
    the model does not read are left unparsed (see :func:`_needed_inline`).
    """
    md = MarkdownIt("commonmark").use(front_matter_plugin).use(footnote_plugin, inline=False, move_to_end=False)
    md.enable("table")
    if model:
        md.core.ruler.at("inline", _needed_inline)
    block = md.block
    tokenize = type(block).tokenize

    def tokenize_noting_depth(state: StateBlock, start_line: int, end_line: int) -> None:
        if state.level >= state.md.options.maxNesting:
            line = state.skipEmptyLines(start_line)
            if line < end_line and state.sCount[line] >= state.blkIndent and isinstance(state.env, dict):
                state.env.setdefault(TOO_DEEP, line)
        tokenize(block, state, start_line, end_line)

    block.tokenize = tokenize_noting_depth  # type: ignore[method-assign,assignment]
    return md


@dataclass(slots=True)
class FootnoteDef:
    """A footnote definition: its label, position and links.

    Parsing records every link of the definition in :attr:`links`; which of
    them are cache links is decided afterwards, from where the document and
    the evidence folder are (:func:`select_cache_links`).
    """

    label: str
    line: int
    column: int
    start: int  # document offsets of the definition's text
    end: int
    links: list[CacheLink] = field(default_factory=list)  # every link, with its anchor list
    cache_links: list[CacheLink] = field(default_factory=list)  # those the workspace took for cache links


@dataclass(slots=True)
class Quote:
    """A quotation that cites footnotes: a blockquote (or part of one) or an inline quote."""

    text: str
    labels: list[str]
    line: int
    column: int
    block: bool


@dataclass(slots=True)
class Located:
    """Something at a position: a reference, link target, fence or blockquote."""

    value: str
    line: int
    column: int


@dataclass(slots=True)
class Document:
    """The parsed model of a Markdown file."""

    path: Path
    rel: str
    file: TextFile
    front_matter: dict[str, Any] | None = None
    front_matter_line: int = 0
    # Why the front matter could not be read (invalid YAML, a date out of
    # range, nesting too deep), at the line where the problem is.
    front_matter_error: Located | None = None
    # Keys given twice in the front matter (the YAML loader keeps the last).
    front_matter_duplicates: list[Located] = field(default_factory=list)
    definitions: list[FootnoteDef] = field(default_factory=list)
    references: list[Located] = field(default_factory=list)
    undefined: list[Located] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)
    unsourced: list[Located] = field(default_factory=list)
    # Content of a sourced blockquote that no rule can verify (an HTML
    # block, a code block): value names what it is.
    unverifiable: list[Located] = field(default_factory=list)
    # HTML quotation elements (``<blockquote>``, ``<q>``) outside Markdown
    # blockquotes: shown as quotations, but no reference inside can be read.
    html_quotes: list[Located] = field(default_factory=list)
    # Where markdown-it stopped parsing a too deeply nested container.
    too_deep: list[Located] = field(default_factory=list)
    lone_cr: list[Located] = field(default_factory=list)  # lone carriage returns: renderers break the line there
    links: list[Located] = field(default_factory=list)
    unclosed_fences: list[Located] = field(default_factory=list)
    slugs: set[str] = field(default_factory=set)


def read_front_matter(doc: Document, content: str) -> None:
    """Record the front matter whose YAML text is ``content`` (the lines between the fences) in ``doc``."""
    doc.front_matter_line = 1
    loaded = parse_yaml(content) if content.strip() else None
    if loaded is None:
        doc.front_matter = {}
        return
    if loaded.error is not None:
        line = loaded.error_line + 2 if loaded.error_line is not None else 1
        doc.front_matter_error = Located(loaded.error, line, 1)
        return
    data = loaded.data
    doc.front_matter = data if isinstance(data, dict) else {"__invalid__": data}
    for key, line, first in loaded.duplicates:
        doc.front_matter_duplicates.append(Located(f"{key} (first at line {first + 2})", line + 2, 1))


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading with this plain text."""
    text = unicodedata.normalize("NFC", text).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "-_ " or unicodedata.category(ch) in ("Mn", "Pc"))
    return text.replace(" ", "-")


Refs = list[tuple[int, str]]  # (offset in the flattened text, footnote label), in order


def flatten_inline(inline: Token, html: bool = False) -> tuple[str, str, Refs]:
    """Plain text of an inline token, the same text with code masked, and its references.

    Footnote references leave no character in the text: their positions are
    returned as offsets, so a literal private-use character in the source is
    ordinary text. Code characters are masked with :data:`CODE` in the second
    string so they never delimit a quote. With ``html`` (quote text), inline
    HTML is kept too, masked like code: the parser takes ``<eos>`` for a tag,
    but a quote of it must keep the token, and
    :func:`~skillcite.check.parsing.normalize.normalize` drops real markup on both sides.
    """
    plain: list[str] = []
    scan: list[str] = []
    refs: Refs = []
    size = 0
    for child in inline.children or []:
        kind = child.type
        piece = masked = ""
        if kind == "text":
            piece = masked = child.content
        elif kind == "code_inline" or (html and kind == "html_inline"):
            piece, masked = child.content, CODE * len(child.content)
        elif kind in ("softbreak", "hardbreak"):
            piece = masked = " "
        elif kind == "footnote_ref":
            refs.append((size, child.meta["label"]))
        elif kind == "image":
            piece = masked = "".join(c.content for c in child.children or [])
        if piece:
            plain.append(piece)
            scan.append(masked)
            size += len(piece)
    return "".join(plain), "".join(scan), refs


def ref_groups(plain: str, refs: Refs) -> list[tuple[int, int]]:
    """References that belong together, as ``(first, last)`` indexes into ``refs``.

    Adjacent references (``[^a][^b]``), or references separated only by
    spaces and closing punctuation, cite the same text.
    """
    groups: list[tuple[int, int]] = []
    for k, (offset, _) in enumerate(refs):
        if groups and _BETWEEN_REFS.fullmatch(plain, refs[groups[-1][1]][0], offset):
            groups[-1] = (groups[-1][0], k)
        else:
            groups.append((k, k))
    return groups


class SlugCounter:
    """GitHub heading anchors: a repeated slug gets ``-1``, ``-2``, ..."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, inline: Token) -> str:
        """The anchor of the heading whose inline token is ``inline``."""
        return self.add_text(flatten_inline(inline)[0])

    def add_text(self, plain: str) -> str:
        """The anchor of the heading whose plain text is ``plain``."""
        slug = github_slug(plain)
        count = self.counts.get(slug, 0)
        self.counts[slug] = count + 1
        return slug if count == 0 else f"{slug}-{count}"


def select_cache_links(doc: Document, is_cache: IsCache) -> None:
    """Set each definition's ``cache_links``: its links for which ``is_cache(text, target)`` holds."""
    for d in doc.definitions:
        d.cache_links = [link for link in d.links if is_cache(link.text, link.target)]


def local_target(href: str) -> tuple[str, str] | None:
    """Path and fragment of a local link, or None for URLs and mail links."""
    if not href or _SCHEME.match(href):
        return None
    path, _, fragment = href.partition("#")
    return unquote(path), unquote(fragment)
