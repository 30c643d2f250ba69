"""Run the checks of the newer reference files (refs/tabular.md, refs/systems.md, refs/finetuning.md,
rl/rewards.md) on the bug zoo, the way tests/zoo_harness.py runs refs/diagnostics.md.

Each check is the first ```python block under a ``### `name` `` heading of its file, executed in a
fresh namespace. A check needs what its premise needs (labels that build features, a binning, a
one-step decision with a known best action): its runner returns None where the program does not
offer it, and the evidence tables list only the programs a check flags.
"""

from __future__ import annotations

import contextlib
import functools
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
    # its usage: wrap the program's own evaluation, with a validation batch to score whole and halved;
    # dropout modules in train mode are reported, not flagged (MC dropout is legitimate)
    report = check("inference_side_effects")(s.model, lambda: s.prog.evaluate(s.model, s.x_val, s.y_val),
                                             x=s.x_val[:zoo.BATCH])
    return bool(report["norm_in_train_mode"] or report["buffers_changed"] or report["outputs_vary"]
                or report["batch_dependent"])


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


RUNNERS: dict[str, Callable[[zoo.Setup], bool | None]] = {
    "label_permutation_check": _label_permutation,
    "bin_roundtrip_check": _bin_roundtrip,
    "inference_side_effects": _inference_side_effects,
    "adapter_check": _adapter_check,
    "best_action_probe": _best_action_probe,
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
