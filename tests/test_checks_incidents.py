"""Three incident checks on the inputs users pass them (issue 27): prompt_parity_check on a byte-level
BPE tokenizer trained here and on left-padded batches, adapter_check on LoRA inside reentrant
activation checkpointing (a tiny transformers model from a config, wrapped by peft), and
inference_side_effects on layers whose eval behaviour depends on the batch or writes state.
Each buggy setup has a fixed twin that must stay quiet; nothing downloads."""

from __future__ import annotations

import contextlib
import io

import pytest

torch = pytest.importorskip(
    "torch", reason="these tests need PyTorch (CPU build: pip install torch==2.13.0 "
    "--index-url https://download.pytorch.org/whl/cpu)")
nn = torch.nn

import zoo_coverage as cov


def run(name, *args, **kwargs):
    """Call a check of the reference files as written; return (result, printed text)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = cov.check(name)(*args, **kwargs)
    return result, out.getvalue()


@pytest.fixture(autouse=True)
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# --- prompt_parity_check: byte-level BPE, left padding, printed ids ------------------------------

SPECIAL = ["<pad>", "<s>", "<|user|>", "<|assistant|>", "<|end|>"]


@pytest.fixture(scope="module")
def bpe():
    """A byte-level BPE tokenizer trained here: a reply after a space is one 'Ġfour' token in context."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    corpus = ["what is two plus two? four", "what is three plus one? four", "what is one plus one? two"] * 20
    tok.train_from_iterator(corpus, tokenizers.trainers.BpeTrainer(
        vocab_size=300, special_tokens=SPECIAL, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    return tok


def render(messages, add_generation_prompt):
    text = "<s>" + "".join(f"<|{m['role']}|> {m['content']}<|end|>" for m in messages)
    return text + ("<|assistant|>" if add_generation_prompt else "")


CHATS = [[{"role": "user", "content": q}, {"role": "assistant", "content": a}]
         for q, a in [("what is two plus two?", "four"), ("what is three plus one plus one plus one?", "four")]]


def collate(tok, chats):
    """Left-padded input_ids, attention_mask and labels (-100 up to the reply, found by character offsets)."""
    rows = []
    for chat in chats:
        text = render(chat, False)
        enc = tok.encode(text)
        reply_start = text.rindex("<|assistant|>") + len("<|assistant|>")
        labels = [i if end > reply_start else -100 for i, (_, end) in zip(enc.ids, enc.offsets)]
        rows.append((enc.ids, labels))
    width = max(len(ids) for ids, _ in rows)
    pad = tok.token_to_id("<pad>")
    batch = {"input_ids": [], "attention_mask": [], "labels": []}
    for ids, labels in rows:
        gap = width - len(ids)
        batch["input_ids"].append([pad] * gap + ids)
        batch["attention_mask"].append([0] * gap + [1] * len(ids))
        batch["labels"].append([-100] * gap + labels)
    return {k: torch.tensor(v) for k, v in batch.items()}


def serve(tok, chat, generation_prompt=True):
    return torch.tensor(tok.encode(render(chat[:1], generation_prompt)).ids)


def test_byte_level_reply_is_found_where_the_reply_encoded_alone_is_not(bpe):
    batch = collate(bpe, CHATS[:1])
    alone = bpe.encode("four").ids
    assert alone not in [batch["input_ids"][0].tolist()[i:i + len(alone)] for i in range(batch["input_ids"].shape[1])]
    # the reply re-encoded alone, as the old usage did: found through its decoded text
    report, _ = run("prompt_parity_check", batch["input_ids"][0], serve(bpe, CHATS[0]), alone, decode=bpe.decode)
    assert report["flag"] is None
    # without decode there is nothing to match on: refused in one line, not a false difference
    report, printed = run("prompt_parity_check", batch["input_ids"][0], serve(bpe, CHATS[0]), alone)
    assert report["flag"] == "answer_not_found" and "pass labels=" in printed
    # labels: the documented usage
    good, _ = run("prompt_parity_check", batch["input_ids"][0], serve(bpe, CHATS[0]), labels=batch["labels"][0])
    bad, _ = run("prompt_parity_check", batch["input_ids"][0], serve(bpe, CHATS[0], generation_prompt=False),
                 labels=batch["labels"][0])
    assert good["flag"] is None
    assert bad["flag"] == "serving_prompt_is_short" and bad["first_difference"] == len(bad["serving_prompt"])


def test_left_padded_row_compares_after_the_padding(bpe):
    batch = collate(bpe, CHATS)
    assert batch["attention_mask"][0, 0] == 0  # the shorter conversation is the padded one
    row = {k: v[0] for k, v in batch.items()}
    good, _ = run("prompt_parity_check", row["input_ids"], serve(bpe, CHATS[0]), labels=row["labels"],
                  train_mask=row["attention_mask"])
    bad, _ = run("prompt_parity_check", row["input_ids"], serve(bpe, CHATS[0], generation_prompt=False),
                 labels=row["labels"], train_mask=row["attention_mask"])
    assert good["flag"] is None
    assert bad["flag"] == "serving_prompt_is_short" and bad["first_difference"] == len(bad["serving_prompt"])
    # without the mask the padding is a difference at position 0, and the message says why
    unmasked, printed = run("prompt_parity_check", row["input_ids"], serve(bpe, CHATS[0]), labels=row["labels"])
    assert unmasked["flag"] == "differs" and unmasked["first_difference"] == 0
    assert "left padding? pass train_mask=" in printed


def test_ids_from_tensors_are_printed_as_ints(bpe):
    batch = collate(bpe, CHATS[:1])
    report, printed = run("prompt_parity_check", list(batch["input_ids"][0]), serve(bpe, CHATS[0], False),
                          labels=batch["labels"][0])
    assert report["flag"] == "serving_prompt_is_short"
    assert "tensor(" not in printed and "training continues [" in printed
    assert all(type(t) is int for t in report["training_prompt"] + report["serving_prompt"])


def test_a_collated_row_and_a_tokenizer_output_are_read_as_they_come(bpe):
    """Before: a dict row or a (1, T) tokenizer output went through int() element by element and crashed."""
    transformers = pytest.importorskip("transformers")
    batch = collate(bpe, CHATS)
    row = {k: v[0] for k, v in batch.items()}  # left-padded: its mask and labels come with it
    served = transformers.BatchEncoding({"input_ids": serve(bpe, CHATS[0])[None],
                                         "attention_mask": torch.ones(1, len(serve(bpe, CHATS[0])), dtype=torch.long)})
    good, _ = run("prompt_parity_check", row, served)
    assert good["flag"] is None
    bad, _ = run("prompt_parity_check", row, serve(bpe, CHATS[0], generation_prompt=False)[None])
    assert bad["flag"] == "serving_prompt_is_short" and bad["first_difference"] == len(bad["serving_prompt"])


def test_a_batch_of_several_rows_is_refused_in_one_line(bpe):
    batch = collate(bpe, CHATS)
    with pytest.raises(Exception) as caught:
        run("prompt_parity_check", batch["input_ids"], serve(bpe, CHATS[0]), labels=batch["labels"])
    assert type(caught.value).__name__ == "Refused"
    assert str(caught.value) == ("[prompt_parity_check] does not support train_ids of shape (2, "
                                 f"{batch['input_ids'].shape[1]}): pass one row, e.g. batch['input_ids'][i]")


# --- inference_side_effects: batch statistics and written state, without x ---------------------

XS = torch.randn(16, 4, generator=torch.Generator().manual_seed(0))


def evaluate(model, x, batch_size=8):
    """Evaluation code as users write it: eval mode, no_grad, in batches; x is not passed to the check."""
    model.eval()
    with torch.no_grad():
        return torch.cat([model(x[i:i + batch_size]) for i in range(0, len(x), batch_size)])


class BatchStandardise(nn.Module):
    """Standardises each feature with the batch's mean and std: a row's output depends on its batch."""

    def forward(self, h):
        return (h - h.mean(0)) / (h.std(0) + 1e-5)


class RowStandardise(nn.Module):
    """The fixed twin: each row standardised over its own features."""

    def forward(self, h):
        return (h - h.mean(1, keepdim=True)) / (h.std(1, keepdim=True) + 1e-5)


class ActNorm(nn.Module):
    """Data-dependent init on the first forward (Glow's ActNorm); the flag is a buffer or a plain attribute."""

    def __init__(self, width, flag_in_state_dict):
        super().__init__()
        self.loc, self.scale = nn.Parameter(torch.zeros(width)), nn.Parameter(torch.ones(width))
        if flag_in_state_dict:
            self.register_buffer("initialised", torch.tensor(False))
        else:
            self.initialised = False  # not saved: a reloaded model initialises again on its first batch

    def forward(self, h):
        if not bool(self.initialised):
            with torch.no_grad():
                self.loc.copy_(-h.mean(0))
                self.scale.copy_(1 / (h.std(0) + 1e-6))
            if torch.is_tensor(self.initialised):
                self.initialised.fill_(True)
            else:
                self.initialised = True
        return (h + self.loc) * self.scale


def reloaded_actnorm(flag_in_state_dict):
    torch.manual_seed(0)
    trained = nn.Sequential(nn.Linear(4, 8), ActNorm(8, flag_in_state_dict), nn.Linear(8, 2))
    trained(torch.randn(64, 4))  # initialised on a training batch
    fresh = nn.Sequential(nn.Linear(4, 8), ActNorm(8, flag_in_state_dict), nn.Linear(8, 2))
    fresh.load_state_dict(trained.state_dict())
    return fresh


def side_effects(model):
    report, _ = run("inference_side_effects", model, lambda: evaluate(model, XS))
    return report


FLAGS = ("norm_in_train_mode", "batch_statistics", "buffers_changed", "parameters_changed", "outputs_vary",
         "batch_dependent")


def raised(report):
    return {k for k in FLAGS if report[k]}


def test_batchnorm_without_running_stats_is_caught_without_x():
    torch.manual_seed(0)
    buggy = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8, track_running_stats=False), nn.Linear(8, 2))
    fixed = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
    report = side_effects(buggy)
    assert report["batch_statistics"] == ["1"] and report["batch_dependent"] is True
    assert raised(report) == {"batch_statistics", "batch_dependent"}
    assert raised(side_effects(fixed)) == set()


