"""Every check of the skill on CUDA, when a GPU is present: one line per check.

Run from the repository root (needs torch)::

    python bench/gpu_checks.py            # CUDA if present, else the CPU (and says CUDA is absent)
    python bench/gpu_checks.py --dtype float64
    python bench/gpu_checks.py --matrix     # also the compatibility matrix's column for the device

With CUDA present the compatibility matrix of tests/compat_matrix.py (each check that takes a model or a batch,
on a plain module, a transformers causal LM, an encoder classifier and a PEFT LoRA model, at float32,
bf16 weights, bf16 and fp16 autocast, with tensor, tuple and dict batches) runs on the GPU as well:
one line per check with its cells that work, refuse, miss, false-alarm or crash, and each cell that
does not work. On the CPU the matrix runs only with --matrix (tests/test_compat_matrix.py runs it).

Each check runs on one bug-zoo program it is measured on (its buggy and its fixed twin) with the
model and every tensor on the device, the way tests/zoo_harness.py runs it on the CPU, and the
line compares the verdicts with the CPU ones: ``agrees`` when both twins get the CPU verdict. A
check that raises prints the exception instead. Exit status 1 when any check disagrees or raises.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import torch
import zoo_coverage as cov
import zoo_harness as zoo

# one zoo program per check: one whose buggy twin the check flags on the CPU, where there is one
CASES = {
    "loss_at_init": "double_softmax",  # flags no zoo program: both verdicts are "clean"
    "overfit_one_batch": "double_softmax",
    "gradient_flow": "frozen_params",
    "find_first_nonfinite": "lr_diverges",
    "UpdateRatioLogger": "zero_grad_before_step_adamw",
    "nan_poison_tracer": "view_not_permute",
    "batch_independence_check": "view_not_permute",  # a GRU: cuDNN needs train mode for backward
    "class_balance": "class_imbalance_constant",
    "data_sanity": "double_softmax",
    "torch_warnings": "scheduler_before_optimizer",
    "preprocessing_leak_check": "scaler_before_split",
    "eval_path_check": "confident_eval_dropout",
    "ActivationStatsLogger": "dead_init",
    "module_absmax": "lr_diverges",
    "label_permutation_check": "target_encoding_multiclass",
    "bin_roundtrip_check": "bucketize_edges",
    "inference_side_effects": "batchnorm_without_running_stats",
    "adapter_check": "lora_adapter_frozen",
    "best_action_probe": "reward_sign_bandit",
    "id_range_check": "added_tokens_not_resized",
    "checkpoint_load_check": "checkpoint_prefix_dropped",
    "compile_parity": "compile_unstable_variance",
    "precision_gap": "distance_by_expansion",
    "optimizer_coverage": "optimizer_before_wrap",
    "accumulation_check": "grad_accum_token_mean",
    "eval_batch_size_check": "eval_mean_of_batch_means",
    "prompt_parity_check": "serve_without_generation_prompt",
}
# Checks that measure float32 rounding itself: cast to float64, the error they look for is gone,
# so their float64 verdict on the buggy twin is "clean" by design, not a disagreement.
ROUNDING_CHECKS = frozenset({"compile_parity", "precision_gap"})


def _moved(t, device, dtype):
    if not torch.is_tensor(t):
        return t
    return t.to(device=device, dtype=dtype) if t.is_floating_point() and dtype else t.to(device)


def setup_on(prog, device, dtype=None) -> zoo.Setup:
    """A zoo Setup with the model and every data tensor on `device` (floats cast to `dtype` if given)."""
    x, y, x_val, y_val = (_moved(t, device, dtype) for t in prog.make_data())
    model = prog.make_model().to(device)
    if dtype is not None:
        model = model.to(dtype)
    return zoo.Setup(prog, model, x[:zoo.BATCH], y[:zoo.BATCH], x, y, x_val, y_val)


def _preprocessing_on(s: zoo.Setup, device) -> bool:
    """As the harness runs it, with the held-out indices as a tensor on the device."""
    raw = s.prog.load_raw()
    n_rows = len(raw[0]) if isinstance(raw, tuple) else len(raw)

    def pipeline(r):
        x_train, y_train, x_val, y_val = s.prog.prepare(r)
        return (x_train, y_train), (x_val, y_val)

    heldout = torch.as_tensor(s.prog.heldout_rows(n_rows)).to(device)
    return zoo.diagnostic("preprocessing_leak_check")(pipeline, raw, heldout)["flag"] is not None


def verdict(name: str, bug: str, twin: str, device, dtype=None):
    """True/False (flagged or not; None where the program does not offer what the check needs)."""
    prog = zoo.program(bug, twin)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        torch.manual_seed(0)
        s = setup_on(prog, device, dtype)
        if name == "preprocessing_leak_check":
            return _preprocessing_on(s, device)
        if name in zoo.RUNNERS:
            return zoo.RUNNERS[name](s)
        return cov.RUNNERS[name](s)


def cpu_verdict(name: str, bug: str, twin: str):
    if name in zoo.RUNNERS:
        return zoo.flagged(bug, twin, name)
    return cov.outcome(bug, twin, name)


def run_all(device, dtype=None, names=None) -> dict[str, tuple]:
    """check -> (device verdicts (buggy, fixed), CPU verdicts, error text or None)."""
    results = {}
    for name in names or CASES:
        bug = CASES[name]
        want = tuple(bool(cpu_verdict(name, bug, t)) for t in zoo.TWINS)
        try:
            got = tuple(bool(verdict(name, bug, t, device, dtype)) for t in zoo.TWINS)
            results[name] = (got, want, None)
        except Exception as exc:  # noqa: BLE001 - a check that crashes on the device is the finding
            results[name] = (None, want, "".join(traceback.format_exception_only(type(exc), exc)).strip())
    return results


def matrix_column(device) -> int:
    """The compatibility matrix on `device`: one line per check, then each cell not as held (see expected()); the
    number of such cells (0 on the CPU: tests/test_compat_matrix.py holds that)."""
    if not (importlib.util.find_spec("transformers") and importlib.util.find_spec("peft")):
        print("matrix: transformers and peft are needed (pip install -e '.[test]'); not run")
        return 1
    import compat_matrix as cm

    bad = 0
    for name in cm.PROBES:
        results = cm.outcomes(name, device.type)
        recorded = name in cm.CURRENT_BEHAVIOUR  # changed by another part of issue 27: shown, not counted
        print(f"matrix {name:24s} {device.type}: " + " ".join(f"{k}={v}" for k, v in cm.counts(results).items())
              + (" (current behaviour, not counted)" if recorded else ""))
        for cell, o in results.items():
            if o.status != cm.expected(name, cell) and not recorded:  # adapter_check: no adapter, says so
                bad += 1
                print(f"    {'/'.join(cell)}: {o.status} {o.detail}")
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=["float32", "float64"], default=None,
                        help="cast the model and float data to this dtype (default: as the program has them)")
    parser.add_argument("--check", action="append", choices=sorted(CASES), help="run only these checks")
    parser.add_argument("--matrix", action="store_true",
                        help="run the compatibility matrix on the device (the default when CUDA is present)")
    parser.add_argument("--matrix-only", action="store_true", help="the matrix alone, not the zoo cases")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        device = torch.device("cuda")
        print(f"device: cuda ({torch.cuda.get_device_name()}), torch {torch.__version__}")
    else:
        device = torch.device("cpu")
        print(f"CUDA absent: every check runs on the CPU instead (torch {torch.__version__})")
    dtype = getattr(torch, args.dtype) if args.dtype else None
    bad = 0
    if args.matrix or args.matrix_only or device.type == "cuda":
        bad += matrix_column(device)
    if args.matrix_only:
        return 1 if bad else 0
    for name, (got, want, error) in run_all(device, dtype, args.check).items():
        if error:
            bad += 1
            print(f"{name:26s} {device.type}: RAISES {error.splitlines()[-1][:160]}")
            continue
        agrees = got == want
        bad += not agrees
        print(f"{name:26s} {device.type}: {CASES[name]} buggy={'flag' if got[0] else 'clean'} "
              f"fixed={'flag' if got[1] else 'clean'}; CPU {'agrees' if agrees else 'DIFFERS: ' + str(want)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
