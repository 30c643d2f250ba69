"""``skillcite stats``: quotes, sources, words and tokens per document."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..core.shown import shown
from .run import check

_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class FileStats:
    """Counts for one document (tokens estimated as characters / 4)."""

    path: str
    lines: int
    words: int
    tokens: int
    quotes: int
    verified: int
    sources: int


def collect(root: Path) -> list[FileStats]:
    """Run the check and count per document, plus a ``total`` row.

    Parses come from the parse cache (:mod:`skillcite.check.parsing.cache`) unless it
    is turned off: the counts are the same either way.
    """
    report = check(root)
    rows = []
    for doc in report.documents:
        outcomes = [o for o in report.outcomes if o.doc is doc]
        sources = {o.evidence.rel for o in outcomes if o.evidence is not None}
        rows.append(
            FileStats(
                doc.rel,
                doc.file.line_count,
                len(_WORD.findall(doc.file.text)),
                len(doc.file.text) // 4,
                len(outcomes),
                sum(1 for o in outcomes if o.certified),
                len(sources),
            )
        )
    all_sources = {o.evidence.rel for o in report.outcomes if o.evidence is not None}
    rows.append(
        FileStats(
            "total",
            sum(r.lines for r in rows),
            sum(r.words for r in rows),
            sum(r.tokens for r in rows),
            sum(r.quotes for r in rows),
            sum(r.verified for r in rows),
            len(all_sources),
        )
    )
    return rows


def render(rows: list[FileStats], fmt: str = "text") -> str:
    """A fixed-width table, or JSON."""
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    header = ("file", "lines", "words", "tokens", "quotes", "verified", "sources")
    table = [header] + [(shown(r.path), r.lines, r.words, r.tokens, r.quotes, r.verified, r.sources) for r in rows]
    width = max(len(str(row[0])) for row in table)
    out = []
    for row in table:
        out.append(f"{row[0]:<{width}}  " + "  ".join(f"{v:>8}" for v in row[1:]))
    return "\n".join(out)
