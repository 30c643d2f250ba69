"""A quoted title: the name of the cited work, as its evidence or its footnote gives it."""


from __future__ import annotations

import re

from ..parsing.evidence import Evidence
from ..parsing.normalize import normalize
from .chars import _EDGE
from .pattern import compile_quote


def is_title(quote: str, ev: Evidence) -> bool:
    """True when ``quote`` is the evidence's ``title`` (normalized; a title, not a quote).

    The front matter may hold the title with more after it, as pages and
    ``evidence adopt`` write it ("A Recipe for Training Neural Networks - A.
    Karpathy blog", "Title: Subtitle"): the quote is the title when it is
    the part before such a separator, never a few of its first words.
    """
    data = ev.front.data if ev.front is not None else None
    title = data.get("title") if isinstance(data, dict) else None
    if not isinstance(title, str) or not title.strip():
        return False
    qp = compile_quote(quote)
    return qp is not None and _title_matches(qp.text, normalize(title).text.strip(_EDGE))


# What may follow a title in a longer one: a subtitle, a site or author name.
_TITLE_TAIL = re.compile(r"\s*(?::|\||-|\u2013|\u2014|\u00b7|\(|,)\s*\S")
# A title as a footnote definition names it: in quotation marks or in emphasis.
_NAMED_TITLE = re.compile(r'"([^"\n]{2,300})"|\u201c([^\u201d\n]{2,300})\u201d|\*([^*\n]{2,300})\*|(?<!\w)_([^_\n]{2,300})_(?!\w)')


def _title_matches(quoted: str, title: str) -> bool:
    """True when ``quoted`` is ``title``, or ``title`` is it followed by a separator and more."""
    if not quoted:
        return False
    if quoted == title:
        return True
    return title.startswith(quoted) and _TITLE_TAIL.match(title, len(quoted)) is not None


def names_title(quote: str, definition: str) -> bool:
    """True when ``quote`` is a title the footnote definition names (in quotation marks or emphasis).

    ``Author, "Title"[^b]`` citing a book whose footnote has no cache: the
    quoted words are the work's name as the footnote gives it, not a
    quotation of it.
    """
    qp = compile_quote(quote)
    if qp is None:
        return False
    for m in _NAMED_TITLE.finditer(definition):
        named = normalize(next(g for g in m.groups() if g is not None)).text.strip(_EDGE)
        if _title_matches(qp.text, named):
            return True
    return False
