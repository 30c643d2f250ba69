"""The safety net of ``fix``: a change that would add a finding is refused, never written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..check.reporting.report import Report
from ..check.rules.suppressions import POLICY_CODES
from ..core.diagnostics import Diagnostic, subject_text
from ..core.textio import resolve
from .context import FixContext, identity
from .plan import Change, Refusal

# Past this many footnote definitions with changes, a finding no definition owns is not
# traced to one by re-checking each alone (one check per definition): every change is refused.
_SOLO_LIMIT = 24


class SafetyNet(FixContext):
    """Changes whose result would add a finding are refused, with the finding as the reason."""

    def vet(self, before: Report, changes: list[Change]) -> list[Change]:
        """Drop the changes of every definition whose result adds a finding; record why.

        Findings are compared as multisets of identities (code, file,
        subject). A new finding is laid at the door of the definition it is
        on, or of the definitions the quote it is about cites; one that
        belongs to none is traced by applying each definition's changes
        alone, and refuses every change left only when that does not tell.

        One new finding is not a reason: SC313 for a quote whose SC301 the
        same result clears (:func:`_placed`). Placing it turns "outside the
        cited lines" into "not reviewed", and ``skillcite review`` lists it
        only once it has its anchor; refusing would leave it stuck between
        the two. That holds for a departure its new place makes (a next
        sentence that qualifies it, a lead-in or a "not" its cut leaves
        out) as for one it writes itself: the departure is shown by
        ``review`` like any other, and ``review --accept-all`` leaves it to
        a person unless told otherwise (``--include-context``).
        """
        old = Counter(identity(d) for d in before.diagnostics if d.code not in POLICY_CODES)
        kept = list(changes)
        self.plan.awaiting = []
        for _ in range(len({(c.path, c.group) for c in changes}) + 1):
            if not kept:
                break
            after = self.check(kept)
            now = Counter(identity(d) for d in after.diagnostics if d.code not in POLICY_CODES)  # a fix may make a suppression or baseline entry stale
            extra = now - old
            traded = [d for d in after.diagnostics if extra[identity(d)] > 0 and _placed(d, old, now, after)]
            for d in traded:
                extra[identity(d)] -= 1
            extra = +extra
            if not extra:
                self.plan.awaiting = [d.format() for d in traded]
                break
            new = [d for d in after.diagnostics if extra[identity(d)] > 0 and d not in traded]
            blame: dict[tuple[Path, int], list[str]] = {}
            loose = []
            for d in new:
                groups = self._culprits(after, d, kept)
                if not groups:
                    loose.append(d)
                for group in groups:
                    blame.setdefault(group, []).append(d.format())
            if loose:
                for group, reasons in self._trace(old, loose, kept).items():
                    blame.setdefault(group, []).extend(reasons)
            for group, reasons in blame.items():
                dropped = [c for c in kept if (c.path, c.group) == group]
                if dropped:
                    self.plan.refusals.append(Refusal(dropped[0].where, tuple(_describe(self.plan.original[c.path], c) for c in dropped), tuple(dict.fromkeys(reasons))))
            kept = [c for c in kept if (c.path, c.group) not in blame]
        return kept

    def _culprits(self, report: Report, d: Diagnostic, changes: list[Change]) -> set[tuple[Path, int]]:
        """The changed definitions a finding is on, or that the quote it is about cites (that quote only)."""
        groups = {(c.path, c.group) for c in changes}
        docs = [doc for doc in report.documents if doc.rel == d.path]
        out: set[tuple[Path, int]] = set()
        for doc in docs:
            key = resolve(doc.path)
            if (key, d.line) in groups:
                out.add((key, d.line))
            # The quote at the finding's position, not every quote on its line: two quotes
            # on one line cite different footnotes, and each refusal names its own finding.
            labels = {label for q in doc.quotes if (q.line, q.column) == (d.line, d.column) and subject_text(q.text) == d.subject for label in q.labels}
            if not labels:
                labels = {label for q in doc.quotes if q.line == d.line and subject_text(q.text) == d.subject for label in q.labels}
            for fd in doc.definitions:
                if fd.label in labels and (key, fd.line) in groups:
                    out.add((key, fd.line))
        return out

    def _trace(self, old: Counter[tuple[str, ...]], loose: list[Diagnostic], changes: list[Change]) -> dict[tuple[Path, int], list[str]]:
        """Which definitions' changes, applied alone, add each finding no definition owns.

        A finding no single definition adds (two changes together make it),
        or too many definitions to try one by one, refuses every change.
        """
        groups = list(dict.fromkeys((c.path, c.group) for c in changes))
        blame: dict[tuple[Path, int], list[str]] = {}
        wanted = {identity(d) for d in loose}
        found: set[tuple[str, ...]] = set()
        if len(groups) <= _SOLO_LIMIT:
            for group in groups:
                alone = self.check([c for c in changes if (c.path, c.group) == group])
                extra = Counter(identity(d) for d in alone.diagnostics) - old
                hits = [d for d in alone.diagnostics if extra[identity(d)] > 0 and identity(d) in wanted]
                if hits:
                    blame[group] = [d.format() for d in hits]
                    found.update(identity(d) for d in hits)
        rest = [d.format() for d in loose if identity(d) not in found]
        if rest:  # nothing to lay it on: refuse everything
            for group in groups:
                blame.setdefault(group, []).extend(rest)
        return blame


def _placed(d: Diagnostic, old: Counter[tuple[str, ...]], now: Counter[tuple[str, ...]], after: Report) -> bool:
    """True for SC313 on a quote whose SC301 (outside the cited lines) the change clears.

    The quote is found at the new lines, departing from verbatim: by its own
    marks (an elision, an insertion, a first letter, a respelled Greek
    letter), the same wherever its words are, or by its context there (a
    next sentence that qualifies it, a lead-in, a "not" its cut leaves out).
    Either way SC313 keeps it unverified until a person reads it beside its
    source; refusing the anchor instead left ``review`` nothing to show
    (issue 29).
    """
    if d.code != "SC313":
        return False
    moved = ("SC301", d.path, d.subject)
    if old[moved] <= now[moved]:
        return False
    for o in after.outcomes:
        if o.doc.rel == d.path and (o.quote.line, o.quote.column) == (d.line, d.column) and o.match is not None:
            return bool(o.match.edits)
    return False


def _describe(text: str, c: Change) -> str:
    old = text[c.start : c.end]
    return f"{old} -> {c.new}" if old else f"add {c.new.lstrip(',: ')}"
