"""Behaviour of diagnostics in refs/diagnostics.md outside the bug zoo (issue 12, section 1).

The blocks are executed from the Markdown, as in tests/test_bugzoo.py. Each test pins a case
the previous versions got wrong or a claim the text makes.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="these tests need PyTorch (CPU build: pip install torch==2.13.0 "
    "--index-url https://download.pytorch.org/whl/cpu)")
nn = torch.nn

import zoo_harness as zoo


def run(name, *args, **kwargs):
    """Call diagnostic `name`; return (result, printed text)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = zoo.diagnostic(name)(*args, **kwargs)
    return result, out.getvalue()


# --- loss_at_init -----------------------------------------------------------------------------

def bn_model_on_raw_inputs():
    torch.manual_seed(0)
    x = torch.randn(64, 10) * 50 + 100  # raw units, not standardised: BatchNorm normalises them in training
    y = torch.randint(0, 4, (64,))
    model = nn.Sequential(nn.Linear(10, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 4))
    return model, x, y


def test_loss_at_init_measures_batchnorm_in_train_mode():
    """Eval mode used the initial running statistics: loss 33 and an above_chance flag, on a healthy model."""
    model, x, y = bn_model_on_raw_inputs()
    result, printed = run("loss_at_init", model, x, y, task="ce")
    assert result["flag"] is None
    assert result["loss"] == pytest.approx(torch.nn.functional.cross_entropy(model.train()(x), y).item(), rel=1e-6)
    assert result["eval_loss"] > 10 * result["loss"]
    assert "eval mode gives" in printed


def test_loss_at_init_leaves_the_model_untouched():
    model, x, y = bn_model_on_raw_inputs()
    model.eval()
    run("loss_at_init", model, x, y, task="ce")
    bn = model[1]
    assert not model.training
    assert torch.equal(bn.running_mean, torch.zeros(64)) and torch.equal(bn.running_var, torch.ones(64))
    assert int(bn.num_batches_tracked) == 0


def test_loss_at_init_switches_dropout_off():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 4))
    x, y = torch.randn(64, 10), torch.randint(0, 4, (64,))
    losses = set()
    for seed in range(3):
        torch.manual_seed(seed)
        losses.add(run("loss_at_init", model, x, y, task="ce")[0]["loss"])
    assert len(losses) == 1
    assert losses.pop() == pytest.approx(torch.nn.functional.cross_entropy(model.eval()(x), y).item(), rel=1e-6)


class TiedLM(nn.Module):
    """Input and output embeddings tied; with targets equal to the inputs each token predicts itself."""

    def __init__(self, vocab=50, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, ids):
        return self.embed(ids) @ self.embed.weight.T


def test_loss_at_init_below_best_constant_names_the_usual_causes():
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (8, 16))
    result, printed = run("loss_at_init", TiedLM(), ids, ids, task="ce")  # targets not shifted
    assert result["flag"] == "below_best_constant"
    assert result["loss"] < 0.1 * result["chance"]
    line = next(ln for ln in printed.splitlines() if "below the best constant" in ln)
    assert "leakage" not in line
    for cause in ("padding in the denominator", "checkpoint", "tied embeddings"):
        assert cause in line


def test_loss_at_init_random_weights_do_not_exploit_a_leaked_label():
    """The label as an input column: the untrained model still starts at chance, no flag."""
    prog = zoo.program("label_leak", "buggy")
    x, y, _, _ = prog.make_data()
    result, _ = run("loss_at_init", prog.make_model(), x[:64], y[:64], task="ce")
    assert result["flag"] is None
    assert result["loss"] == pytest.approx(result["chance"], rel=0.25)


# --- preprocessing_leak_check -------------------------------------------------------------------

def nan_scaler_pipeline(fit_on_all):
    """Standardise with NaN-skipping statistics (as scikit-learn's scalers fit), split 80/20 by position."""
    def pipeline(raw):
        x, y = raw
        n_train = int(0.8 * len(x))
        fit_rows = x if fit_on_all else x[:n_train]
        mean, std = np.nanmean(fit_rows, axis=0), np.nanstd(fit_rows, axis=0)
        z = (x - mean) / std
        return (z[:n_train], y[:n_train]), (z[n_train:], y[n_train:])
    return pipeline


def raw_table(n=200):
    rng = np.random.default_rng(0)
    return rng.normal(5.0, 2.0, size=(n, 3)), rng.integers(0, 3, size=n)


def test_nan_poisoning_misses_a_nan_skipping_scaler():
    """Why the NaN method was replaced: held-out NaN leaves the training rows finite, leak or not."""
    x, y = raw_table()
    poisoned = x.copy()
    poisoned[160:] = np.nan
    (train_side, _), _ = nan_scaler_pipeline(fit_on_all=True)((poisoned, y))
    assert np.isfinite(train_side).all()


