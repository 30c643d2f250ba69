"""Parsing skill documents and evidence, matching quotes, and the rules of ``skillcite check``.

:class:`~skillcite.check.workspace.Workspace` loads and resolves; the rules in
:mod:`skillcite.check.rules` yield diagnostics; :func:`check` composes them.
"""

from .report import QuoteOutcome, Report
from .run import check, run_rules
from .workspace import Workspace

__all__ = ["QuoteOutcome", "Report", "Workspace", "check", "run_rules"]
