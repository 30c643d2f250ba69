"""Building a :class:`~skillcite.check.parsing.document.Document` from markdown-it-py's token stream, in one walk.

Quotes (inline quotation marks and blockquotes), footnote references and
definitions, links, headings, fences and the places a finding must name
are read from the tokens; the raw text only places them at a line and column.
"""


from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from ...core.textio import TextFile, drop_html_comments
from .anchors import find_links
from .document import TOO_DEEP, Document, FootnoteDef, IsCache, Located, Quote, Refs, SlugCounter, flatten_inline, parser, read_front_matter, ref_groups, select_cache_links
from .prescan import plain_document
from .sentences import sentence_ends

_UNDEFINED_REF = re.compile(r"\[\^([A-Za-z0-9_-]+)\]")
_CODE_SPAN = re.compile(r"(`+)[\s\S]*?(?<!`)\1(?!`)")
_HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")
_ALERT = re.compile(r"\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]", re.IGNORECASE)
# A callout written by hand: a bold label ending in a colon ("**Note:**",
# "**Bindings not shown here:**", "**Tip**:") or a warning sign opening the
# blockquote. It is the skill author's own aside, not a quotation, so an
# unsourced one is no SC304 (a sourced one is still checked as a quote).
_CALLOUT = re.compile(r"[ \t]*(?:(?:\*\*|__)[^*_\n]{1,100}?(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:)|(?:\u26a0|\u2139|\U0001f4a1|\U0001f4dd|\u2757|\u26d4|\U0001f6a8|\U0001f6d1))")
# Quotation marks of every kind a reader takes for one (issue 19 §3): double
# marks in any pairing ("...", “...”, „...“, "...”), guillemets, corner
# brackets, and single marks, curly or straight, that open at a word start
# and close at a word end (an apostrophe inside a word does not close them).
_QUOTE = re.compile(
    "[\"\u201c\u201d\u201e]([^\"\u201c\u201d\u201e\n]+?)[\"\u201c\u201d]"
    "|\u00ab([^\u00bb\n]+?)\u00bb|\u300c([^\u300d\n]+?)\u300d|\u300e([^\u300f\n]+?)\u300f"
    "|(?<!\\w)\u2018((?:[^\u2018\u2019\n]|(?<=\\w)\u2019(?=\\w))+?)\u2019(?!\\w)"
    "|(?<![\\w'])'((?:[^'\n]|(?<=\\w)'(?=\\w))+?)'(?![\\w'])"
)
_OPENERS = frozenset("\"\u201c\u201d\u201e\u00ab\u300c\u300e\u2018'")
# May stand between a quote and its reference: closing punctuation, and one
# short parenthetical (``"..." (p. 3).[^s]``).
_CLOSING = re.compile(r"[.,;:!?)\]'\u2019]*(?:\s*\([^()\n]{0,60}\)[.,;:!?]*)?")
_CLOSERS = re.compile("[\"')\\]\u201d\u2019\u00bb\u300d\u300f]*")
_SENTENCE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*")
_MARKERS = re.compile(r"[ \t>]*")
_HTML_QUOTE = re.compile(r"<(blockquote|q)(?=[\s/>])", re.IGNORECASE)  # blockquote markers and indentation at a line start
_WORD = re.compile(r"\w+")


def _position(file: TextFile, offset: int) -> tuple[int, int]:
    line = file.line_of(offset)
    return line, offset - file.line_starts[line - 1] + 1


@dataclass(slots=True)
class _Paragraph:
    """One inline token of a blockquote: its text, references and their source offsets."""

    plain: str
    refs: Refs
    ref_offsets: list[int]  # source offset of each reference's ``[^``
    start: int  # source offset where the paragraph's text starts


# What may follow a paragraph's last reference and still leave the reference at its end.
_TRAILING = re.compile(r"[\s.,;:!?\"'\u201d\u2019)\]]+")
# An attribution closing a blockquote: "— Author", "-- Author, Book (2020)".
_ATTRIBUTION = re.compile(r"\s*(?:\u2014|\u2013|\u2015|--?)\s*\S")


