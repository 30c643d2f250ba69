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
