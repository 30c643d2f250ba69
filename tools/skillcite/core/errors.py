"""The errors the library raises, and the exit status each one maps to.

Library code never prints or exits: it raises one of these, and the command
line (``skillcite.cli``) prints ``skillcite: error: <message>`` and exits with
:attr:`SkillciteError.exit_status`. The statuses are documented in
``docs/codes.md`` (section "Exit status"):

* 0 clean; 1 findings, or a result that fails its own check
  (:class:`FindingsError`); 2 usage error or unreadable input
  (:class:`UsageError`, :class:`InputError`); 3 internal error (a bug: any
  other exception, reported in one line that asks for a bug report).
"""

from __future__ import annotations

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class SkillciteError(Exception):
    """Base of every error the library raises on purpose."""

    exit_status: int = EXIT_USAGE


class UsageError(SkillciteError):
    """Options or arguments that cannot work together (exit 2)."""


class InputError(SkillciteError):
    """Input the tool cannot work with (missing, unreadable, not UTF-8, invalid configuration): exit 2."""


class FindingsError(SkillciteError):
    """The work was done but its result fails a check, so nothing was written (exit 1)."""

    exit_status = EXIT_FINDINGS


__all__ = [
    "EXIT_CLEAN",
    "EXIT_FINDINGS",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "FindingsError",
    "InputError",
    "SkillciteError",
    "UsageError",
]