def test_hand_written_batch_standardisation_is_caught_without_x():
    torch.manual_seed(0)
    buggy = nn.Sequential(nn.Linear(4, 8), BatchStandardise(), nn.Linear(8, 2))
    fixed = nn.Sequential(nn.Linear(4, 8), RowStandardise(), nn.Linear(8, 2))
    assert raised(side_effects(buggy)) == {"batch_dependent"}
    assert raised(side_effects(fixed)) == set()


def test_parameters_overwritten_by_the_first_eval_batch_are_caught():
    report = side_effects(reloaded_actnorm(flag_in_state_dict=False))
    assert report["parameters_changed"] == ["1.loc", "1.scale"]
    assert raised(report) == {"parameters_changed"}  # the two calls agree: outputs_vary alone missed it
    assert raised(side_effects(reloaded_actnorm(flag_in_state_dict=True))) == set()


def test_batch_comparison_is_skipped_on_two_rows():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), BatchStandardise(), nn.Linear(8, 2)).eval()
    report, _ = run("inference_side_effects", model, lambda: model(XS), x=XS[:2])
    assert report["batch_dependent"] is None


class TwoInputs(nn.Module):
    """A model that takes two tensors; with `mix`, a row's output depends on the other rows (batch mean)."""

    def __init__(self, mix):
        super().__init__()
        self.lin, self.mix = nn.Linear(4, 2), mix

    def forward(self, a, b):
        h = self.lin(a + b)
        return h - h.mean(0) if self.mix else h


