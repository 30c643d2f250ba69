"""PLAYBOOK.md: its python blocks run, psi and auc measure what the text says, and its
check-to-bug claims agree with the bug zoo's evidence tables.

No torch needed except for the blocks that import it (skipped without it).
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import doc_blocks
import numpy as np
import pytest
import static_patterns as sp

ROOT = Path(__file__).resolve().parent.parent
PLAYBOOK = ROOT / "PLAYBOOK.md"
DIAGNOSTICS = ROOT / "refs" / "diagnostics.md"
_CLAIM = re.compile(r"`([\w-]+)` \(((?:`\w+`(?:, )?)+)\)")


def blocks() -> list[str]:
    """The python blocks of PLAYBOOK.md that carry no "not run" marker (tests/doc_blocks.py)."""
    return [b.source for b in doc_blocks.parse(PLAYBOOK) if b.is_python and b.skip is None]


def defining(name: str) -> dict:
    """Namespace of the PLAYBOOK block that defines `name`, executed."""
    for block in blocks():
        if re.search(rf"^def {name}\(", block, re.MULTILINE):
            namespace: dict = {}
            exec(compile(block, f"{PLAYBOOK}#{name}", "exec"), namespace)  # noqa: S102
            return namespace
    raise AssertionError(f"no python block in PLAYBOOK.md defines {name}")


@pytest.mark.parametrize("index", range(len(blocks())))
def test_every_block_runs(index):
    block = blocks()[index]
    if re.search(r"^import torch", block, re.MULTILINE):
        pytest.importorskip("torch", reason="this PLAYBOOK block imports torch")
    exec(compile(block, f"{PLAYBOOK}#block{index}", "exec"), {})  # noqa: S102


# --- psi ---------------------------------------------------------------------------------------

def psi(reference, current, **kw):
    return defining("psi")["psi"](reference, current, **kw)


def expected_psi(ref_shares, cur_shares, eps=1e-6):
    r, c = np.asarray(ref_shares) + eps, np.asarray(cur_shares) + eps
    return float(np.sum((c - r) * np.log(c / r)))


def test_psi_binary_shift_is_counted_value_by_value():
    """5% -> 20% positives: the quantile-only version returned exactly 0 here."""
    reference = np.r_[np.ones(50), np.zeros(950)]
    current = np.r_[np.ones(200), np.zeros(800)]
    value = psi(reference, current)
    assert value == pytest.approx(expected_psi([0.95, 0.05, 0.0], [0.80, 0.20, 0.0]), rel=1e-9)
    assert value == pytest.approx(0.2337, abs=1e-3)


def test_psi_constant_reference_sees_a_new_value():
    assert psi(np.zeros(100), np.r_[np.zeros(50), np.ones(50)]) == pytest.approx(
        expected_psi([1.0, 0.0], [0.5, 0.5]), rel=1e-9)


def test_psi_categories_unseen_in_the_reference_get_their_own_bin():
    reference = np.repeat([1, 2, 3], 100)
    current = np.repeat([1, 2, 3, 7], 75)
    assert psi(reference, current) == pytest.approx(expected_psi([1 / 3] * 3 + [0.0], [0.25] * 4), rel=1e-9)


def test_psi_same_distribution_is_zero():
    x = np.repeat([0, 1, 2], [500, 300, 200])
    assert psi(x, x.copy()) == 0.0


def test_psi_continuous_uses_quantile_bins():
    rng = np.random.default_rng(0)
    reference = rng.normal(size=20_000)
    same = rng.normal(size=20_000)
    shifted = rng.normal(loc=1.0, size=20_000)
    assert psi(reference, same) < 0.01
    assert psi(reference, shifted) > 0.5
    # ten quantile bins of the reference: each holds a tenth of it
    edges = np.quantile(reference, np.linspace(0, 1, 11))
    edges[0], edges[-1] = -np.inf, np.inf
    cur = np.histogram(shifted, edges)[0] / len(shifted)
    assert psi(reference, shifted) == pytest.approx(expected_psi(np.histogram(reference, edges)[0] / 20_000, cur))


def test_psi_sees_a_spike_that_moves():
    """Issue 20: 65% zeros moved to 1.0 gave 0.0000 when the quantile edges collapsed onto the spike."""
    rng = np.random.default_rng(0)
    reference = 2.0 + rng.exponential(size=10_000)
    reference[:6500] = 0.0
    current = reference.copy()
    current[current == 0.0] = 1.0
    assert psi(reference, current) > 5.0
    assert psi(reference, reference.copy()) == 0.0


def test_psi_counts_missing_values_as_a_bin():
    """Issue 20: 30% NaN in a continuous feature gave 0.108, the NaN dropped silently."""
    rng = np.random.default_rng(0)
    reference = rng.normal(size=10_000)
    current = reference.copy()
    current[:3000] = np.nan
    value = psi(reference, current)
    assert value > 1.0
    shares = np.histogram(current[3000:], np.r_[-np.inf, np.quantile(reference, np.linspace(0, 1, 11))[1:-1], np.inf])[0]
    assert value == pytest.approx(expected_psi([0.1] * 10 + [0.0], list(shares / 10_000) + [0.3]), rel=1e-6)


# --- auc ---------------------------------------------------------------------------------------

def auc(score, label):
    return defining("auc")["auc"](score, label)


def pairwise_auc(score, label):
    """Probability that a positive outscores a negative, ties counted half: the definition."""
    pos, neg = score[label], score[~label]
    wins = sum((p > n) + 0.5 * (p == n) for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_the_pairwise_definition_with_ties(seed):
    rng = np.random.default_rng(seed)
    label = rng.random(120) < 0.4
    score = np.round(rng.normal(size=120) + label, 1)  # many ties
    assert auc(score, label) == pytest.approx(pairwise_auc(score, label), abs=1e-12)


def test_auc_drops_missing_scores_and_reads_direction():
    score = np.array([0.1, 0.2, np.nan, 0.8, 0.9])
    label = np.array([0, 0, 1, 1, 1], bool)
    assert auc(score, label) == 1.0
    assert auc(-score, label) == 0.0


def test_auc_has_no_loop_over_values():
    """The per-value loop made it quadratic in the number of distinct values (speed: bench/auc_speed.py)."""
    tree = ast.parse(next(b for b in blocks() if "def auc(" in b))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While, ast.comprehension))]


# --- claims against the zoo tables --------------------------------------------------------------

def diagnostics_table() -> dict[str, set[str]]:
    """check -> zoo bugs it flags, from the evidence table of refs/diagnostics.md."""
    section = DIAGNOSTICS.read_text(encoding="utf-8").split("## Evidence: the bug zoo", 1)[1]
    credited: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`\w+`", cells[0]):
            for check in re.findall(r"`(\w+)`", cells[1]):
                credited.setdefault(check, set()).add(cells[0].strip("`"))
    return credited


def search_table() -> dict[str, set[str]]:
    """search -> zoo bugs it flags (kind *flags* only), from refs/static_analysis.md."""
    return {sid: set(c.bugs) for sid, c in sp.claims().items() if c.kind == sp.FLAGS}


def playbook_claims() -> list[tuple[str, set[str]]]:
    """`check` (`bug`, ...) pairs in the list under the table of where bugs hide."""
    text = PLAYBOOK.read_text(encoding="utf-8")
    section = text.split("## Where bugs usually hide", 1)[1].split("\n## ", 1)[0]
    return [(check, set(re.findall(r"`(\w+)`", bugs))) for check, bugs in _CLAIM.findall(section)]


def test_layer_table_says_probes_not_clears():
    text = PLAYBOOK.read_text(encoding="utf-8")
    assert "check that clears it" not in text
    assert "| rank | layer | typical hiding places | what probes it |" in text


def test_playbook_claims_are_measured_on_the_zoo():
    """Every bug the PLAYBOOK credits to a check is credited to it by the zoo's evidence tables."""
    runtime, static = diagnostics_table(), search_table()
    claims = playbook_claims()
    assert len(claims) >= 20, claims
    for check, bugs in claims:
        assert check in runtime or check in static, f"{check} is neither a diagnostic nor a search with zoo catches"
        measured = runtime.get(check, set()) | static.get(check, set())
        assert bugs <= measured, f"PLAYBOOK credits {check} with {sorted(bugs - measured)}; the zoo tables do not"


