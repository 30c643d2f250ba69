"""Family 2 (issue 15 §1.2): a quote starts and ends on the evidence's token boundaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import ids, match, outcome

V = ("verified", None)
ALTERED = ("altered", "SC302")

MUST_FAIL = [
    # The red team's inputs.
    ("With batch norm you can't go wrong.", "with batch norm you can", ALTERED),
    ("This is a non-convex problem.", "convex problem", ALTERED),
    ("Use a learning rate of 3e-4 for Adam.", "a learning rate of 3", ALTERED),
    ("We use resnet50 as the backbone.", "50 as the backbone", ALTERED),
    ("이 방법은 안좋다", "이 방법은 좋다", ALTERED),  # Hangul: the negating syllable dropped
    # More of our own.
    ("이 방법은 안좋다", "좋다", ALTERED),
    ("Train on 10k examples first.", "Train on 10 examples", ALTERED),
    ("Keep a ratio of 1/10 for validation.", "Keep a ratio of 1", ALTERED),
    ("The shift is -3 at most.", "3 at most", ALTERED),
    ("We don't clip gradients.", "We don", ALTERED),
    ("Check the model's outputs.", "Check the model", ALTERED),
    ("Set x_1 to zero.", "Set x", ALTERED),
    ("The loss is 0.15 at the start.", "The loss is 0.1", ALTERED),
    ("A latency of 2.5 ms.", "5 ms", ALTERED),
    ("这个方法不好用", "好用", ALTERED),  # Chinese: a quote may not start right after 不
    ("この方法は使えない", "この方法は使え", ALTERED),  # Japanese: nor stop right before ない
    ("ეს არის არასწორი", "სწორი", ALTERED),  # Georgian separates words with spaces
    ("It took 10⁶ steps.", "It took 10", ALTERED),  # a superscript after a digit is part of the number
    ("The horizon is 1 + γ + γ² here.", "The horizon is 1 + γ + γ", ALTERED),  # after a lone letter: an exponent
    ("Set x₁ to zero.", "Set x", ALTERED),
]

MUST_PASS = [
    ("With batch norm you can't go wrong.", "you can't go wrong", V),
    ("This is a non-convex problem.", "a non-convex problem", V),
    ("Use a learning rate of 3e-4 for Adam.", "a learning rate of 3e-4", V),
    ("We use resnet50 as the backbone.", "resnet50 as the backbone", V),
    ("이 방법은 안좋다", "방법은 안좋다", V),
    ("Assume you have a bug¹ and fix it.", "Assume you have a bug", V),  # a footnote mark after a letter
    ("深度学习模型的训练很难调试。", "模型的训练", V),  # CJK: any boundary but a negation's
    ("The loss—which is noisy—drops.", "which is noisy", V),  # an em dash separates words
    ("The loss—which is noisy—drops.", "loss -- which is noisy", V),
    ("A value of −3 is fine.", "A value of -3", V),  # minus sign against hyphen
    ("A value of –3 is fine.", "A value of -3", V),  # en dash against hyphen
    ("The end of it.", "The end of it", V),  # a quote may stop before the full stop
    ("It costs 1,000,000 units, or 3.", "It costs 1,000,000 units, or 3", V),
]


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_FAIL, ids=ids(MUST_FAIL))
def test_quotes_cut_inside_a_token_fail(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_PASS, ids=ids(MUST_PASS))
def test_quotes_on_token_boundaries_pass(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


def test_the_diff_shows_the_whole_source_token(tmp_path: Path) -> None:
    assert match(tmp_path, "With batch norm you can't go wrong.", "with batch norm you can").diff == "with batch norm you [-can-] {+can't+}"
    assert match(tmp_path, "This is a non-convex problem.", "convex problem").diff == "[-convex-] {+non-convex+} problem"
    assert match(tmp_path, "We use resnet50 as the backbone.", "50 as the backbone").diff == "[-50-] {+resnet50+} as the backbone"
    assert match(tmp_path, "이 방법은 안좋다", "좋다").diff == "[-좋다-] {+안좋다+}"
