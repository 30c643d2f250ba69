"""``skillcite review``: every quote that departs from verbatim, shown for a person to judge.

Lists each quote found with an elision, an insertion, an editor's note, a
changed first letter, a cut next to a word that changes its sentence's
force, or context that qualifies it, beside the source sentence(s) it
stands for, with the sentence before and after, the heading above, the
evidence's source and author, the footnote's attribution, the departures
marked and the reviewer's warnings (SC310-SC312). Accepting one records
all of that in the review file (:mod:`skillcite.check.judging.reviews`); ``check``
then counts it as verified with reviewed edits, or, for a bulk acceptance,
as accepted in bulk.
"""

from __future__ import annotations

import datetime as dt
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.config import Config
from ..core.shown import shown
from .judging.outcome import QuoteOutcome
from .judging.reviews import Review, Reviews, Shown, digest, load_version_1, review_path, save_reviews
from .judging.verdicts import quote_outcomes, review_file
from .matching.marks import own_edit
from .parsing.workspace import Workspace

JSON_VERSION = 1  # of ``review --format json`` (tests/schemas/review-1.json)


@dataclass(frozen=True, slots=True)
class Departure:
    """A quote found with departures from verbatim, and whether a review covers it."""

    outcome: QuoteOutcome

    @property
    def id(self) -> str:
        assert self.outcome.shown is not None
        return self.outcome.shown.id

    @property
    def shown(self) -> Shown:
        assert self.outcome.shown is not None
        return self.outcome.shown

    @property
    def reviewed(self) -> bool:
        """Covered by a review, one by one or in bulk."""
        return self.outcome.review in ("reviewed", "bulk")

    @property
    def state(self) -> str:
        """``reviewed``, ``bulk`` or ``not reviewed``."""
        return {"reviewed": "reviewed", "bulk": "bulk"}.get(self.outcome.review, "not reviewed")

    @property
    def context_edits(self) -> list[str]:
        """The departures its place in the source makes, not its own marks.

        A next sentence that qualifies the quote, a sentence before or a
        heading that frames it, a lead-in or a "not" its cut leaves out, words
        the source quotes from someone else: whether they change what the
        quote says takes a reader of the source, so a bulk acceptance does not
        cover them unless asked to.
        """
        m = self.outcome.match
        return [] if m is None else [e for e in m.edits if not own_edit(e)]

    @property
    def warning(self) -> tuple[str, str] | None:
        """The reviewer's warning (code, detail), when a mark breaks the editorial policy."""
        m = self.outcome.match
        return (m.code, m.detail or "") if m is not None and m.status == "marks" and m.code else None

    def where(self) -> str:
        """``document:line:column`` of the quote."""
        return f"{shown(self.outcome.doc.rel)}:{self.outcome.quote.line}:{self.outcome.quote.column}"


def departures(root: Path, config: Config | None = None) -> tuple[Workspace, list[Departure]]:
    """The workspace of ``root`` and every quote in it with departures from verbatim, in document order."""
    ws = Workspace(root, config)
    found = [Departure(o) for o in quote_outcomes(ws) if o.review and o.shown is not None]
    return ws, found


def _state_text(d: Departure) -> str:
    if d.outcome.review == "bulk":
        return "accepted in bulk, not reviewed one by one"
    if d.reviewed:
        return "reviewed"
    return d.outcome.stale or "not reviewed"


