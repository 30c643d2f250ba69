"""Rendering a check report as text, JSON, GitHub annotations or SARIF."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from ...core.diagnostics import CODES, Diagnostic, Severity

if TYPE_CHECKING:  # a runtime Protocol would cost a warm check more than its output
    from typing import Protocol

    class Report(Protocol):
        """What rendering reads: a :class:`~skillcite.check.reporting.report.Report` or a cached
        :class:`~skillcite.check.reporting.summary.Summary` (this module imports neither, so
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
        def quotes_reviewed(self) -> int: ...
        @property
        def quotes_bulk(self) -> int: ...
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
    # Bulk acceptances are counted apart: no person is on record as having looked at them.
    bulk = f", {report.quotes_bulk} with edits accepted in bulk" if report.quotes_bulk else ""
    verbatim = report.quotes_verified - report.quotes_reviewed - report.quotes_bulk
    line = (
        f"checked {report.files} files: {report.quotes_verified} quotes verified "
        f"({verbatim} verbatim, {report.quotes_reviewed} with reviewed edits{bulk}) against "
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
            "quotes_verbatim": report.quotes_verified - report.quotes_reviewed - report.quotes_bulk,
            "quotes_reviewed": report.quotes_reviewed,
            "quotes_bulk": report.quotes_bulk,
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
    return _dumps(doc)


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_FINGERPRINT = "skillciteIdentity/v1"


def _rule_name(title: str) -> str:
    """``unclosed code fence`` -> ``UnclosedCodeFence`` (SARIF wants an identifier-like name)."""
    return "".join(word[:1].upper() + word[1:] for word in re.findall(r"[A-Za-z0-9]+", title))


def render_sarif(report: Report, diagnostics: list[Diagnostic]) -> str:
    """A SARIF 2.1.0 log for GitHub code scanning and other SARIF viewers.

    Every code is a rule (so rule indexes never shift between runs); each
    finding is a result at its file, line and column, with the level it has
    after ``--strict``. Its partial fingerprint is the finding's identity
    (code, file, subject; see docs/codes.md), never its message or line, so
    a code-scanning alert survives edits elsewhere in the file. Findings
    with one identity are told apart by their order.
    """
    from ... import __version__

    index = {code: i for i, code in enumerate(CODES)}
    rules = [
        {
            "id": c.code,
            "name": _rule_name(c.title),
            "shortDescription": {"text": c.title},
            "defaultConfiguration": {"level": "error" if c.severity is Severity.ERROR else "warning"},
        }
        for c in CODES.values()
    ]
    seen: Counter[tuple[str, ...]] = Counter()
    results = []
    for d in diagnostics:
        n = seen[d.identity]
        seen[d.identity] += 1
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": "error" if d.severity is Severity.ERROR else "warning",
                "message": {"text": d.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": quote(d.path, safe="/"), "uriBaseId": "SRCROOT"},
                            "region": {"startLine": d.line, "startColumn": d.column},
                        }
                    }
                ],
                "partialFingerprints": {SARIF_FINGERPRINT: f"{d.key}:{n}"},
            }
        )
    root = Path(report.root).resolve().as_uri().rstrip("/") + "/"
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "skillcite", "version": __version__, "rules": rules}},
                "originalUriBaseIds": {"SRCROOT": {"uri": root}},
                "columnKind": "unicodeCodePoints",  # columns count characters, as Python strings do
                "results": results,
            }
        ],
    }
    return _dumps(doc)


RENDERERS = {"text": render_text, "json": render_json, "github": render_github, "sarif": render_sarif}


def _dumps(doc: object) -> str:
    """JSON text, non-ASCII kept, except where a path holds undecodable bytes (lone surrogates): those are escaped."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8: "\udcff" is valid JSON, a raw surrogate is not UTF-8
        return json.dumps(doc, indent=2)
    return text
