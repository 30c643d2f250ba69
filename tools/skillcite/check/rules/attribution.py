"""SC314-SC315: a footnote's URL and author agree with its evidence file's ``source`` and ``author``.

A quote is verified against the words of one cached source; a footnote
that names another URL or another author attributes those words wrongly
although every word matches (issue 28 §5). The comparison is
deliberately narrow, so that it only reports what it can show:

- URLs (SC314): every ``http(s)`` URL the definition writes outside its
  cache links, compared with the evidence's ``source`` after
  :func:`url_key` (scheme, ``www.``, a trailing slash, the fragment,
  arXiv's ``abs``/``pdf``/``html`` forms and raw GitHub file URLs do not
  count); a site or folder holding the cached page also names it
  (:func:`_cites`). A footnote with no URL, or evidence whose ``source``
  is missing or a ``TODO``, is not compared; one of several URLs matching
  is enough.
- Authors (SC315): the names written before the title (the text before a
  quoted title, or before `` — ``), parentheses and ``et al.`` removed.
  With a quoted title every name is compared; without one only the
  first, since the rest may be a title. A name matches when each of its
  words is a word of the evidence's ``author`` (an initial matches a word
  it begins; generic words such as ``docs``, ``team`` or ``contributors``
  are not compared, so "PyTorch docs" names "PyTorch contributors").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import urlsplit

from ...core.diagnostics import Diagnostic
from ..parsing.document import Document, FootnoteDef
from ..parsing.evidence import Evidence
from ..parsing.workspace import Workspace, position
from .base import Rule

_URL = re.compile(r"https?://[^\s<>()\[\]]+", re.IGNORECASE)
_ARXIV = re.compile(r"^/(?:abs|pdf|html)/(.+?)(?:\.pdf)?$")
_RAW_GITHUB = re.compile(r"^/([^/]+)/([^/]+)/(.+)$")
_WORD = re.compile(r"[^\W_]+")
_PARENS = re.compile(r"\([^()]*\)")
_TITLE_START = re.compile(r"[\"\u201c]")
_DASH = re.compile(r"\s[\u2014\u2013]\s|\s-\s")
_NAME_SPLIT = re.compile(r",|;|:|&|\band\b|\bund\b|\bet\b(?!\s+al)", re.IGNORECASE)
# Words that say what kind of author an organisation is ("PyTorch docs",
# "Qwen Team", "vLLM contributors"): not compared, so "PyTorch
# documentation" names the evidence's "PyTorch contributors".
_GENERIC = frozenset(["docs", "doc", "documentation", "team", "contributors", "developers", "maintainers", "authors", "blog", "staff", "wiki", "the"])
_ET_AL = re.compile(r"\bet\s+al\.?", re.IGNORECASE)


def url_key(url: str) -> str:
    """``url`` reduced to what identifies the page: host without ``www.`` (case-folded), path without a trailing slash, query; no scheme, no fragment.

    arXiv's ``/abs/ID``, ``/pdf/ID`` (with or without ``.pdf``) and ``/html/ID`` are one paper;
    a file on ``raw.githubusercontent.com`` is the same file's ``github.com/.../blob/...`` page.
    """
    parts = urlsplit(url.strip().rstrip(".,;:"))
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    if host in ("arxiv.org", "export.arxiv.org"):
        host = "arxiv.org"
        m = _ARXIV.match(path)
        if m:
            path = f"/abs/{m.group(1)}"
    if host == "raw.githubusercontent.com":
        m = _RAW_GITHUB.match(path)
        if m:
            host, path = "github.com", f"/{m.group(1)}/{m.group(2)}/blob/{m.group(3)}"
    return host + path + (f"?{parts.query}" if parts.query else "")


def _cites(cited: str, source: str) -> bool:
    """Whether a footnote URL (as :func:`url_key`) names the evidence's ``source``: that page, or a site or folder holding it.

    A footnote may cite the work where readers find it (a book's site, a
    repository) while the cache holds one page or file of it; a URL on
    another host, or a sibling path, is another source.
    """
    if cited == source:
        return True
    head = cited.partition("?")[0]
    return "?" not in cited and source.startswith(head + "/")


def _fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()


def _words(text: str) -> list[str]:
    return _WORD.findall(_fold(text))


def named_authors(definition: str) -> list[str]:
    """The author names a footnote definition writes before its title (see the module)."""
    head = definition.split("](", 1)[0].rsplit("[", 1)[0] if "](" in definition else definition
    head = _URL.split(head, 1)[0]
    title = _TITLE_START.search(head)
    dash = _DASH.search(head)
    if title is not None and (dash is None or title.start() < dash.start()):
        part, every = head[: title.start()], True
    elif dash is not None:
        part, every = head[: dash.start()], False
    else:
        return []
    part = _ET_AL.sub("", _PARENS.sub("", part))
    names = [n.strip(" .,:") for n in _NAME_SPLIT.split(part)]
    names = [n for n in names if _words(n) and n.lower() not in ("the", "others")]
    if not every:
        return names[:1]
    # After the first, a part that does not look like a name starts the
    # title's series or venue ("Hugging Face, LLM Course ch. 8.4 "...""): stop there.
    kept = names[:1]
    for name in names[1:]:
        if not _looks_like_name(name):
            break
        kept.append(name)
    return kept


_PARTICLES = frozenset(["van", "von", "de", "der", "den", "da", "di", "du", "le", "la", "dos", "del", "y"])


def _looks_like_name(part: str) -> bool:
    """True when every word of ``part`` is capitalized, an initial or a name particle, and none is a number."""
    words = part.replace(".", " ").split()
    return bool(words) and all(w[:1].isupper() and not any(c.isdigit() for c in w) or w.lower() in _PARTICLES for w in words)


def _author_words(ev: Evidence) -> set[str] | None:
    data = ev.front.data if ev.front is not None and ev.front.data else {}
    value = data.get("author")
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    if not isinstance(value, str) or not value.strip() or value.strip().startswith("TODO"):
        return None  # unknown: a TODO left by evidence adopt is SC402 once for the file, not a mismatch per footnote
    return set(_words(value))


def _name_matches(name: str, known: set[str]) -> bool:
    words = [w for w in _words(name) if w not in _GENERIC]
    if not words:
        return True  # only generic words ("The team"): nothing to compare
    for w in words:
        if w in known or (len(w) == 1 and any(k.startswith(w) for k in known)):
            continue
        return False
    return True


_LABEL = re.compile(r"\s*\[\^[^\]]*\]:\s*")


def _definition_text(doc: Document, d: FootnoteDef) -> str:
    """The definition's text after its ``[^label]:``."""
    text = doc.file.text[d.start : d.end]
    m = _LABEL.match(text)
    return text[m.end() :] if m else text


# The author a lead-in names: "Karpathy writes[^kr]:", "as Jones puts it[^jo]:",
# "From the audit by Huang et al.[^ppo]:". Only these forms: a possessive
# ("NCCL's guide") names a product as often as a person.
_CAP = r"(?<![\w'\-])[A-Z][\w'\-]*+\.?"  # a word from its start, without backtracking (a run of capitals costs one scan)
_SPEAKER = re.compile(
    rf"(?:\bby\s+(?P<by>{_CAP}(?:\s+{_CAP}){{0,3}}))"
    rf"|(?P<who>{_CAP}(?:\s+{_CAP}){{0,3}})\s+(?:writes|wrote|says|said|notes|noted|puts it|put it|argues|argued|warns|warned|"
    r"explains|explained|recommends|recommended|observes|observed|advises|advised|adds|added|cautions|cautioned)\b"
)
_LEAD_STOP = frozenset(
    ["as", "in", "from", "the", "and", "but", "then", "here", "so", "also", "on", "for", "when", "while", "where"]
    + ["later", "elsewhere", "again", "still", "there", "this", "that", "one", "a", "an"]
)
_LEAD_END = re.compile(r"(?:\[\^([A-Za-z0-9_-]+)\]\s*:|:\s*\[\^([A-Za-z0-9_-]+)\])\s*$")


def lead_in_names(doc: Document) -> dict[str, list[tuple[int, str]]]:
    """Per footnote label, the ``(line, name)`` pairs its lead-ins name (see :data:`_SPEAKER`).

    A lead-in is the line right before a blockquote (blank lines aside) that
    ends with ``[^label]:`` (or ``:[^label]``).
    """
    out: dict[str, list[tuple[int, str]]] = {}
    for quote in doc.quotes:
        if not quote.block:
            continue
        number = quote.line - 1
        while number >= 1 and not doc.file.line(number).strip():
            number -= 1
        if number < 1:
            continue
        line = doc.file.line(number).rstrip("\r\n")
        end = _LEAD_END.search(line)
        if end is None:
            continue
        label = end.group(1) or end.group(2)
        for m in _SPEAKER.finditer(line[: end.start()]):
            words = _ET_AL.sub("", m.group("by") or m.group("who")).strip(" .,").split()
            while words and words[0].lower().strip(".,") in _LEAD_STOP:
                words.pop(0)  # "As Karpathy writes": the sentence's first word is no name
            name = " ".join(words)
            if name and (number, name) not in out.get(label, []):
                out.setdefault(label, []).append((number, name))
    return out


def attribution(ws: Workspace) -> Iterator[Diagnostic]:
    """Footnote URLs that are not the evidence's ``source`` (SC314), authors the evidence does not list (SC315)."""
    for doc in ws.checked_documents():
        spoken = lead_in_names(doc) if doc.quotes else {}
        for d in doc.definitions:
            if not d.cache_links:
                continue
            text = _definition_text(doc, d)
            # The URLs of the citation itself: not those inside cache links.
            outside = text
            for link in d.cache_links:
                outside = outside.replace(link.target, "")
            urls = _URL.findall(outside)
            names = named_authors(text)
            for link in d.cache_links:
                path, problem = ws.resolve_cache(doc, link)
                if problem is not None or path is None:
                    continue
                ev = ws.load_evidence(path)
                if ev.file is None or ev.front is None or not isinstance(ev.front.data, dict):
                    continue
                line, col = position(doc, d.start)
                source = ev.front.data.get("source")
                if urls and isinstance(source, str) and _URL.match(source.strip()):  # a TODO source is SC402's, once per file
                    want = url_key(source)
                    if not any(_cites(url_key(u), want) for u in urls):
                        shown = urls[0].rstrip(".,;:")
                        yield Diagnostic.make(
                            "SC314", doc.rel, line, col,
                            f"footnote [^{d.label}] cites {shown} but its evidence {link.target} is from {source.strip()}: "
                            "point the footnote at the evidence's source, or cite the evidence file of that URL",
                            subject=f"{d.label} {shown}",
                        )
                known = _author_words(ev)
                if known is None:
                    continue
                for lead_line, name in spoken.get(d.label, []):
                    if not _name_matches(name, known):
                        yield Diagnostic.make(
                            "SC315", doc.rel, lead_line, 1,
                            f"the lead-in to [^{d.label}] names {name!r}, who is not among the authors of {link.target} "
                            f"({ev.front.data.get('author')}): name the evidence's author, or fix its author: front matter (then skillcite lock)",
                            subject=f"{d.label} {name}",
                        )
                for name in names:
                    if not _name_matches(name, known):
                        yield Diagnostic.make(
                            "SC315", doc.rel, line, col,
                            f"footnote [^{d.label}] names {name!r}, who is not among the authors of {link.target} "
                            f"({ev.front.data.get('author')}): name the evidence's author, or fix its author: front matter (then skillcite lock)",
                            subject=f"{d.label} {name}",
                        )


RULE = Rule("attribution", ("SC314", "SC315"), attribution)
