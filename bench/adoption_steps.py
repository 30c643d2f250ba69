"""Findings after each step of docs/adopting.md's walkthrough, and check time.

Builds the synthetic foreign repository of tests/test_adoption_e2e.py in a
temporary folder and runs the documented commands in order, printing the
number of findings (by code) after each, then times ``skillcite check`` on
the adopted repository (median of 5, cold and warm cache).

    python bench/adoption_steps.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tools"), str(REPO / "tests")]

from click.testing import CliRunner  # noqa: E402
from skillcite.check import check  # noqa: E402
from skillcite.cli import main  # noqa: E402
from test_adoption_e2e import build, walkthrough_commands  # noqa: E402


def findings(root: Path) -> str:
    counts = Counter(d.code for d in check(root).diagnostics)
    return ", ".join(f"{code} x{n}" for code, n in sorted(counts.items())) or "none"


def timed(root: Path, *extra: str) -> float:
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "skillcite", "check", str(root), *extra], capture_output=True, check=False,
                       env={**os.environ, "PYTHONPATH": str(REPO / "tools")})
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main_() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = build(Path(tmp))
        os.chdir(root)
        print(f"{'step':<44} findings")
        print(f"{'(nothing configured)':<44} {findings(root)}")
        commands = walkthrough_commands()
        for args, _status in commands:
            CliRunner().invoke(main, args)
            print(f"{'skillcite ' + ' '.join(args):<44} {findings(root)}")
        CliRunner().invoke(main, ["check", "--write-baseline", ".skillcite-baseline.json"])
        with (root / "pyproject.toml").open("a") as fh:
            fh.write('baseline = ".skillcite-baseline.json"\nstrict = true\n')
        status = CliRunner().invoke(main, ["check"]).exit_code
        print(f"{'check with the baseline (exit status)':<44} {status}")
        print(f"commands: {len(commands)} in the walkthrough, 1 to write the baseline, 2 settings lines")
        print(f"check time, cold (--no-cache): {timed(root, '--no-cache') * 1000:.0f} ms; warm: {timed(root) * 1000:.0f} ms")


if __name__ == "__main__":
    main_()
