"""The compatibility matrix of issue 27 (tests/compat_matrix.py): each check that takes a model, in every
cell of model kind x precision x batch form on the CPU, flags its buggy twin and stays quiet on its fixed
twin, or refuses in one line; the "works with" table in each check's section is the matrix's. And the
failure classes the issue lists, each as a named buggy/fixed pair."""

from __future__ import annotations

import contextlib
import copy
import io

import pytest

torch = pytest.importorskip(
    "torch", reason="these tests need PyTorch (CPU build: pip install torch==2.13.0 "
    "--index-url https://download.pytorch.org/whl/cpu)")
pytest.importorskip("transformers", reason="the matrix builds tiny transformers models from configs")
pytest.importorskip("peft", reason="the matrix builds a PEFT LoRA model")
nn = torch.nn

import compat_matrix as cm

# cells where a check is expected to refuse, with the words its one line must hold; none on this CPU build
# (fp16 autocast is supported on the CPU since PyTorch 2.4; an older build refuses it: see the refusal tests)
REFUSALS: dict[str, dict[tuple[str, str, str], str]] = {name: {} for name in cm.PROBES}
# cells where a check reports, as its documented result, that the input holds nothing for it: adapter_check
# on a model with no adapter (0 adapter parameters); everywhere else it must work
NOT_APPLICABLE: dict[str, set[tuple[str, str, str]]] = {
    name: {(k, p, f) for k in cm.KINDS for p in cm.PRECISIONS for f in cm.FORMS
           if cm.expected(name, (k, p, f)) == "not_applicable"} for name in cm.PROBES}
assert {name for name, cells in NOT_APPLICABLE.items() if cells} == {"adapter_check"}
assert len(NOT_APPLICABLE["adapter_check"]) == 36
HELD = sorted(set(cm.PROBES) - set(cm.CURRENT_BEHAVIOUR))


def run(fn, *args, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args, **kwargs)
    return result, out.getvalue()


@pytest.mark.parametrize("name", HELD)
def test_every_cell_works_or_refuses_as_expected(name):
    results = cm.outcomes(name)
    assert len(results) == len(cm.KINDS) * len(cm.PRECISIONS) * len(cm.FORMS) == 48
    expected = {cell: "refuses" if cell in REFUSALS[name] else "not_applicable" if cell in NOT_APPLICABLE[name]
                else "works" for cell in results}
    wrong = {cell: o for cell, o in results.items() if o.status != expected[cell]}
    assert wrong == {}
    for cell, words in REFUSALS[name].items():
        assert words in results[cell].detail and len(results[cell].detail.splitlines()) == 1


def test_every_check_is_held():
    """No check is left recorded at an old behaviour: each has its expectations and its table."""
    assert cm.CURRENT_BEHAVIOUR == () and HELD == sorted(cm.PROBES) and len(HELD) == 20


@pytest.mark.parametrize("name", HELD)
def test_the_table_in_the_text_is_the_matrix(name):
    text = (cm.ROOT / cm.CHECKS[name]).read_text(encoding="utf-8")
    want = cm.block(name, cm.outcomes(name))
    start = cm.TABLE_START.format(name=name)
    assert text.count(start) == 1, f"{cm.CHECKS[name]} has no (or two) generated tables for {name}"
    shown = text[text.index(start):text.index(cm.TABLE_END, text.index(start)) + len(cm.TABLE_END)]
    assert shown == want, f"regenerate with: python tests/compat_matrix.py --write\n{want}"


def test_the_table_says_what_a_cell_did():
    results = {key: cm.Outcome("works") for key in cm.outcomes("optimizer_coverage")}
    results[("module", "bf16", "dict")] = cm.Outcome("refuses", "[x] does not support y")
    row = [ln for ln in cm.table("x", results).splitlines() if ln.startswith("| nn.Module")][0]
    assert "| works: tensor, tuple; refuses: dict |" in row


