"""The state the steps of ``fix`` share, and the check as they run it."""

from __future__ import annotations

from pathlib import Path

from ..check.parsing.document import Document
from ..check.reporting.report import Report
from ..check.run import check
from ..core.config import Config, load_config
from ..core.diagnostics import Diagnostic, matches_prefix
from ..core.textio import decode, resolve
from .plan import Change, ChangedOnDisk, FixPlan, Note


def run_check(root: Path, config: Config, overrides: dict[Path, str] | None = None) -> Report:
    """The check of ``root``, with ``overrides`` as the text of the documents ``fix`` changed."""
    return check(root, config, overrides=overrides)


def identity(d: Diagnostic) -> tuple[str, ...]:
    """What a finding is about (never its message): code, file, subject."""
    return d.identity


class FixContext:
    """What every step of ``fix`` shares: the root, its configuration, the choice of repairs, the plan."""

    def __init__(
        self,
        root: Path,
        config: Config | None = None,
        *,
        base: str | None = None,
        select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
    ) -> None:
        self.root = root
        self.config = config if config is not None else load_config(root)
        self.base = base
        self.select, self.ignore = select, ignore
        self.plan = FixPlan(root)
        self._base_docs: dict[tuple[Path, str], Document | None] = {}
        self._history: dict[Path, dict[int, int] | None] = {}  # evidence -> line map from its last change

    def wanted(self, code: str) -> bool:
        """True when ``--select``/``--ignore`` let ``fix`` make repairs for ``code``."""
        if self.select and not matches_prefix(code, self.select):
            return False
        return not (self.ignore and matches_prefix(code, self.ignore))

    def reported(self, report: Report) -> set[tuple[str, ...]]:
        """Identities of the findings ``check --strict`` reports for ``report`` (suppressions, settings and baseline applied)."""
        from ..check.judging.selection import apply, policy

        shown, _accepted = apply(report.diagnostics, policy(self.root, self.config, strict=True))
        return {d.identity for d in shown}

    def note(self, code: str, text: str, about: tuple[Path, int, int] | None = None) -> None:
        if self.wanted(code):
            self.plan.notes.append(Note(code, text, about))

    def check(self, changes: list[Change] | None = None) -> Report:
        saved = self.plan.changes
        if changes is not None:
            self.plan.changes = changes
        try:
            fixed = self.plan.fixed
        finally:
            self.plan.changes = saved
        overrides = {p: t for p, t in fixed.items() if t != self.plan.original[p]}
        return run_check(self.root, self.config, overrides)

    def _remember(self, report: Report) -> list[Document]:
        """Read each real document once; return one document per real file.

        A symlinked document (``AGENTS.md -> SKILL.md``) is the same file
        as its target: it is edited once, through the first path found.
        """
        canonical: list[Document] = []
        for doc in report.documents:
            key = resolve(doc.path)
            if key in self.plan.original:
                continue
            raw = key.read_bytes()
            text, bom = decode(raw, key)
            if text != doc.file.text:
                raise ChangedOnDisk(f"{doc.path}: changed while fix ran; nothing written (run fix again)")
            self.plan.raw[key] = raw
            self.plan.original[key] = text
            self.plan.bom[key] = bom
            canonical.append(doc)
        return canonical
