"""The model of one Markdown document, built from markdown-it-py tokens.

Everything structural (blocks, footnotes, links, headings, fences, front
matter) comes from the parser. Raw text is consulted only to place a finding
at an exact line and column, and to read anchor lists after cache links.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from .anchors import CacheLink, find_cache_links
from .evidence import load_yaml
from ..core.textio import InputError, TextFile

REF = "\ue000"  # stands for a footnote reference in flattened inline text
CODE = "\ue001"  # masks code characters so they never delimit a quote
_UNDEFINED_REF = re.compile(r"\[\^([A-Za-z0-9_-]+)\]")
_CODE_SPAN = re.compile(r"(`+)[\s\S]*?(?<!`)\1(?!`)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
_HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")
_ALERT = re.compile(r"\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]", re.IGNORECASE)
_QUOTE = re.compile(r'"([^"\n]+?)"|\u201c([^\u201d\n]+?)\u201d')
_AFTER_QUOTE = re.compile(r"[.,;:!?)\]'\u2019]*(" + REF + "+)")
_SENTENCE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*(?=\s|$)|" + REF)
_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The shared CommonMark parser with front matter, footnotes and tables."""
    md = MarkdownIt("commonmark").use(front_matter_plugin).use(footnote_plugin, inline=False, move_to_end=False)
    md.enable("table")
    return md


@dataclass(slots=True)
class FootnoteDef:
    """A footnote definition: its label, position and cache links."""

    label: str
    line: int
    column: int
    start: int  # document offsets of the definition's text
    end: int
    cache_links: list[CacheLink] = field(default_factory=list)


@dataclass(slots=True)
class Quote:
    """A quotation that cites footnotes: a blockquote or an inline quote."""

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
    front_matter: dict | None = None
    front_matter_line: int = 0
    definitions: list[FootnoteDef] = field(default_factory=list)
    references: list[Located] = field(default_factory=list)
    undefined: list[Located] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)
    unsourced: list[Located] = field(default_factory=list)
    links: list[Located] = field(default_factory=list)
    unclosed_fences: list[Located] = field(default_factory=list)
    slugs: set[str] = field(default_factory=set)


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading with this plain text."""
    text = unicodedata.normalize("NFC", text).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "-_ " or unicodedata.category(ch) in ("Mn", "Pc"))
    return text.replace(" ", "-")


def flatten_inline(inline: Token, html: bool = False) -> tuple[str, str, list[str]]:
    """Plain text of an inline token, the same text with code masked, and its ref labels.

    Footnote references become :data:`REF`; code characters are masked with
    :data:`CODE` in the second string so they never delimit a quote. With
    ``html`` (quote text), inline HTML is kept too, masked like code: the
    parser takes ``<eos>`` for a tag, but a quote of it must keep the token,
    and :func:`~skillcite.normalize.normalize` drops real markup on both sides.
    """
    plain: list[str] = []
    scan: list[str] = []
    labels: list[str] = []
    for child in inline.children or []:
        kind = child.type
        if kind == "text":
            plain.append(child.content)
            scan.append(child.content)
        elif kind == "code_inline" or (html and kind == "html_inline"):
            plain.append(child.content)
            scan.append(CODE * len(child.content))
        elif kind in ("softbreak", "hardbreak"):
            plain.append(" ")
            scan.append(" ")
        elif kind == "footnote_ref":
            labels.append(child.meta["label"])
            plain.append(REF)
            scan.append(REF)
        elif kind == "image":
            alt = "".join(c.content for c in child.children or [])
            plain.append(alt)
            scan.append(alt)
    return "".join(plain), "".join(scan), labels


class SlugCounter:
    """GitHub heading anchors: a repeated slug gets ``-1``, ``-2``, ..."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, inline: Token) -> str:
        """The anchor of the heading whose inline token is ``inline``."""
        plain, _, _ = flatten_inline(inline)
        slug = github_slug(plain.replace(REF, ""))
        count = self.counts.get(slug, 0)
        self.counts[slug] = count + 1
        return slug if count == 0 else f"{slug}-{count}"


def _position(file: TextFile, offset: int) -> tuple[int, int]:
    line = file.line_of(offset)
    return line, offset - file.line_starts[line - 1] + 1


