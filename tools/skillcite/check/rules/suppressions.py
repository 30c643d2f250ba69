"""SC009: inline suppression comments that cannot work (see :mod:`skillcite.check.suppress`)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ...core.diagnostics import Diagnostic
from ..suppress import find_suppressions
from ..workspace import Workspace
from .base import Rule


def suppressions(ws: Workspace) -> Iterator[Diagnostic]:
    """A ``<!-- skillcite: ignore ... -->`` that names no known code, or has no block after it."""
    for doc in ws.checked_documents():
        _found, problems = ws.derived(f"suppressions:{doc.rel}", partial(find_suppressions, doc.file.text))
        for line, message in problems:
            yield Diagnostic.make("SC009", doc.rel, line, 1, message, subject=doc.file.line(line).strip())


RULE = Rule("suppressions", ("SC009",), suppressions)
