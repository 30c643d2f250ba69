"""SC001-SC004: structure that would hide text from every other rule (fences, nesting, front matter, unreadable folders)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...core.diagnostics import Diagnostic
from ..parsing.document import Document
from ..parsing.workspace import Workspace
from .base import Rule


def _line_text(doc: Document, line: int) -> str:
    return doc.file.line(line).strip() if 1 <= line <= doc.file.line_count else ""


def structure(ws: Workspace) -> Iterator[Diagnostic]:
    """Unclosed fences (SC001), nesting past the parser's limit (SC002), unreadable front matter (SC003)."""
    for doc in ws.checked_documents():
        rel = doc.rel
        for fence in doc.unclosed_fences:
            yield Diagnostic.make(
                "SC001", rel, fence.line, fence.column, f"code fence {fence.value} is never closed",
                subject=_line_text(doc, fence.line) or fence.value,
            )
        for deep in doc.too_deep:
            yield Diagnostic.make(
                "SC002", rel, deep.line, deep.column,
                f"nested more than {deep.value} levels deep: Markdown parsers stop here, so nothing in this block is checked",
                subject=_line_text(doc, deep.line) or "nesting",
            )
        if doc.front_matter_error is not None:
            problem = doc.front_matter_error
            yield Diagnostic.make("SC003", rel, problem.line, problem.column, f"front matter cannot be read: {problem.value}", subject="front matter")
        for dup in doc.front_matter_duplicates:
            yield Diagnostic.make(
                "SC003", rel, dup.line, dup.column, f"front matter key {dup.value} is given twice; YAML would keep only this one",
                subject=f"duplicate {dup.value.split(' (first at')[0]}",
            )


def unreadable_folders(ws: Workspace) -> Iterator[Diagnostic]:
    """SC004 for each folder discovery could not list: nothing in it was checked."""
    ws.checked_documents()
    ws.evidence_files()
    seen: set[Path] = set()
    for path, reason in ws.unreadable:
        if path in seen:
            continue
        seen.add(path)
        rel = ws.rel(path)
        yield Diagnostic.make("SC004", rel, 1, 1, f"folder cannot be read ({reason}): nothing in it is checked", subject=rel)


def structure_and_folders(ws: Workspace) -> Iterator[Diagnostic]:
    """:func:`structure`, then :func:`unreadable_folders`."""
    yield from structure(ws)
    yield from unreadable_folders(ws)


RULE = Rule("structure", ("SC001", "SC002", "SC003", "SC004"), structure_and_folders)
