"""How many planted bugs of the bug zoo the documented checks catch, measured now.

Run from the repository root (needs torch; ripgrep is not needed)::

    python bench/zoo_catches.py

Prints, for the run-time checks of refs/diagnostics.md, for the searches of kind
*flags* of refs/static_analysis.md, and for both together: how many zoo bugs are
caught (the buggy twin flagged) and how many fixed twins are flagged (false alarms).
It measures, it asserts nothing: tests/test_bugzoo.py and tests/test_static_patterns.py
hold the tables to these measurements.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import static_patterns as sp
import torch
import zoo_harness as zoo


def runtime() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """bug -> run-time checks flagging its buggy twin, and its fixed twin."""
    torch.set_num_threads(1)
    buggy, fixed = {}, {}
    for bug in zoo.bug_names():
        with contextlib.redirect_stderr(io.StringIO()):
            buggy[bug] = set(zoo.measured(bug, "buggy"))
            fixed[bug] = set(zoo.measured(bug, "fixed"))
    return buggy, fixed


def static() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """bug -> searches of kind *flags* hitting its buggy twin, and its fixed twin."""
    claims = sp.claims()
    bugs = zoo.bug_names()
    buggy = {b: set() for b in bugs}
    fixed = {b: set() for b in bugs}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = sp.copy_zoo(Path(tmp) / "zoo")
        for search in sp.searches():
            claim = claims.get(search.id)
            if claim is None or claim.kind != sp.FLAGS:
                continue
            hit_buggy, hit_fixed = sp.measure(search.command, corpus, bugs)
            for b in hit_buggy:
                buggy[b].add(search.id)
            for b in hit_fixed:
                fixed[b].add(search.id)
    return buggy, fixed


def main() -> None:
    bugs = zoo.bug_names()
    rt_buggy, rt_fixed = runtime()
    st_buggy, st_fixed = static()
    caught_rt = {b for b in bugs if rt_buggy[b]}
    caught_st = {b for b in bugs if st_buggy[b]}
    # a search that also hits the fixed twin does not tell the two apart
    caught_st_strict = {b for b in bugs if st_buggy[b] - st_fixed[b]}
    alarms_rt = {b for b in bugs if rt_fixed[b]}
    alarms_st = {b for b in bugs if st_fixed[b]}
    print(f"zoo bugs: {len(bugs)}")
    print(f"run-time checks ({len(zoo.RUNNERS)}): caught {len(caught_rt)}/{len(bugs)}; "
          f"fixed twins flagged: {len(alarms_rt)} {sorted(alarms_rt)}")
    print(f"static searches (kind flags): caught {len(caught_st_strict)}/{len(bugs)} "
          f"(buggy file hit: {len(caught_st)}); fixed twins hit: {len(alarms_st)} {sorted(alarms_st)}")
    both = caught_rt | caught_st_strict
    print(f"both together: caught {len(both)}/{len(bugs)}; missed by both: {sorted(set(bugs) - both)}")
    print("per check (run time):")
    for name in zoo.RUNNERS:
        hits = sorted(b for b in bugs if name in rt_buggy[b])
        print(f"  {name}: {len(hits)} {hits}")


if __name__ == "__main__":
    main()
