"""What the command line prints about a check: its findings and the summary counts.

A :class:`Summary` is all that rendering needs (every output format), kept
apart from the parsed documents of a :class:`~skillcite.check.reporting.report.Report`
so that a cached result can be printed without importing the parser. It
round-trips through plain JSON data (:meth:`Summary.to_data`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.diagnostics import CODES, Diagnostic, Fix, Severity

if TYPE_CHECKING:
    from .report import Report


@dataclass(slots=True)
class Summary:
    """The findings of a check and the counts of its summary line."""

    root: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0  # Markdown documents and evidence files read
    quotes: int = 0  # quotes checked
    quotes_verified: int = 0  # quotes verbatim at their cited lines, or with reviewed departures
    sources: int = 0  # evidence files
    suppressed: int = 0  # findings switched off by inline comments or per_file_ignores
    accepted: int = 0  # findings a baseline accepted (set by the caller that applied it)
    quotes_reviewed: int = 0  # of the verified quotes, those with departures a person reviewed one by one
    quotes_bulk: int = 0  # of the verified quotes, those with departures accepted in bulk

    @classmethod
    def of(cls, report: Report) -> Summary:
        """The summary of a full report."""
        return cls(
            report.root,
            list(report.diagnostics),
            report.files,
            report.quotes,
            report.quotes_verified,
            report.sources,
            report.suppressed,
            report.accepted,
            report.quotes_reviewed,
            report.quotes_bulk,
        )

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data (the root is not stored: the reader knows it)."""
        return {
            "counts": [self.files, self.quotes, self.quotes_verified, self.sources, self.suppressed, self.quotes_reviewed, self.quotes_bulk],
            "diagnostics": [
                [d.code, d.path, d.line, d.column, d.message, str(d.severity), d.subject, None if d.fix is None else [d.fix.line, d.fix.old, d.fix.new]]
                for d in self.diagnostics
            ],
        }

    @classmethod
    def from_data(cls, root: Path, data: Any) -> Summary:
        """The summary :meth:`to_data` wrote; TypeError or ValueError for anything else."""
        files, quotes, verified, sources, suppressed, reviewed, bulk = (_int(v) for v in data["counts"])
        diagnostics = []
        for code, path, line, column, message, severity, subject, fix in data["diagnostics"]:
            if code not in CODES or not all(isinstance(v, str) for v in (path, message, subject)):
                raise ValueError("not a finding")
            edit = None if fix is None else Fix(_int(fix[0]), _str(fix[1]), _str(fix[2]))
            diagnostics.append(Diagnostic(code, path, _int(line), _int(column), message, Severity(severity), edit, subject))
        return cls(root, diagnostics, files, quotes, verified, sources, suppressed, 0, reviewed, bulk)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"{value!r} is not a count")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value
