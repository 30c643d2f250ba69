"""Inline links in raw Markdown, with their exact spans.

The parser knows which links a document has but not where they are;
rewriting them (``bundle``, ``install``) needs the character spans
(applied with :func:`skillcite.core.edits.apply_edits`). This
module finds them with markdown-it's own link helpers and cross-checks each
against the parser's tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it.common.utils import unescapeAll
from markdown_it.helpers import parseLinkDestination, parseLinkLabel, parseLinkTitle
from markdown_it.rules_inline import StateInline

from ...core.textio import TextFile
from .document import parser


@dataclass(frozen=True, slots=True)
class InlineLink:
    """An inline link or image ``[text](target "title")`` exactly as written."""

    start: int  # offset of ``[`` (of ``!`` for an image)
    end: int  # offset just after the closing ``)``
    text: str  # raw Markdown between the brackets
    target: str  # the destination as written, without ``<>``
    target_span: tuple[int, int]  # where ``target`` sits in the text
    image: bool

    @property
    def href(self) -> str:
        """The destination with backslash escapes and entities resolved."""
        return unescapeAll(self.target)


def _link_at(state: StateInline, i: int, end: int) -> InlineLink | None:
    """The inline link whose text opens with the ``[`` at ``i``, if one does.

    markdown-it's own helpers read the label, destination and title, exactly
    as its link rule does; only the positions are ours.
    """
    text = state.src
    j = parseLinkLabel(state, i, True)
    if j < 0 or j + 1 >= end or text[j + 1] != "(":
        return None
    k = j + 2
    while k < end and text[k] in " \t\n":
        k += 1
    dest = parseLinkDestination(text, k, end)
    if not dest.ok:
        return None
    span = (k + 1, dest.pos - 1) if text[k] == "<" else (k, dest.pos)
    k = dest.pos
    while k < end and text[k] in " \t\n":
        k += 1
    title = parseLinkTitle(text, k, end)
    if title.ok and k > dest.pos:
        k = title.pos
        while k < end and text[k] in " \t\n":
            k += 1
    if k >= end or text[k] != ")":
        return None
    image = i > 0 and text[i - 1] == "!"
    return InlineLink(i - image, k + 1, text[i + 1 : j], text[span[0] : span[1]], span, image)


def find_inline_links(file: TextFile) -> list[InlineLink]:
    """Inline links of ``file`` that the Markdown parser agrees are links.

    The parser knows what is a link but not where; a scan of the raw lines
    of each inline block finds spans, stepping over code spans, autolinks
    and HTML with markdown-it's own inline rules. A scanned link is kept
    only if its destination is the next one the parser reported (searching
    forward, so links the scan cannot see, such as reference-style ones, are
    skipped). Code blocks, HTML blocks and front matter hold no inline blocks.
    """
    text, md = file.text, parser()
    tokens = md.parse(text.replace("\r\n", "\n").replace("\r", " ") if "\r" in text else text)
    inline = [t for t in tokens if t.type == "inline" and t.map]
    kids = [c for t in inline for c in t.children or [] if c.type in ("link_open", "image")]
    expected = [str(c.attrs.get("href" if c.type == "link_open" else "src", "")) for c in kids]
    state = StateInline(text, md, {}, [])
    found: list[InlineLink] = []
    pos = want = 0
    for tok in inline:
        assert tok.map is not None
        start, end = file.line_span(tok.map[0] + 1, min(max(tok.map[1], tok.map[0] + 1), len(file.line_starts)))
        i, state.posMax = max(pos, start), end  # table cells share their row's lines: scan each once
        while i < end:
            if text[i] == "[" and not text.startswith("[^", i) and (link := _link_at(state, i, end)):
                href = md.normalizeLink(link.href)
                if href in expected[want:]:
                    want = expected.index(href, want) + 1
                    found.append(link)
                i = link.end
            elif text[i] in "[!":
                i += 1  # the image rule would step over the link inside
            else:
                state.pos = i
                md.inline.skipToken(state)
                i = max(state.pos, i + 1)
        pos = max(pos, end)
    return found
