"""Time ``skillcite check`` on hostile inputs of issues 19 §5 and 28 §6, at growing sizes.

Run from the repository root::

    PYTHONPATH=tools python bench/hostile_text.py

1. An evidence file holding one run of N letters (and one hyphen at a line
   end), cited by a quote that is not in it literally: the PDF line-break
   join (``matching._line_hyphens``) scanned the run from every letter
   (about 20 s at 30,000 letters, 40 s at 100,000).
2. A SKILL.md holding N unclosed ``<!--`` inside a blockquote's HTML: the
   comment filter (``document.html_quote``) rescanned the rest of the file
   from each (over 40 s at 40,000).
3. A SKILL.md holding N lone carriage returns on one line (issue 28): each
   finding (SC308) named the whole physical line as its subject (5 s at
   5,000, 18-28 s at 15,000, over 120 s at 50,000).
4. An evidence file holding N unclosed ``<!--`` (issue 28): the
   normalizer searched for ``-->`` again from each, since its memo did not
   keep a failed search (17-40 s at 80,000).

Both must now grow linearly: the time per 1,000 units stays flat as N
grows. Prints seconds; asserts nothing (tests/test_hostile_text.py holds
the bounds).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tools"), str(REPO / "tests")]

from conftest import evidence_text  # noqa: E402

from skillcite.check import check  # noqa: E402

HEAD = "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"


def letter_run(root: Path, n: int) -> None:
    """Evidence: a run of ``n`` letters and one line-end hyphen; a quote that is not there literally."""
    body = "Some words first, then a dis-\ntributions line.\n" + "a" * n + "\n"
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(evidence_text(body), encoding="utf-8")
    (root / "SKILL.md").write_text(
        HEAD + '> Some words later, then the distributions.[^s]\n\n[^s]: A. Author ([cache](docs/evidence/src.md): L11-13)\n',
        encoding="utf-8",
    )


def unclosed_comments(root: Path, n: int) -> None:
    """SKILL.md: a blockquote whose HTML block opens ``n`` comments and closes none."""
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(evidence_text("Assume you have a bug.\n"), encoding="utf-8")
    (root / "SKILL.md").write_text(
        HEAD + "> Assume you have a bug.[^s]\n>\n> <div>" + "<!--" * n + "\n\n[^s]: A. Author ([cache](docs/evidence/src.md): L11)\n",
        encoding="utf-8",
    )


def lone_carriage_returns(root: Path, n: int) -> None:
    """SKILL.md: a line of ``n`` words, each ended by a lone carriage return."""
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(evidence_text("Assume you have a bug.\n"), encoding="utf-8")
    (root / "SKILL.md").write_bytes(
        (HEAD + "> Assume you have a bug.[^s]\n\n" + "word\r" * n + "\n\n[^s]: A. Author ([cache](docs/evidence/src.md): L11)\n").encode("utf-8")
    )


def evidence_unclosed_comments(root: Path, n: int) -> None:
    """Evidence: a cited line, then ``n`` unclosed ``<!--``."""
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(evidence_text("Assume you have a bug.\n" + "<!--" * n + "\n"), encoding="utf-8")
    (root / "SKILL.md").write_text(HEAD + "> Assume you have a bug.[^s]\n\n[^s]: A. Author ([cache](docs/evidence/src.md): L11)\n", encoding="utf-8")


def timed(build: object, n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, n)  # type: ignore[operator]
        start = time.perf_counter()
        check(root)
        return time.perf_counter() - start


def main() -> None:
    for name, build, sizes in (
        ("letter run in evidence", letter_run, (10_000, 30_000, 100_000, 300_000)),
        ("unclosed <!-- in SKILL.md", unclosed_comments, (10_000, 40_000, 100_000)),
        ("lone \\r in SKILL.md", lone_carriage_returns, (5_000, 15_000, 50_000)),
        ("unclosed <!-- in evidence", evidence_unclosed_comments, (20_000, 80_000, 160_000)),
    ):
        for n in sizes:
            seconds = timed(build, n)
            print(f"{name:<28} N={n:>7}: {seconds:6.2f} s ({seconds / n * 1000:.4f} s per 1,000)")


if __name__ == "__main__":
    main()
