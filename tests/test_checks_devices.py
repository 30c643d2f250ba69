"""The checks on the inputs people debug with (issue 20, sections 2 and 3): another dtype, a
pandas DataFrame, a Hugging Face model through the documented wrapper, mixed precision, RNNs in
eval mode; and bench/gpu_checks.py, which CI runs on the CPU (it says that CUDA is absent)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="these tests need PyTorch (CPU build: pip install torch==2.13.0 "
    "--index-url https://download.pytorch.org/whl/cpu)")
nn = torch.nn

import zoo_coverage as cov
import zoo_harness as zoo

sys.path.insert(0, str(zoo.ROOT / "bench"))
import gpu_checks  # noqa: E402


def run(name, *args, **kwargs):
    """Call a check of diagnostics.md (or of the newer files); return (result, printed text)."""
    fn = zoo.diagnostic(name) if name in zoo.RUNNERS else cov.check(name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args, **kwargs)
    return result, out.getvalue()


@pytest.fixture(autouse=True)
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# --- bench/gpu_checks.py ------------------------------------------------------------------------

def test_gpu_checks_script_runs_and_says_where():
    done = subprocess.run([sys.executable, str(zoo.ROOT / "bench" / "gpu_checks.py"), "--check", "class_balance",
                           "--check", "batch_independence_check"], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    if not torch.cuda.is_available():
        assert lines[0].startswith("CUDA absent: every check runs on the CPU instead")
    assert any(ln.startswith("batch_independence_check") and "agrees" in ln for ln in lines), lines
    assert set(gpu_checks.CASES) == set(zoo.RUNNERS) | set(cov.RUNNERS)


def test_every_check_agrees_in_float64():
    """The whole set, model and float data in float64 (what set_default_dtype(float64) gives a program)."""
    results = gpu_checks.run_all(torch.device("cpu"), torch.float64)
    errors = {n: e for n, (_, _, e) in results.items() if e}
    assert not errors, errors
    differ = {n: (got, want) for n, (got, want, _) in results.items() if got != want}
    # the rounding checks flag float32 error, which float64 removes: buggy and fixed twins both clean
    assert differ == {n: ((False, False), (True, False)) for n in gpu_checks.ROUNDING_CHECKS}, differ


# --- bfloat16 ------------------------------------------------------------------------------------

def bf16_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(torch.bfloat16)


def test_forward_checks_take_bfloat16():
    model, x = bf16_mlp(), torch.randn(8, 6, dtype=torch.bfloat16)
    assert run("find_first_nonfinite", model, x)[0] is None
    table, _ = run("module_absmax", model, [x])
    assert all(np.isfinite(v).all() for v in table.values())
    assert run("batch_independence_check", model, x, index=2, train_mode=False)[0] == []
    logger = zoo.diagnostic("ActivationStatsLogger")(model)
    model(x)
    with contextlib.redirect_stdout(io.StringIO()):
        assert logger.summary() == {}
    logger.close()


def test_update_ratio_logger_takes_bfloat16_parameters():
    model, x, y = bf16_mlp(), torch.randn(32, 6, dtype=torch.bfloat16), torch.randint(0, 3, (32,))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    logger = zoo.diagnostic("UpdateRatioLogger")(model, opt)
    for _ in range(3):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x).float(), y).backward()
        opt.zero_grad(set_to_none=False)  # the bug: cleared between backward and step
        opt.step()
    with contextlib.redirect_stdout(io.StringIO()):
        flags = logger.summary()
    logger.close()
    assert flags and all(f.startswith("GRAD CLEARED BEFORE STEP") for f in flags.values())


def test_preprocessing_and_label_checks_take_bfloat16():
    x = torch.randn(100, 3).to(torch.bfloat16)

    def pipeline(raw):
        scaled = (raw - raw.mean(0)) / raw.std(0)  # fitted on all rows
        return scaled[:80], scaled[80:]

    assert run("preprocessing_leak_check", pipeline, x, torch.arange(80, 100))[0]["flag"] == "leak"
    cat = torch.randint(0, 30, (400,))
    y = torch.randint(0, 3, (400,))

    def featurize(labels):
        share = torch.zeros(30).index_add_(0, cat, (labels == 1).float()) / torch.bincount(cat, minlength=30).clamp(min=1)
        return share[cat][:, None].to(torch.bfloat16)

    assert run("label_permutation_check", featurize, y)[0]


# --- mixed precision and the loggers around it ---------------------------------------------------

def test_find_first_nonfinite_replays_at_the_runs_precision():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    with torch.no_grad():
        model[0].weight.fill_(1.0)
    x = torch.full((3, 4), 3e4)  # 4 * 3e4 = 1.2e5: over float16's 65504, nowhere near float32's limit
    assert run("find_first_nonfinite", model, x)[0] is None
    found, printed = run("find_first_nonfinite", model, x, amp=torch.float16)
    assert found["module"] == "0"
    assert "finite without autocast" in run("find_first_nonfinite", model, torch.ones(3, 4))[1]


def test_update_ratio_logger_passes_a_grad_scaler_and_clipping():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
    logger = zoo.diagnostic("UpdateRatioLogger")(model, opt)
    x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
    for _ in range(4):
        opt.zero_grad()
        scaler.scale(nn.functional.cross_entropy(model(x), y)).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 0.05)
        scaler.step(opt)
        scaler.update()
    with contextlib.redirect_stdout(io.StringIO()):
        flags = logger.summary()
    logger.close()
    assert not any(f.startswith(("GRAD", "NOT MOVING")) for f in flags.values()), flags


def test_update_ratio_logger_sees_decay_only_steps_without_gradient_hooks():
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    logger = zoo.diagnostic("UpdateRatioLogger")(model, opt, check_grads=False)
    x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
    for _ in range(3):
        nn.functional.cross_entropy(model(x), y).backward()
        opt.zero_grad(set_to_none=False)
        opt.step()
    with contextlib.redirect_stdout(io.StringIO()):
        flags = logger.summary()
    logger.close()
    assert flags["weight"].startswith("NOT MOVING (weight decay only")


# --- RNNs: cuDNN needs train mode for backward ---------------------------------------------------

def test_batch_independence_check_restores_rnn_modes():
    torch.manual_seed(0)
    gru = nn.GRU(5, 7, num_layers=2, dropout=0.3, batch_first=True).eval()
    _, printed = run("batch_independence_check", gru, torch.randn(4, 3, 5), index=1, copy_model=False)
    assert "no gradient reaches other samples" in printed
    assert not gru.training and gru.dropout == 0.3


# --- pandas -------------------------------------------------------------------------------------

def test_preprocessing_leak_check_takes_a_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.normal(50, 10, 100), "city": rng.choice(["Oslo", "Lima", "Pune"], 100),
                          "visits": rng.integers(0, 5, 100)})

    def pipeline(fit_rows):
        def prepare(df):
            fit = df.iloc[fit_rows]
            vocab = {c: i for i, c in enumerate(sorted(set(fit["city"])))}
            out = np.column_stack([(df["income"] - fit["income"].mean()) / fit["income"].std(),
                                   df["city"].map(lambda c: vocab.get(c, -1)).to_numpy(dtype=float)])
            return out[:80], out[80:]
        return prepare

    heldout = np.arange(80, 100)
    assert run("preprocessing_leak_check", pipeline(slice(0, 80)), frame, heldout)[0]["flag"] is None
    assert run("preprocessing_leak_check", pipeline(slice(0, 100)), frame, heldout)[0]["flag"] == "leak"

    def vocab_only(df):  # numbers fitted on training rows; only the string vocabulary sees all rows
        vocab = {c: i for i, c in enumerate(sorted(set(df["city"])))}
        codes = df["city"].map(vocab).to_numpy(dtype=float)
        return codes[:80], codes[80:]

    assert run("preprocessing_leak_check", vocab_only, frame, heldout)[0]["flag"] == "leak"


# --- Hugging Face models through the documented wrapper ------------------------------------------

def test_the_wrapper_block_runs():
    assert zoo.adapter().__name__ == "Logits"


def test_checks_run_through_the_wrapper_on_a_tiny_transformers_model():
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(vocab_size=50, n_positions=16, n_embd=16, n_layer=1, n_head=2)
    torch.manual_seed(0)
    model = zoo.adapter()(transformers.GPT2LMHeadModel(config))
    batch = {"input_ids": torch.randint(0, 50, (4, 8)), "attention_mask": torch.ones(4, 8, dtype=torch.long)}
    labels = torch.randint(0, 50, (4, 8))
    assert run("find_first_nonfinite", model, batch)[0] is None
    assert run("batch_independence_check", model, batch, index=(1, 4), input_module="model.transformer.wte",
               train_mode=False)[0] == []
    report, _ = run("gradient_flow", model, nn.functional.cross_entropy(model(batch).flatten(0, 1), labels.flatten()),
                    show=False)
    assert not any(report.values()), report
    assert run("loss_at_init", model, batch, labels, task="ce")[0]["flag"] is None

    def evaluate(m, b, y):
        m.eval()
        with torch.no_grad():
            return nn.functional.cross_entropy(m(b).flatten(0, 1), y.flatten()).item()

    assert run("eval_path_check", model, evaluate, batch, labels)[0]["flag"] is None
    assert run("inference_side_effects", model, lambda: evaluate(model, batch, labels), x=batch)[0]["batch_dependent"] is False


# --- adapter_check on a PEFT model -----------------------------------------------------------------

def test_adapter_check_on_peft_inactive_adapter_and_stale_optimizer():
    peft = pytest.importorskip("peft")

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.o = nn.Linear(8, 8), nn.Linear(8, 2)

        def forward(self, x):
            return self.o(self.q(x))

    base = Tiny()
    built_before = torch.optim.AdamW(base.parameters(), lr=1e-3)  # the bug: before get_peft_model
    model = peft.get_peft_model(base, peft.LoraConfig(r=2, target_modules=["q"]))
    model.add_adapter("ref", peft.LoraConfig(r=2, target_modules=["q"]))  # inactive, like TRL's reference
    report, _ = run("adapter_check", model, optimizer=built_before)
    assert report["frozen_adapters"] == []
    assert report["frozen_inactive_adapters"] == ["base_model.model.q.lora_A.ref.weight",
                                                  "base_model.model.q.lora_B.ref.weight"]
    assert report["trainable_not_in_optimizer"] == ["base_model.model.q.lora_A.default.weight",
                                                    "base_model.model.q.lora_B.default.weight"]
    built_after = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    assert run("adapter_check", model, optimizer=built_after)[0]["trainable_not_in_optimizer"] == []


def test_bin_roundtrip_check_takes_edges_as_a_list_and_values_in_float64():
    values = torch.tensor([1.0, 2.0, 2.5, 3.0], dtype=torch.float64)
    labels = torch.tensor([0, 1, 1, 2])
    report, _ = run("bin_roundtrip_check", values, labels, [2.0, 3.0])
    assert report["wrong"] == 0 and report["on_edge"] == 2
