"""Text normalization for quote matching, with a map back to source offsets.

Both sides of a comparison go through :func:`normalize`: the quote, as plain
text the Markdown parser already rendered (emphasis, escapes, links and
footnote references are gone, code and inline HTML are kept), and the
evidence, raw Markdown whose markup characters the evidence side finds with
the same parser (:mod:`skillcite.check.parsing.markup`) and passes in as ``drop``.
Nothing here reads Markdown syntax on its own: a literal ``*``, ``_``,
backslash, ``[..](..)`` or ``~~`` is text (``2*10`` is not ``210``, and
``fns[0](x)`` is not ``fns0``). A quote matches when the two agree after:

* Unicode NFKC (applied per grapheme cluster, so offsets stay mappable),
  except superscripts and subscripts, which stay distinct from plain digits
  (``10⁶`` is not ``106``); ``<sup>6</sup>`` is spelled ``⁶`` on purpose;
* every quote character folded to ``'`` (curly, straight, double, single:
  a nested ``"`` may be quoted as ``'``);
* hyphens and minus signs folded to ``-``; em dashes and runs of dashes
  (``--``, ``---``) folded to a spaced `` - `` (a dash separates words,
  a hyphen joins them);
* ``…`` spelled ``...``;
* soft hyphens and zero-width characters dropped;
* HTML tags dropped, when well formed on one line, entities decoded; an
  HTML comment is a gap (``[...]``) that a quote crosses only with an
  elision of its own. A bare tag counts as HTML only when it names a
  formatting element (``<b>``, ``</sup>``, ``<br/>``) or carries an
  attribute with a value (``<a href=...>``): ``<eos>``, ``</think>`` or
  ``<s>`` are tokens that ML text quotes;
* blockquote markers at line starts dropped: ``>`` followed by a space, a
  tab or the end of the line (``>5 epochs`` keeps its ``>``);
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
from collections.abc import Sequence
from dataclasses import dataclass, field

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d-"
# Dashes that separate words (em dashes and their kin); a run of two or more
# dashes of any kind is one of them too ("--" typed for "\u2014").
_EM_DASHES = frozenset("\u2014\u2015\u2e3a\u2e3b\ufe58")
_QUOTES = "\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033\u00ab\u00bb\u2039\u203a\u00b4"
_DROP = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
# Elements the source hides, and those it strikes through (issue 28 §6).
_HIDDEN = re.compile(
    r"<([A-Za-z][A-Za-z0-9]*)\b[^>]*?(?:\shidden(?:[\s=/>])|display\s*:\s*none|visibility\s*:\s*hidden|aria-hidden\s*=\s*[\"']?true)",
    re.IGNORECASE,
)
_STRUCK = re.compile(r"</?(?:del|strike)\b", re.IGNORECASE)  # not <s>: a tokenizer's start token in ML text
_CELL = re.compile(r"<t[dh]\b", re.IGNORECASE)
_PARAGRAPH_END = re.compile(r"\n[ \t>]*\n")


def _closing(source: str, name: str, start: int, limit: int) -> tuple[int, int] | None:
    """Span of the first ``</name>`` in ``source[start:limit]`` (nesting aside), or None."""
    m = re.compile(rf"</{re.escape(name)}\s*>", re.IGNORECASE).search(source, start, limit)
    return m.span() if m else None


# Double quotation marks and the double prime; which of them open a
# quotation. A single prime stays folded with ' (5' and 5\u2032 are both
# feet, and ' after a digit may close a quotation or elide: the '90s).
_PRIMES = {"\u2033": "\u2033"}
_OPENING = frozenset("\u201c\u201e\u201f")
_DOUBLE_MARKS = frozenset('"\u201c\u201d\u201e\u201f') | frozenset(_PRIMES)
_FOLDED = frozenset(_DASHES + _QUOTES + _DROP + "\u2026")
_STRIP = re.compile("[" + re.escape(_DROP) + "]")
_MAX_PASSES = 4  # a bound only: real text is stable after the second pass
# What a later pass can still change: a combining mark an entity decoded to
# (the next pass composes it with its base). Tags, comments and entities are
# read in the first pass only, as a renderer reads them: text that only
# looks like a tag once line breaks are spaces, or once an entity is
# decoded (``&lt;b&gt;``), is text.
_UNSTABLE = re.compile("[\u0300-\u036f]|--")  # or a dash run a dropped mark joined ("-\u0301-")
# A hyphen that ends a line between two letters (PDF text: "dis-" then
# "tributions") is kept as U+2E17 (double oblique hyphen), which no dash
# folds to and NFKC leaves alone, so the matcher can join the word there and
# only there, and normalizing the result again leaves it as it is.
LINE_HYPHEN = "\u2e17"
_LINE_BREAK_HYPHEN = re.compile(r"[ \t]*\r?\n[ \t>]*[^\W\d_]")
_FIRST_PASS_ONLY = frozenset({"comment", "tag", "supsub", "entity"})
GAP = "[...]"  # what an HTML comment of the evidence becomes: an omission

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
# One attribute, on one line: a name, ``=`` and a value; or one of the
# boolean attributes, which stand alone (``<details open>``). ``<b and c>``
# is text: no element has attributes named "and" and "c" without values.
_ATTR = (
    r"""(?:[A-Za-z_:][-A-Za-z0-9_:.]*[ \t]*=[ \t]*(?:"[^"\n<>]*"|'[^'\n<>]*'|[^\s"'=<>`]+)"""
    r"|(?i:hidden|open|disabled|checked|selected|controls|autoplay|loop|muted|async|defer|nowrap|compact|reversed|"
    r"download|novalidate|readonly|required|multiple|inert|itemscope)(?![-A-Za-z0-9_:.]))"
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
# what every quote mark folds to, so it may sit in a run as it is. Markdown
# punctuation (``*``, ``_``, backslash, brackets, ``~``) is plain text here:
# the evidence side drops the markup the parser found before this pass.
_PLAIN = rf"[A-Za-z0-9,.;:!?()/%+=#@$|{{}}'*_`\\\[\]~^{_LETTERS}]"
_TOKEN = re.compile(
    rf"(?P<plain>{_PLAIN}+(?: {_PLAIN}+)*)"
    r"|(?P<bq>\s*\n[ \t]*(?:>+(?=[ \t\r\n]|$)[ \t]*)+)"
    r"|(?P<ws>\s+)"
    r"|(?P<supsub><(?P<ss>(?i:sup|sub))(?:[ \t][^<>\n]*)?>(?P<sstext>[^<>\n]{1,40})</(?P=ss)[ \t]*>)"
    r"|(?P<comment><!--)"
    rf"|(?P<tag></?(?i:{_HTML_NAMES})(?:[ \t]+{_ATTR})*[ \t]*/?>|<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+{_ATTR})+[ \t]*/?>)"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<dash>[" + re.escape(_DASHES) + r"]+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
# Tags that end a line or a block: rendered, they separate the words around
# them ("have<br>a bug" reads "have a bug"), unlike inline ones ("<b>un</b>done").
_KNOWN_NAME = re.compile(rf"/?(?i:{_HTML_NAMES})(?![A-Za-z0-9-])")
_BREAKING = re.compile(r"</?(?:br|p|div|li|ul|ol|dl|dt|dd|tr|td|th|table|thead|tbody|hr|h[1-6]|blockquote|pre)\b", re.IGNORECASE)

# Superscript and subscript forms, for ``<sup>``/``<sub>`` content; a
# character without one keeps its plain form.
_SUP = dict(
    zip(
        "0123456789+-=()ni",
        "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b\u207c\u207d\u207e\u207f\u2071",
        strict=True,
    )
)
_SUB = dict(
    zip(
        "0123456789+-=()aehijklmnoprstuvx",
        "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089\u208a\u208b\u208c\u208d\u208e"
        "\u2090\u2091\u2095\u1d62\u2c7c\u2096\u2097\u2098\u2099\u2092\u209a\u1d63\u209b\u209c\u1d64\u1d65\u2093",
        strict=True,
    )
)


@dataclass(slots=True)
class Normalized:
    """A normalized string and the map from its offsets to the source text.

    Pieces are stored as parallel arrays: a piece starts at ``norm_starts[k]``
    in :attr:`text` and came from ``orig_starts[k]`` in the source. When a
    piece kept its length (plain runs) offsets inside it map one to one;
    otherwise every offset inside it maps to the piece's start.
    """

    text: str
    norm_starts: array[int] = field(default_factory=lambda: array("q"))
    orig_starts: array[int] = field(default_factory=lambda: array("q"))
    linear: array[int] = field(default_factory=lambda: array("b"))
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


def _scripted(ch: str) -> bool:
    """A superscript or subscript character: kept apart from plain digits and letters."""
    return unicodedata.decomposition(ch).startswith(("<super>", "<sub>"))


def _fold_char(ch: str) -> str:
    if ch in _QUOTES:
        return "'"
    if ch in _DROP:
        return ""
    if ch in _DASHES:
        return "-"
    if ch == "\u2026":
        return "..."
    if _scripted(ch):
        return ch
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch:
        return "".join(_fold_char(c) if c != ch else c for c in folded)
    return ch


def _fold_cluster(cluster: str) -> str:
    """Fold one base character with its combining marks."""
    if len(cluster) == 1 and cluster in _FOLDED:
        return _fold_char(cluster)
    if _scripted(cluster[0]):
        return unicodedata.normalize("NFC", cluster)
    folded = "".join(_fold_char(c) for c in unicodedata.normalize("NFKC", cluster))
    if folded.isspace():
        return " " if folded else ""
    # NFKC spells spacing accents (U+00B4 and kin) as a space plus a
    # combining mark; a mark left without a base carries no text.
    folded = folded.strip()
    if folded and unicodedata.combining(folded[0]):
        return ""
    return folded


def _scripts(text: str, table: dict[str, str]) -> str:
    """``<sup>``/``<sub>`` content in superscript or subscript characters."""
    return "".join(table.get(c, c) for c in "".join(_fold_char(c) for c in text))


def normalize(source: str, base: int = 0, drop: Sequence[int] = ()) -> Normalized:
    """Normalize ``source``; offsets in the result map to ``base + offset``.

    ``drop`` lists offsets of ``source`` that are markup to remove before
    anything else (the evidence side's emphasis markers, escapes, link
    syntax and list markers, found by the Markdown parser); plain text
    passes none. One pass can leave text that a second pass would change:
    an entity may decode to the opener of a tag or a combining mark. Passes
    repeat until the text is stable, so normalizing is idempotent, which
    both sides of a comparison rely on. The second pass over the normalized
    text is cheap, and a third is rare.
    """
    result = _normalize_once(source, base, drop)
    for _ in range(_MAX_PASSES):
        if not _UNSTABLE.search(result.text):
            break  # nothing a pass could still act on: the common case for plain prose
        again = _normalize_once(result.text, first=False)
        if again.text == result.text:
            break
        result = _compose(again, result)
    if "E" in result.text:
        # The exponent of a number in either case: "3E-4" is "3e-4". Same
        # length, so every offset still maps as it did.
        folded = _EXPONENT.sub("e", result.text)
        if folded != result.text:
            result = Normalized(folded, result.norm_starts, result.orig_starts, result.linear, result.orig_end)
    return result


_EXPONENT = re.compile(r"(?<=\d)E(?=[-+]?\d)")


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


def _normalize_once(source: str, base: int = 0, drop: Sequence[int] = (), first: bool = True) -> Normalized:
    """One normalization pass (see :func:`normalize`); markup is read in the ``first`` only."""
    n = len(source)
    # Dropped characters (markup the caller found, invisible characters) go
    # before anything else is read. ``shifted[k]`` is where the k-th
    # dropped character was, in the stripped text.
    shifted = array("q")
    gone = sorted({s.start() for s in _STRIP.finditer(source)}.union(drop)) if drop else None
    if gone:
        kept: list[str] = []
        prev = 0
        for k, pos in enumerate(gone):
            if not 0 <= pos < n:
                continue
            kept.append(source[prev:pos])
            shifted.append(pos - k)
            prev = pos + 1
        kept.append(source[prev:])
        source = "".join(kept)
    elif _STRIP.search(source):
        for k, hit in enumerate(_STRIP.finditer(source)):
            shifted.append(hit.start() - k)
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
    double_open = False  # a double quotation mark is open on the current line
    para_from, para_end = size + 1, size  # memo: the paragraph end after para_from
    # memo per element name: (paragraph end, from, span of the first </name> after from before that end)
    hidden_memo: dict[str, tuple[int, int, tuple[int, int] | None]] = {}
    comment_from, comment_close = size + 1, -1  # memo of the last search for "-->" (none yet)
    while i < size:
        m = match(source, i)
        assert m is not None  # the last alternative of _TOKEN takes any one character
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
        if not first and kind in _FIRST_PASS_ONLY:
            kind, end = "other", i + 1
        if kind == "comment":
            # A comment is a gap in the text, never a join of its two sides.
            # The search for its end is remembered, so many unclosed "<!--"
            # cost one scan, not one each.
            # An unclosed one (-1) answers for every later "<!--" too.
            if not (comment_from <= i + 4 and (comment_close == -1 or i + 4 <= comment_close)):
                comment_from, comment_close = i + 4, source.find("-->", i + 4)
            if comment_close == -1:
                kind, end = "other", i + 1
            else:
                emit(" ", i, False)
                emit(GAP, i, False)
                emit(" ", i, False)
                i = comment_close + 3
                continue
        elif kind == "tag" and not _KNOWN_NAME.match(source, i + 1) and "=" not in m.group():
            kind, end = "other", i + 1  # <x is small> is text, not an element
        elif kind == "tag" and first and _HIDDEN.match(m.group()):
            # An element the source hides (hidden, display:none) shows no
            # text: a gap, like a comment, up to its closing tag within the
            # paragraph. Unclosed there: an ordinary tag.
            hidden = _HIDDEN.match(m.group())
            assert hidden is not None
            name = hidden.group(1).lower()
            # Both searches are remembered, so many unclosed hidden
            # elements in one paragraph cost one scan each, not one per tag.
            if not para_from <= end <= para_end:
                stop = _PARAGRAPH_END.search(source, end)
                para_from, para_end = end, stop.start() if stop else size
            memo = hidden_memo.get(name)
            if memo is None or not (memo[0] == para_end and memo[1] <= end and (memo[2] is None or end <= memo[2][0])):
                memo = hidden_memo[name] = (para_end, end, _closing(source, name, end, para_end))
            found = memo[2]
            if found is not None:
                close = found[1]
                emit(" ", i, False)
                emit(GAP, i, False)
                emit(" ", i, False)
                i = close
                continue
        elif kind == "tag" and _STRUCK.match(m.group()):
            emit("~~", i, False)  # <del>, <strike>: struck through, as ~~ writes it
            i = end
            continue
        if kind == "plain":
            emit_run(i, end)
        elif kind == "tag" and _CELL.match(m.group()):
            # A table cell is text of its own: words of two cells are never
            # adjacent (issue 28 §6), so a gap, as between excerpts.
            emit(" ", i, False)
            emit(GAP, i, False)
            emit(" ", i, False)
        elif kind in ("ws", "bq") or (kind == "tag" and _BREAKING.match(m.group())):
            if "\n" in m.group():
                double_open = False  # a quotation mark pairs within its line only
            emit(" ", i, False)
        elif kind == "other" and source[i] in _DOUBLE_MARKS:
            # A double prime after a digit is a unit (6" is six inches, 6' six
            # feet): kept apart from the quotation marks, which all fold to
            # '. A straight " after a digit is a double prime unless it
            # closes a quotation opened earlier on its line ("set it to 5").
            ch = source[i]
            if i > 0 and source[i - 1].isdigit() and (ch in _PRIMES or not double_open):
                emit(_PRIMES.get(ch, "\u2033"), i, False)
            else:
                double_open = ch in _OPENING or (ch == '"' and not double_open)
                emit("'", i, False)
        elif kind == "supsub":
            table = _SUP if m.group("ss").lower() == "sup" else _SUB
            emit(_scripts(m.group("sstext"), table), i, False)
        elif kind == "dash":
            if m.group() == "-" and i > 0 and source[i - 1].isalpha() and _LINE_BREAK_HYPHEN.match(source, end):
                emit(LINE_HYPHEN, i, False)  # "dis-" at a line end: see matching's hyphenation rule
            elif len(m.group()) > 1 or m.group() in _EM_DASHES:
                emit(" ", i, False)
                emit("-", i, False)
                emit(" ", i, False)
            else:
                emit("-", i, False)
        elif kind == "entity":
            raw = html.unescape(m.group())
            if raw in _EM_DASHES:
                emit(" ", i, False)
                emit("-", i, False)
                emit(" ", i, False)
            else:
                decoded = "".join(_fold_char(c) for c in raw)
                emit(" " if decoded.isspace() else decoded, i, False)
        elif kind != "tag":
            # One character, extended over any combining marks after it.
            while end < size and unicodedata.combining(source[end]):
                end += 1
            cluster = source[i:end]
            folded = _fold_cluster(cluster)
            emit(folded, i, len(folded) == len(cluster) == 1)
        i = end

    text = "".join(out)
    text = text.removesuffix(" ")
    return Normalized(text, norm_starts, orig_starts, linear, base + n)


def normalize_text(source: str) -> str:
    """Return only the normalized string (no offset map)."""
    return normalize(source).text
