"""Shared helpers for the adversarial suite: one evidence text, one quote, one outcome.

Every case states the exact outcome: ``(status, code)``, where ``code`` is the
diagnostic ``skillcite check`` would print (None when verified). Cases go
through :func:`skillcite.check.matching.locate` with the quote as the parser
renders it; the cases that depend on how the skill file is written go
through the whole check in ``test_adv_skill_side.py``.
"""

from __future__ import annotations

from pathlib import Path

from skillcite.check.parsing.anchors import Range
from skillcite.check.parsing.evidence import Evidence
from skillcite.check.matching.locate import Match, locate

FRONT = "---\nsource: https://example.org\n---\n"
FIRST_BODY_LINE = 4

# The code ``check`` prints for each status (``marks`` carries its own).
STATUS_CODE = {"verified": None, "moved": "SC301", "altered": "SC302", "notfound": "SC303"}


def evidence(tmp_path: Path, body: str) -> Evidence:
    """An evidence file with a three-line front matter and ``body``."""
    path = tmp_path / "e.md"
    path.write_bytes((FRONT + body + "\n").encode("utf-8"))
    return Evidence.load(path, "e.md")


def match(tmp_path: Path, body: str, quote: str) -> Match:
    """Locate ``quote`` in ``body``, citing every line of the body."""
    ev = evidence(tmp_path, body)
    last = FIRST_BODY_LINE + body.count("\n")
    return locate(quote, ev, [[Range(FIRST_BODY_LINE, last)]])


def outcome(tmp_path: Path, body: str, quote: str) -> tuple[str, str | None]:
    """``(status, code)`` of ``quote`` against ``body``."""
    m = match(tmp_path, body, quote)
    return m.status, m.code if m.status == "marks" else STATUS_CODE[m.status]


def ids(cases: list[tuple[str, str, tuple[str, str | None]]]) -> list[str]:
    """Readable test ids: the quote."""
    return [q[:40] for _, q, _ in cases]
