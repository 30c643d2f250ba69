"""The verdict on one quote: what it cites, where it was found, and whether a review covers its departures."""


from __future__ import annotations

from dataclasses import dataclass

from ..matching.locate import Match, Status
from ..parsing.anchors import CacheLink
from ..parsing.document import Document, FootnoteDef, Quote
from ..parsing.evidence import Evidence
from .reviews import Shown

# Best first: when a quote cites several footnotes or cache links, the
# outcome reported is the best one (a quote verified by any source is verified).
RANK: dict[Status, int] = {"verified": 0, "moved": 1, "marks": 2, "altered": 3, "notfound": 4, "notes": 5}
RANK_NO_EVIDENCE = 6  # the cited footnote has no cache link


@dataclass(slots=True)
class QuoteOutcome:
    """The verdict on one quote, kept for ``fix`` and ``stats``."""

    doc: Document
    quote: Quote
    definition: FootnoteDef | None
    link: CacheLink | None
    evidence: Evidence | None
    match: Match | None
    # For a quote found with departures from verbatim (docs/citations.md,
    # "Verified"): "reviewed" (by a person, one by one), "bulk" (recorded by
    # review --accept-all: no person is on record as having looked), or
    # "unreviewed"; "" for any other outcome.
    review: str = ""
    stale: str = ""  # why an earlier review does not cover it ("its review no longer applies (...)"; "" if none)
    shown: Shown | None = None  # what review shows of it, the key of the review file

    @property
    def rank(self) -> int:
        """Lower is better (see :data:`RANK`); a verbatim match beats one with departures."""
        if self.match is None:
            return 2 * RANK_NO_EVIDENCE
        return 2 * RANK.get(self.match.status, RANK["notes"]) + bool(self.match.edits)

    @property
    def verbatim(self) -> bool:
        """Found verbatim at its cited lines."""
        return self.match is not None and self.match.status == "verified" and not self.match.edits

    @property
    def certified(self) -> bool:
        """Verbatim, or found at its cited lines with every departure reviewed or accepted in bulk."""
        return self.verbatim or self.review in ("reviewed", "bulk")