# --- refusals: one line naming the input, never a traceback from inside the check -------------------------

def test_an_output_with_no_tensor_is_refused_in_one_line():
    class Text(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return "a string"

    for name, call in (("precision_gap", lambda fn: fn(Text(), torch.ones(1, 2))),
                       ("compile_parity", lambda fn: fn(Text(), torch.ones(1, 2), compile_fn=copy.deepcopy))):
        with pytest.raises(Exception) as caught:
            run(call, cm.check(name))
        assert type(caught.value).__name__ == "Refused"
        assert str(caught.value) == f"[{name}] does not support a model output of type str " \
                                    "(no tensor, .logits or first tensor)"


def test_an_autocast_this_build_would_disable_is_refused():
    fn = cm.check("precision_gap")
    with pytest.raises(Exception) as caught, pytest.warns(UserWarning):
        run(fn, nn.Linear(3, 2), torch.ones(2, 3), amp=torch.float64)  # CPU autocast: bf16 and fp16 only
    assert type(caught.value).__name__ == "Refused"
    assert str(caught.value) == "[precision_gap] does not support autocast to torch.float64 on cpu in this PyTorch build"


# --- the failure classes of issue 27, one pair each ---------------------------------------------------------

def _trained_llama():
    model = cm.build("causal_lm", seed=0)
    batch = {"input_ids": torch.randint(3, cm.VOCAB, (2, 5), generator=torch.Generator().manual_seed(3))}
    with torch.no_grad():
        saved_output = model(**batch).logits
    return model, batch, saved_output


def test_checkpoint_load_through_the_logits_wrapper_matches_keys():
    """The wrapper adds `model.` to every key; a load that reproduces the output is clean, one that drops keys is not."""
    fn, h = cm.check("checkpoint_load_check"), cm.helpers()
    model, batch, saved_output = _trained_llama()
    state = model.state_dict()
    good, _ = run(fn, h["Logits"](cm.build("causal_lm", seed=1)), lambda m: m.model.load_state_dict(state), state,
                  batch=batch, saved_output=saved_output)
    assert good["missing"] == good["unexpected"] == [] and not good["flag"] and good["max_output_diff"] == 0
    ddp = {"module." + k: v for k, v in state.items()}
    bad, _ = run(fn, h["Logits"](cm.build("causal_lm", seed=1)), lambda m: m.model.load_state_dict(ddp, strict=False),
                 ddp, batch=batch, saved_output=saved_output)
    # every weight the load skipped, under its bare name; the RMSNorm weights start at 1 as saved, so not them
    assert bad["flag"] and bad["unchanged"] == sorted(h["bare_key"](k) for k in state if "norm" not in k)


def test_checkpoint_load_on_the_meta_device_with_assign():
    fn = cm.check("checkpoint_load_check")
    source, x = cm.build("module"), torch.randn(4, 6)
    with torch.no_grad():
        saved_output = source(x)
    state = {k: v.clone() for k, v in source.state_dict().items()}
    with torch.device("meta"):
        fresh = cm.Plain().eval()
    good, _ = run(fn, fresh, lambda m: m.load_state_dict(state, assign=True), state, batch=x,
                  saved_output=saved_output)
    assert not good["flag"] and good["max_output_diff"] == 0 and good["still_meta"] == []
    with torch.device("meta"):
        skipped = cm.Plain().eval()
    partial = {k: v for k, v in state.items() if not k.startswith("head.")}
    bad, _ = run(fn, skipped, lambda m: m.load_state_dict(partial, assign=True, strict=False), state, batch=x,
                 saved_output=saved_output)
    assert bad["flag"] and bad["max_output_diff"] == float("inf")
    assert bad["unchanged"] == bad["still_meta"] == ["head.bias", "head.weight"]


def test_checkpoint_load_on_the_meta_device_sees_a_buffer_no_state_dict_holds():
    """Llama's rotary inv_freq is a non-persistent buffer: a meta build loaded with assign=True keeps it on meta."""
    fn = cm.check("checkpoint_load_check")
    model, batch, saved_output = _trained_llama()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.device("meta"):
        fresh = cm._llama().eval()
    report, _ = run(fn, fresh, lambda m: m.load_state_dict(state, assign=True), state, batch=batch,
                    saved_output=saved_output)
    assert report["flag"] and report["still_meta"] == ["rotary_emb.inv_freq", "rotary_emb.original_inv_freq"] and report["unchanged"] == []


def test_a_float32_checkpoint_into_a_bf16_model_is_a_load_not_a_difference():
    fn = cm.check("checkpoint_load_check")
    model, batch, saved_output = _trained_llama()
    state = model.state_dict()
    report, _ = run(fn, cm.build("causal_lm", seed=1).to(torch.bfloat16), lambda m: m.load_state_dict(state), state,
                    batch=batch, saved_output=saved_output)
    assert report["differs"] == [] and len(report["cast"]) == len(state) and not report["flag"]


def test_id_range_on_a_roberta_classifier_fed_bert_style_pairs():
    fn, h = cm.check("id_range_check"), cm.extras("id_range_check")
    model = cm.build("encoder_classifier")
    assert h["id_bounds"](model) == {"input_ids": cm.VOCAB, "token_type_ids": 1, "position_ids": cm.SEQ + 4}
    pair = {"input_ids": torch.randint(3, cm.VOCAB, (2, 6)), "token_type_ids": torch.tensor([[0, 0, 0, 1, 1, 1]] * 2)}
    report, _ = run(fn, pair, h["id_bounds"](model))
    assert report == {"token_type_ids": {"bad": 6, "min": 1, "max": 1, "size": 1,
                                         "first": [(0, 3), (0, 4), (0, 5)]}}
    assert run(fn, {**pair, "token_type_ids": torch.zeros(2, 6, dtype=torch.long)}, h["id_bounds"](model))[0] == {}
    assert h["id_bounds"](cm.build("causal_lm")) == {"input_ids": cm.VOCAB}  # model.embed_tokens, found by role


def test_eval_batch_size_reports_batchnorm_in_train_mode_at_size_1():
    fn = cm.check("eval_batch_size_check")
    model = cm.build("module").train()
    x = torch.randn(8, 6)
    report, printed = run(fn, lambda bs: torch.cat([model(x[i:i + bs]) for i in range(0, 8, bs)]).sum().item(),
                          batch_sizes=(1, 4, 8))
    assert report["flag"] == "fails_at_batch_size" and list(report["errors"]) == [1]
    assert "Expected more than 1 value per channel when training" in report["errors"][1]
    model.eval()
    assert run(fn, lambda bs: torch.cat([model(x[i:i + bs]) for i in range(0, 8, bs)]).sum().item(),
               batch_sizes=(1, 4, 8), atol=1e-4)[0]["flag"] is None
    with pytest.raises(ZeroDivisionError):  # failing at every size is the evaluation's bug: raised as it is
        run(fn, lambda bs: 1 / 0)


def test_compile_parity_sees_a_difference_next_to_a_large_offset():
    fn = cm.check("compile_parity")

    class Offset(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x):
            out = self.lin(x)
            return torch.cat([out[:, :1] + 1e4, out[:, 1:]], dim=1)

    def off(m):  # a compiled copy whose second and third outputs are 2% off
        m.register_forward_hook(lambda mod, a, out: torch.cat([out[:, :1], out[:, 1:] * 1.02], dim=1))
        return m

    torch.manual_seed(0)
    report, _ = run(fn, Offset(), torch.randn(5, 4), compile_fn=off)
    assert report["flag"] and 0.009 < report["rel_diff"] < 0.02  # 2% of a value against value + its feature's max


def test_first_divergence_names_the_adapter_layer_that_merging_broke():
    fn = cm.check("first_divergence")
    lora = cm.build("peft_lora")
    merged = copy.deepcopy(lora).merge_and_unload()
    batch = {"input_ids": torch.randint(3, cm.VOCAB, (2, 5))}
    assert run(fn, lora, merged, batch)[0]["module"] is None
    with torch.no_grad():
        merged.model.layers[0].self_attn.v_proj.weight.add_(0.5)  # merged with a wrong scale, say
    report, printed = run(fn, lora, merged, batch)
    assert report["module"] == "layers.0.self_attn.v_proj" and report["inputs"] is None


# --- the older checks of refs/diagnostics.md on the input helpers: what crashed before, one pair each -------

def _llama_batch(rows=4):
    return {"input_ids": torch.randint(3, cm.VOCAB, (rows, 5), generator=torch.Generator().manual_seed(5)),
            "attention_mask": torch.ones(rows, 5, dtype=torch.long)}


def test_find_first_nonfinite_on_a_bare_hf_model_and_a_dict_replays_fp16():
    """Before: model(dict) on a bare Hugging Face model crashed (only `Logits` took the dict). An fp16 overflow
    in one layer is named under amp=float16 and is finite in the float32 replay."""
    fn = cm.check("find_first_nonfinite")
    model = cm._hooked(cm.build("causal_lm"), cm.INNER["causal_lm"], lambda out: (out + 4e4) * 2)
    assert run(fn, model, _llama_batch())[0] is None
    found, printed = run(fn, model, _llama_batch(), amp=torch.float16)
    assert found["module"] == cm.INNER["causal_lm"] and found["type"] == "Linear" and not found["inputs_nonfinite"]
    assert run(fn, cm.build("causal_lm"), _llama_batch(), amp=torch.float16)[0] is None


def test_find_first_nonfinite_on_a_tuple_batch():
    """Before: a tuple batch went to the model as one argument (`linear(): ... must be Tensor, not tuple`)."""
    fn = cm.check("find_first_nonfinite")
    model = cm._hooked(cm.build("module"), "body.3", lambda out: out.log())  # a log of negative values
    found, _ = run(fn, model, (torch.randn(4, 6),))
    assert found["module"] == "body.3"
    assert run(fn, cm.build("module"), (torch.randn(4, 6),))[0] is None


def test_batch_independence_on_token_ids_reads_the_embeddings_by_itself():
    """Before: token ids without input_module raised TypeError (and a dict had no .is_floating_point)."""
    fn = cm.check("batch_independence_check")
    leaky = cm._hooked(cm.build("peft_lora"), cm.INNER["peft_lora"], lambda out: out + out.roll(1, dims=0))
    mixed, printed = run(fn, leaky, _llama_batch(), index=2, train_mode=False)
    assert [i for i, _ in mixed] == [(1,)]  # sample 2's output took sample 1's: gradient reaches sample 1 only
    assert run(fn, cm.build("peft_lora"), _llama_batch(), index=(2, 3), train_mode=False)[0] == []  # causal too


def test_batch_independence_refuses_token_ids_with_no_embedding_to_read():
    class Ids(nn.Module):  # takes token ids, has no get_input_embeddings
        def __init__(self):
            super().__init__()
            self.embed, self.head = nn.Embedding(9, 4), nn.Linear(4, 2)

        def forward(self, ids):
            return self.head(self.embed(ids))

    fn = cm.check("batch_independence_check")
    ids = torch.randint(0, 9, (3, 4))
    with pytest.raises(Exception) as caught:
        run(fn, Ids(), ids)
    assert type(caught.value).__name__ == "Refused" and str(caught.value) == (
        "[batch_independence_check] does not support a batch with no floating tensor without "
        "input_module='<name of the embedding layer>'")
    assert run(fn, Ids(), ids, input_module="embed")[0] == []
    with pytest.raises(Exception) as caught:
        run(fn, Ids(), ids, input_module="embedding")
    assert str(caught.value) == "[batch_independence_check] does not support input_module='embedding': no module of that name"


def test_nan_poison_tracer_on_a_dict_of_a_float_input_and_on_bf16_tokens():
    """Before: a dict (or tuple) batch crashed on .is_floating_point(); token ids needed poison_module."""
    fn = cm.check("nan_poison_tracer")
    x = {"x": torch.randn(8, 6)}
    assert run(fn, cm._hooked(cm.build("module"), "body.3", lambda out: out + out.roll(1, dims=0)).eval(), x,
               index=3)[0] == [(4,)]
    assert run(fn, cm.build("module").eval(), x, index=3)[0] == []
    leaky = cm._hooked(cm.build("encoder_classifier"), cm.INNER["encoder_classifier"],
                       lambda out: out + out.roll(1, dims=0)).to(torch.bfloat16)
    assert run(fn, leaky, _llama_batch(), index=0)[0] == [(1,)]
    assert run(fn, cm.build("encoder_classifier").to(torch.bfloat16), _llama_batch(), index=0)[0] == []


def test_module_absmax_reads_hf_outputs_and_dict_batches_under_autocast():
    """Before: model(dict) crashed on a bare model, and a Hugging Face output (a dict) gave its module no row."""
    fn = cm.check("module_absmax")
    model = cm.build("causal_lm")
    table, printed = run(fn, model, [_llama_batch(), _llama_batch(2)], amp=torch.bfloat16)
    assert "" in {k.replace("<root>", "") for k in table}  # the root's CausalLMOutput has its row
    assert all(len(v) == 2 for v in table.values()) and "over 8188 or non-finite: 0" in printed
    hot = cm._hooked(cm.build("causal_lm"), cm.INNER["causal_lm"], lambda out: out + 1e4)
    table, printed = run(fn, hot, [_llama_batch()], amp=torch.float16)
    assert table[cm.INNER["causal_lm"]][0] > 8188 and cm.INNER["causal_lm"] in printed


def test_loss_at_init_on_a_bare_causal_lm_and_its_refusal():
    """Before: a dict went to model(x) and a Hugging Face output had no .shape (only `Logits` worked)."""
    fn = cm.check("loss_at_init")
    batch = _llama_batch()
    shifted = nn.functional.pad(batch["input_ids"][:, 1:], (0, 1), value=-100)  # the usage line's labels
    report, _ = run(fn, cm.build("causal_lm"), batch, shifted, amp=torch.bfloat16)
    assert report["flag"] is None and abs(report["loss"] - report["chance"]) < 0.1 * report["chance"]
    biased = cm._hooked(cm.build("causal_lm"), "lm_head", lambda out: torch.cat([out[..., :1] + 10, out[..., 1:]], -1))
    assert run(fn, biased, batch, shifted)[0]["flag"] == "above_chance"
    with pytest.raises(Exception) as caught:  # the unshifted-by-slicing labels: one position short per row
        run(fn, cm.build("causal_lm"), batch, batch["input_ids"][:, 1:])
    assert type(caught.value).__name__ == "Refused" and str(caught.value) == (
        "[loss_at_init] does not support labels of shape (4, 4) for an output of shape (4, 5, 48) "
        "(task='ce': one class index per row of the last dimension)")


def test_overfit_one_batch_on_a_tuple_batch():
    """Before: a tuple batch went to the model as one argument and crashed."""
    fn = cm.check("overfit_one_batch")
    x, y = torch.randn(8, 6), torch.randint(0, cm.CLASSES, (8,))
    fixed = run(fn, cm.build("module"), (x,), y, nn.functional.cross_entropy, steps=200, lr=1e-2, log_every=0)[0]
    buggy = run(fn, cm.build("module"), (x,), y, lambda out, y: nn.functional.cross_entropy(out.softmax(-1), y),
                steps=200, lr=1e-2, log_every=0)[0]
    assert fixed[2] and not buggy[2]


def test_eval_path_check_does_not_compare_a_cache_object():
    """Before: a Llama's output holds a DynamicCache, a new object at every call, so the outputs always
    "differed" and an evaluation that calls model.eval() was flagged."""
    fn = cm.check("eval_path_check")
    model, batch, y = cm.build("causal_lm"), _llama_batch(), torch.randint(0, cm.VOCAB, (4, 5))

    def evaluate(m, x, y, switch=True):
        if switch:
            m.eval()
        with torch.no_grad():
            out = m(**x)  # returns past_key_values too
        return nn.functional.cross_entropy(out.logits.flatten(0, 1), y.flatten()).item()

    assert run(fn, model, evaluate, batch, y)[0]["flag"] is None
    dropout = cm._hooked(cm.build("causal_lm"), "lm_head", lambda out: nn.functional.dropout(out, 0.1))
    assert run(fn, dropout, evaluate, batch, y)[0]["flag"] == "eval_depends_on_mode"  # sampling in every mode


def test_skill_md_states_the_matrix_as_held_here():
    """SKILL.md's one compatibility line: the number of checks, every cell working (no refusal expected), the
    one not-applicable case, and the CUDA column not run; test_every_cell_works_or_refuses_as_expected holds
    the cells themselves."""
    text = (cm.ROOT / "SKILL.md").read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("- **Compatibility**"))
    assert f"{len(HELD)} checks flag their bug and spare its fix in every CPU cell" in line
    assert all(not cells for cells in REFUSALS.values())
    assert {name for name, cells in NOT_APPLICABLE.items() if cells} == {"adapter_check"} and "`adapter_check` reports 0 adapters" in line
    assert "The CUDA column has not been run" in line
    for name in HELD:  # "the table at the end of each check's section"
        assert cm.TABLE_START.format(name=name) in (cm.ROOT / cm.CHECKS[name]).read_text(encoding="utf-8")