def render(d: Departure, width: int = 100) -> str:
    """One departure: where, quote and source side by side, their context, the departures marked, the warnings."""
    o = d.outcome
    m = o.match
    s = d.shown
    assert m is not None and o.evidence is not None
    lines_at = f" L{m.lines[0]}-{m.lines[1]}" if m.lines else ""
    out = [f"{d.id}  {d.where()} cites {shown(o.evidence.rel)}{lines_at}  [{_state_text(d)}]"]
    column = max(20, (width - 5) // 2)
    left = textwrap.wrap(s.quote, column) or [""]
    right = textwrap.wrap(m.source, column) or [""]
    out.append(f"  {'quote':<{column}} | source")
    for k in range(max(len(left), len(right))):
        a = left[k] if k < len(left) else ""
        b = right[k] if k < len(right) else ""
        out.append(f"  {a:<{column}} | {b}".rstrip())
    out.append(f"  sentence before: {s.before or '(none in the paragraph)'}")
    out.append(f"  sentence after:  {s.after or '(none in the paragraph)'}")
    out.append(f"  heading above:   {s.heading or '(none)'}")
    out.append(f"  evidence:        {s.source or '(no source)'}, by {s.author or '(no author)'}")
    out.append(f"  footnote:        {s.attribution or '(empty)'}")
    if m.marked:
        out.append("  marked ([-quote-]{+source+}): " + m.marked)
    out.extend(f"  - {edit}" for edit in m.edits)
    if d.warning:
        out.append(f"  - warning {d.warning[0]}: {d.warning[1]}")
    return "\n".join(out)


def tally(found: list[Departure]) -> str:
    """The last line of a listing: how many depart, and how many are reviewed, accepted in bulk, not reviewed."""
    reviewed = sum(1 for d in found if d.outcome.review == "reviewed")
    bulk = sum(1 for d in found if d.outcome.review == "bulk")
    pending = len(found) - reviewed - bulk
    verb = "departs" if len(found) == 1 else "depart"
    in_bulk = f", {bulk} accepted in bulk" if bulk else ""
    return f"{len(found)} quote{'s' * (len(found) != 1)} {verb} from verbatim: {reviewed} reviewed{in_bulk}, {pending} not reviewed"


def to_json(root: Path, found: list[Departure], listed: list[Departure]) -> str:
    """The ``--format json`` document (tests/schemas/review-1.json): the counts, then each listed quote."""
    quotes: list[dict[str, Any]] = []
    for d in listed:
        o, s = d.outcome, d.shown
        assert o.evidence is not None and o.match is not None and o.match.lines is not None
        warning = d.warning
        quotes.append(
            {
                "id": d.id,
                "path": o.doc.rel,
                "line": o.quote.line,
                "column": o.quote.column,
                "evidence": o.evidence.rel,
                "lines": list(o.match.lines),
                "state": d.state,
                "why": o.stale or None,
                "quote": s.quote,
                "cited": s.cited,
                "before": s.before,
                "after": s.after,
                "heading": s.heading,
                "source": s.source,
                "author": s.author,
                "attribution": s.attribution,
                "departures": list(o.match.edits),
                "warning": None if warning is None else {"code": warning[0], "message": warning[1]},
            }
        )
    counts = {state: sum(1 for d in found if d.state == state) for state in ("reviewed", "bulk", "not reviewed")}
    doc = {
        "version": JSON_VERSION,
        "root": str(root),
        "summary": {"departures": len(found), "reviewed": counts["reviewed"], "bulk": counts["bulk"], "not_reviewed": counts["not reviewed"]},
        "quotes": quotes,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def to_github(found: list[Departure], listed: list[Departure]) -> str:
    """One GitHub workflow command per listed quote not reviewed (a notice for the others), then the tally."""
    from .reporting.output import escape_data, escape_property

    lines = []
    for d in listed:
        o = d.outcome
        level = "notice" if d.reviewed else "warning"
        what = _state_text(d)
        warn = f"; warning {d.warning[0]}: {d.warning[1]}" if d.warning else ""
        message = f"{d.id} quote departs from verbatim and {what}: {'; '.join(o.match.edits if o.match else ())}{warn} (run: skillcite review)"
        lines.append(f"::{level} file={escape_property(o.doc.rel)},line={o.quote.line},col={o.quote.column},title={escape_property('skillcite review')}::{escape_data(message)}")
    lines.append(escape_data(tally(found)))
    return "\n".join(lines)


def accept(ws: Workspace, chosen: list[Departure], by: str, bulk: bool, now: dt.datetime | None = None) -> Reviews:
    """Record ``chosen`` as reviewed by ``by`` (one by one, or in bulk) and write the review file.

    Records that match no quote of the package any more (the quote, its
    source or its context changed, or the quote is gone) are dropped in the
    same write: they no longer apply, and git keeps them. A quote accepted
    one by one that was accepted in bulk before is recorded anew, as
    reviewed by ``by``; a bulk acceptance never replaces a review.
    """
    reviews = review_file(ws)
    when = (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    current = {o.shown.key for o in quote_outcomes(ws) if o.shown is not None}
    records = {k: r for k, r in reviews.records.items() if k in current}
    for d in chosen:
        key = d.shown.key
        earlier = records.get(key)
        if earlier is not None and (bulk or not earlier.bulk):
            continue
        records[key] = Review(d.shown, by, when, bulk)
    updated = Reviews(reviews.path, records)
    save_reviews(updated)
    return updated


@dataclass(frozen=True, slots=True)
class Migration:
    """What ``review --migrate`` did."""

    carried: int  # records re-keyed, as bulk acceptances
    were_individual: int  # of those, records that had been reviewed one by one
    dropped: int  # version 1 records that matched no quote


def migrate(root: Path, config: Config | None = None) -> Migration:
    """Re-key a version 1 review file to the current key, every carried record marked bulk.

    A version 1 review showed the quote beside its source sentence(s), not
    the sentences around them, the heading, the evidence's author nor the
    footnote: what it certified is less than a review covers now, so each
    record still matching its quote (same quote, source sentence(s) and
    document) is kept as a bulk acceptance, with its reviewer and date. Read
    them again with ``skillcite review --all`` and accept them by ID to
    record them as reviewed one by one.
    """
    from ..core.config import load_config

    cfg = config or load_config(root)
    old = load_version_1(root, cfg)
    by_key = {(r.quote_sha256, r.source_sha256, r.document): r for r in old}
    ws = Workspace(root, cfg)
    ws.derived("reviews", lambda: Reviews(review_path(root, cfg), {}))  # the old file is read above, never as version 2
    records: dict[str, Review] = {}
    used: set[tuple[str, str, str]] = set()
    individual = 0
    for o in quote_outcomes(ws):
        if o.shown is None or o.match is None:
            continue
        k = (digest(o.quote.text), digest(o.match.source), o.doc.rel)
        r = by_key.get(k)
        if r is None or o.shown.key in records:
            continue
        records[o.shown.key] = Review(o.shown, r.accepted_by, r.accepted_at, True)
        if k not in used:
            used.add(k)
            individual += not r.bulk
    save_reviews(Reviews(review_path(root, cfg), records))
    return Migration(len(records), individual, len(old) - len(used))
