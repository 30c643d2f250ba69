"""SKILL.md's router and first steps, and the per-step counts of refs/diagnostics.md (moved there
from SKILL.md by issue 20), say what each check catches on the bug zoo; these tests keep those
sentences equal to the evidence tables they summarise (refs/diagnostics.md for the run-time
checks, refs/static_analysis.md for the searches, the newer files' tables) and every check name
in SKILL.md a check that exists. Text only: no torch, no ripgrep.
"""

from __future__ import annotations

import re
from collections import Counter

import static_patterns as sp
import zoo_tables

SKILL = sp.ROOT / "SKILL.md"
DIAGNOSTICS = sp.ROOT / "refs" / "diagnostics.md"
EVIDENCE_HEADING = "## Evidence: the bug zoo"


def runtime_table() -> dict[str, frozenset[str]]:
    """bug -> run-time checks that catch it, from the evidence table of diagnostics.md."""
    section = DIAGNOSTICS.read_text(encoding="utf-8").split(EVIDENCE_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = frozenset(re.findall(r"`(\w+)`", cells[1]))
    return rows


REFS_WITH_CHECKS = zoo_tables.files_with_checks()  # refs/tabular.md, refs/systems.md, ... (their evidence tables)


def refs_checks_table() -> dict[str, frozenset[str]]:
    """check -> zoo bugs it flags, from the evidence tables of the newer reference files."""
    rows = {}
    for rel in REFS_WITH_CHECKS:
        rows.update(zoo_tables.table_rows((sp.ROOT / rel).read_text(encoding="utf-8")))
    return rows


def ref_check_names() -> dict[str, str]:
    """check -> the reference file that defines it: the newer files' top-level functions that
    print their own name as a tag (the checks' convention; helpers in examples do not)."""
    names = {}
    for rel in REFS_WITH_CHECKS:
        text = (sp.ROOT / rel).read_text(encoding="utf-8")
        for name in re.findall(r"^(?:def|class) (\w+)", text, re.MULTILINE):
            if f"[{name}]" in text:
                names[name] = rel
    return names


def diagnostic_names() -> set[str]:
    """The functions listed in the Contents of diagnostics.md."""
    contents = DIAGNOSTICS.read_text(encoding="utf-8").split("## Contents", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- \[`(\w+)`\]", contents, re.MULTILINE))


def flagged_by_searches() -> set[str]:
    """Zoo bugs that some search of kind *flags* flags."""
    return {b for c in sp.claims().values() if c.kind == sp.FLAGS for b in c.bugs}


def skill_section(title: str) -> str:
    text = SKILL.read_text(encoding="utf-8")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def ticked(text: str) -> list[str]:
    """Backticked spans that are a single name (functions, searches, zoo bugs)."""
    return re.findall(r"`([A-Za-z_][\w-]*)`", text)


def test_every_check_name_in_skill_md_exists():
    known = (diagnostic_names() | set(ref_check_names()) | {s.id for s in sp.searches()} | set(sp.zoo_bugs())
             | {"zero_grad"})  # a method
    text = "".join(skill_section(t) for t in ("Symptom router", "First fifteen minutes", "Folklore"))
    unknown = sorted(set(ticked(text)) - known)
    assert not unknown, f"SKILL.md names checks, searches or zoo bugs that do not exist: {unknown}"


def test_router_names_a_check_in_most_rows():
    table = [line for line in skill_section("Symptom router").splitlines() if line.startswith("| ")]
    rows = [line for line in table if "---" not in line][1:]
    assert len(rows) >= 10
    named = [row for row in rows if ticked(row.split(" | ")[1])]
    assert len(named) >= 8, "most router rows name a check or search by name"


def test_router_links_the_file_that_defines_each_newer_check():
    """A check from the newer reference files is named on a router line that links its file,
    and no row is left without a reference."""
    defined = ref_check_names()
    assert set(refs_checks_table()) <= set(defined)
    router = skill_section("Symptom router")
    assert "no reference yet" not in router
    for line in router.splitlines():
        for name in set(ticked(line)) & set(defined):
            assert f"]({defined[name]}" in line, f"the router names {name} without linking {defined[name]}"
    for name in ("loader_wait_fraction", "adapter_check", "label_permutation_check", "best_action_probe"):
        assert f"`{name}`" in router, f"the router should name {name}"


def step_summary() -> str:
    """The "What each step catches" part of the evidence section of diagnostics.md, whitespace folded."""
    text = DIAGNOSTICS.read_text(encoding="utf-8")
    part = text.split("\n### What each step catches\n", 1)[1].split("\n## ", 1)[0]
    return " ".join(part.split())


ZERO_GRAD_PROGRAMS = ("missing_zero_grad", "missing_zero_grad_adam", "missing_zero_grad_adamw", "zero_grad_per_epoch",
                      "zero_grad_before_step", "zero_grad_before_step_adam_l2", "zero_grad_before_step_adamw",
                      "zero_grad_before_step_sgd_wd")


def test_step_counts_equal_the_evidence_tables():
    """The counts per step (moved out of SKILL.md, issue 20) equal the evidence tables."""
    rt = runtime_table()
    bugs = set(rt)
    assert bugs == set(sp.zoo_bugs())
    static = flagged_by_searches()
    rc = refs_checks_table()
    runtime = {b for b, checks in rt.items() if checks}.union(*rc.values())
    per_check = Counter(c for checks in rt.values() for c in checks)
    caught_by = {c: {b for b, checks in rt.items() if c in checks} for c in per_check}
    n = len(bugs)
    flat = step_summary()

    def count(check):
        return per_check[check]

    expected = [
        f"on the {n} zoo programs",
        f"Searches (`ml_lint.sh`): {len(static)} of the {n}.",
        f"`overfit_one_batch` catches {count('overfit_one_batch')}, "
        f"{len(caught_by['overfit_one_batch'] - static)} of them missed by every search",
        f"`gradient_flow` catches {count('gradient_flow')} of those {count('overfit_one_batch')}",
        f"`UpdateRatioLogger` {count('UpdateRatioLogger')}, `torch_warnings` {count('torch_warnings')}, "
        f"`ActivationStatsLogger` {count('ActivationStatsLogger')}, `module_absmax` {count('module_absmax')}.",
        f"`UpdateRatioLogger` catches all {len(ZERO_GRAD_PROGRAMS)} `zero_grad` programs",
        f"`eval_path_check` {count('eval_path_check')}, `preprocessing_leak_check` {count('preprocessing_leak_check')}.",
        f"`batch_independence_check` {count('batch_independence_check')}, `class_balance` {count('class_balance')}.",
        f"`loss_at_init` {count('loss_at_init')} (" + ", ".join(f"`{b}`" for b in sorted(caught_by.get('loss_at_init', ()))),
        "The newer files' checks: " + ", ".join(f"`{c}` {len(rc[c])}" for c in
                                                ("label_permutation_check", "bin_roundtrip_check",
                                                 "inference_side_effects", "adapter_check", "best_action_probe")) + ".",
        f"catch {len(runtime | static)} of the {n} (searches {len(static)}, run-time checks {len(runtime)})",
        f"the run-time checks catch {len(runtime - static)} that no search flags, the searches {len(static - runtime)} that",
    ]
    for phrase in expected:
        assert phrase in flat, f"diagnostics.md should say {phrase!r} (computed from the evidence tables)"
    missed = ", ".join(f"`{b}`" for b in sorted(caught_by["overfit_one_batch"] - static))
    assert f"every search ({missed})" in flat
    assert caught_by["gradient_flow"] <= caught_by["overfit_one_batch"]
    assert per_check["data_sanity"] == 0 and "`data_sanity` flags no zoo program" in flat
    nothing = sorted(bugs - runtime - static)
    assert f"the two bugs nothing catches, {' and '.join(f'`{b}`' for b in nothing)}," in flat
    # step 4: the zero_grad programs, under every optimizer, and what module_absmax sees of them
    assert set(ZERO_GRAD_PROGRAMS) <= bugs
    assert all("UpdateRatioLogger" in rt[b] for b in ZERO_GRAD_PROGRAMS)
    assert [b for b in ZERO_GRAD_PROGRAMS if "module_absmax" in rt[b]] == ["missing_zero_grad"]
    # the loop-only bugs are caught by the loop's loggers and by no isolated check
    isolated = {"overfit_one_batch", "gradient_flow", "loss_at_init", "batch_independence_check"}
    for bug in ("encoder_under_no_grad", "zero_grad_before_step"):
        assert "UpdateRatioLogger" in rt[bug] and not rt[bug] & isolated


def test_first_fifteen_minutes_names_the_steps_and_links_the_counts():
    text = skill_section("First fifteen minutes")
    assert "(refs/diagnostics.md#what-each-step-catches)" in text
    assert not re.search(r"\b\d+ of the \d+\b", text), "zoo counts live in the evidence sections now"
    named = set(ticked(text))
    for check in ("data_sanity", "overfit_one_batch", "gradient_flow", "UpdateRatioLogger", "torch_warnings",
                  "ActivationStatsLogger", "module_absmax", "eval_path_check", "preprocessing_leak_check",
                  "batch_independence_check", "class_balance", "loss_at_init"):
        assert check in named, check
    assert set(refs_checks_table()) <= named, "step 8 names every check of the newer evidence tables"


def test_router_has_the_incident_rows():
    router = skill_section("Symptom router")
    for symptom in ("eval metric changes with the batch size", "regression after a dependency upgrade",
                    "`device-side assert`", "checkpoint loads but acts untrained", "worker or process killed",
                    "compiled model differs from eager", "loss plateaus above zero while accuracy is fine"):
        assert symptom in router, symptom
    rows = [ln for ln in router.splitlines() if ln.startswith("| ")]
    oom = next(r for r in rows if r.startswith("| out of memory"))
    assert oom.split(" | ")[1].startswith("memory first"), "the OOM row starts with memory, not the loader"
    chance = next(r for r in rows if "metric at chance" in r)
    assert "softmax-in-loss" not in chance, "the double-softmax floor is not a metric-at-chance symptom"


def test_skill_md_keeps_its_budget_and_its_first_steps():
    text = SKILL.read_text(encoding="utf-8")
    assert len(text) / 4 <= 5000
    for title in ("Step 0: read what the run already logged", "Using the checks correctly", "How many runs"):
        assert f"\n## {title}\n" in text, title


def test_folklore_claims_about_the_usual_suspects_match_the_tables():
    rt = runtime_table()
    claims = sp.claims()
    for bug, search, checks in (("dropout_at_eval", "evaluation-without-eval", {"eval_path_check"}),
                                ("eval_without_train", "eval-without-train", {"eval_path_check"}),
                                ("missing_zero_grad", "backward-without-zero-grad", {"UpdateRatioLogger", "module_absmax"}),
                                ("missing_zero_grad_adam", "backward-without-zero-grad", {"UpdateRatioLogger"}),
                                ("softmax_in_loss_call", "softmax-in-loss", set())):
        assert rt[bug] == checks, f"SKILL.md says only {sorted(checks) or 'no run-time check'} catches {bug}"
        assert claims[search].kind == sp.FLAGS and bug in claims[search].bugs
    for bug in ("double_softmax", "forward_returns_probs"):
        assert "overfit_one_batch" in rt[bug]
    text = " ".join(SKILL.read_text(encoding="utf-8").split())
    overfit = {b for b, c in rt.items() if "overfit_one_batch" in c}
    # issue 27: the zoo's counts live in diagnostics.md's step summary, not in the folklore's advice
    assert "none of the mode or loop bugs" in text
    assert f"`overfit_one_batch` catches {len(overfit)}," in step_summary()
    assert not re.search(r"\b\d+ of (the )?\d+\b", skill_section("Folklore")), "zoo counts belong in the evidence sections"
    mode_or_loop = {"dropout_at_eval", "eval_without_train", "encoder_under_no_grad", "softmax_in_loss_call",
                    *ZERO_GRAD_PROGRAMS}
    assert not overfit & mode_or_loop
    assert not rt["label_leak"] and "label_leak" not in flagged_by_searches()


def test_router_has_the_rows_of_issue_27():
    """Incidents users report that had no row or a misleading one; each row names a check that exists
    (test_every_check_name_in_skill_md_exists) and the file that defines it."""
    rows = [ln for ln in skill_section("Symptom router").splitlines() if ln.startswith("| ")]

    def row(symptom: str) -> str:
        return next(r for r in rows if r.startswith(f"| {symptom}"))

    assert "`prompt_parity_check`" in row("two evaluation paths disagree on the same checkpoint")
    assert "`memory_growth`" in row("allocated memory grows step after step")
    assert "`gradient_coverage`" in row("some parameters get exactly zero gradient while the rest train")
    hardware = row("problem only in bf16, or only on new hardware").split(" | ")[1]
    assert hardware.index("`run_fingerprint`") < hardware.index("`precision_gap`"), "environment diff first"
    upgrade = row("regression after a dependency upgrade").split(" | ")[1]
    assert upgrade.startswith("before any training run, `run_fingerprint`")
    assert "`adapter_check` with `step=`" in row("fine-tuned LLM misbehaves")
