"""Run the diagnostics of refs/diagnostics.md on the bug zoo (tests/bugzoo/).

The diagnostics are read from the Markdown at run time: the first ```python block under each
``## `name` `` heading is executed in its own namespace, so the document stays the only copy.
Each runner below calls one diagnostic on one zoo program the way its usage line says and reads
the verdict from the diagnostic's own documented result.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "bugzoo"
DIAGNOSTICS_MD = ROOT / "refs" / "diagnostics.md"
TWINS = ("buggy", "fixed")
BATCH = 64  # the first BATCH training samples form "one batch"
POISON_INDEX = 3  # the sample whose input is perturbed by the two mixing checks

_SECTION = re.compile(r"## `(\w+)`\s*\n")
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def bug_names() -> list[str]:
    """Zoo folders holding both twins, sorted."""
    return sorted(d.name for d in ZOO.iterdir() if all((d / f"{t}.py").is_file() for t in TWINS))


@functools.cache
def diagnostic_sources() -> dict[str, str]:
    """name -> source of the first python block in that name's section of diagnostics.md."""
    text = DIAGNOSTICS_MD.read_text(encoding="utf-8")
    sources = {}
    for chunk in re.split(r"^(?=## )", text, flags=re.MULTILINE):
        head, block = _SECTION.match(chunk), _BLOCK.search(chunk)
        if head and block:
            sources[head.group(1)] = block.group(1)
    return sources


def smoke_test_source() -> str:
    """The python block of the "Smoke test on a toy model" section of diagnostics.md."""
    text = DIAGNOSTICS_MD.read_text(encoding="utf-8")
    return re.search(r"## Smoke test on a toy model.*?```python\n(.*?)```", text, re.DOTALL).group(1)


def divergence_source() -> str:
    """The python block of the "Two runs that disagree: `first_divergence`" section (not a zoo-measured check)."""
    text = DIAGNOSTICS_MD.read_text(encoding="utf-8")
    return re.search(r"## Two runs that disagree.*?```python\n(.*?)```", text, re.DOTALL).group(1)


@functools.cache
def first_divergence() -> Callable:
    """first_divergence, executed from its block in a fresh namespace with the input helpers."""
    namespace = helpers_namespace("diagnostics_md_first_divergence")
    with contextlib.redirect_stdout(io.StringIO()):  # its block ends with its own example
        exec(compile(divergence_source(), f"{DIAGNOSTICS_MD}#first_divergence", "exec"), namespace)  # noqa: S102
    return namespace["first_divergence"]


def adapter_source() -> str:
    """The python block of the "How to use these" section: the wrapper for models that take a dict."""
    text = DIAGNOSTICS_MD.read_text(encoding="utf-8")
    return re.search(r"## How to use these.*?```python\n(.*?)```", text, re.DOTALL).group(1)


HELPERS_MARK = "the first block of diagnostics.md"  # the comment a check block carries when it uses them


def helpers_namespace(name: str) -> dict:
    """A fresh namespace holding the input helpers (the "How to use these" block), for a check block to run in."""
    namespace: dict = {"__name__": name}
    exec(compile(adapter_source(), f"{DIAGNOSTICS_MD}#how-to-use-these", "exec"), namespace)  # noqa: S102
    return namespace


@functools.cache
def adapter() -> type:
    """The `Logits` wrapper class of that block, executed in a fresh namespace."""
    namespace: dict = {"__name__": "diagnostics_md_adapter"}
    exec(compile(adapter_source(), f"{DIAGNOSTICS_MD}#how-to-use-these", "exec"), namespace)  # noqa: S102
    return namespace["Logits"]


@functools.cache
def diagnostic(name: str) -> Callable:
    """The function or class `name`, executed from its Markdown block in a fresh namespace (with the helpers)."""
    namespace = helpers_namespace(f"diagnostics_md_{name}")
    exec(compile(diagnostic_sources()[name], f"{DIAGNOSTICS_MD}#{name}", "exec"), namespace)  # noqa: S102
    return namespace[name]


