"""Text normalization for quote matching, with a map back to source offsets.

Both sides of a comparison (the quote in a skill file and the evidence text)
go through :func:`normalize`, so a quote matches when the two agree after:

* Unicode NFKC (applied per grapheme cluster, so offsets stay mappable);
* every quote character folded to ``'`` (curly, straight, double, single:
  a nested ``"`` may be quoted as ``'``);
* every dash variant, and runs of them (``--``, ``---``), folded to ``-``;
* ``…`` spelled ``...``;
* soft hyphens and zero-width characters dropped;
* Markdown inline syntax dropped: emphasis and code markers (``*``, ``_``,
  backticks, ``~~``), backslash escapes, link and image targets (the link
  text is kept), footnote references, HTML tags; entities decoded;
* whitespace runs collapsed to one space, leading and trailing space dropped.

The work is done with one regular expression over the text, so plain ASCII
runs cost a single slice each; that keeps a 50 MB evidence file linear and
the common case fast.
"""

from __future__ import annotations

import html
import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d-"
_QUOTES = "\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033\u00ab\u00bb\u2039\u203a\u00b4"
_DROP = "\u00ad\u200b\u200c\u200d\u2060\ufeff*_`\\"
_FOLDED = frozenset(_DASHES + _QUOTES + _DROP + "\u2026")

# Order matters: markup constructs first, then single characters. A plain
# run is ASCII words joined by single spaces, kept as one linear piece.
_PLAIN = r"[A-Za-z0-9,.;:!?()/%+=#@$|{}]"
_TOKEN = re.compile(
    rf"(?P<plain>{_PLAIN}+(?: {_PLAIN}+)*)"
    r"|(?P<bq>\s*\n[ \t]*(?:>[ \t]?)+)"
    r"|(?P<ws>\s+)"
    r"|(?P<linktail>\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<footref>\[\^[A-Za-z0-9_-]+\](?!:))"
    r"|(?P<linkhead>!?\[(?=[^\]\n]*\]\())"
    r"|(?P<tag></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--.*?-->)"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<dash>[" + re.escape(_DASHES) + r"]+)"
    r"|(?P<strike>~~)"
    r"|(?P<other>.)",
    re.DOTALL,
)
_SILENT = frozenset({"linktail", "footref", "linkhead", "tag", "strike"})


@dataclass(slots=True)
class Normalized:
    """A normalized string and the map from its offsets to the source text.

    Pieces are stored as parallel arrays: a piece starts at ``norm_starts[k]``
    in :attr:`text` and came from ``orig_starts[k]`` in the source. When a
    piece kept its length (plain runs) offsets inside it map one to one;
    otherwise every offset inside it maps to the piece's start.
    """

    text: str
    norm_starts: array = field(default_factory=lambda: array("q"))
    orig_starts: array = field(default_factory=lambda: array("q"))
    linear: array = field(default_factory=lambda: array("b"))
    orig_end: int = 0

    def to_source(self, index: int) -> int:
        """Map an offset in :attr:`text` to an offset in the source string."""
        if index >= len(self.text):
            return self.orig_end
        k = bisect_right(self.norm_starts, index) - 1
        if k < 0:
            return self.orig_starts[0] if self.orig_starts else 0
        if self.linear[k]:
            return self.orig_starts[k] + (index - self.norm_starts[k])
        return self.orig_starts[k]

    def from_source(self, offset: int) -> int:
        """First normalized offset whose text comes from ``offset`` or later."""
        k = bisect_left(self.orig_starts, offset)
        if k > 0 and self.linear[k - 1]:
            # ``offset`` may fall inside a linear piece that starts before it.
            inside = offset - self.orig_starts[k - 1]
            end = self.norm_starts[k] if k < len(self.norm_starts) else len(self.text)
            if inside < end - self.norm_starts[k - 1]:
                return self.norm_starts[k - 1] + inside
        return self.norm_starts[k] if k < len(self.norm_starts) else len(self.text)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a half-open normalized span to a half-open source span."""
        if end <= start:
            s = self.to_source(start)
            return s, s
        return self.to_source(start), self.to_source(end - 1) + 1


def _fold_char(ch: str) -> str:
    if ch in _QUOTES:
        return "'"
    if ch in _DROP:
        return ""
    if ch in _DASHES:
        return "-"
    if ch == "\u2026":
        return "..."
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch:
        return "".join(_fold_char(c) if c != ch else c for c in folded)
    return ch


def _fold_cluster(cluster: str) -> str:
    """Fold one base character with its combining marks."""
    if len(cluster) == 1 and cluster in _FOLDED:
        return _fold_char(cluster)
    folded = "".join(_fold_char(c) for c in unicodedata.normalize("NFKC", cluster))
    if folded.isspace():
        return " " if folded else ""
    # NFKC spells spacing accents (U+00B4 and kin) as a space plus a
    # combining mark; a mark left without a base carries no text.
    folded = folded.strip()
    if folded and unicodedata.combining(folded[0]):
        return ""
    return folded


def normalize(source: str, base: int = 0) -> Normalized:
    """Normalize ``source``; offsets in the result map to ``base + offset``."""
    out: list[str] = []
    norm_starts = array("q")
    orig_starts = array("q")
    linear = array("b")
    length = 0
    last_space = True  # drops leading whitespace

    def emit(piece: str, orig: int, is_linear: bool) -> None:
        nonlocal length, last_space
        if piece == " ":
            if last_space:
                return
        elif not piece:
            return
        norm_starts.append(length)
        orig_starts.append(base + orig)
        linear.append(is_linear)
        out.append(piece)
        length += len(piece)
        last_space = piece[-1] == " "

    i = 0
    n = len(source)
    match = _TOKEN.match
    while i < n:
        m = match(source, i)
        kind = m.lastgroup
        end = m.end()
        if kind == "plain" and end < n and unicodedata.combining(source[end]):
            # The run's last letter carries combining marks: compose it
            # with them as a cluster, after the rest of the run.
            if end - 1 > i:
                emit(source[i : end - 1], i, True)
            i = end - 1
            kind = "other"
            end = i + 1
        if kind == "plain":
            emit(m.group(), i, True)
        elif kind in ("ws", "bq"):
            emit(" ", i, False)
        elif kind == "dash":
            emit("-", i, False)
        elif kind == "entity":
            decoded = "".join(_fold_char(c) for c in html.unescape(m.group()))
            emit(" " if decoded.isspace() else decoded, i, False)
        elif kind not in _SILENT:
            # One character, extended over any combining marks after it.
            while end < n and unicodedata.combining(source[end]):
                end += 1
            cluster = source[i:end]
            folded = _fold_cluster(cluster)
            emit(folded, i, len(folded) == len(cluster) == 1)
        i = end

    text = "".join(out)
    if text.endswith(" "):
        text = text[:-1]
    return Normalized(text, norm_starts, orig_starts, linear, base + n)


def normalize_text(source: str) -> str:
    """Return only the normalized string (no offset map)."""
    return normalize(source).text