def test_preprocessing_leak_check_flags_statistics_fitted_on_all_rows():
    result, printed = run("preprocessing_leak_check", nan_scaler_pipeline(fit_on_all=True), raw_table(),
                          heldout=np.arange(160, 200))
    assert result["flag"] == "leak"
    assert result["train_values_changed"] == 160 * 3
    assert result["heldout_changed"]
    assert "LEAK" in printed


def test_preprocessing_leak_check_passes_statistics_fitted_on_training_rows():
    result, _ = run("preprocessing_leak_check", nan_scaler_pipeline(fit_on_all=False), raw_table(),
                    heldout=np.arange(160, 200))
    assert result == {"flag": None, "train_values_changed": 0, "max_abs_change": 0.0, "heldout_changed": True}


def test_preprocessing_leak_check_accepts_a_boolean_mask_and_tensors():
    x, y = raw_table()
    mask = np.zeros(200, bool)
    mask[160:] = True

    def pipeline(raw):
        xt, yt = raw
        mean = xt.mean(0)  # all rows
        return (xt[:160] - mean, yt[:160]), (xt[160:] - mean, yt[160:])

    result, _ = run("preprocessing_leak_check", pipeline, (torch.tensor(x), torch.tensor(y)), heldout=mask)
    assert result["flag"] == "leak"


def test_preprocessing_leak_check_sees_integer_columns_swapped():
    """A per-category target mean over all rows: only the integer category column is perturbed here."""
    rng = np.random.default_rng(1)
    category = rng.integers(0, 4, size=100)
    target = rng.normal(size=100)

    def pipeline(raw):
        cat = raw["category"]
        means = np.array([target[cat == c].mean() for c in range(4)])  # fitted on all rows
        encoded = means[cat]
        return encoded[:80], encoded[80:]

    result, _ = run("preprocessing_leak_check", pipeline, {"category": category}, heldout=np.arange(80, 100))
    assert result["flag"] == "leak"


def test_preprocessing_leak_check_refuses_a_nondeterministic_pipeline():
    rng = np.random.default_rng(2)

    def pipeline(raw):
        noisy = raw + rng.normal(size=raw.shape)  # unseeded augmentation
        return noisy[:80], noisy[80:]

    result, _ = run("preprocessing_leak_check", pipeline, np.zeros((100, 2)), heldout=np.arange(80, 100))
    assert result["flag"] == "not_deterministic"


def test_preprocessing_leak_check_says_when_it_saw_nothing():
    """Indices of rows the pipeline drops: nothing changes on either side."""
    def pipeline(raw):
        return raw[:80], raw[80:90]

    result, _ = run("preprocessing_leak_check", pipeline, np.ones((100, 2)), heldout=np.arange(90, 100))
    assert result["flag"] == "heldout_unchanged"


def test_preprocessing_leak_check_with_scikit_learn():
    """The real scikit-learn scaler and imputer, fitted on all rows and on the training rows."""
    preprocessing = pytest.importorskip("sklearn.preprocessing", reason="scikit-learn is not installed")
    impute = pytest.importorskip("sklearn.impute")
    x, y = raw_table()
    x[::7, 1] = np.nan
    for fit_on_all, expected in ((True, "leak"), (False, None)):
        def pipeline(raw, fit_on_all=fit_on_all):
            xr, yr = raw
            rows = xr if fit_on_all else xr[:160]
            imputer = impute.SimpleImputer().fit(rows)
            scaler = preprocessing.StandardScaler().fit(imputer.transform(rows))
            z = scaler.transform(imputer.transform(xr))
            return (z[:160], yr[:160]), (z[160:], yr[160:])

        assert run("preprocessing_leak_check", pipeline, (x, y), heldout=np.arange(160, 200))[0]["flag"] == expected


# --- eval_path_check ---------------------------------------------------------------------------

