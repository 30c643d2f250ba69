"""``skillcite review``: every quote that departs from verbatim, shown for a person to judge.

Lists each quote found with an elision, an insertion, an editor's note, a
changed first letter, or a cut next to a word that changes its sentence's
force, beside the source sentence(s) it stands for, with the departures
marked and the reviewer's warnings (SC310-SC312). Accepting one records it
in the review file (:mod:`skillcite.check.reviews`); ``check`` then counts
it as verified with reviewed edits.
"""

from __future__ import annotations

import datetime as dt
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..core.config import Config
from ..core.shown import shown
from .report import QuoteOutcome
from .reviews import Review, Reviews, review_id, save_reviews
from .rules.quotes import quote_outcomes, review_file
from .workspace import Workspace


@dataclass(frozen=True, slots=True)
class Departure:
    """A quote found with departures from verbatim, and whether a review covers it."""

    id: str
    outcome: QuoteOutcome

    @property
    def reviewed(self) -> bool:
        return self.outcome.review == "reviewed"


def departures(root: Path, config: Config | None = None) -> tuple[Workspace, list[Departure]]:
    """The workspace of ``root`` and every quote in it with departures from verbatim, in document order."""
    ws = Workspace(root, config)
    found = []
    for o in quote_outcomes(ws):
        if o.review and o.keys is not None:
            found.append(Departure(review_id(*o.keys), o))
    return ws, found


def render(d: Departure, width: int = 100) -> str:
    """One departure: where, quote and source side by side, the departures marked, the warnings."""
    o = d.outcome
    m = o.match
    assert m is not None and o.evidence is not None
    state = "reviewed" if d.reviewed else ("review no longer applies: " + o.stale if o.stale else "not reviewed")
    lines_at = f" L{m.lines[0]}-{m.lines[1]}" if m.lines else ""
    out = [f"{d.id}  {shown(o.doc.rel)}:{o.quote.line}:{o.quote.column} cites {shown(o.evidence.rel)}{lines_at}  [{state}]"]
    column = max(20, (width - 5) // 2)
    left = textwrap.wrap(" ".join(o.quote.text.split()), column) or [""]
    right = textwrap.wrap(m.source, column) or [""]
    out.append(f"  {'quote':<{column}} | source")
    for k in range(max(len(left), len(right))):
        a = left[k] if k < len(left) else ""
        b = right[k] if k < len(right) else ""
        out.append(f"  {a:<{column}} | {b}".rstrip())
    if m.marked:
        out.append("  marked ([-quote-]{+source+}): " + m.marked)
    out.extend(f"  - {edit}" for edit in m.edits)
    if m.status == "marks" and m.code:
        out.append(f"  - warning {m.code}: {m.detail}")
    return "\n".join(out)


def accept(ws: Workspace, chosen: list[Departure], by: str, bulk: bool, now: dt.datetime | None = None) -> Reviews:
    """Record ``chosen`` as reviewed by ``by`` and write the review file.

    Records that match no quote of the package any more (the quote or its
    source changed, or the quote is gone) are dropped in the same write:
    they no longer apply, and git keeps them. A quote still found as it was
    keeps its record, departure or not.
    """
    reviews = review_file(ws)
    when = (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    current = {o.keys for o in quote_outcomes(ws) if o.keys is not None}
    records = {k: r for k, r in reviews.records.items() if k in current}
    for d in chosen:
        o = d.outcome
        assert o.keys is not None and o.evidence is not None
        if o.keys in records:
            continue
        records[o.keys] = Review(o.keys[0], o.keys[1], o.doc.rel, o.evidence.rel, " ".join(o.quote.text.split()), by, when, bulk)
    updated = Reviews(reviews.path, records)
    save_reviews(updated)
    return updated