def test_playbook_names_every_check_with_its_own_layer_bugs():
    """The new checks appear in the list with the bugs their sections claim."""
    claimed = {}
    for check, bugs in playbook_claims():
        claimed.setdefault(check, set()).update(bugs)
    assert claimed["preprocessing_leak_check"] == {"scaler_before_split", "target_scaled_before_split"}
    assert claimed["eval_path_check"] == {"dropout_at_eval", "eval_without_train"}


def test_playbook_negative_claims_hold():
    text = PLAYBOOK.read_text(encoding="utf-8")
    runtime = diagnostics_table()
    assert "`overfit_one_batch` caught neither a mode bug nor the missing `zero_grad`" in text
    assert not runtime["overfit_one_batch"] & {"dropout_at_eval", "eval_without_train", "missing_zero_grad"}
    assert "`loss_at_init` caught none of them" in text  # "them": the loss-layer bugs of that line
    loss_line = next(ln for ln in text.splitlines() if ln.startswith("- **Loss**:"))
    loss_bugs = set(re.findall(r"\(`(\w+)`", loss_line)) | set(re.findall(r", `(\w+)`", loss_line))
    assert {"double_softmax", "forward_returns_probs", "log_zero_nan"} <= loss_bugs
    assert not runtime.get("loss_at_init", set()) & loss_bugs
    assert "Nothing caught `misaligned_labels` or `label_leak`" in text
    caught = set().union(*runtime.values()) | set().union(*search_table().values())
    assert not caught & {"misaligned_labels", "label_leak"}


def test_make_deterministic_warns_instead_of_raising():
    torch = pytest.importorskip("torch", reason="the determinism block imports torch")
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
              torch.backends.cudnn.benchmark)
    try:
        generator = defining("make_deterministic")["make_deterministic"](0)
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.is_deterministic_algorithms_warn_only_enabled()
        assert generator.initial_seed() == 0
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torch.backends.cudnn.benchmark = before[2]
