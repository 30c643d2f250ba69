"""Run the checks of the newer reference files (refs/tabular.md, refs/systems.md, refs/finetuning.md,
rl/rewards.md, refs/trainers.md, refs/evaluation.md, refs/serving.md) on the bug zoo, the way tests/zoo_harness.py runs refs/diagnostics.md.

Each check is the first ```python block under a ``### `name` `` heading of its file, executed in a
fresh namespace. A check needs what its premise needs (labels that build features, a binning, a
one-step decision with a known best action): its runner returns None where the program does not
offer it, and the evidence tables list only the programs a check flags.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import re
from collections.abc import Callable
from pathlib import Path

import torch

import zoo_harness as zoo

ROOT = zoo.ROOT
FILES = {
    "label_permutation_check": "refs/tabular.md",
    "bin_roundtrip_check": "refs/tabular.md",
    "inference_side_effects": "refs/systems.md",
    "adapter_check": "refs/finetuning.md",
    "best_action_probe": "rl/rewards.md",
    "accumulation_check": "refs/trainers.md",
    "eval_batch_size_check": "refs/evaluation.md",
    "prompt_parity_check": "refs/serving.md",
}
EVIDENCE_HEADING = "## Evidence: the bug zoo"
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


@functools.cache
def source(name: str) -> str:
    """The first python block under the ### `name` heading of the check's file."""
    text = (ROOT / FILES[name]).read_text(encoding="utf-8")
    after = text.split(f"### `{name}`\n", 1)[1]
    return _BLOCK.search(after.split("\n## ", 1)[0]).group(1)


@functools.cache
def check(name: str) -> Callable:
    namespace: dict = {"__name__": f"refs_md_{name}"}
    exec(compile(source(name), f"{FILES[name]}#{name}", "exec"), namespace)  # noqa: S102
    return namespace[name]


def _label_permutation(s: zoo.Setup) -> bool | None:
    if not hasattr(s.prog, "featurize"):
        return None
    return bool(check("label_permutation_check")(s.prog.featurize, s.y))


def _bin_roundtrip(s: zoo.Setup) -> bool | None:
    if not hasattr(s.prog, "binning"):
        return None
    return check("bin_roundtrip_check")(*s.prog.binning())["wrong"] > 0


def _inference_side_effects(s: zoo.Setup) -> bool | None:
    # its usage: wrap the program's own evaluation; dropout in train mode is reported, not flagged
    report = check("inference_side_effects")(s.model, lambda: s.prog.evaluate(s.model, s.x_val, s.y_val))
    return bool(report["norm_in_train_mode"] or report["buffers_changed"])


def _adapter_check(s: zoo.Setup) -> bool | None:
    report = check("adapter_check")(s.model)
    if report["adapter_params"] == 0:
        return None  # no adapters in this model
    return bool(report["frozen_adapters"])


def _best_action_probe(s: zoo.Setup) -> bool | None:
    # one decision per input with a known best action: a classifier's label or a bandit's right arm
    if s.prog.TASK != "ce" or s.yb.dim() != 1:
        return None
    with torch.no_grad():
        if s.model(s.xb).dim() != 2:
            return None
    before, after = check("best_action_probe")(s.model, s.xb, s.yb, s.prog.loss_fn)
    return after < before


def _accumulation_check(s: zoo.Setup) -> bool | None:
    # a loop with gradient accumulation exposes the loss it backpropagates per micro-batch
    if not hasattr(s.prog, "accumulation_loss"):
        return None
    size, steps = s.prog.MICRO_BATCH, s.prog.ACCUM_STEPS
    micro = [(s.xb[i:i + size], s.yb[i:i + size]) for i in range(0, size * steps, size)]
    n_items = sum(int((y != -100).sum()) for _, y in micro)
    x_all, y_all = torch.cat([x for x, _ in micro]), torch.cat([y for _, y in micro])
    report = check("accumulation_check")(
        s.model, lambda: [s.prog.accumulation_loss(s.model(x), y, n_items) for x, y in micro],
        lambda: s.prog.loss_fn(s.model(x_all), y_all))
    return report["flag"] is not None


def _eval_batch_size_check(s: zoo.Setup) -> bool | None:
    # only an evaluation that can be batched differently can be scored at several batch sizes
    if "batch_size" not in inspect.signature(s.prog.evaluate).parameters:
        return None
    report = check("eval_batch_size_check")(lambda bs: s.prog.evaluate(s.model, s.x_val, s.y_val, batch_size=bs))
    return report["flag"] is not None


def _prompt_parity_check(s: zoo.Setup) -> bool | None:
    # a chat program exposes its serving rendering beside its training rows
    if not hasattr(s.prog, "serve_prompt"):
        return None
    row = s.xb[:1]
    serve = s.prog.serve_prompt(s.prog.content_of(row))
    report = check("prompt_parity_check")(row[0].tolist(), serve[0].tolist(), s.prog.answer_of(row).tolist())
    return report["flag"] is not None


RUNNERS: dict[str, Callable[[zoo.Setup], bool | None]] = {
    "label_permutation_check": _label_permutation,
    "bin_roundtrip_check": _bin_roundtrip,
    "inference_side_effects": _inference_side_effects,
    "adapter_check": _adapter_check,
    "best_action_probe": _best_action_probe,
    "accumulation_check": _accumulation_check,
    "eval_batch_size_check": _eval_batch_size_check,
    "prompt_parity_check": _prompt_parity_check,
}


@functools.cache
def outcome(bug: str, twin: str, name: str) -> bool | None:
    """True/False: the check flags / clears the program; None: the program does not offer what it needs."""
    prog = zoo.program(bug, twin)
    with contextlib.redirect_stdout(io.StringIO()):
        torch.manual_seed(0)
        return RUNNERS[name](zoo.Setup.of(prog))


def evidence_claims() -> dict[str, frozenset[str]]:
    """check -> zoo programs its file's evidence table says it flags."""
    claims = {}
    for path in sorted(set(FILES.values())):
        text = (ROOT / path).read_text(encoding="utf-8")
        section = text.split(EVIDENCE_HEADING, 1)[1].split("\n## ", 1)[0]
        for line in section.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and re.fullmatch(r"`\w+`", cells[0]) and cells[0].strip("`") in FILES:
                claims[cells[0].strip("`")] = frozenset(re.findall(r"`(\w+)`", cells[1]))
    return claims


def doc_files() -> list[Path]:
    return [ROOT / p for p in sorted(set(FILES.values()))]