def _drop_frame(paragraphs: list[_Paragraph]) -> None:
    """Blank what frames a sourced blockquote and is no part of the quote, offsets kept.

    A GitHub alert marker opening it (``> [!NOTE]``) and a last paragraph
    that attributes it (``> — Author[^x]``, at most twelve words) are shown
    around the author's words, not as them; their references still count.
    """
    if paragraphs:
        m = _ALERT.match(paragraphs[0].plain)
        if m:
            first = paragraphs[0]
            paragraphs[0] = _Paragraph(" " * m.end() + first.plain[m.end() :], first.refs, first.ref_offsets, first.start)
    if len(paragraphs) > 1:
        last = paragraphs[-1]
        if _ATTRIBUTION.match(last.plain) and len(last.plain.split()) <= 12:
            paragraphs[-1] = _Paragraph(" " * len(last.plain), last.refs, last.ref_offsets, last.start)


class _Builder:
    """Walks the token stream once and fills a :class:`Document`."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.file = doc.file
        self.text = doc.file.text
        self.slugs = SlugCounter()

    def block_span(self, token_map: list[int] | None) -> tuple[int, int]:
        if not token_map:
            return 0, 0
        first, last = token_map[0] + 1, max(token_map[1], token_map[0] + 1)
        last = min(last, len(self.file.line_starts))
        return self.file.line_span(first, last)

    def flatten(self, inline: Token) -> tuple[str, str, Refs]:
        """See :func:`flatten_inline` (quote text: inline HTML kept)."""
        return flatten_inline(inline, html=True)

    def locate_refs(self, refs: Refs, span: tuple[int, int]) -> list[int]:
        """Source offset of each footnote reference, in order."""
        out = []
        cursor = span[0]
        for _, label in refs:
            found = self.text.find(f"[^{label}]", cursor, span[1])
            if found == -1:
                found = cursor
            else:
                cursor = found + 1
            out.append(found)
        return out

    def add_references(self, refs: Refs, span: tuple[int, int]) -> list[int]:
        """Record each reference of a block; return their source offsets."""
        offsets = self.locate_refs(refs, span)
        for (_, label), offset in zip(refs, offsets, strict=True):
            self.doc.references.append(Located(label, *_position(self.file, offset)))
        return offsets

    def record_inline(self, inline: Token, token_map: list[int] | None, quotes_allowed: bool) -> Refs:
        """Collect refs, links, undefined refs and inline quotes of one inline token."""
        span = self.block_span(token_map)
        plain, scan, refs = self.flatten(inline)
        self.add_references(refs, span)
        cursor = span[0]
        raw: list[Any] = []  # see undefined_refs
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
        if quotes_allowed and refs:
            self.inline_quotes(plain, scan, refs, span)
        return refs

    def inline_quotes(self, plain: str, scan: str, refs: Refs, span: tuple[int, int]) -> None:
        """Find ``"..."`` quotes that cite a footnote (docs/citations.md, Quotes).

        A quote cites the references inside its quotation marks, those right
        after it (closing punctuation between allowed) and, when it has three
        or more words, those that end its sentence.
        """
        at: dict[int, list[str]] = {}
        for offset, label in refs:
            at.setdefault(offset, []).append(label)
        # Sentence ends are found once per block and looked up by position:
        # a search from each quote made a paragraph of many quotes quadratic.
        # A reference ends a sentence; so does closing punctuation followed
        # by a space or the end, unless a reference follows it directly.
        ends: list[tuple[int, int | None]] = [(offset, offset) for offset in at]
        closing_refs: set[int] = set()  # references right after a sentence's end: they close it
        for s, e in sentence_ends(scan):  # abbreviations ("et al.", "Fig. 3") end no sentence
            closers = _CLOSERS.match(scan, e)
            stop = closers.end() if closers else e
            if stop in at:
                closing_refs.add(stop)
            elif stop == len(scan) or scan[stop].isspace():
                ends.append((s, None))
        ends.sort(key=lambda e: (e[0], e[1] is None))
        end_starts = [e[0] for e in ends]
        ref_offsets = sorted(at)
        cursor = span[0]  # quotes are located in order, so a repeated one is found again
        for m in _QUOTE.finditer(scan):
            group = next(k for k in range(1, 7) if m.group(k) is not None)
            start, end = m.span(group)
            body = plain[start:end]
            cited: list[str] = []
            # References inside the quotation marks (``"...silently.[^a]"``).
            for offset in ref_offsets[bisect_left(ref_offsets, start) : bisect_right(ref_offsets, end)]:
                cited.extend(at[offset])
            closing = _CLOSING.match(scan, m.end())
            after = closing.end() if closing else m.end()
            if after in at:
                cited.extend(at[after])
            elif not cited and len(_WORD.findall(body)) >= 2:
                n = bisect_left(end_starts, m.end())
                if n < len(ends) and ends[n][1] is not None:
                    cited.extend(at[ends[n][0]])
                elif n == len(ends) or ends[n][1] is None:
                    # No reference after it in its sentence: one before it
                    # in the same sentence cites it ("As the post[^s] puts it, "...").
                    # A reference that closes the sentence before ("...bug."[^s] Then "...")
                    # belongs to that sentence, not to this one.
                    k = bisect_left(end_starts, start) - 1
                    while k >= 0 and ends[k][1] is not None and ends[k][0] not in closing_refs:
                        cited.extend(at[ends[k][0]])
                        k -= 1
            if cited and body.strip():
                offset = self.locate_quote(body, (cursor, span[1]))
                cursor = offset + 1 if offset >= 0 else cursor
                line, col = _position(self.file, offset if offset >= 0 else span[0])
                self.doc.quotes.append(Quote(body, list(dict.fromkeys(cited)), line, col, False))

    def locate_quote(self, body: str, span: tuple[int, int]) -> int:
        """Offset of the quote mark opening ``body`` in ``span``, or -1.

        The leftmost quotation mark followed by at most four characters that
        are neither word characters nor line breaks, then the quote's first
        word. A scan from each occurrence of the word, not a regular
        expression compiled per quote (a document of many quotes paid for
        one compile each).
        """
        m = _WORD.search(body)
        if m is None:
            return -1
        word, text = m.group(), self.text
        lo, hi = span
        best = -1
        at = text.find(word, lo, hi)
        while at != -1 and (best == -1 or at - 5 < best):
            for mark in range(max(lo, at - 5), at):
                if text[mark] in _OPENERS and not any(ch.isalnum() or ch in "_\n" for ch in text[mark + 1 : at]):
                    if best == -1 or mark < best:
                        best = mark
                    break
            at = text.find(word, at + 1, hi)
        return best

    def build(self, tokens: list[Token]) -> None:
        i = 0
        footnote: FootnoteDef | None = None
        last_map = None
        lead_in: list[str] = []
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
                i = self.blockquote(tokens, i, lead_in)
                lead_in = []
                continue
            elif tok.type == "fence":
                self.fence(tok)
            elif tok.type == "heading_open":
                self.heading(tokens[i + 1])
            elif tok.type in ("html_block", "html_inline"):
                self.doc.slugs.update(_HTML_ID.findall(tok.content))
                self.html_quote(tok.content, self.block_span(tok.map))
            elif tok.type == "inline":
                refs = self.record_inline(tok, tok.map or last_map, quotes_allowed=footnote is None)
                for child in tok.children or []:
                    if child.type == "html_inline":
                        self.doc.slugs.update(_HTML_ID.findall(child.content))
                        self.html_quote(child.content, self.block_span(tok.map or last_map))
                lead_in = self.lead_in(tokens, i, refs) if footnote is None else []
                if lead_in:
                    i += 2  # the paragraph's close; the blockquote comes next
                    continue
            i += 1

    def html_quote(self, html: str, span: tuple[int, int]) -> None:
        """Record an HTML ``<blockquote>`` or ``<q>`` opened in ``html`` (comments aside)."""
        m = _HTML_QUOTE.search(drop_html_comments(html))
        if m is None:
            return
        found = re.compile(re.escape(m.group()), re.IGNORECASE).search(self.text, span[0], span[1])
        offset = found.start() if found else span[0]
        self.doc.html_quotes.append(Located(f"<{m.group(1).lower()}>", *_position(self.file, offset)))

    def lead_in(self, tokens: list[Token], i: int, refs: Refs) -> list[str]:
        """Labels of a lead-in paragraph that introduces the blockquote right after it.

        ``From the slides[^x]:`` (or ``From the slides:[^x]``) followed
        directly by a blockquote cites ``x`` for that blockquote
        (docs/citations.md, Quotes).
        """
        if not refs or i < 1 or tokens[i - 1].type != "paragraph_open":
            return []
        if i + 2 >= len(tokens) or tokens[i + 1].type != "paragraph_close" or tokens[i + 2].type != "blockquote_open":
            return []
        plain = flatten_inline(tokens[i])[0]
        text = plain.rstrip()
        if not text.endswith(":"):
            return []
        body = text[:-1].rstrip()
        if body.endswith(")") and "(" in body:
            # "From the slides[^x] (bullet points):": a parenthetical may stand before the colon.
            body = body[: body.rindex("(")].rstrip()
        return [label for offset, label in refs if offset >= len(body) - 1]

    def front_matter(self, tok: Token) -> None:
        read_front_matter(self.doc, tok.content)

    def definition(self, tok: Token) -> FootnoteDef:
        start, end = self.block_span(tok.map)
        label = tok.meta["label"]
        head = self.text.find(f"[^{label}]:", start, end)
        offset = head if head >= 0 else start
        line, col = _position(self.file, offset)
        definition = FootnoteDef(label, line, col, offset, end)
        definition.links = find_links(self.text, offset, end)
        self.doc.definitions.append(definition)
        return definition

    def content_position(self, tok: Token) -> tuple[int, int]:
        """Line and column where a block inside a blockquote starts (its fence, tag or code)."""
        start, _ = self.block_span(tok.map)
        line, _ = _position(self.file, start)
        text = self.file.line(line)
        needle = tok.markup if tok.type == "fence" else tok.content.strip().split("\n", 1)[0]
        col = text.find(needle) if needle else -1
        if col < 0:
            m = _MARKERS.match(text)
            col = m.end() if m else 0
        return line, col + 1

    def unshown_inline(self, tok: Token, span: tuple[int, int]) -> list[Located]:
        """Text of a blockquote's paragraph that readers of the rendered page do not see as text (issue 28 §6).

        An image's alt text is read into the quote's words but rendered as
        an image; a link title shows only on hover. Either may say what the
        check cannot tie to the source.
        """
        out: list[Located] = []
        for child in tok.children or []:
            if child.type == "image":
                needle, what = "![", "an image's alt text"
            elif child.type == "link_open" and child.attrs.get("title"):
                needle, what = str(child.attrs["title"]), "a link title"
            else:
                continue
            found = self.text.find(needle, span[0], span[1])
            out.append(Located(what, *_position(self.file, found if found >= 0 else span[0])))
        return out

    def blockquote(self, tokens: list[Token], i: int, lead_in: list[str]) -> int:
        """Handle a whole blockquote; return the index after its close."""
        open_tok = tokens[i]
        depth = 0
        paragraphs: list[_Paragraph] = []
        hidden: list[Located] = []  # HTML and code blocks: shown to readers, never verified
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
                offsets = self.add_references(refs, span)
                markers = _MARKERS.match(self.text, span[0], span[1])
                start = markers.end() if markers else span[0]
                paragraphs.append(_Paragraph(plain, refs, offsets, start))
                self.record_links_only(tok)
                hidden.extend(self.unshown_inline(tok, span))
            elif tok.type in ("fence", "code_block"):
                if tok.type == "fence":
                    self.fence(tok)
                if tok.content.strip():
                    hidden.append(Located("code block", *self.content_position(tok)))
            elif tok.type == "html_block":
                self.doc.slugs.update(_HTML_ID.findall(tok.content))
                if drop_html_comments(tok.content).strip():  # a comment alone is never shown
                    hidden.append(Located("HTML block", *self.content_position(tok)))
            j += 1
        start, _ = self.block_span(open_tok.map)
        line, col = _position(self.file, start)
        gt = self.file.line(line).find(">")
        col = gt + 1 if gt >= 0 else col
        text = " ".join(p.plain for p in paragraphs)
        labels = [label for p in paragraphs for _, label in p.refs]
        if labels or lead_in:
            _drop_frame(paragraphs)
        if labels or lead_in:
            self.doc.quotes.extend(self.pieces(paragraphs, lead_in, line, col))
            self.doc.unverifiable.extend(hidden)
        elif (text.strip() or hidden) and not (paragraphs and (_ALERT.match(paragraphs[0].plain) or _CALLOUT.match(self.text, paragraphs[0].start))):
            # A blockquote that shows no text at all ("> #", an empty
            # heading) quotes nothing; one with text or hidden blocks does.
            shown = text if text.strip() else hidden[0].value
            self.doc.unsourced.append(Located(shown, line, col))
        return j + 1

    def pieces(self, paragraphs: list[_Paragraph], lead_in: list[str], line: int, col: int) -> list[Quote]:
        """The quotes a sourced blockquote holds (docs/citations.md, Quotes).

        When every reference in it names the same footnotes, the blockquote
        is one quote. When they differ, it is cut after each group of
        references, and each piece is checked against the footnotes that end
        it; text after the last reference belongs to the piece before it.
        A lead-in's footnotes stand for a blockquote without references.
        """
        texts: list[str] = []
        found: list[tuple[list[str], tuple[int, int]]] = []  # per piece: labels, where the next one starts
        current: list[str] = []
        for p in paragraphs:
            if found and not " ".join(current).strip():
                # The previous piece ended its paragraph: the next one starts here.
                found[-1] = (found[-1][0], _position(self.file, p.start))
            position = 0
            for first, last in ref_groups(p.plain, p.refs):
                current.append(p.plain[position : p.refs[first][0]])
                texts.append(" ".join(t for t in current if t.strip()))
                current = []
                label_end = p.ref_offsets[last] + len(p.refs[last][1]) + 3  # past ``[^label]``
                while label_end < len(self.text) and self.text[label_end] in " \t":
                    label_end += 1
                found.append(([label for _, label in p.refs[first : last + 1]], _position(self.file, label_end)))
                position = p.refs[last][0]
            current.append(p.plain[position:])
        tail = " ".join(t for t in current if t.strip())
        label_sets = {tuple(dict.fromkeys(labels)) for labels, _ in found}
        shown = [p for p in paragraphs if p.plain.strip()]
        each_cited = len(shown) > 1 and all(p.refs and not _TRAILING.sub("", p.plain[p.refs[-1][0] :]) for p in shown)
        if len(label_sets) <= 1 and not each_cited:
            labels = list(dict.fromkeys(label for group, _ in found for label in group)) or lead_in
            text = " ".join(p.plain for p in paragraphs)
            return [Quote(text, labels, line, col, True)]
        quotes: list[Quote] = []
        where = (line, col)
        for text, (labels, after) in zip(texts, found, strict=True):
            if not text.strip() and quotes:
                quotes[-1].labels = list(dict.fromkeys(quotes[-1].labels + labels))
            else:
                quotes.append(Quote(text.strip(), list(dict.fromkeys(labels)), *where, True))
            where = after
        if tail.strip():
            quotes[-1].text = f"{quotes[-1].text} {tail.strip()}"
        return quotes

    def undefined_refs(self, content: str, span: tuple[int, int], raw: list[Any]) -> None:
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
        raw: list[Any] = []
        for child in tok.children or []:
            if child.type == "link_open":
                line, col = _position(self.file, span[0])
                self.doc.links.append(Located(str(child.attrs.get("href", "")), line, col))
            elif child.type == "text":
                self.undefined_refs(child.content, span, raw)

    def fence(self, tok: Token) -> None:
        assert tok.map is not None  # block tokens carry their lines
        first, last = tok.map
        marker = tok.markup
        closing = re.compile(r"[ \t>]*" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*\r?")
        if last - first < 2 or not closing.fullmatch(self.file.line(last)):
            col = self.file.line(first + 1).find(marker) + 1
            self.doc.unclosed_fences.append(Located(marker, first + 1, max(col, 1)))

    def heading(self, inline: Token) -> None:
        self.doc.slugs.add(self.slugs.add(inline))


def parse_document(path: Path, rel: str, file: TextFile, is_cache: IsCache | None = None) -> Document:
    """Parse ``file`` into a :class:`Document`.

    Parsing depends on the text alone. With ``is_cache(link_text, target)``,
    the cache links of each definition are then selected from its links
    (:func:`select_cache_links`); without it none are. Front matter that cannot be read is recorded in
    :attr:`Document.front_matter_error`, never raised.
    """
    plain = plain_document(path, rel, file)
    if plain is not None:
        return plain  # no quotation, footnote or link can be in it: read by lines (parsing/prescan.py)
    doc = Document(path, rel, file)
    # markdown-it turns a lone \r into a line break; GitHub and our line
    # index count only \n, so blank lone carriage returns out first.
    text = file.text.replace("\r\n", "\n").replace("\r", " ") if "\r" in file.text else file.text
    if "\r" in file.text:
        # CommonMark, and GitHub with it, end a line at a lone \r too: what
        # follows may render as a blockquote or a quotation this parse never
        # sees. Each is reported (SC308), never read past silently.
        at = file.text.find("\r")
        while at != -1:
            if file.text[at + 1 : at + 2] != "\n":
                doc.lone_cr.append(Located("lone carriage return", *_position(file, at)))
            at = file.text.find("\r", at + 1)
    env: dict[str, Any] = {}
    _Builder(doc).build(parser(model=True).parse(text, env))
    if TOO_DEEP in env:
        line = env[TOO_DEEP] + 1
        doc.too_deep.append(Located(str(parser().options.maxNesting), line, 1))
    if is_cache is not None:
        select_cache_links(doc, is_cache)
    return doc
