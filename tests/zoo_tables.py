"""Which reference files hold checks measured on the bug zoo, read from their evidence tables.

Text only (no torch), so that tests/zoo_coverage.py, which runs the checks, and
tests/test_skill_claims.py, which compares SKILL.md with the tables, find the same files. A file
takes part when it has a "## Evidence: the bug zoo" section whose table rows start with a check
name (`name`, defined under a ``### `name` `` heading of the same file) followed by the zoo
programs it flags. refs/diagnostics.md, whose table has one row per zoo program instead, is read
by tests/zoo_harness.py and left out here.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE_HEADING = "## Evidence: the bug zoo"
SEARCHED = ("refs", "rl", "pinn")  # the folders of content files that may define checks
PER_BUG_TABLE = "refs/diagnostics.md"


def table_rows(text: str) -> dict[str, frozenset[str]]:
    """first cell -> backticked names of the second cell, for each row of the evidence table."""
    section = text.split(EVIDENCE_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = frozenset(re.findall(r"`(\w+)`", cells[1]))
    return rows


@functools.cache
def check_files() -> dict[str, str]:
    """check name -> the file (relative, forward slashes) whose evidence table lists it."""
    found: dict[str, str] = {}
    for folder in SEARCHED:
        for path in sorted((ROOT / folder).glob("*.md")):
            rel = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if rel == PER_BUG_TABLE or EVIDENCE_HEADING not in text:
                continue
            for name in table_rows(text):
                if name in found:
                    raise ValueError(f"check {name!r} has rows in {found[name]} and {rel}")
                found[name] = rel
    return found


def files_with_checks() -> tuple[str, ...]:
    return tuple(sorted(set(check_files().values())))
