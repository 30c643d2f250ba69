"""Rendering a check report as text, JSON or GitHub annotations."""

from __future__ import annotations

import json

from .checker import Report
from ..core.diagnostics import Diagnostic, Severity

JSON_SCHEMA_VERSION = 1


def counts(diagnostics: list[Diagnostic]) -> tuple[int, int]:
    """Numbers of errors and warnings."""
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    return errors, len(diagnostics) - errors


def summary(report: Report, diagnostics: list[Diagnostic]) -> str:
    """The one-line summary printed after the findings."""
    errors, warnings = counts(diagnostics)
    return (
        f"checked {report.files} files: {report.quotes_verified} quotes verified against "
        f"{report.sources} sources, {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}"
    )


def render_text(report: Report, diagnostics: list[Diagnostic]) -> str:
    """``path:line:col: CODE message`` lines, then the summary."""
    lines = [d.format() for d in diagnostics]
    lines.append(summary(report, diagnostics))
    return "\n".join(lines)


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, diagnostics: list[Diagnostic]) -> str:
    """GitHub workflow commands (``::error file=...``), then the plain list and summary.

    GitHub shows only a few annotations per step, so the full list follows
    as ordinary lines.
    """
    lines = []
    for d in diagnostics:
        level = "error" if d.severity is Severity.ERROR else "warning"
        lines.append(
            f"::{level} file={_escape_property(d.path)},line={d.line},col={d.column},"
            f"title={d.code}::{_escape_data(d.code + ' ' + d.message)}"
        )
    lines.extend(d.format() for d in diagnostics)
    lines.append(summary(report, diagnostics))
    return "\n".join(lines)


def render_json(report: Report, diagnostics: list[Diagnostic]) -> str:
    """The documented JSON document (see docs/codes.md, "JSON output")."""
    errors, warnings = counts(diagnostics)
    doc = {
        "version": JSON_SCHEMA_VERSION,
        "root": str(report.root),
        "summary": {
            "files": report.files,
            "quotes": len(report.outcomes),
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
                "fix": None if d.fix is None else {"line": d.fix.line, "replacement": d.fix.new},
            }
            for d in diagnostics
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


RENDERERS = {"text": render_text, "json": render_json, "github": render_github}
