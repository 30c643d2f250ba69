"""Run the checks of the newer reference files (every file with a check-per-row evidence table, found
by tests/zoo_tables.py) on the bug zoo, the way tests/zoo_harness.py runs refs/diagnostics.md.

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
import zoo_tables

ROOT = zoo.ROOT
FILES = zoo_tables.check_files()  # check -> the file whose evidence table lists it
EVIDENCE_HEADING = zoo_tables.EVIDENCE_HEADING
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


@functools.cache
def source(name: str) -> str:
    """The first python block under the ### `name` heading of the check's file."""
    text = (ROOT / FILES[name]).read_text(encoding="utf-8")
    after = text.split(f"### `{name}`\n", 1)[1]
    return _BLOCK.search(after.split("\n## ", 1)[0]).group(1)


@functools.cache
def check(name: str) -> Callable:
    src = source(name)
    # a check block that uses the input helpers says so; they run first, as its comment asks a reader to
    namespace = zoo.helpers_namespace(f"refs_md_{name}") if zoo.HELPERS_MARK in src else {"__name__": f"refs_md_{name}"}
    exec(compile(src, f"{FILES[name]}#{name}", "exec"), namespace)  # noqa: S102
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
    return bool(report["norm_in_train_mode"] or report["batch_statistics"] or report["buffers_changed"]
                or report["parameters_changed"] or report["outputs_vary"] or report["batch_dependent"])


def _adapter_check(s: zoo.Setup) -> bool | None:
    report = check("adapter_check")(s.model, step=lambda: s.prog.loss_fn(s.model(s.xb), s.yb))
    if report["adapter_params"] == 0:
        return None  # no adapters in this model
    return bool(report["frozen_adapters"] or report["adapters_without_gradient"])


def _best_action_probe(s: zoo.Setup) -> bool | None:
    # one decision per input with a known best action: a classifier's label or a bandit's right arm
    if s.prog.TASK != "ce" or s.yb.dim() != 1:
        return None
    with torch.no_grad():
        if s.model(s.xb).dim() != 2:
            return None
    before, after = check("best_action_probe")(s.model, s.xb, s.yb, s.prog.loss_fn)
    return after < before


def _id_range(s: zoo.Setup) -> bool | None:
    # the first batch before any training: labels against the width of the logits the loss sees,
    # token inputs against the rows of the program's input embedding
    tensors, sizes = {}, {}
    if s.prog.TASK == "ce":
        with torch.no_grad():
            tensors["labels"], sizes["labels"] = s.yb, s.model(s.xb).shape[-1]
    module = getattr(s.prog, "INPUT_MODULE", None)
    if module is not None and isinstance(getattr(s.model, module), torch.nn.Embedding):
        tensors["inputs"], sizes["inputs"] = s.xb, getattr(s.model, module).num_embeddings
    if not sizes:
        return None
    return bool(check("id_range_check")(tensors, sizes, ignore={"labels": -100}))


def _checkpoint_load(s: zoo.Setup) -> bool | None:
    # programs that save and restore a checkpoint: trained by their own loop, saved by their own code,
    # loaded by their own code into a freshly built model; the saved model's output on the batch is the reference
    if not hasattr(s.prog, "load_checkpoint"):
        return None
    s.trained()
    state = s.prog.save_checkpoint(s.model)
    s.model.eval()
    with torch.no_grad():
        saved_output = s.model(s.xb)
    like = next(s.model.parameters())  # the fresh model on the saved model's device and in its dtype
    fresh = s.prog.make_model().to(device=like.device, dtype=like.dtype)
    report = check("checkpoint_load_check")(fresh, lambda m: s.prog.load_checkpoint(m, state), state,
                                            batch=s.xb, saved_output=saved_output)
    return report["flag"]


def _compile_parity(s: zoo.Setup) -> bool | None:
    # only programs that compile their model offer how (compile_model); Inductor on CPU is slow
    if not hasattr(s.prog, "compile_model"):
        return None
    return check("compile_parity")(s.model, s.xb, compile_fn=s.prog.compile_model)["flag"]


def _precision_gap(s: zoo.Setup) -> bool | None:
    # its usage: the model in the run's dtype and one real batch
    return check("precision_gap")(s.model, s.xb)["flag"]


def _optimizer_coverage(s: zoo.Setup) -> bool | None:
    # its usage: after the program's own set-up, here its loop on one batch (a wrap may happen there)
    optimizer = s.prog.make_optimizer(s.model)
    s.prog.train(s.model, optimizer, s.xb, s.yb)
    return check("optimizer_coverage")(s.model, optimizer)["flag"]


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
    "id_range_check": _id_range,
    "checkpoint_load_check": _checkpoint_load,
    "compile_parity": _compile_parity,
    "precision_gap": _precision_gap,
    "optimizer_coverage": _optimizer_coverage,
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
        for name, bugs in zoo_tables.table_rows((ROOT / path).read_text(encoding="utf-8")).items():
            if name in FILES:
                claims[name] = bugs
    return claims


def doc_files() -> list[Path]:
    return [ROOT / p for p in sorted(set(FILES.values()))]
