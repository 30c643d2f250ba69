"""Family 3 (issue 15 §1.3): normalization must not make different texts equal."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import ids, outcome

V = ("verified", None)
ALTERED = ("altered", "SC302")
NOTFOUND = ("notfound", "SC303")

MUST_FAIL = [
    # The red team's inputs (evidence as raw Markdown, quote as rendered text).
    ("It took 10⁶ steps.", "It took 106 steps", ALTERED),
    ("It took 10<sup>6</sup> steps.", "It took 106 steps", ALTERED),
    ("Use 2**15 as the scale.", "Use 215 as the scale", ALTERED),
    ("Use 2*10 as the scale.", "Use 210 as the scale", ALTERED),
    ("Use 1e-4*3 as the rate.", "Use 1e-43 as the rate", ALTERED),
    ("Use 2\\*3 as the scale.", "Use 23 as the scale", ALTERED),
    ("Set x_1 to zero.", "Set x1 to zero", ALTERED),
    ("Call `fns[0](x)` first.", "Call fns0 first", ALTERED),  # one word of a short quote changed: altered (issue 29)
    # More of our own.
    ("Set x<sub>1</sub> to zero.", "Set x1 to zero", ALTERED),
    ("It took 10⁶ steps.", "It took 10 6 steps", ALTERED),
    ("Use `a*b*c` here.", "Use abc here", ALTERED),
    ("Use `snake_case_name` here.", "Use snakecasename here", ALTERED),
    ("The term ~~old~~ stays.", "The term old stays", ALTERED),  # one word of a short quote changed: altered (issue 29)
    ("Raise it to 2^10 now.", "Raise it to 210 now", ALTERED),
    ("Write H<sub>2</sub>O.", "Write H2O", ALTERED),
    ("Keep [0](x) as text.", "Keep 0 as text", V),  # the parser reads a link here: its text is kept
]

MUST_PASS = [
    ("It took 10<sup>6</sup> steps.", "It took 10⁶ steps", V),  # equal on purpose
    ("Set x<sub>1</sub> to zero.", "Set x₁ to zero", V),
    ("Set x<sub>1</sub> to zero.", "Set x<sub>1</sub> to zero", V),
    ("Use 2\\*3 as the scale.", "Use 2*3 as the scale", V),
    ("Use 2*10 as the scale.", "Use 2*10 as the scale", V),
    ("Set x_1 to zero.", "Set x_1 to zero", V),
    ("Call `fns[0](x)` first.", "Call fns[0](x) first", V),
    ("Read *the* **docs** first.", "Read the docs first", V),
    ("Read the [fine manual](https://x.org/a_(b)) first.", "Read the fine manual first", V),
    ("Count １２３ items.", "Count 123 items", V),  # full-width digits
    ("A \ufb01ne result.", "A fine result", V),  # ligature
    ("A\u00a0fine result.", "A fine result", V),  # NBSP
    ("A hy\u00adphen here.", "A hyphen here", V),  # soft hyphen
    ("Salt &amp; pepper.", "Salt & pepper", V),  # entity
    ("Wait&mdash;then go.", "Wait — then go", V),  # entity-encoded em dash
    ("Wait&#8212;then go.", "Wait -- then go", V),
    ("A \u201cquoted\u201d word.", 'A "quoted" word', V),
    ("Assume a bug\u2026 always.", "Assume a bug... always", V),
    ("It took 10⁶ steps.", "It took 10⁶ steps", V),
    ("Use 2**15** here.", "Use 215 here", V),  # the parser reads strong emphasis on 15: a reader sees 215
]


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_FAIL, ids=ids(MUST_FAIL))
def test_different_texts_stay_different(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_PASS, ids=ids(MUST_PASS))
def test_equal_texts_stay_equal(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected
