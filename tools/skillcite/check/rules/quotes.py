"""SC301-SC313: each quotation against its evidence.

:func:`quote_outcomes` verifies every quote once per workspace; ``fix`` and
``stats`` read the outcomes from the report. A quote found with departures
from verbatim is verified only when the review file records a review of
it (docs/citations.md, "Verified"); otherwise it is SC313, with the
reviewer's warnings SC310-SC312 where a mark breaks the editorial policy.
"""


from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from ...core.diagnostics import Diagnostic, Fix, subject_text
from ...core.textio import TextFile
from ..judging.outcome import QuoteOutcome
from ..judging.verdicts import quote_outcomes
from ..parsing.workspace import Workspace
from ..quotes.cited import without_attribution
from .base import Rule

_CLOSING_ATTRIBUTION = re.compile(r"(?:\u2014|\u2013|\u2015|--?)\s*\S")  # a last paragraph "— Author[^x]"


def _rendered_lines(file: TextFile, line: int, column: int) -> str:
    """The two lines a renderer shows around the lone carriage return at ``line``:``column``.

    Not the whole physical line: a line of thousands of lone carriage
    returns would repeat itself in every finding (quadratic time); each
    character lies in at most two of these.
    """
    text = file.text
    first = file.line_starts[line - 1]
    last = file.line_starts[line] if line < file.line_count else len(text)
    at = first + column - 1
    start = text.rfind("\r", first, at) + 1 or first
    stop = text.find("\r", at + 1, last)
    return text[start : last if stop == -1 else stop].rstrip("\n").replace("\r", " ")


def quotes(ws: Workspace) -> Iterator[Diagnostic]:
    """Unverifiable parts of sourced blockquotes (SC307), unsourced blockquotes in content files (SC304), every quote's verdict (SC301-SC303, SC305, SC306, SC310-SC312)."""
    for doc in ws.checked_documents():
        for cr in doc.lone_cr:
            yield Diagnostic.make(
                "SC308",
                doc.rel,
                cr.line,
                cr.column,
                "lone carriage return: GitHub starts a new line here, so what follows may show as a quotation the check cannot see; end lines with \\n",
                subject=subject_text(f"{cr.value}: {_rendered_lines(doc.file, cr.line, cr.column)}"),
            )
        for hidden in doc.unverifiable:
            yield Diagnostic.make(
                "SC307",
                doc.rel,
                hidden.line,
                hidden.column,
                f"{hidden.value} inside a sourced blockquote cannot be verified: quote its text as plain paragraphs or move it out of the blockquote",
                subject=f"{hidden.value}: {doc.file.line(hidden.line).strip() if hidden.line <= doc.file.line_count else ''}",
            )
        if ws.config.is_content(doc.rel):
            for bq in doc.unsourced:
                yield Diagnostic.make(
                    "SC304",
                    doc.rel,
                    bq.line,
                    bq.column,
                    _unsourced_message(doc.file, bq.line),
                    subject=subject_text(bq.value),
                )
            for tag in doc.html_quotes:
                yield Diagnostic.make(
                    "SC304",
                    doc.rel,
                    tag.line,
                    tag.column,
                    f"HTML {tag.value} shows a quotation no footnote can source: write it as a > blockquote that cites its source",
                    subject=f"{tag.value}: {doc.file.line(tag.line).strip() if tag.line <= doc.file.line_count else ''}",
                )
    for outcome in quote_outcomes(ws):
        if outcome.review in ("reviewed", "bulk"):
            continue  # every departure reviewed or accepted: the reviewer's warnings were shown
        finding = describe(outcome)
        if finding is not None and finding.code == "SC305" and outcome.definition is not None:
            finding = dataclasses.replace(finding, message=finding.message + _no_cache_link_cause(ws, outcome))
        if finding is not None:
            yield finding
        if outcome.review == "unreviewed":
            yield unreviewed(outcome)


def unreviewed(o: QuoteOutcome) -> Diagnostic:
    """SC313 for a quote found with departures from verbatim that no recorded review covers."""
    m = o.match
    assert m is not None and o.evidence is not None and o.shown is not None
    what = "blockquote" if o.quote.block else "quote"
    at = f"{o.evidence.rel} L{m.lines[0]}-{m.lines[1]}" if m.lines else o.evidence.rel
    why = o.stale or "it is not reviewed"
    edits = "; ".join(m.edits)
    return Diagnostic.make(
        "SC313",
        o.doc.rel,
        o.quote.line,
        o.quote.column,
        f"{what} departs from verbatim at {at} and {why}: {edits} (run: skillcite review)",
        subject=subject_text(o.quote.text),
    )


def _blockquote_cause(o: QuoteOutcome) -> str:
    """A likely cause of a blockquote not found, read from its lines: quotation marks, a lazy line, joined paragraphs."""
    quote = o.quote
    if not quote.block:
        return ""
    # Quotation marks around a whole blockquote are allowed (they are stripped before matching):
    # never the cause.
    file = o.doc.file
    lines = []
    n = quote.line
    while n <= file.line_count and file.line(n).strip():
        lines.append(file.line(n))
        n += 1
    lazy = next((k for k, line in enumerate(lines) if not line.lstrip().startswith(">")), None)
    if lazy is not None and lazy > 0:
        return f"; line {quote.line + lazy} has no '>' but continues the blockquote (a lazy continuation line): its words are part of the quote"
    n = quote.line
    paragraphs = 1
    last_opening = ""
    while n < file.line_count:
        n += 1
        stripped = file.line(n).strip()
        if not stripped.startswith(">"):
            break
        if stripped.strip("> \t") == "" and n < file.line_count and file.line(n + 1).strip().lstrip(">").strip():
            paragraphs += 1
            last_opening = file.line(n + 1).strip().lstrip(">").strip()
    if paragraphs > 1 and _CLOSING_ATTRIBUTION.match(last_opening) and len(last_opening.split()) <= 12:
        paragraphs -= 1  # "> — Author" closing the blockquote is its frame, not a paragraph of the quote
    if paragraphs > 1 and without_attribution(quote) is None:
        return f"; its {paragraphs} paragraphs are joined into one quote: they must follow each other in the source (cite each on its own, or mark the gap with [...])"
    return ""


_REFERENCE = re.compile(r"\[\^([^\]\s]+)\]")


def _unsourced_message(file: TextFile, line: int) -> str:
    """SC304's message; it names a reference on the lines just above that does not lead into the blockquote."""
    base = "blockquote has no footnote reference: cite its source with a footnote, or make it plain text (not a > blockquote)"
    above = line - 1
    while above >= 1 and not file.line(above).strip():
        above -= 1
    if above < 1 or above < line - 2:
        return base
    text = file.line(above).rstrip()
    refs = _REFERENCE.findall(text)
    if not refs or text.lstrip().startswith(">") or re.match(r"\s*\[\^[^\]]+\]:", text):
        return base  # a blockquote's own line, or a footnote definition: no lead-in
    why = "a blank line separates them" if above < line - 1 else "the line does not end with the reference and a colon"
    return (
        f"blockquote has no footnote reference; the [^{refs[-1]}] on line {above} does not lead into it ({why}): "
        f"end the lead-in with the reference and a colon, directly above the blockquote, or cite inside the blockquote"
    )


def _no_cache_link_cause(ws: Workspace, o: QuoteOutcome) -> str:
    """Why a definition has no cache link, when it links to Markdown files outside the evidence folders."""
    assert o.definition is not None
    folders = ", ".join(ws.rel(d) for d in ws.evidence_dirs)
    missing = [ws.rel(d) for d in ws.evidence_dirs if not d.is_dir()]
    links = [link.target for link in o.definition.links if link.target.lower().endswith((".md", ".txt")) and "://" not in link.target]
    if not links:
        return f" (no link in it names a file in the evidence folder {folders})"
    note = f"; the evidence folder {', '.join(missing)} does not exist" if missing else ""
    target = links[0]
    path = o.doc.path.parent / unquote(target.split("#", 1)[0])
    # The hint fits what the linked file is: a cache kept elsewhere, a page of the skill, or neither.
    if not path.is_file():
        return f" ({target} does not exist; no link in it names a file in the evidence folder {folders})"
    if _reads_as_evidence(path):
        return f" ({target} is outside the evidence folder {folders}{note}: if it holds the source, set [tool.skillcite] evidence to its folder)"
    if ws.config.is_content(ws.rel(path)):
        return f" ({target} is part of the skill, not a cache of the source: cite the evidence file that holds the passage, or add it to one in {folders})"
    return f" ({target} has no front matter naming a source, so it is no evidence file: add the passage to an evidence file in {folders})"


def _reads_as_evidence(path: Path) -> bool:
    """True when ``path`` opens with front matter that names a ``source`` (an excerpt cache kept outside the folders)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(8192).decode("utf-8", "replace")
    except OSError:
        return False
    lines = head.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return False
    for line in lines[1:]:
        if line.strip() == "---":
            return False
        if re.match(r"source:[ \t]*\S", line):
            return True
    return False


def describe(o: QuoteOutcome) -> Diagnostic | None:
    """The finding for one outcome; None for a verified quote."""
    quote, rel, m = o.quote, o.doc.rel, o.match
    what = "blockquote" if quote.block else "quote"
    subject = subject_text(quote.text)
    label = o.definition.label if o.definition else "?"
    where = (rel, quote.line, quote.column)
    if m is None:
        return Diagnostic.make("SC305", *where, f"{what} cites [^{label}], which has no cache link to evidence", subject=subject)
    if o.evidence is None and m.status == "verified":
        return None  # a title the footnote names (verify_quote)
    assert o.evidence is not None
    ev_rel = o.evidence.rel
    if m.status == "notes":
        return Diagnostic.make("SC306", *where, f"{what} cites {ev_rel}, of kind notes: notes are not the author's words", subject=subject)
    if m.status == "moved":
        assert m.lines is not None  # moved and altered quotes have their lines
        a, b = m.lines
        new = f"L{a}" if a == b else f"L{a}-{b}"
        fix = Fix(o.definition.line, "", new) if o.definition else None
        cited = f"outside the lines [^{label}] cites" if o.link is None or o.link.anchors else f"and [^{label}] cites no lines of it"
        return Diagnostic.make("SC301", *where, f"{what} is at {ev_rel} {new}, {cited} (run: skillcite fix)", fix, subject=subject)
    if m.status == "altered":
        assert m.lines is not None
        a, b = m.lines
        return Diagnostic.make("SC302", *where, f"{what} differs from {ev_rel} L{a}-{b} (score {m.score}): {m.diff}{_blockquote_cause(o)}", subject=subject)
    if m.status == "marks":
        at = f"{ev_rel} L{m.lines[0]}-{m.lines[1]}" if m.lines else ev_rel
        return Diagnostic.make(m.code or "SC310", *where, f"{what} at {at}: {m.detail}", subject=subject)
    if m.status == "notfound":
        if m.lines:
            a, b = m.lines
            closest = f"closest: L{a}-{b}, {int(m.score or 0)} of {m.words} words: {excerpt(m.diff or '')}"
            return Diagnostic.make("SC303", *where, f"{what} not found in {ev_rel}; {closest}{_blockquote_cause(o)}", subject=subject)
        return Diagnostic.make("SC303", *where, f"{what} not found in {ev_rel}: no word of it is there: {excerpt(quote.text)}", subject=subject)
    if m.status != "verified":
        raise AssertionError(f"unknown match status {m.status!r}")  # never a silent pass
    return None


def excerpt(text: str, width: int = 60) -> str:
    """The start of a quote for a message, whitespace collapsed, quoted."""
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 3] + "...")


RULE = Rule("quotes", ("SC301", "SC302", "SC303", "SC304", "SC305", "SC306", "SC307", "SC308", "SC310", "SC311", "SC312", "SC313"), quotes)
