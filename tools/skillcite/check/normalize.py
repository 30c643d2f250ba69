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
  text is kept), footnote references, HTML tags; entities decoded. A bare
  tag counts as HTML only when it names a formatting element (``<b>``,
  ``</sup>``, ``<br/>``) or carries attributes (``<a href=...>``): ``<eos>``,
  ``</think>`` or ``<s>`` are tokens that ML text quotes, and dropping them
  would let ``<bos>`` pass for ``<eos>``;
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
_STRIP = re.compile("[" + re.escape(_DROP) + "]")
_MAX_PASSES = 4  # a bound only: real text is stable after the second pass
# What a pass can still change in normalized text: the openers of links,
# footnote references, tags, entities and strike-through, dash runs, and a
# combining mark an entity decoded to (the next pass composes it).
_UNSTABLE = re.compile("[\\[\\]<&~\u0300-\u036f]|--")

# Elements whose bare tags (no attributes) sources use for formatting, and
# the MathML of papers converted to HTML. Deliberately absent: names that
# double as model tokens or prompt markers (s, image, img, video, audio,
# input, output, label, title, think, ...).
_HTML_NAMES = (
    "a|abbr|acronym|address|article|aside|b|bdi|bdo|big|blockquote|body|br|caption|center|cite|code|col|colgroup|"
    "dd|del|details|dfn|div|dl|dt|em|embed|figcaption|figure|font|footer|h[1-6]|head|header|hr|html|i|iframe|ins|"
    "kbd|li|main|mark|nav|nobr|noscript|object|ol|p|picture|pre|q|rp|rt|ruby|samp|script|section|small|source|"
    "span|strike|strong|style|sub|summary|sup|svg|table|tbody|td|tfoot|th|thead|time|tr|tt|u|ul|var|wbr|"
    "math|semantics|annotation|annotation-xml|mrow|mi|mn|mo|ms|mtext|mspace|msub|msup|msubsup|mfrac|msqrt|"
    "mroot|munder|mover|munderover|mtable|mtr|mtd|mstyle|mpadded|mphantom|menclose"
)

# Letters that NFKC and folding leave alone (checked by a test), so runs of
# them need no work per character: Latin, Greek, Cyrillic, kana, CJK and
# Hangul. Without them a 5 MB CJK evidence file took 10 s to normalize.
_LETTERS = (
    "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u0131\u0134-\u013e\u0141-\u0148\u014a-\u017e\u0180-\u01c3"
    "\u01cd-\u01f0\u01f4-\u024f\u0370-\u0373\u0376-\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a"
    "\u038c\u038e-\u03a1\u03a3-\u03cf\u03d7-\u03ef\u03f3\u03f7-\u03f8\u03fa-\u03ff\u0400-\u0481"
    "\u048a-\u04ff\u3041-\u3096\u309d-\u309e\u30a1-\u30fa\u30fc-\u30fe\u4e00-\u9fff\uac00-\ud7a3"
)

# Order matters: markup constructs first, then single characters. A plain
# run is words joined by single spaces, kept as one linear piece; ``'`` is
# what every quote mark folds to, so it may sit in a run as it is.
_PLAIN = rf"[A-Za-z0-9,.;:!?()/%+=#@$|{{}}'{_LETTERS}]"
_TOKEN = re.compile(
    rf"(?P<plain>{_PLAIN}+(?: {_PLAIN}+)*)"
    r"|(?P<bq>\s*\n[ \t]*(?:>[ \t]?)+)"
    r"|(?P<ws>\s+)"
    r"|(?P<linktail>\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\))"
    # Any dash in a label: ``[^—]`` folds to the reference ``[^-]`` otherwise.
    r"|(?P<footref>\[\^[A-Za-z0-9_" + re.escape(_DASHES) + r"]+\](?!:))"
    r"|(?P<linkhead>!?\[(?=[^\]\n]*\]\())"
    rf"|(?P<tag><(?:/?(?i:{_HTML_NAMES})\s*/?|[A-Za-z][A-Za-z0-9-]*\s[^<>]*)>|<!--.*?-->)"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<dash>[" + re.escape(_DASHES) + r"]+)"
    r"|(?P<strike>~~)"
    r"|(?P<other>.)",
    re.DOTALL,
)
_SILENT = frozenset({"linktail", "footref", "linkhead", "tag", "strike"})
# Tags that end a line or a block: rendered, they separate the words around
# them ("have<br>a bug" reads "have a bug"), unlike inline ones ("<b>un</b>done").
_BREAKING = re.compile(r"</?(?:br|p|div|li|ul|ol|dl|dt|dd|tr|td|th|table|thead|tbody|hr|h[1-6]|blockquote|pre)\b", re.IGNORECASE)


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
    """Normalize ``source``; offsets in the result map to ``base + offset``.

    One pass can leave text that a second pass would change: dropping a
    construct may join its neighbours into a new one (``~¸~`` is ``~~`` once
    the spacing cedilla is gone, ``[^—]`` becomes the reference ``[^-]``).
    Passes repeat until the text is stable, so normalizing is idempotent,
    which both sides of a comparison rely on (the quote side is text the
    Markdown parser already rendered once). The second pass over the
    normalized text is cheap, and a third is rare.
    """
    result = _normalize_once(source, base)
    for _ in range(_MAX_PASSES):
        if not _UNSTABLE.search(result.text):
            break  # nothing a pass could still act on: the common case for plain prose
        again = _normalize_once(result.text)
        if again.text == result.text:
            break
        result = _compose(again, result)
    return result


