"""Where a cold ``skillcite check`` spends its CPU, stage by stage (issues 23 and 30).

    python bench/cold_breakdown.py                 # this repository and the real-shaped corpus
    python bench/cold_breakdown.py --rounds 5 ROOT # another package
    python bench/cold_breakdown.py --tools /tmp/old/tools   # an earlier commit's skillcite (git archive)

Each round runs the range-only audit (``bench/range_audit.py``) and a cold
check of the same package back to back, in fresh child processes, the order
swapped every round; each figure is CPU seconds (user + system,
``os.wait4``) and each ratio is taken within its pair, so the report gives
min / median / max of the ratios. The cache stays off
(``SKILLCITE_NO_CACHE=1``: the run pays for parsing and normalizing every
file, but writes no cache). The rows follow the stages of ``check/``
(docs/maintaining.md, "The stages of a check"):

* **interpreter**: ``python -c pass`` (its own pair with the audit);
* **imports**: importing what a check imports, less the interpreter;
* **parsing: documents**: Markdown documents into models;
* **parsing: evidence**: reading, validating and normalizing evidence (the
  narrow stretches around cited lines, and whole files where a stretch is
  not enough), wherever a later stage asks for it;
* **quotes**: resolving each quotation's footnotes and cache links, less
  the evidence work it triggers;
* **matching**: finding each quote in its evidence, less the evidence work;
* **judging**: the verdicts around the matches: titles, review context and
  the review file;
* **rules, reporting**: the other rules, discovery, suppressions and the
  report.

Stages are measured by wrapping the functions named above in the child;
the wrapping adds a little to each call, so their total exceeds a plain
run's by a few percent. The script prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"

# Runs in the child: a check of ROOT with its stages timed, printed as JSON.
CHILD = r"""
import json, sys, time
from pathlib import Path
clock = time.process_time
spent = {"documents": 0.0, "evidence": 0.0, "quotes": 0.0, "matching": 0.0, "verdicts": 0.0}
started = clock()
import skillcite.check.run as run
from skillcite.core.config import load_config
from skillcite.check.parsing import evidence, workspace
from skillcite.check.judging import verdicts
from skillcite.check.rules import all_rules
import skillcite.check.reporting.summary, skillcite.cli.fast, skillcite.check.resultcache  # what the command line adds
all_rules()  # imports every rule module
imported = clock()

def timed(owner, name, phase, exclude=()):
    real = getattr(owner, name, None)
    if real is None:  # an older skillcite (--tools) without this step
        return
    def wrapper(*args, **kwargs):
        before = dict(spent)
        t = clock()
        try:
            return real(*args, **kwargs)
        finally:
            took = clock() - t
            for other in exclude:
                took -= spent[other] - before[other]
            spent[phase] += took
    setattr(owner, name, wrapper)

timed(workspace, "parse_document", "documents")
for method in ("load", "whole", "narrow", "validate"):
    timed(evidence.Evidence, method, "evidence")
# Each name is wrapped where its caller looks it up (verdicts imports them by name).
timed(verdicts, "cited_quotes", "quotes", exclude=("evidence",))
timed(verdicts, "locate", "matching", exclude=("evidence",))
timed(verdicts, "verdict", "verdicts", exclude=("evidence", "matching"))
timed(verdicts, "shown_for", "verdicts", exclude=("evidence",))
timed(verdicts, "_judge", "verdicts")
timed(verdicts, "review_file", "verdicts")
root = Path(sys.argv[1])
t = clock()
report = run.check(root, load_config(root), cache=False)
total = clock() - t
print(json.dumps({"imports": imported - started, "check": total, **spent, "quotes_checked": report.quotes}))
"""
STAGES = ("interpreter", "imports", "parsing: documents", "parsing: evidence", "quotes", "matching", "judging", "rules, reporting", "cold check")


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


def breakdown(root: Path, rounds: int) -> dict[str, list[tuple[float, float]]]:
    """For each stage, ``rounds`` pairs of (stage CPU seconds, the audit's CPU seconds in the same pair)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(TOOLS), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["SKILLCITE_NO_CACHE"] = "1"
    audit_cmd = [sys.executable, str(REPO / "bench" / "range_audit.py"), str(root)]
    found: dict[str, list[tuple[float, float]]] = {key: [] for key in STAGES}
    for k in range(rounds):
        # The interpreter's own pair, then the check's, each in alternating order.
        first, second = ([sys.executable, "-c", "pass"], audit_cmd) if k % 2 else (audit_cmd, [sys.executable, "-c", "pass"])
        a, _ = cpu(first, env)
        b, _ = cpu(second, env)
        interpreter, audit = (a, b) if k % 2 else (b, a)
        found["interpreter"].append((interpreter, audit))
        if k % 2:
            audit, _ = cpu(audit_cmd, env)
            whole, out = cpu([sys.executable, "-c", CHILD, str(root)], env)
        else:
            whole, out = cpu([sys.executable, "-c", CHILD, str(root)], env)
            audit, _ = cpu(audit_cmd, env)
        phases = json.loads(out.strip().splitlines()[-1])
        inside = sum(phases[key] for key in ("documents", "evidence", "quotes", "matching", "verdicts"))
        row = {
            "imports": phases["imports"],
            "parsing: documents": phases["documents"],
            "parsing: evidence": phases["evidence"],
            "quotes": phases["quotes"],
            "matching": phases["matching"],
            "judging": phases["verdicts"],
            "rules, reporting": max(0.0, phases["check"] - inside),
            "cold check": whole,
        }
        for key, value in row.items():
            found[key].append((value, audit))
    return found


def show(label: str, found: dict[str, list[tuple[float, float]]]) -> None:
    audits = [audit for _, audit in found["cold check"]]
    print(f"{label}: range-only audit {statistics.median(audits):.3f} s CPU (median of {len(audits)}); each stage as a multiple of the audit in its pair, min / median / max")
    for key in STAGES:
        ratios = sorted(value / audit for value, audit in found[key])
        seconds = statistics.median(value for value, _ in found[key])
        print(f"  {key:20s} {seconds:7.3f} s  {ratios[0]:5.2f}x / {statistics.median(ratios):5.2f}x / {ratios[-1]:5.2f}x")


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
