"""The checks of the reference files with a check-per-row evidence table (refs/tabular.md, refs/systems.md,
refs/finetuning.md, rl/rewards.md, ...: tests/zoo_tables.py finds them) on the bug zoo, and every python
block of those files run as written (issue 12)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

torch = pytest.importorskip(
    "torch", reason="these tests need PyTorch (CPU build: pip install torch==2.13.0 "
    "--index-url https://download.pytorch.org/whl/cpu)")

import zoo_coverage as cov
import zoo_harness as zoo

BUGS = zoo.bug_names()


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_the_files_with_checks_are_found():
    """tests/zoo_tables.py finds each file by its evidence table; these four hold checks since issue 12."""
    assert {"refs/tabular.md", "refs/systems.md", "refs/finetuning.md", "rl/rewards.md"} <= set(cov.FILES.values())


def test_every_check_has_a_table_row_and_a_block():
    assert set(cov.evidence_claims()) == set(cov.FILES) == set(cov.RUNNERS)
    for name in cov.FILES:
        assert callable(cov.check(name))


@pytest.mark.parametrize("name", sorted(cov.FILES))
def test_check_flags_exactly_the_claimed_programs(name):
    """Claimed == flagged over the whole zoo (buggy twins), and no fixed twin is flagged."""
    claimed = cov.evidence_claims()[name]
    assert claimed <= set(BUGS), f"unknown zoo programs: {sorted(claimed - set(BUGS))}"
    caught = {bug for bug in BUGS if cov.outcome(bug, "buggy", name)}
    assert caught == claimed, f"missed: {sorted(claimed - caught)}; caught but not claimed: {sorted(caught - claimed)}"
    assert not [bug for bug in BUGS if cov.outcome(bug, "fixed", name)], "a fixed twin is flagged"


@pytest.mark.parametrize("bug", ["target_encoding_leak", "bucketize_edges", "mc_dropout_batchnorm",
                                 "lora_adapter_frozen", "reward_sign_bandit", "compile_unstable_variance",
                                 "distance_by_expansion", "optimizer_before_wrap", "grad_accum_token_mean",
                                 "eval_mean_of_batch_means", "serve_without_generation_prompt"])
def test_each_new_pair_is_caught_by_its_check(bug):
    flagged = {name for name in cov.FILES if cov.outcome(bug, "buggy", name)}
    assert flagged, f"{bug}: no check of the newer files flags it"


def test_not_applicable_names_real_checks_in_both_twins():
    for bug in BUGS:
        skip = zoo.not_applicable(bug, "buggy")
        assert skip == zoo.not_applicable(bug, "fixed"), bug
        assert set(skip) <= set(zoo.RUNNERS), (bug, skip)
        assert all(isinstance(why, str) and why for why in skip.values()), bug


@pytest.mark.parametrize("path", cov.doc_files(), ids=lambda p: p.name)
def test_every_python_block_runs(path):
    """All python blocks of the file, in order, in one namespace, on CPU."""
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks
    uses_helpers = any(zoo.HELPERS_MARK in b for b in blocks)
    namespace = zoo.helpers_namespace(f"doc_{path.stem}") if uses_helpers else {"__name__": f"doc_{path.stem}"}
    with contextlib.redirect_stdout(io.StringIO()):
        torch.manual_seed(0)
        for i, block in enumerate(blocks):
            exec(compile(block, f"{path}#block{i}", "exec"), namespace)  # noqa: S102