def _compose(outer: Normalized, inner: Normalized) -> Normalized:
    """The map of ``outer`` (a pass over ``inner.text``) back to ``inner``'s source.

    A linear piece of ``outer`` is split where ``inner``'s pieces start, so
    each part keeps ``inner``'s own precision (line spans depend on it).
    """
    norm_starts, orig_starts, linear = array("q"), array("q"), array("b")
    count = len(outer.norm_starts)
    for k in range(count):
        start = outer.norm_starts[k]
        stop = outer.norm_starts[k + 1] if k + 1 < count else len(outer.text)
        pos = outer.orig_starts[k]
        if not outer.linear[k]:
            norm_starts.append(start)
            orig_starts.append(inner.to_source(pos))
            linear.append(False)
            continue
        end = pos + (stop - start)
        j = bisect_right(inner.norm_starts, pos) - 1
        while pos < end:
            nxt = inner.norm_starts[j + 1] if j + 1 < len(inner.norm_starts) else len(inner.text)
            norm_starts.append(start + (pos - outer.orig_starts[k]))
            orig_starts.append(inner.to_source(pos))
            linear.append(bool(inner.linear[j]) if j >= 0 else False)
            pos = min(end, nxt)
            j += 1
    return Normalized(outer.text, norm_starts, orig_starts, linear, inner.orig_end)


def _normalize_once(source: str, base: int = 0) -> Normalized:
    """One normalization pass (see :func:`normalize`)."""
    n = len(source)
    # Dropped characters (backslashes, emphasis and code markers, invisible
    # ones) go before any markup is recognized. The quote side is text the
    # Markdown parser already rendered, where ``[\^1]`` and ``\<b>`` are a
    # footnote reference and a tag again; dropping them first treats the
    # evidence the same way, and keeps normalization idempotent (``~*~`` is
    # ``~~`` once the ``*`` is gone). ``shifted[k]`` is where the k-th dropped
    # character was, in the stripped text.
    shifted = array("q")
    if _STRIP.search(source):
        for k, m in enumerate(_STRIP.finditer(source)):
            shifted.append(m.start() - k)
        source = _STRIP.sub("", source)
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
        orig_starts.append(base + orig + (bisect_right(shifted, orig) if shifted else 0))
        linear.append(is_linear)
        out.append(piece)
        length += len(piece)
        last_space = piece[-1] == " "

    def emit_run(start: int, stop: int) -> None:
        # A plain run maps one to one, except across a dropped character.
        if shifted:
            k = bisect_right(shifted, start)
            while k < len(shifted) and shifted[k] < stop:
                emit(source[start : shifted[k]], start, True)
                start = max(start, shifted[k])
                k += 1
        emit(source[start:stop], start, True)

    i = 0
    size = len(source)
    match = _TOKEN.match
    while i < size:
        m = match(source, i)
        kind = m.lastgroup
        end = m.end()
        if kind == "plain" and end < size and unicodedata.combining(source[end]):
            # The run's last letter carries combining marks: compose it
            # with them as a cluster, after the rest of the run.
            if end - 1 > i:
                emit_run(i, end - 1)
            i = end - 1
            kind = "other"
            end = i + 1
        if kind == "plain":
            emit_run(i, end)
        elif kind in ("ws", "bq") or (kind == "tag" and _BREAKING.match(m.group())):
            emit(" ", i, False)
        elif kind == "dash":
            emit("-", i, False)
        elif kind == "entity":
            decoded = "".join(_fold_char(c) for c in html.unescape(m.group()))
            emit(" " if decoded.isspace() else decoded, i, False)
        elif kind not in _SILENT:
            # One character, extended over any combining marks after it.
            while end < size and unicodedata.combining(source[end]):
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