def test_a_tuple_batch_is_scored_as_the_model_takes_it():
    """Before: x= was passed as model(x), so a tuple batch crashed (forward() missing argument 'b')."""
    for mix in (True, False):
        model = TwoInputs(mix).eval()
        report, _ = run("inference_side_effects", model, lambda m=model: m(XS, XS), x=(XS, XS))
        assert report["batch_dependent"] is mix


def test_a_bare_hf_model_is_scored_on_its_batch_dict_under_autocast():
    """Before: a dict x= went to model(x), which a bare Hugging Face model rejects; `Logits` was needed."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=2, max_position_embeddings=16)).eval()
    batch = {"input_ids": torch.randint(0, 32, (6, 5)), "attention_mask": torch.ones(6, 5, dtype=torch.long)}

    def evaluate():
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            return model(**batch).logits

    report, _ = run("inference_side_effects", model, evaluate, x=batch, amp=torch.bfloat16)
    assert report["batch_dependent"] is False and not report["outputs_vary"] and report["buffers_changed"] == []


# --- adapter_check: LoRA inside reentrant activation checkpointing, a trainable head --------------

def lora_llama(use_reentrant):
    """A tiny Llama from a config, LoRA on q/v with a trainable lm_head, activation checkpointing on and
    the inputs not requiring grad (what transformers 4.x left when checkpointing was enabled after
    get_peft_model; transformers 5 calls enable_input_require_grads itself, undone here)."""
    transformers = pytest.importorskip("transformers")
    peft = pytest.importorskip("peft")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32)
    model = peft.get_peft_model(transformers.LlamaForCausalLM(config),
                                peft.LoraConfig(r=2, target_modules=["q_proj", "v_proj"], modules_to_save=["lm_head"]))
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": use_reentrant})
    model.base_model.model.disable_input_require_grads()
    return model.train()


@pytest.mark.filterwarnings("ignore")
def test_adapter_check_catches_lora_inside_reentrant_checkpointing():
    ids = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(1))
    reports = {}
    for use_reentrant in (True, False):
        model = lora_llama(use_reentrant)
        before, _ = run("adapter_check", model)
        assert before["frozen_adapters"] == [] and before["adapters_without_gradient"] == []  # the old verdict: clean
        reports[use_reentrant], _ = run("adapter_check", model, step=lambda m=model: m(input_ids=ids, labels=ids).loss)
        assert all(p.grad is None for p in model.parameters())  # the check put the gradients back
    adapters = sorted(n for n, _ in lora_llama(True).named_parameters() if "lora_" in n and ".default." in n)
    assert len(adapters) == 8
    assert sorted(reports[True]["adapters_without_gradient"]) == adapters
    # the fixed twin: lora_A's gradient is exactly zero while lora_B is zero (LoRA's init), not listed
    assert reports[False]["adapters_without_gradient"] == []


# --- refs/trainers.md: num_items_in_batch over the shifted labels of a causal LM -----------------

def test_causal_lm_token_count_is_over_the_shifted_labels(tmp_path):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32)
    model = transformers.LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 64, (3, 8), generator=torch.Generator().manual_seed(2))
    labels = ids.clone()
    labels[0, 5:] = -100  # a padded row
    shifted, unshifted = int((labels[..., 1:] != -100).sum()), int((labels != -100).sum())
    assert unshifted - shifted == 3  # one per row whose first label is a token
    with torch.no_grad():
        mean = model(input_ids=ids, labels=labels).loss
        over_shifted = model(input_ids=ids, labels=labels, num_items_in_batch=shifted).loss
        over_all = model(input_ids=ids, labels=labels, num_items_in_batch=unshifted).loss
    assert torch.allclose(over_shifted, mean)
    assert not torch.allclose(over_all, mean) and torch.allclose(over_all * unshifted, mean * shifted)
    # the Trainer's own count in the installed version
    args = transformers.TrainingArguments(output_dir=str(tmp_path), report_to=[], use_cpu=True)
    trainer = transformers.Trainer(model=model, args=args)
    assert int(trainer._get_num_items_in_batch([{"input_ids": ids, "labels": labels}], torch.device("cpu"))) == shifted


# --- the checks added for the router rows of issue 27 (refs/systems.md) -------------------------

def systems_check(name):
    """The first python block under the ### `name` heading of refs/systems.md, executed alone."""
    text = (cov.ROOT / "refs" / "systems.md").read_text(encoding="utf-8")
    block = text.split(f"### `{name}`\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace = {"__name__": f"systems_md_{name}"}
    exec(compile(block, f"refs/systems.md#{name}", "exec"), namespace)  # noqa: S102
    out = io.StringIO()

    def call(*args, **kwargs):
        with contextlib.redirect_stdout(out):
            return namespace[name](*args, **kwargs)

    return call


def training_step(accumulate):
    """One SGD step per call; `accumulate(loss)` is what the loop keeps of each loss."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(0)

    def step():
        x, y = torch.randn(32, 16, generator=gen), torch.randint(0, 4, (32,), generator=gen)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        accumulate(loss)

    return step


def test_memory_growth_sees_a_running_total_that_keeps_its_graph():
    memory_growth = systems_check("memory_growth")
    total, total_item = [torch.zeros(())], [0.0]

    def keep(loss):  # `total += loss`: one tensor, whose graph grows by a step's graph every step
        total[0] = total[0] + loss

    def keep_item(loss):
        total_item[0] = total_item[0] + loss.item()

    assert memory_growth(training_step(keep))["growing"] == ["graph_nodes"]
    # AdamW's state appears at the first step, inside the warmup: no growth after it
    assert memory_growth(training_step(keep_item))["growing"] == []


def test_gradient_coverage_finds_an_unused_layer_and_spares_a_used_one():
    gradient_coverage = systems_check("gradient_coverage")

    class Net(nn.Module):
        def __init__(self, use_new_head):
            super().__init__()
            self.body, self.head, self.new_head = nn.Linear(8, 8), nn.Linear(8, 2), nn.Linear(8, 2)
            self.use_new_head = use_new_head

        def forward(self, x):  # the bug: the replacement head is built and trained, never used
            return (self.new_head if self.use_new_head else self.head)(torch.relu(self.body(x)))

    for use_new_head, never in ((False, ["new_head.bias", "new_head.weight"]), (True, ["head.bias", "head.weight"])):
        torch.manual_seed(0)
        net = Net(use_new_head)
        gen = torch.Generator().manual_seed(0)
        report = gradient_coverage(net, lambda net=net, gen=gen: nn.functional.cross_entropy(
            net(torch.randn(8, 8, generator=gen)), torch.randint(0, 2, (8,), generator=gen)))
        assert sorted(report["never"]) == never and report["sometimes"] == {}
        assert all(p.grad is None for p in net.parameters())
