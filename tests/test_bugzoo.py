"""The diagnostics of refs/diagnostics.md, run from the Markdown on the bug zoo (issue 8).

Each diagnostic must flag exactly the buggy programs that the evidence table of
refs/diagnostics.md says it catches, and no fixed twin at all.
"""

from __future__ import annotations

import ast
import difflib
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip(
    "torch", reason="the bug-zoo tests need PyTorch (CPU build: pip install torch==2.13.0 "
    "--index-url https://download.pytorch.org/whl/cpu)")

import zoo_harness as zoo

REQUIRED = (
    "double_softmax", "missing_zero_grad", "misaligned_labels", "label_leak", "scaler_before_split",
    "log_zero_nan", "view_not_permute", "frozen_params", "dropout_at_eval", "class_imbalance_constant",
    "lr_diverges", "padding_not_masked", "broadcast_n_vs_n1", "dead_init",
)
EVIDENCE_HEADING = "## Evidence: the bug zoo"
MAX_CHANGED_LINES = 8  # the twins differ by the bug only (plus the docstring naming the twin)
BUGS = zoo.bug_names()


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """Tiny models run faster on one thread; restore the setting for the rest of the session."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def evidence_table() -> dict[str, frozenset[str]]:
    """bug -> diagnostics claimed to catch it, from the table under EVIDENCE_HEADING."""
    text = zoo.DIAGNOSTICS_MD.read_text(encoding="utf-8")
    section = text.split(EVIDENCE_HEADING, 1)[1].split("\n## ", 1)[0]
    claims = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`\w+`", cells[0]):
            claims[cells[0].strip("`")] = frozenset(re.findall(r"`(\w+)`", cells[1]))
    return claims


def test_zoo_has_the_required_bugs():
    assert set(REQUIRED) <= set(BUGS)


def test_every_diagnostic_section_is_extracted():
    """Every diagnostic in the Contents list has a python block the harness runs."""
    text = zoo.DIAGNOSTICS_MD.read_text(encoding="utf-8")
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^- \[`(\w+)`\]", contents, re.MULTILINE))
    assert listed == set(zoo.diagnostic_sources()) == set(zoo.RUNNERS)
    assert "(#evidence-the-bug-zoo)" in contents


def test_evidence_table_rows_match_the_zoo():
    claims = evidence_table()
    assert set(claims) == set(BUGS), "one table row per zoo folder, no more"
    unknown = set().union(*claims.values()) - set(zoo.RUNNERS)
    assert not unknown, f"table names diagnostics that do not exist: {unknown}"


@pytest.mark.parametrize("bug", BUGS)
def test_twins_differ_only_by_the_bug(bug):
    buggy, fixed = ((zoo.ZOO / bug / f"{t}.py").read_text().splitlines() for t in zoo.TWINS)
    changed = [ln for ln in difflib.unified_diff(buggy, fixed, lineterm="", n=0)
               if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert 2 <= len(changed) <= 2 + 2 * MAX_CHANGED_LINES, changed


@pytest.mark.parametrize("twin", zoo.TWINS)
@pytest.mark.parametrize("bug", BUGS)
def test_program_is_self_contained(bug, twin):
    """Imports only torch, numpy and the standard library, and exposes the harness contract."""
    tree = ast.parse((zoo.ZOO / bug / f"{twin}.py").read_text())
    roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    roots |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert roots <= {"torch", "numpy"} | set(sys.stdlib_module_names), roots
    prog = zoo.program(bug, twin)
    for name in ("TASK", "make_data", "make_model", "make_optimizer", "loss_fn", "train", "evaluate"):
        assert hasattr(prog, name), name


@pytest.mark.parametrize("bug", BUGS)
def test_evidence_row_matches_measurement(bug):
    """Claimed == flagged on the buggy program (both directions), and nothing flags the fixed twin."""
    claimed = evidence_table().get(bug, frozenset())
    caught = zoo.measured(bug, "buggy")
    assert caught == claimed, f"missed: {sorted(claimed - caught)}; caught but not claimed: {sorted(caught - claimed)}"
    assert zoo.measured(bug, "fixed") == frozenset(), "a diagnostic flags the fixed twin"


@pytest.mark.parametrize("path", ["double_softmax/buggy.py", "double_softmax/fixed.py"])
def test_program_runs_as_a_script(path):
    """Two programs end to end in a subprocess (the rest run in-process above)."""
    done = subprocess.run([sys.executable, str(zoo.ZOO / path)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "val accuracy" in done.stdout
