"""Rendering a check report as text, JSON or GitHub annotations."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..core.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # a runtime Protocol would cost a warm check more than its output
    from pathlib import Path
    from typing import Protocol

    class Report(Protocol):
        """What rendering reads: a :class:`~skillcite.check.report.Report` or a cached
        :class:`~skillcite.check.summary.Summary` (this module imports neither, so
        printing a cached result never imports the parser)."""

        @property
        def root(self) -> Path: ...
        @property
        def files(self) -> int: ...
        @property
        def quotes(self) -> int: ...
        @property
        def quotes_verified(self) -> int: ...
        @property
        def sources(self) -> int: ...
        @property
        def suppressed(self) -> int: ...
        @property
        def accepted(self) -> int: ...


JSON_SCHEMA_VERSION = 1


def counts(diagnostics: list[Diagnostic]) -> tuple[int, int]:
    """Numbers of errors and warnings."""
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    return errors, len(diagnostics) - errors


def summary(report: Report, diagnostics: list[Diagnostic]) -> str:
    """The one-line summary printed after the findings."""
    errors, warnings = counts(diagnostics)
    line = (
        f"checked {report.files} files: {report.quotes_verified} quotes verified against "
        f"{report.sources} sources, {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}"
    )
    if report.accepted:
        line += f", {report.accepted} accepted by the baseline"
    if report.suppressed:
        line += f", {report.suppressed} suppressed"
    return line


def render_text(report: Report, diagnostics: list[Diagnostic]) -> str:
    """``path:line:col: CODE message`` lines, then the summary."""
    lines = [d.format() for d in diagnostics]
    lines.append(summary(report, diagnostics))
    return "\n".join(lines)


def escape_data(value: str) -> str:
    """A workflow command's message, escaped as GitHub's runner unescapes it.

    ``%`` first, so the escapes that follow are not escaped again; a newline
    or carriage return left in would end the command and let the rest of the
    text run as a command of its own (``::stop-commands::``, ``::error``).
    """
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A workflow command's property value: data escapes, plus ``:`` and ``,`` that separate properties."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, diagnostics: list[Diagnostic]) -> str:
    """One GitHub workflow command per finding (``::error file=...``), then the summary.

    Every field that comes from the checked files (path, message) is
    escaped, and nothing else is printed: a file name or a link fragment can
    never start a line of its own in the log.
    """
    lines = []
    for d in diagnostics:
        level = "error" if d.severity is Severity.ERROR else "warning"
        lines.append(
            f"::{level} file={escape_property(d.path)},line={d.line},col={d.column},"
            f"title={escape_property(d.code)}::{escape_data(d.code + ' ' + d.message)}"
        )
    lines.append(escape_data(summary(report, diagnostics)))
    return "\n".join(lines)


def render_json(report: Report, diagnostics: list[Diagnostic]) -> str:
    """The documented JSON document (see docs/codes.md, "JSON output")."""
    errors, warnings = counts(diagnostics)
    doc = {
        "version": JSON_SCHEMA_VERSION,
        "root": str(report.root),
        "summary": {
            "files": report.files,
            "quotes": report.quotes,
            "quotes_verified": report.quotes_verified,
            "sources": report.sources,
            "errors": errors,
            "warnings": warnings,
        },
        "diagnostics": [
            {
                "path": d.path,
                "line": d.line,
                "column": d.column,
                "code": d.code,
                "severity": str(d.severity),
                "message": d.message,
                "subject": d.subject,
                "key": d.key,
                "fix": None if d.fix is None else {"line": d.fix.line, "replacement": d.fix.new},
            }
            for d in diagnostics
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


RENDERERS = {"text": render_text, "json": render_json, "github": render_github}