def test_eval_path_check_passes_a_model_without_mode_layers():
    """No dropout or BatchNorm: a missing model.eval() changes nothing, and nothing is flagged."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))

    def evaluate(m, xb, yb):
        with torch.no_grad():
            return (m(xb).argmax(1) == yb).float().mean().item()

    def train_fn(m):
        m.eval()
        m(x).sum().backward()

    result, _ = run("eval_path_check", model, evaluate, x, y, train_fn=train_fn)
    assert result["flag"] is None
    assert result["train_forwards"] == 0


# --- module_absmax and ActivationStatsLogger ----------------------------------------------------

def test_module_absmax_one_column_per_batch_and_nan_wins():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    batches = [torch.ones(2, 3), 10 * torch.ones(2, 3), torch.full((2, 3), float("nan"))]
    table, printed = run("module_absmax", model, batches)
    assert list(table) == ["0", "1", "<root>"]
    assert all(len(row) == 3 for row in table.values())
    expected = [(model[0](b).abs().max().item()) for b in batches[:2]]
    assert table["0"][:2] == pytest.approx(expected)
    assert all(row[2] != row[2] for row in table.values())
    assert "non-finite: 3" in printed


def test_module_absmax_reads_tuple_outputs():
    torch.manual_seed(0)
    gru = nn.GRU(4, 5, batch_first=True)
    table, _ = run("module_absmax", gru, [torch.randn(2, 3, 4)])
    assert 0 < table["<root>"][0] < 1  # GRU outputs are tanh-bounded


def test_activation_stats_logger_flags_dead_and_nonfinite_layers():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    logger = zoo.diagnostic("ActivationStatsLogger")(model)
    with contextlib.redirect_stdout(io.StringIO()):
        model(torch.randn(16, 4))
        assert logger.summary() == {}
        with torch.no_grad():
            model[0].bias.fill_(-100.0)  # every ReLU unit off
        for _ in range(5):
            model(torch.randn(16, 4))
        flags = logger.summary(last=5)
        assert flags == {"1": "DEAD"}
        with torch.no_grad():
            model[2].weight[0, 0] = float("nan")
        model(torch.randn(16, 4))
        assert logger.summary(last=1) == {"1": "DEAD", "2": "NON-FINITE"}
    logger.close()
    assert not model[0]._forward_hooks


# --- claims of section 1, item 8 ----------------------------------------------------------------

def policy_log_probs(policy, obs, actions):
    return torch.distributions.Categorical(logits=policy(obs)).log_prob(actions)


def test_ppo_first_ratio_is_one_to_rounding_and_not_with_dropout():
    """rl/SKILL.md: the first-minibatch ratio is 1 up to float rounding, and only without dropout."""
    torch.manual_seed(0)
    obs, actions = torch.randn(256, 8), torch.randint(0, 4, (256,))
    policy = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 4))
    with torch.no_grad():
        rollout = policy_log_probs(policy, obs, actions)  # the whole rollout at once
        update = policy_log_probs(policy, obs[:64], actions[:64])  # one minibatch of it
    ratio = (update - rollout[:64]).exp()
    assert (ratio - 1).abs().max().item() < 1e-5
    dropped = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Dropout(0.1), nn.Linear(64, 4)).train()
    with torch.no_grad():
        ratio = (policy_log_probs(dropped, obs, actions) - policy_log_probs(dropped, obs, actions)).exp()
    assert (ratio - 1).abs().max().item() > 1e-2
    text = (zoo.ROOT / "rl" / "SKILL.md").read_text(encoding="utf-8")
    assert "must be exactly 1" not in text
    assert "dropout in the policy network" in text


# --- the smoke test of refs/diagnostics.md, as the document says to run it ---------------------

def test_smoke_test_block_runs_and_shows_what_the_text_expects():
    """The input helpers and all diagnostic blocks pasted into one namespace, then the smoke-test block."""
    smoke = zoo.smoke_test_source()
    namespace: dict = zoo.helpers_namespace("diagnostics_md_smoke")  # the blocks that use them need them first
    for name, source in zoo.diagnostic_sources().items():
        exec(compile(source, f"{zoo.DIAGNOSTICS_MD}#{name}", "exec"), namespace)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(smoke, f"{zoo.DIAGNOSTICS_MD}#smoke-test", "exec"), namespace)  # noqa: S102
    printed = out.getvalue()
    assert re.search(r"\[overfit_one_batch\] loss [\d.]+ -> 0\.00\d+ .* reached", printed)
    assert "[torch_warnings] 1 distinct UserWarning(s) from PyTorch" in printed
    assert "Detected call of `lr_scheduler.step()` before `optimizer.step()`" in printed
    mixing = re.findall(r"\[batch_independence_check\] mode=(\w+).*\n  (gradient leaks|no gradient)", printed)
    assert mixing == [("train", "gradient leaks"), ("eval", "no gradient"), ("train", "gradient leaks")]
    poison = re.findall(r"\[nan_poison_tracer\] mode=(\w+).*\n  (NaN reached|no other sample)", printed)
    assert poison == [("train", "NaN reached"), ("eval", "no other sample")]
    assert "[find_first_nonfinite] first non-finite output: 1 (LogOfLinear); inputs already non-finite: False" in printed
