"""Where a cold ``skillcite check`` spends its CPU, phase by phase (issue 23).

    python bench/cold_breakdown.py                 # this repository and the real-shaped corpus
    python bench/cold_breakdown.py --rounds 5 ROOT # another package
    python bench/cold_breakdown.py --tools /tmp/old/tools   # an earlier commit's skillcite (git archive)

Each figure is CPU seconds (user + system, ``os.wait4``), the least of
``--rounds`` runs, each in a fresh child process, so nothing is shared
between runs and the cache stays off (``SKILLCITE_NO_CACHE=1``: the run
pays for parsing and normalizing every file, but writes no cache):

* **interpreter**: ``python -c pass``;
* **imports**: importing what a check imports, less the interpreter;
* **documents**: parsing the Markdown documents into models;
* **evidence**: reading, validating and normalizing evidence (the narrow
  stretches around cited lines, and whole files where a stretch is not
  enough);
* **matching**: finding each quote in the normalized evidence, less the
  evidence work it triggers;
* **rest**: the other rules, discovery, the summary.

Phases inside the check are measured by wrapping the functions named
above in the child; the wrapping adds a little to each call, so their
total exceeds a plain run's by a few percent. The range-only audit of the
same package is timed the same way, and each phase is also given as a
multiple of it. The script prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"

# Runs in the child: a check of ROOT with its phases timed, printed as JSON.
CHILD = r"""
import json, sys, time
from pathlib import Path
clock = time.process_time
spent = {"documents": 0.0, "evidence": 0.0, "matching": 0.0}
started = clock()
import skillcite.check.run as run
from skillcite.core.config import load_config
from skillcite.check import document, evidence, matching, workspace
from skillcite.check.rules import all_rules, quotes
import skillcite.check.summary, skillcite.cli.fast, skillcite.check.resultcache  # what the command line adds
all_rules()  # imports every rule module
imported = clock()

def timed(owner, name, phase, exclude=None):
    real = getattr(owner, name, None)
    if real is None:  # an older skillcite (--tools) without this step
        return
    def wrapper(*args, **kwargs):
        before = {k: spent[k] for k in spent}
        t = clock()
        try:
            return real(*args, **kwargs)
        finally:
            took = clock() - t
            if exclude:
                took -= spent[exclude] - before[exclude]
            spent[phase] += took
    setattr(owner, name, wrapper)

timed(workspace, "parse_document", "documents")
timed(evidence.Evidence, "load", "evidence")
timed(evidence.Evidence, "whole", "evidence")
timed(evidence.Evidence, "narrow", "evidence")
timed(evidence.Evidence, "validate", "evidence")
timed(quotes, "locate", "matching", exclude="evidence")
root = Path(sys.argv[1])
t = clock()
report = run.check(root, load_config(root), cache=False)
total = clock() - t
print(json.dumps({"imports": imported - started, "check": total, **spent, "quotes": report.quotes}))
"""


def cpu(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """CPU seconds of one child process, and its output."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(cmd)}\n{text}")
    return usage.ru_utime + usage.ru_stime, text


def breakdown(root: Path, rounds: int) -> dict[str, float]:
    """The least CPU of ``rounds`` runs for each phase of a cold check of ``root`` (seconds)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(TOOLS), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["SKILLCITE_NO_CACHE"] = "1"
    best: dict[str, float] = {}
    for _ in range(rounds):
        interpreter, _ = cpu([sys.executable, "-c", "pass"], env)
        audit, _ = cpu([sys.executable, str(REPO / "bench" / "range_audit.py"), str(root)], env)
        whole, out = cpu([sys.executable, "-c", CHILD, str(root)], env)
        phases = json.loads(out.strip().splitlines()[-1])
        inside = phases["documents"] + phases["evidence"] + phases["matching"]
        row = {
            "audit": audit,
            "interpreter": interpreter,
            "imports": phases["imports"],
            "documents": phases["documents"],
            "evidence": phases["evidence"],
            "matching": phases["matching"],
            "rest": max(0.0, phases["check"] - inside),
            "cold check": whole,
        }
        for key, value in row.items():
            best[key] = min(best.get(key, value), value)
    return best


def show(label: str, best: dict[str, float]) -> None:
    audit = best["audit"]
    print(f"{label}: range-only audit {audit:.3f} s CPU")
    for key in ("interpreter", "imports", "documents", "evidence", "matching", "rest", "cold check"):
        print(f"  {key:12s} {best[key]:7.3f} s  {best[key] / audit:5.1f}x the audit")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", type=Path, help="packages to measure (default: this repository and the real-shaped corpus)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tools", type=Path, help="the tools/ folder of the skillcite to measure (default: this checkout's)")
    args = ap.parse_args()
    if args.tools is not None:
        global TOOLS
        TOOLS = args.tools.resolve()
    if args.roots:
        for root in args.roots:
            show(str(root), breakdown(root, args.rounds))
        return
    show("this repository", breakdown(REPO, args.rounds))
    sys.path.insert(0, str(REPO / "bench"))
    from check_speed import real_shaped

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "pkg"
        real_shaped(root)
        show("real-shaped corpus", breakdown(root, args.rounds))


if __name__ == "__main__":
    main()
