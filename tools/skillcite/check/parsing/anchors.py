"""Cache links and their line anchors inside one footnote definition.

The Markdown parser tells us where a definition is and which links it holds;
this module reads the raw text of the definition around each cache link, so
that every anchor keeps its exact character span for ``skillcite fix``.

Accepted forms (docs/citations.md, "Footnotes")::

    ([cache](docs/evidence/x.md): label L12-20, L30+L34; free note)
    ([cache](docs/evidence/x.md#L12-L20))
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# A Markdown inline link with an optional title; the target may be <bracketed>.
LINK = re.compile(r"!?\[(?P<text>[^\]\n]*)\]\((?P<target><[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+\"[^\"\n]*\")?\)")
# The anchor list after a cache link: ``: label L12-20, L30`` up to a ``;``, bracket or line end.
ANCHOR_LIST = re.compile(r"[ \t]*:(?P<list>[^;()\[\]\n]*)")
_ITEM = re.compile(
    r"\s*(?:(?P<label>[^\s,;:()][^,;:()]*?)\s+)?"
    r"(?P<ranges>L[0-9]+(?:-L?[0-9]+)?(?:\s*\+\s*L[0-9]+(?:-L?[0-9]+)?)*)\s*"
)
# Line numbers are ASCII digits (``\d`` would take ``L١٣`` for L13), and at
# most MAX_DIGITS of them: a longer one is a typo, and int() of thousands
# of digits raises.
MAX_DIGITS = 9
# One line range as anchors and GitHub fragments spell it (``L12``, ``L12-20``,
# ``L12-L20``), any number of digits: the parsers refuse more than MAX_DIGITS,
# :func:`is_line_fragment` only tells the shape.
LINE_RANGE = re.compile(r"L(?P<start>[0-9]+)(?:-(?P<L>L?)(?P<end>[0-9]+))?")
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_DIGITS + 1},}}")


@dataclass(frozen=True, slots=True)
class Range:
    """Lines ``start..end`` (1-based, inclusive) of an evidence file."""

    start: int
    end: int

    def render(self) -> str:
        """The anchor spelling: ``L12`` or ``L12-20``."""
        return f"L{self.start}" if self.start == self.end else f"L{self.start}-{self.end}"


@dataclass(slots=True)
class Anchor:
    """One comma item: an optional label and ranges joined with ``+``.

    ``span`` is the character span of the ranges text in the document (for
    rewriting); ``None`` for anchors that come from a ``#L..`` fragment.
    """

    label: str
    ranges: list[Range]
    span: tuple[int, int] | None
    offset: int  # document offset for diagnostics

    def render_ranges(self) -> str:
        """The ranges joined with ``+``."""
        return "+".join(r.render() for r in self.ranges)


@dataclass(slots=True)
class CacheLink:
    """A link from a footnote definition to an evidence file."""

    target: str  # link target without its fragment, as written
    fragment: str
    offset: int  # document offset of the link
    end: int  # document offset just after the link's closing parenthesis
    text: str = ""  # the link text (``cache`` for a cache link by name)
    anchors: list[Anchor] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)  # (offset, message)


def parse_fragment(fragment: str) -> list[Range] | None:
    """Ranges from a GitHub line fragment (``L12``, ``L12-L20``), else None."""
    m = LINE_RANGE.fullmatch(fragment)
    if not m or any(len(m.group(g) or "") > MAX_DIGITS for g in ("start", "end")):
        return None
    start = int(m.group("start"))
    end = int(m.group("end")) if m.group("end") else start
    return [Range(start, end)]


def is_line_fragment(fragment: str) -> bool:
    """True when ``fragment`` (without ``#``) has the shape of a line fragment, ``L12`` or ``L12-L20``.

    A link with such a fragment points at lines, not at a heading.
    """
    return LINE_RANGE.fullmatch(fragment) is not None


def parse_anchor_list(text: str, base: int) -> tuple[list[Anchor], list[tuple[int, str]]]:
    """Parse ``label L1-3, L5+L7`` starting at document offset ``base``."""
    anchors: list[Anchor] = []
    errors: list[tuple[int, str]] = []
    if not text.strip():
        return anchors, [(base, "empty anchor list after ':'")]
    pos = 0
    for item in text.split(","):
        m = _ITEM.fullmatch(item)
        label_words = (m.group("label") or "").split() if m else []
        if not item.strip():
            errors.append((base + pos, "empty anchor (a stray ',')"))
        elif any(ch.isdigit() and not ch.isascii() for ch in item):
            errors.append((base + pos, f"anchor {item.strip()!r}: write line numbers with the digits 0-9"))
        elif m and _LONG_NUMBER.search(m.group("ranges")):
            errors.append((base + pos, f"anchor {item.strip()[:40]!r}: a line number has more than {MAX_DIGITS} digits"))
        elif not m:
            errors.append((base + pos, f"cannot parse anchor {item.strip()!r} (expected [label ]L<start>[-<end>][+L...]; free notes go after a ';')"))
        elif label_words and LINE_RANGE.fullmatch(label_words[-1]):
            # ``L11 L12`` would read as the label "L11" and the range L12.
            errors.append((base + pos, f"anchor {item.strip()!r} has ranges without ',' or '+' between them"))
        else:
            ranges = [
                Range(int(r.group("start")), int(r.group("end") or r.group("start")))
                for r in LINE_RANGE.finditer(m.group("ranges"))
            ]
            span = (base + pos + m.start("ranges"), base + pos + m.end("ranges"))
            anchors.append(Anchor(m.group("label") or "", ranges, span, base + pos + m.start()))
        pos += len(item) + 1
    return anchors, errors


def split_target(target: str) -> tuple[str, str]:
    """Split a link target into path and fragment, dropping ``<...>``."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    path, _, fragment = target.partition("#")
    return path, fragment


def find_links(text: str, start: int, end: int) -> list[CacheLink]:
    """Every link in ``text[start:end]`` (a footnote definition), with its anchor list.

    Which of them are cache links depends on where the document and the
    evidence folder are, which parsing does not know: the workspace decides
    (:meth:`skillcite.check.parsing.workspace.Workspace.select_cache_links`).
    """
    links: list[CacheLink] = []
    for m in LINK.finditer(text, start, end):
        path, fragment = split_target(m.group("target"))
        link = CacheLink(path, fragment, m.start(), m.end(), m.group("text"))
        if fragment:
            ranges = parse_fragment(fragment)
            if ranges is None:
                link.errors.append((m.start("target"), f"fragment #{fragment} is not a line anchor (#L12 or #L12-L20)"))
            else:
                link.anchors.append(Anchor("", ranges, None, m.start("target")))
        after = ANCHOR_LIST.match(text, m.end(), end)
        if after:
            anchors, errors = parse_anchor_list(after.group("list"), after.start("list"))
            link.anchors.extend(anchors)
            link.errors.extend(errors)
        links.append(link)
    return links


def find_cache_links(text: str, start: int, end: int, is_cache: Callable[[str, str], bool]) -> list[CacheLink]:
    """The links of :func:`find_links` for which ``is_cache(link_text, path)`` holds."""
    return [link for link in find_links(text, start, end) if is_cache(link.text, link.target)]


def valid_anchors(anchors: list[list[Range]], total: int) -> list[list[Range]]:
    """The anchors' ranges that lie inside a file of ``total`` lines (anchors left empty dropped)."""
    valid = [[r for r in ranges if 1 <= r.start <= r.end <= total] for ranges in anchors]
    return [v for v in valid if v]


def cited_span(valid: list[list[Range]]) -> tuple[int, int] | None:
    """First and last line the valid anchors cite, or None: the lines a narrow stretch must hold."""
    if not valid:
        return None
    return min(r.start for v in valid for r in v), max(r.end for v in valid for r in v)
