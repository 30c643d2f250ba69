"""SKILL.md's router and first-fifteen-minutes section say what each check catches on the
bug zoo; these tests keep those sentences equal to the two evidence tables they summarise
(refs/diagnostics.md for the run-time checks, refs/static_analysis.md for the searches) and
every check name in SKILL.md a check that exists. Text only: no torch, no ripgrep.
"""

from __future__ import annotations

import re
from collections import Counter

import static_patterns as sp

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


REFS_WITH_CHECKS = ("refs/tabular.md", "refs/systems.md", "refs/finetuning.md", "rl/rewards.md",
                    "refs/trainers.md", "refs/evaluation.md", "refs/serving.md")


def refs_checks_table() -> dict[str, frozenset[str]]:
    """check -> zoo bugs it flags, from the evidence tables of the newer reference files."""
    rows = {}
    for rel in REFS_WITH_CHECKS:
        section = (sp.ROOT / rel).read_text(encoding="utf-8").split(EVIDENCE_HEADING, 1)[1].split("\n## ", 1)[0]
        for line in section.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and re.fullmatch(r"`\w+`", cells[0]):
                rows[cells[0].strip("`")] = frozenset(re.findall(r"`(\w+)`", cells[1]))
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


def test_first_fifteen_minutes_counts_equal_the_evidence_tables():
    rt = runtime_table()
    bugs = set(rt)
    assert bugs == set(sp.zoo_bugs())
    static = flagged_by_searches()
    # run-time checks: those of diagnostics.md and those of the newer reference files
    runtime = {b for b, checks in rt.items() if checks}.union(*refs_checks_table().values())
    per_check = Counter(c for checks in rt.values() for c in checks)
    caught_by = {c: {b for b, checks in rt.items() if c in checks} for c in per_check}
    n = len(bugs)
    text = skill_section("First fifteen minutes")
    flat = " ".join(text.split())

    expected = [
        f"bug zoo: {n} small training programs",
        f"It flags {len(static)} of the {n};",
        f"catch {len(runtime | static)} of the {n} (searches {len(static)}, run-time checks {len(runtime)})",
        f"Overfitting catches {per_check['overfit_one_batch']}, {len(caught_by['overfit_one_batch'] - static)} of them missed by every search",
        f"`gradient_flow` catches {per_check['gradient_flow']} of those {per_check['overfit_one_batch']}",
        "attached, then `module_absmax` on its last batches: "
        + ", ".join(str(per_check[c]) for c in ("UpdateRatioLogger", "torch_warnings", "ActivationStatsLogger"))
        + f" and {per_check['module_absmax']}.",
        f"`eval_path_check` ({per_check['eval_path_check']}: "
        + ", ".join(f"`{b}`" for b in sorted(caught_by["eval_path_check"])) + ")",
        f"`preprocessing_leak_check` ({per_check['preprocessing_leak_check']}: the two scalers fitted before the split)",
        f"the run-time checks catch {len(runtime - static)} that no search flags, the searches {len(static - runtime)} that",
    ]
    for phrase in expected:
        assert phrase in flat, f"SKILL.md should say {phrase!r} (computed from the evidence tables)"
    assert caught_by["gradient_flow"] <= caught_by["overfit_one_batch"]
    missed = ", ".join(f"`{b}`" for b in sorted(caught_by["overfit_one_batch"] - static))
    assert f"every search ({missed})" in flat
    # steps 2 and 7: checks that catch nothing in the zoo are said to
    assert per_check["data_sanity"] == 0 and "`data_sanity` flags no zoo bug" in flat
    assert per_check["loss_at_init"] == 0 and f"it flags none of the {n}" in flat
    # the bugs nothing catches are named, and nothing else is
    nothing = sorted(bugs - runtime - static)
    assert f"the two bugs nothing catches, {' and '.join(f'`{b}`' for b in nothing)}," in flat
    # step 4: the loop-only bugs are caught by the loop's loggers and by no isolated check
    isolated = {"overfit_one_batch", "gradient_flow", "loss_at_init", "batch_independence_check"}
    for bug in ("encoder_under_no_grad", "zero_grad_before_step"):
        assert "UpdateRatioLogger" in rt[bug] and not rt[bug] & isolated
    assert rt["missing_zero_grad"] == {"module_absmax"}
    # step 5: both checks confirm what the searches flag, and only that
    assert caught_by["eval_path_check"] <= static
    assert caught_by["preprocessing_leak_check"] == {"scaler_before_split", "target_scaled_before_split"} <= static
    # step 6: one new catch each, after steps 1-5
    earlier = ("overfit_one_batch", "gradient_flow", "UpdateRatioLogger", "torch_warnings", "ActivationStatsLogger",
               "module_absmax", "eval_path_check", "preprocessing_leak_check")
    before = static.union(*(caught_by[c] for c in earlier))
    assert caught_by["batch_independence_check"] - before == {"view_not_permute"}
    assert caught_by["class_balance"] - before == {"bucketize_edges", "class_imbalance_constant"}
    # step 8: the checks of the newer reference files, one zoo bug each
    rc = refs_checks_table()
    assert all(len(flagged) == 1 for flagged in rc.values()) and "one zoo bug each" in flat
    step8 = flat.split("8. ", 1)[1].split("Together", 1)[0]
    assert set(ticked(step8)) == set(rc), "step 8 names exactly the checks of the newer evidence tables"


def test_folklore_claims_about_the_usual_suspects_match_the_tables():
    rt = runtime_table()
    claims = sp.claims()
    for bug, search, checks in (("dropout_at_eval", "evaluation-without-eval", {"eval_path_check"}),
                                ("eval_without_train", "eval-without-train", {"eval_path_check"}),
                                ("missing_zero_grad", "backward-without-zero-grad", {"module_absmax"}),
                                ("softmax_in_loss_call", "softmax-in-loss", set())):
        assert rt[bug] == checks, f"SKILL.md says only {sorted(checks) or 'no run-time check'} catches {bug}"
        assert claims[search].kind == sp.FLAGS and bug in claims[search].bugs
    for bug in ("double_softmax", "forward_returns_probs"):
        assert "overfit_one_batch" in rt[bug]
    text = " ".join(SKILL.read_text(encoding="utf-8").split())
    assert f"it caught {sum('overfit_one_batch' in c for c in rt.values())} of the zoo's {len(rt)}" in text
    assert not rt["label_leak"] and "label_leak" not in flagged_by_searches()
