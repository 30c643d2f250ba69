"""The safety net of ``fix``: a change that would add a finding is refused, never written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..check.report import Report
from ..check.rules.suppressions import POLICY_CODES
from ..core.diagnostics import Diagnostic
from ..core.textio import resolve
from .context import FixContext, identity
from .plan import Change, Refusal


class SafetyNet(FixContext):
    """Changes whose result would add a finding are refused, with the finding as the reason."""

    def vet(self, before: Report, changes: list[Change]) -> list[Change]:
        """Drop the changes of every definition whose result adds a finding; record why.

        Findings are compared as multisets of identities (code, file,
        subject). A new finding is laid at the door of the definition it is
        on, or of the definitions the quote it is about cites; one that
        belongs to none refuses every change left.
        """
        old = Counter(identity(d) for d in before.diagnostics if d.code not in POLICY_CODES)
        kept = list(changes)
        for _ in range(len({(c.path, c.group) for c in changes}) + 1):
            if not kept:
                break
            after = self.check(kept)
            extra = Counter(identity(d) for d in after.diagnostics if d.code not in POLICY_CODES) - old  # a fix may make a suppression or baseline entry stale
            if not extra:
                break
            new = [d for d in after.diagnostics if extra[identity(d)] > 0]
            blame: dict[tuple[Path, int], list[str]] = {}
            for d in new:
                for group in self._culprits(after, d, kept):
                    blame.setdefault(group, []).append(d.format())
            if not blame:  # nothing to lay it on: refuse everything
                reasons = [d.format() for d in new]
                blame = {(c.path, c.group): reasons for c in kept}
            for group, reasons in blame.items():
                dropped = [c for c in kept if (c.path, c.group) == group]
                if dropped:
                    self.plan.refusals.append(Refusal(dropped[0].where, tuple(_describe(self.plan.original[c.path], c) for c in dropped), tuple(dict.fromkeys(reasons))))
            kept = [c for c in kept if (c.path, c.group) not in blame]
        return kept

    def _culprits(self, report: Report, d: Diagnostic, changes: list[Change]) -> set[tuple[Path, int]]:
        groups = {(c.path, c.group) for c in changes}
        docs = [doc for doc in report.documents if doc.rel == d.path]
        out: set[tuple[Path, int]] = set()
        for doc in docs:
            key = resolve(doc.path)
            if (key, d.line) in groups:
                out.add((key, d.line))
            labels = {label for q in doc.quotes if q.line == d.line for label in q.labels}
            for fd in doc.definitions:
                if fd.label in labels and (key, fd.line) in groups:
                    out.add((key, fd.line))
        return out


def _describe(text: str, c: Change) -> str:
    old = text[c.start : c.end]
    return f"{old} -> {c.new}" if old else f"add {c.new.lstrip(',: ')}"