@functools.cache
def program(bug: str, twin: str) -> ModuleType:
    """Import tests/bugzoo/<bug>/<twin>.py in-process (its main() does not run)."""
    path = ZOO / bug / f"{twin}.py"
    spec = importlib.util.spec_from_file_location(f"bugzoo_{bug}_{twin}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # importable by name, as torch.compile needs for a program's globals
    spec.loader.exec_module(module)
    return module


@dataclass
class Setup:
    """A fresh model and one training batch of a zoo program."""

    prog: ModuleType
    model: torch.nn.Module
    xb: torch.Tensor
    yb: torch.Tensor
    x: torch.Tensor
    y: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor

    @classmethod
    def of(cls, prog: ModuleType) -> Setup:
        x, y, x_val, y_val = prog.make_data()
        return cls(prog, prog.make_model(), x[:BATCH], y[:BATCH], x, y, x_val, y_val)

    def trained(self, logger_cls=None):
        """Run the program's own optimizer and loop; return the logger built around them, if any."""
        opt = self.prog.make_optimizer(self.model)
        logger = logger_cls(self.model, opt) if logger_cls else None
        self.prog.train(self.model, opt, self.x, self.y)
        return logger


# Each runner returns True when the diagnostic flags the program.

def _loss_at_init(s: Setup) -> bool:
    return diagnostic("loss_at_init")(s.model, s.xb, s.yb, task=s.prog.TASK)["flag"] is not None


def _overfit_one_batch(s: Setup) -> bool:
    # as its docstring asks: dropout off first; lr and steps as in the document's smoke test
    for module in s.model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    _, _, reached = diagnostic("overfit_one_batch")(s.model, s.xb, s.yb, s.prog.loss_fn, lr=1e-2, log_every=0)
    return not reached


def _gradient_flow(s: Setup) -> bool:
    report = diagnostic("gradient_flow")(s.model, s.prog.loss_fn(s.model(s.xb), s.yb), show=False)
    return any(report.values())


def _find_first_nonfinite(s: Setup) -> bool:
    # its usage: reproduce with the batch/step that produced the NaN, i.e. after the program's training
    # and, as its usage says, at the run's precision: the program's AUTOCAST dtype, if it trains under autocast
    s.trained()
    return diagnostic("find_first_nonfinite")(s.model, s.xb, amp=getattr(s.prog, "AUTOCAST", None)) is not None


def _update_ratio_logger(s: Setup) -> bool:
    logger = s.trained(diagnostic("UpdateRatioLogger"))
    flags = logger.summary()
    logger.close()
    # "high"/"low" are a rule-of-thumb band (its docstring); the facts are a frozen or broken parameter
    # and a gradient cleared before the step or never cleared
    return any(flag.startswith(("NOT MOVING", "NON-FINITE", "GRAD")) for flag in flags.values())


def _nan_poison_tracer(s: Setup) -> bool:
    module = getattr(s.prog, "INPUT_MODULE", None)
    return bool(diagnostic("nan_poison_tracer")(s.model.eval(), s.xb, index=POISON_INDEX, poison_module=module))


def _batch_independence_check(s: Setup) -> bool:
    module = getattr(s.prog, "INPUT_MODULE", None)
    return bool(diagnostic("batch_independence_check")(s.model, s.xb, index=POISON_INDEX, input_module=module,
                                                       train_mode=False))


def _class_balance(s: Setup) -> bool:
    if s.prog.TASK == "mse":
        return False  # no classes to count
    num_classes = getattr(s.prog, "NUM_CLASSES", 2)
    return diagnostic("class_balance")(s.y, num_classes=num_classes)["flag"] is not None


def _data_sanity(s: Setup) -> bool:
    return bool(diagnostic("data_sanity")((s.xb, s.yb), label_key="[1]"))


def _torch_warnings(s: Setup) -> bool:
    # its usage: a few of the program's own training steps (its loop on one batch), then one evaluation pass
    def steps_then_evaluate():
        s.prog.train(s.model, s.prog.make_optimizer(s.model), s.xb, s.yb)
        s.prog.evaluate(s.model, s.x_val, s.y_val)

    return bool(diagnostic("torch_warnings")(steps_then_evaluate)["torch"])


def _preprocessing_leak_check(s: Setup) -> bool:
    # only programs that expose their raw data and preprocessing (load_raw, prepare, heldout_rows) can be probed
    if not hasattr(s.prog, "prepare"):
        return False
    raw = s.prog.load_raw()
    n_rows = len(raw[0]) if isinstance(raw, tuple) else len(raw)

    def pipeline(r):
        x_train, y_train, x_val, y_val = s.prog.prepare(r)
        return (x_train, y_train), (x_val, y_val)

    report = diagnostic("preprocessing_leak_check")(pipeline, raw, s.prog.heldout_rows(n_rows))
    assert report["heldout_changed"], "the perturbation must reach the held-out side, or the check saw nothing"
    return report["flag"] is not None


def _eval_path_check(s: Setup) -> bool:
    # its usage: the program's evaluate on one training batch; its own loop on that batch as train_fn
    def train_fn(model):
        s.prog.train(model, s.prog.make_optimizer(model), s.xb, s.yb)

    return diagnostic("eval_path_check")(s.model, s.prog.evaluate, s.xb, s.yb, train_fn=train_fn)["flag"] is not None


def _activation_stats_logger(s: Setup) -> bool:
    # attached during the program's own training, like UpdateRatioLogger
    logger = diagnostic("ActivationStatsLogger")(s.model)
    s.prog.train(s.model, s.prog.make_optimizer(s.model), s.x, s.y)
    flags = logger.summary()
    logger.close()
    return bool(flags)


def _module_absmax(s: Setup) -> bool:
    # its usage: the batches before a failure, i.e. after the program's training, here the training batch
    s.trained()
    table = diagnostic("module_absmax")(s.model, [s.xb])
    limit = float(torch.finfo(torch.float16).max) / 8
    return any(math.isnan(v) or v > limit for row in table.values() for v in row)


RUNNERS: dict[str, Callable[[Setup], bool]] = {
    "loss_at_init": _loss_at_init,
    "overfit_one_batch": _overfit_one_batch,
    "gradient_flow": _gradient_flow,
    "find_first_nonfinite": _find_first_nonfinite,
    "UpdateRatioLogger": _update_ratio_logger,
    "nan_poison_tracer": _nan_poison_tracer,
    "batch_independence_check": _batch_independence_check,
    "class_balance": _class_balance,
    "data_sanity": _data_sanity,
    "torch_warnings": _torch_warnings,
    "preprocessing_leak_check": _preprocessing_leak_check,
    "eval_path_check": _eval_path_check,
    "ActivationStatsLogger": _activation_stats_logger,
    "module_absmax": _module_absmax,
}


@functools.cache
def flagged(bug: str, twin: str, name: str) -> bool:
    """Whether diagnostic `name` flags the program, on a fresh model; its printout is swallowed."""
    prog = program(bug, twin)
    with contextlib.redirect_stdout(io.StringIO()):
        torch.manual_seed(0)
        return RUNNERS[name](Setup.of(prog))


def not_applicable(bug: str, twin: str) -> dict[str, str]:
    """check name -> why its premise does not hold for this program (its NOT_APPLICABLE, if any)."""
    return dict(getattr(program(bug, twin), "NOT_APPLICABLE", {}))


def measured(bug: str, twin: str) -> frozenset[str]:
    """Names of the diagnostics that flag this program, leaving out those it declares not applicable."""
    skip = not_applicable(bug, twin)
    return frozenset(name for name in RUNNERS if name not in skip and flagged(bug, twin, name))
