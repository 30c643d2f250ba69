"""Family 1 (issue 15 §1.1): editorial marks that reverse meaning, and their twins."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import ids, match, outcome

V = ("verified", None)
EMPTY = ("marks", "SC310")  # an insertion from nothing, or inside a word
NEG = ("marks", "SC311")  # a negation dropped or added
NUM = ("marks", "SC312")  # a number changed

# (evidence, quote, outcome): each must fail with exactly this outcome.
MUST_FAIL = [
    # The red team's inputs.
    ("Adam is not a good default.", "Adam is [...] a good default", NEG),
    ("Always normalize your inputs.", "[Never] normalize your inputs", NEG),
    ("You should normalize your inputs.", "You should [not] normalize", NEG),
    ("This is the usual default for Adam.", "the usual default for Adam [is wrong].", EMPTY),
    ("This is safe to do.", "This is [un]safe to do", NEG),
    ("This is correct.", "This is [in]correct", NEG),
    ("This is possible.", "This is [im]possible", NEG),
    ("This is useful.", "This is use[less]", NEG),
    # More of our own.
    ("It never diverges at this rate.", "It [...] diverges at this rate", NEG),
    ("Use it without warmup.", "Use it [...] warmup", NEG),
    ("You can't skip warmup.", "You [can] skip warmup", NEG),
    ("Nothing changes when you do.", "[Everything] changes when you do", NEG),
    ("The result is non-trivial here.", "The result is [trivial] here", NEG),
    ("The code is careful.", "The code is [careless]", NEG),
    ("Assume a bug. Do not check the data.", "Assume a bug. [...] check the data", NEG),
    ("We saw no gain from it.", "We saw [a] gain from it", NEG),
    ("Train for 3 of 5 seeds.", "Train for 3 [...] 5 seeds", NUM),
    ("Train for a few epochs.", "Train for [20] epochs", NUM),
    ("Use 20 epochs.", "Use [1]0 epochs", NUM),
    ("Warm up for 500 steps.", "Warm up for [5000] steps", NUM),
    ("Train for 3 of 5 seeds.", "Train for [three] of 5 seeds", NUM),  # strict: write numbers as the source does
    ("Use the model here.", "Use the mo[d]el here", EMPTY),
    ("Use the model here.", "Use the model[s] here", EMPTY),
    ("Use the model here.", "Use the [better] model here", EMPTY),
    ("Done. Normalize inputs.", "[Always] normalize inputs", EMPTY),
    ("Normalize inputs. Then train.", "Normalize inputs [first]", EMPTY),
]

# Near twins: legitimate editing that must stay verified.
MUST_PASS = [
    ("The quick fox jumps.", "[T]he quick fox jumps", V),
    ("The quick fox jumps.", "The quick [animal] jumps", V),
    ("Train the models first.", "Train the model[s] first", V),
    ("This works well.", "[It] works well", V),
    ("This is unsafe to do.", "This is [un]safe to do", V),
    ("Adam is not a good default. It is slow to converge.", "Adam is not a good default. [...] slow to converge", V),
    ("Assume a bug. Do not skip this. Check the data.", "Assume a bug. [...] Check the data.", V),
    ("Use a learning rate of 3e-4 and a batch of 64.", "Use a learning rate of 3e-4 and [...] 64", V),
    ("It works [sometimes] in practice.", "It works [sometimes] in practice", V),
    ("The modle works well.", "The modle [sic] works well", V),  # an editor's note replaces nothing, by design
    ("The modle works well.", "The modle works well [emphasis added]", V),  # brackets of the source, literal
    ("It is not a bug [...] but a feature.", "It is not a bug [...] but a feature", V),
]


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_FAIL, ids=ids(MUST_FAIL))
def test_marks_that_change_meaning_fail(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_PASS, ids=ids(MUST_PASS))
def test_faithful_marks_pass(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


def test_marks_messages_name_what_changed(tmp_path: Path) -> None:
    m = match(tmp_path, "Adam is not a good default.", "Adam is [...] a good default")
    assert (m.lines, m.detail) == ((4, 4), "[...] drops 'not' from 'Adam is not a good default': it removes a negation")
    m = match(tmp_path, "This is useful.", "This is use[less]")
    assert m.detail == "insertion [less] turns 'useful' into 'useless': it adds or removes a negation"
    m = match(tmp_path, "You should normalize your inputs.", "You should [really] normalize")
    assert (m.code, m.detail) == ("SC310", "insertion [really] replaces nothing in the source: 'You should normalize'")
    m = match(tmp_path, "Use the model here.", "Use the mo[d]el here")
    assert m.detail == "insertion [d] sits inside the word 'model'"
    m = match(tmp_path, "Train for 3 of 5 seeds.", "Train for 3 [...] 5 seeds")
    assert m.detail == "[...] joins two numbers: 'Train for 3 of 5 seeds'"
    m = match(tmp_path, "Train for a few epochs.", "Train for [20] epochs")
    assert m.detail == "insertion [20] turns 'a few' into '20': it changes a number"


def test_a_broken_mark_elsewhere_in_the_file_is_reported_there(tmp_path: Path) -> None:
    body = "Unrelated first line.\nAdam is not a good default.\n"
    from adversarial_cases import evidence
    from skillcite.check.parsing.anchors import Range
    from skillcite.check.matching.locate import locate

    m = locate("Adam is [...] a good default", evidence(tmp_path, body), [[Range(4, 4)]])
    assert (m.status, m.code, m.lines) == ("marks", "SC311", (5, 5))
