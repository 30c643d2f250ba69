"""Time ``skillcite check`` on N quotes whose N reviews are all out of date (issue 28).

Run from the repository root::

    PYTHONPATH=tools python bench/review_scale.py

A package with N elided quotes, each citing its own paragraph of one
evidence file, every one accepted, and then every sentence after them
edited: each quote is SC313 with a review that no longer applies, and the
check says what changed. Explaining that used to compare each quote with
every record (quotes x records: 4 million comparisons at N = 2,000); the
records are now indexed once, so the time per 1,000 quotes stays flat as N
grows. Prints seconds; asserts nothing (tests/test_review_ledger.py bounds
the comparisons).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tools"), str(REPO / "tests")]

from conftest import evidence_text, locked  # noqa: E402

from skillcite.check import check  # noqa: E402
from skillcite.check.reviewing import accept, departures  # noqa: E402

HEAD = "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"


def stale_package(root: Path, n: int) -> None:
    """N reviewed quotes whose next sentences were then all edited."""
    body = "".join(f"Claim number {k} holds on every run we tried. It was checked {k} times.\n\n" for k in range(n))
    ev = evidence_text(body)
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(ev, encoding="utf-8")
    first = ev[: ev.index("Claim number 0 ")].count("\n") + 1
    quotes = "".join(f"> Claim number {k} holds [...] we tried.[^s{k}]\n\n" for k in range(n))
    notes = "".join(f"[^s{k}]: A. Author, \"A Post\" ([cache](docs/evidence/src.md#L{first + 2 * k}))\n" for k in range(n))
    (root / "SKILL.md").write_text(HEAD + quotes + notes, encoding="utf-8")
    ws, found = departures(root)
    assert len(found) == n
    accept(ws, found, "B <b@example.org>", bulk=True)
    (root / "docs/evidence/src.md").write_text(locked(ev.replace(" times.", " times, at least.")), encoding="utf-8")


def timed(n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        stale_package(root, n)
        start = time.perf_counter()
        report = check(root)
        seconds = time.perf_counter() - start
        assert sum(d.code == "SC313" and "no longer applies" in d.message for d in report.diagnostics) == n
        return seconds


def main() -> None:
    for n in (250, 500, 1000, 2000):
        seconds = timed(n)
        print(f"stale reviews N={n:>5}: {seconds:6.2f} s ({seconds / n * 1000:.3f} s per 1,000)")


if __name__ == "__main__":
    main()