def test_data_sanity_counts_samples_not_mask_rows():
    """Before: every unpadded batch dict was flagged, its attention mask (and token type ids) having "duplicate
    rows"; a sample is a row of every field at once."""
    fn = cm.check("data_sanity")
    batch = _llama_batch(6)
    batch["token_type_ids"] = torch.zeros(6, 5, dtype=torch.long)
    labels = torch.tensor([0, 1, 2, 0, 1, 2])
    for form in (batch, tuple(batch.values())):
        findings, printed = run(fn, (form, labels))
        assert findings == [] and "repeated rows: 5" in printed  # shown on the mask, not a finding
    again = {k: v.clone() for k, v in batch.items()}
    again["input_ids"][4] = again["input_ids"][1]
    findings, _ = run(fn, (again, labels))
    assert findings == ["1 duplicate samples (batch[0].input_ids, batch[0].attention_mask, batch[0].token_type_ids)"]


def test_update_ratio_names_updates_rounded_away_in_bf16():
    """An AdamW step of 1e-3 on a norm weight of 1.0 is under half a bf16 step: the weight does not move, and
    the flag says why (in float32 the same loop moves every weight)."""
    cls, h = cm.check("UpdateRatioLogger"), cm.helpers()
    for dtype in (torch.bfloat16, torch.float32):
        cell = cm.Cell("causal_lm", "bf16" if dtype == torch.bfloat16 else "float32", "dict", torch.device("cpu"))
        model = cell.model().train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        logger = cls(model, opt)
        for _ in range(3):
            opt.zero_grad()
            cm._ce(cm._logits(cell, model, cell.batch(cell.inputs()), h), cm._targets(cell)).backward()
            opt.step()
        flags, _ = run(logger.summary)
        logger.close()
        stuck = sorted(n for n, f in flags.items() if f.startswith("NOT MOVING"))
        if dtype == torch.bfloat16:
            assert stuck and all(n.endswith("norm.weight") for n in stuck)
            assert all("rounded away" in flags[n] for n in stuck)
        else:
            assert stuck == []