class _Builder:
    """Walks the token stream once and fills a :class:`Document`."""

    def __init__(self, doc: Document, is_cache) -> None:
        self.doc = doc
        self.file = doc.file
        self.text = doc.file.text
        self.is_cache = is_cache
        self.slugs = SlugCounter()

    def block_span(self, token_map: list[int] | None) -> tuple[int, int]:
        if not token_map:
            return 0, 0
        first, last = token_map[0] + 1, max(token_map[1], token_map[0] + 1)
        last = min(last, len(self.file.line_starts))
        return self.file.line_span(first, last)

    def flatten(self, inline: Token) -> tuple[str, str, list[str]]:
        """See :func:`flatten_inline` (quote text: inline HTML kept)."""
        return flatten_inline(inline, html=True)

    def locate_refs(self, inline: Token, labels: list[str], span: tuple[int, int]) -> list[tuple[int, int]]:
        """Line and column of each footnote reference, in order."""
        out = []
        cursor = span[0]
        for label in labels:
            found = self.text.find(f"[^{label}]", cursor, span[1])
            if found == -1:
                found = cursor
            else:
                cursor = found + 1
            out.append(_position(self.file, found))
        return out

    def record_inline(self, inline: Token, token_map, quotes_allowed: bool) -> list[str]:
        """Collect refs, links, undefined refs and inline quotes of one inline token."""
        span = self.block_span(token_map)
        plain, scan, labels = self.flatten(inline)
        for label, (line, col) in zip(labels, self.locate_refs(inline, labels, span), strict=True):
            self.doc.references.append(Located(label, line, col))
        cursor = span[0]
        raw: list = []  # see undefined_refs
        for child in inline.children or []:
            if child.type == "text":
                self.undefined_refs(child.content, span, raw)
            elif child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                offset = self.text.find("](" + href, cursor, span[1])
                if offset < 0:
                    offset = self.text.find("](", cursor, span[1])
                if offset >= 0:
                    cursor = offset + 2
                line, col = _position(self.file, offset + 2 if offset >= 0 else span[0])
                self.doc.links.append(Located(href, line, col))
        if quotes_allowed and REF in scan:
            self.inline_quotes(plain, scan, labels, span)
        return labels

    def inline_quotes(self, plain: str, scan: str, labels: list[str], span: tuple[int, int]) -> None:
        """Find ``"..."`` quotes that cite a footnote (DESIGN §3)."""
        ref_index = {i: n for n, i in enumerate(i for i, ch in enumerate(scan) if ch == REF)}
        # Sentence ends are found once per block and looked up by position:
        # a search from each quote made a paragraph of many quotes quadratic.
        ends = [(e.start(), e.group() == REF) for e in _SENTENCE_END.finditer(scan)]
        end_starts = [e[0] for e in ends]
        cursor = span[0]  # quotes are located in order, so a repeated one is found again
        for m in _QUOTE.finditer(scan):
            group = 1 if m.group(1) is not None else 2
            start, end = m.span(group)
            body = plain[start:end]
            if REF in body:
                continue
            cited: list[str] = []
            after = _AFTER_QUOTE.match(scan, m.end())
            if after:
                first = after.start(1)
                cited = [labels[ref_index[first + k]] for k in range(len(after.group(1)))]
            elif len(_WORD.findall(body)) >= 3:
                n = bisect_left(end_starts, m.end())
                if n < len(ends) and ends[n][1]:
                    k = ends[n][0]
                    while k < len(scan) and scan[k] == REF:
                        cited.append(labels[ref_index[k]])
                        k += 1
            if cited:
                offset = self.locate_quote(body, (cursor, span[1]))
                cursor = offset + 1 if offset >= 0 else cursor
                line, col = _position(self.file, offset if offset >= 0 else span[0])
                self.doc.quotes.append(Quote(body, cited, line, col, False))

    def locate_quote(self, body: str, span: tuple[int, int]) -> int:
        """Offset of the quote mark opening ``body`` in ``span``, or -1."""
        words = _WORD.findall(body)
        if words:
            pattern = re.compile(r"[\"\u201c][^\w\n]{0,4}" + re.escape(words[0]))
            m = pattern.search(self.text, span[0], span[1])
            if m:
                return m.start()
        return -1

    def build(self, tokens: list[Token]) -> None:
        i = 0
        footnote: FootnoteDef | None = None
        last_map = None
        while i < len(tokens):
            tok = tokens[i]
            if tok.map:
                last_map = tok.map
            if tok.type == "front_matter":
                self.front_matter(tok)
            elif tok.type == "footnote_reference_open":
                footnote = self.definition(tok)
            elif tok.type == "footnote_reference_close":
                footnote = None
            elif tok.type == "blockquote_open":
                i = self.blockquote(tokens, i)
                continue
            elif tok.type == "fence":
                self.fence(tok)
            elif tok.type == "heading_open":
                self.heading(tokens[i + 1])
            elif tok.type in ("html_block", "html_inline"):
                self.doc.slugs.update(_HTML_ID.findall(tok.content))
            elif tok.type == "inline":
                self.record_inline(tok, tok.map or last_map, quotes_allowed=footnote is None)
                for child in tok.children or []:
                    if child.type == "html_inline":
                        self.doc.slugs.update(_HTML_ID.findall(child.content))
            i += 1

    def front_matter(self, tok: Token) -> None:
        self.doc.front_matter_line = 1
        try:
            data = load_yaml(tok.content) if tok.content.strip() else {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 2}" if mark is not None else "front matter"
            problem = getattr(exc, "problem", None) or "cannot parse"
            raise InputError(f"{self.doc.path}: invalid YAML front matter at {where}: {problem}") from None
        self.doc.front_matter = data if isinstance(data, dict) else {"__invalid__": data}

    def definition(self, tok: Token) -> FootnoteDef:
        start, end = self.block_span(tok.map)
        label = tok.meta["label"]
        head = self.text.find(f"[^{label}]:", start, end)
        offset = head if head >= 0 else start
        line, col = _position(self.file, offset)
        definition = FootnoteDef(label, line, col, offset, end)
        definition.cache_links = find_cache_links(self.text, offset, end, self.is_cache)
        self.doc.definitions.append(definition)
        return definition

    def blockquote(self, tokens: list[Token], i: int) -> int:
        """Handle a whole blockquote; return the index after its close."""
        open_tok = tokens[i]
        depth = 0
        parts: list[str] = []
        labels: list[str] = []
        j = i
        while j < len(tokens):
            tok = tokens[j]
            if tok.type == "blockquote_open":
                depth += 1
            elif tok.type == "blockquote_close":
                depth -= 1
                if depth == 0:
                    break
            elif tok.type == "inline":
                plain, _, refs = self.flatten(tok)
                span = self.block_span(tok.map)
                for label, (line, col) in zip(refs, self.locate_refs(tok, refs, span), strict=True):
                    self.doc.references.append(Located(label, line, col))
                labels.extend(refs)
                parts.append(plain)
                self.record_links_only(tok)
            elif tok.type == "fence":
                self.fence(tok)
            j += 1
        start, _ = self.block_span(open_tok.map)
        line, col = _position(self.file, start)
        gt = self.file.line(line).find(">")
        col = gt + 1 if gt >= 0 else col
        text = " ".join(p.replace(REF, "") for p in parts)
        if labels:
            self.doc.quotes.append(Quote(text, list(dict.fromkeys(labels)), line, col, True))
        elif parts and not _ALERT.match(parts[0]):
            self.doc.unsourced.append(Located(text, line, col))
        return j + 1

    def undefined_refs(self, content: str, span: tuple[int, int], raw: list) -> None:
        """Record each ``[^id]`` left as text in ``content`` (no definition matched).

        A reference written escaped (``[\\^id]``) is text too, but meant as
        literal text: only occurrences spelled ``[^id]`` in the source, outside
        code spans, count. ``raw`` holds the block's source with code masked
        and a search cursor, computed once per block on first use.
        """
        for m in _UNDEFINED_REF.finditer(content):
            if not raw:
                block = self.text[span[0] : span[1]]
                raw.extend([_CODE_SPAN.sub(lambda c: " " * len(c.group()), block), 0])
            found = raw[0].find(m.group(), raw[1])
            if found < 0:
                continue
            raw[1] = found + 1
            self.doc.undefined.append(Located(m.group(1), *_position(self.file, span[0] + found)))

    def record_links_only(self, tok: Token) -> None:
        span = self.block_span(tok.map)
        raw: list = []
        for child in tok.children or []:
            if child.type == "link_open":
                line, col = _position(self.file, span[0])
                self.doc.links.append(Located(str(child.attrs.get("href", "")), line, col))
            elif child.type == "text":
                self.undefined_refs(child.content, span, raw)

    def fence(self, tok: Token) -> None:
        first, last = tok.map
        marker = tok.markup
        closing = re.compile(r"[ \t>]*" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*\r?")
        if last - first < 2 or not closing.fullmatch(self.file.line(last)):
            col = self.file.line(first + 1).find(marker) + 1
            self.doc.unclosed_fences.append(Located(marker, first + 1, max(col, 1)))

    def heading(self, inline: Token) -> None:
        self.doc.slugs.add(self.slugs.add(inline))


def parse_document(path: Path, rel: str, file: TextFile, is_cache) -> Document:
    """Parse ``file`` into a :class:`Document`.

    ``is_cache(link_text, target)`` tells cache links from other links.
    Raises :class:`InputError` for invalid YAML front matter.
    """
    doc = Document(path, rel, file)
    # markdown-it turns a lone \r into a line break; GitHub and our line
    # index count only \n, so blank lone carriage returns out first.
    text = file.text.replace("\r\n", "\n").replace("\r", " ") if "\r" in file.text else file.text
    _Builder(doc, is_cache).build(parser().parse(text))
    return doc


def local_target(href: str) -> tuple[str, str] | None:
    """Path and fragment of a local link, or None for URLs and mail links."""
    if not href or _SCHEME.match(href):
        return None
    path, _, fragment = href.partition("#")
    return unquote(path), unquote(fragment)
