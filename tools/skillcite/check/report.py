"""What a check found: the report and the verdict on each quote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.diagnostics import Diagnostic
from .anchors import CacheLink
from .document import Document, FootnoteDef, Quote
from .evidence import Evidence
from .matching import Match, Status
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


@dataclass(slots=True)
class Report:
    """Everything a check found, plus counts for the summary line."""

    root: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    evidence: dict[Path, Evidence] = field(default_factory=dict)
    outcomes: list[QuoteOutcome] = field(default_factory=list)
    suppressed: int = 0  # findings switched off by inline comments or per_file_ignores
    accepted: int = 0  # findings a baseline accepted (set by the caller that applied it)

    @property
    def quotes_verified(self) -> int:
        """Quotes verified: verbatim at their cited lines, or with reviewed departures."""
        return sum(1 for o in self.outcomes if o.certified)

    @property
    def quotes_verbatim(self) -> int:
        """Quotes found verbatim at their cited lines."""
        return sum(1 for o in self.outcomes if o.verbatim)

    @property
    def quotes_reviewed(self) -> int:
        """Quotes verified with departures a person reviewed one by one."""
        return sum(1 for o in self.outcomes if o.review == "reviewed")

    @property
    def quotes_bulk(self) -> int:
        """Quotes verified with departures accepted in bulk (review --accept-all): no person is on record as having looked."""
        return sum(1 for o in self.outcomes if o.review == "bulk")

    @property
    def quotes(self) -> int:
        """Quotes checked."""
        return len(self.outcomes)

    @property
    def sources(self) -> int:
        """Evidence files in the evidence folder."""
        return len(self.evidence)

    @property
    def files(self) -> int:
        """Markdown documents and evidence files read."""
        return len(self.documents) + len(self.evidence)
