"""SC101-SC103: footnote references and definitions."""

from __future__ import annotations

from collections.abc import Iterator

from ...core.diagnostics import Diagnostic
from ..parsing.document import FootnoteDef
from ..parsing.workspace import Workspace
from .base import Rule


def footnotes(ws: Workspace) -> Iterator[Diagnostic]:
    """Undefined references (SC101), unused definitions (SC102), repeated definitions (SC103)."""
    for doc in ws.checked_documents():
        rel = doc.rel
        for ref in doc.undefined:
            yield Diagnostic.make("SC101", rel, ref.line, ref.column, f"footnote [^{ref.value}] is not defined", subject=ref.value)
        definitions: dict[str, FootnoteDef] = {}
        for d in doc.definitions:
            if d.label in definitions:
                first = definitions[d.label]
                yield Diagnostic.make(
                    "SC103", rel, d.line, d.column, f"footnote [^{d.label}] is already defined at line {first.line}", subject=d.label
                )
            else:
                definitions[d.label] = d
        used = {r.value for r in doc.references}
        for label, d in definitions.items():
            if label not in used:
                yield Diagnostic.make("SC102", rel, d.line, d.column, f"footnote [^{label}] is defined but never referenced", subject=label)


RULE = Rule("footnotes", ("SC101", "SC102", "SC103"), footnotes)
