"""The verdict on every quote: the best cache link of each footnote it cites, the worst footnote, and the review state.

It reads the records of the quotes stage (:mod:`skillcite.check.quotes.cited`)
and matches each with :func:`~skillcite.check.matching.locate.locate`.

:func:`quote_outcomes` verifies every quote once per workspace; ``fix``,
``review`` and ``stats`` read the outcomes from the report.
"""

from __future__ import annotations

import dataclasses

from ..matching.locate import Match, locate
from ..matching.titles import is_title, names_title
from ..parsing.workspace import Workspace
from ..quotes.cited import Citation, CitedQuote, cited_quotes, without_attribution
from .outcome import QuoteOutcome
from .reviews import Reviews, load_reviews
from .reviews_context import ContextReader, shown_for

_RANK = {"verified": 0, "moved": 1, "marks": 2, "altered": 3, "notfound": 4}


def verdict(cq: CitedQuote) -> QuoteOutcome | None:
    """The verdict on a cited quote; None when it cites no defined footnote.

    Each footnote it cites with evidence must hold it (``"..."[^s][^t]``
    claims both say it): the worst of their outcomes is the verdict, each
    footnote's the best over its cache links. A footnote without a cache
    link (a book) is reported (SC305) only when no cited footnote has one.
    """
    doc, quote = cq.doc, cq.quote
    plain: QuoteOutcome | None = None
    worst: QuoteOutcome | None = None
    for c in cq.citations:
        d = c.definition
        if not d.cache_links:
            if not quote.block and names_title(quote.text, doc.file.text[d.start : d.end]):
                # Author, "Title"[^b]: the name of the cited work, as the footnote itself gives it.
                plain = plain or QuoteOutcome(doc, quote, d, None, None, Match("verified"))
            else:
                plain = plain or QuoteOutcome(doc, quote, d, None, None, None)
            continue
        found = _best_for(cq, c)
        if found is not None and (worst is None or found.rank > worst.rank):
            worst = found
    return worst or plain


def _best_for(cq: CitedQuote, c: Citation) -> QuoteOutcome | None:
    """The best outcome over the readable cache links of one footnote."""
    doc, quote, d = cq.doc, cq.quote, c.definition
    best: QuoteOutcome | None = None
    for s in c.sources:
        link, ev = s.link, s.evidence
        if ev.kind == "notes":
            outcome = QuoteOutcome(doc, quote, d, link, ev, Match("notes"))
        elif not quote.block and is_title(quote.text, ev):
            # Author, "Title"[^s]: the title of the cited work, as its front matter records it.
            outcome = QuoteOutcome(doc, quote, d, link, ev, Match("verified"))
        else:
            ranges = s.ranges
            match = locate(quote.text, ev, ranges)
            words = without_attribution(quote) if match.status != "verified" else None
            if words is not None:
                bare = locate(words, ev, ranges)
                if _RANK.get(bare.status, 9) < _RANK.get(match.status, 9):
                    match = bare  # "— Author, Title" closing the blockquote names the source; it is not quoted
            outcome = QuoteOutcome(doc, quote, d, link, ev, match)
        if best is None or outcome.rank < best.rank:
            best = outcome
    return best


def quote_outcomes(ws: Workspace) -> list[QuoteOutcome]:
    """The verdict on every quote of every checked document (computed once)."""

    def compute() -> list[QuoteOutcome]:
        cited = cited_quotes(ws)
        out = []
        reviews = review_file(ws)  # read even when nothing needs it: a bad review file never passes silently
        reader = ContextReader()
        seen: dict[tuple[str, str], int] = {}  # identical quotes of one document shown alike: which one each is
        for cq in cited:
            outcome = verdict(cq)
            if outcome is None:  # every label undefined: SC101 says so
                continue
            shown = shown_for(outcome, reader, ws.config.package_paths)
            if shown is not None:
                nth = seen[cq.doc.rel, shown.key] = seen.get((cq.doc.rel, shown.key), 0) + 1
                outcome.shown = dataclasses.replace(shown, occurrence=nth)
                _judge(ws, reviews, outcome)
            out.append(outcome)
        return out

    return ws.derived("quote_outcomes", compute)


def _judge(ws: Workspace, reviews: Reviews, outcome: QuoteOutcome) -> None:
    """Set the review state of a quote with departures: reviewed, bulk or unreviewed (and why)."""
    assert outcome.shown is not None
    found = reviews.find(outcome.shown)
    cutoff = ws.config.bulk_reviews_until
    if found is None:
        outcome.review = "unreviewed"
        reason = reviews.stale_reason(outcome.shown)
        outcome.stale = f"its review no longer applies ({reason})" if reason else ""
    elif found.bulk and cutoff and found.date > cutoff:
        outcome.review = "unreviewed"
        outcome.stale = f"its bulk acceptance of {found.date} is after bulk_reviews_until ({cutoff}), so it must be reviewed one by one"
    else:
        outcome.review = "bulk" if found.bulk else "reviewed"


def review_file(ws: Workspace) -> Reviews:
    """The package's review file, read once per workspace."""
    return ws.derived("reviews", lambda: load_reviews(ws.root, ws.config))
