"""What a check found: the report, its findings and counts for the summary."""


from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...core.diagnostics import Diagnostic
from ..judging.outcome import QuoteOutcome
from ..parsing.document import Document
from ..parsing.evidence import Evidence


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
