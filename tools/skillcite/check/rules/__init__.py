"""The rules of ``skillcite check``, one module per family of codes.

Each module defines one function that takes a
:class:`~skillcite.check.parsing.workspace.Workspace` and yields
:class:`~skillcite.core.diagnostics.Diagnostic` records, and a :data:`RULE`
naming the codes it may emit. docs/codes.md says which module holds each code.
Rules never depend on each other's output: what several of them need (the
documents, the cited evidence, the quote outcomes) is computed once by the
workspace.
"""

from __future__ import annotations

from .base import Rule


def all_rules() -> tuple[Rule, ...]:
    """Every rule, in the order the check runs them."""
    from . import attribution, cachelinks, evidence, footnotes, links, manifests, quotes, skills, structure, suppressions

    return (
        structure.RULE,
        suppressions.RULE,
        footnotes.RULE,
        cachelinks.RULE,
        quotes.RULE,
        attribution.RULE,
        evidence.RULE,
        skills.RULE,
        links.RULE,
        manifests.RULE,
    )


def rule_of(code: str) -> Rule:
    """The rule that emits ``code``; KeyError for an unknown code."""
    for rule in all_rules():
        if code in rule.codes:
            return rule
    raise KeyError(code)


__all__ = ["Rule", "all_rules", "rule_of"]
