"""Benchmark the packaging commands on the real repository: bundle, install, uninstall.

Run from the repository root::

    python bench/package_speed.py

Prints medians of a few runs, each a fresh ``skillcite`` process (start-up
included, as a user sees it), plus the bundle sizes. Asserts nothing.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = 5


def timed(args: list[str], runs: int = RUNS, before=None) -> tuple[float, str]:
    """Median wall time of ``skillcite ARGS`` and the last stdout."""
    times, out = [], ""
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "skillcite", *args], capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - start)
        out = done.stdout
    return statistics.median(times), out


def main() -> None:
    for include in (None, "rl,pinn", "all"):
        extra = ["--include", include] if include else []
        seconds, text = timed(["bundle", str(REPO), *extra])
        print(f"bundle {include or 'SKILL.md':8}  {seconds:6.3f} s  {len(text):>8} chars  ~{len(text) // 4:>6} tokens")
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "skills"
        first, _ = timed(["install", str(REPO), "--dest", str(dest)], runs=1)
        print(f"install (fresh)    {first:6.3f} s  (plan, write, strict check of the copy, rename)")
        again, _ = timed(["install", str(REPO), "--dest", str(dest)])
        print(f"install (update)   {again:6.3f} s  (receipts compared, then as above)")
        files = sum(1 for p in dest.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
        print(f"installed          {files} files, {size / 1e6:.2f} MB")
        gone, _ = timed(["uninstall", str(REPO), "--dest", str(dest)], runs=1)
        print(f"uninstall          {gone:6.3f} s")
    check, _ = timed(["check", str(REPO), "--no-cache"])
    print(f"check (cold)       {check:6.3f} s  (for comparison, with the SC7xx manifest checks)")


if __name__ == "__main__":
    main()
