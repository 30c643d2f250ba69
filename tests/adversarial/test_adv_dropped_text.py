"""Family 4 (issue 15 §1.4): evidence text dropped before matching must not join distant passages."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import ids, match, outcome

V = ("verified", None)
ALTERED = ("altered", "SC302")
NOTFOUND = ("notfound", "SC303")

MUST_FAIL = [
    # The red team's inputs.
    ("Use warmup <warmup is short ... -> then decay.", "Use warmup then decay", NOTFOUND),
    ("The y is <y is small.\nFor large batches y> big.", "The y is big", ALTERED),
    ("Train for\n>5 epochs at least.", "Train for 5 epochs at least", ALTERED),
    ("First part <!-- a hidden note --> second part.", "First part second part", NOTFOUND),
    # More of our own.
    ("First part <!-- a\nhidden\nnote --> second part.", "First part second part", NOTFOUND),
    ("First part <!-- a hidden note --> second part.", "First part a hidden note second part", NOTFOUND),
    ("Keep <model dim big> as is.", "Keep as is", NOTFOUND),
    ("Keep a<b and c>d apart.", "Keep ad apart", NOTFOUND),
    ("Keep <b\nclass='x'> whole.", "Keep whole", NOTFOUND),
    ("The value\n>> 3 is large.", "The value 3 is large", V),  # '>> ' is a marker: documented policy
    ("The value\n>>3 is large.", "The value 3 is large", ALTERED),
]

MUST_PASS = [
    ("This <b>bold</b> text.", "This bold text", V),
    ('A <a href="https://x.org">link</a> here.', "A link here", V),
    ("Have<br>a bug.", "Have a bug", V),
    ("> A quoted line\n> and more.", "A quoted line and more", V),
    ("First part <!-- a hidden note --> second part.", "First part [...] second part", V),
    ("It appends an <eos> token.", "It appends an <eos> token", V),
    ("It uses </think> tags.", "It uses </think> tags", V),
    ("Train for\n>5 epochs at least.", "Train for >5 epochs at least", V),
    ('An <span class="x">inline</span> span.', "An inline span", V),
]


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_FAIL, ids=ids(MUST_FAIL))
def test_gaps_and_non_markup_are_kept(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_PASS, ids=ids(MUST_PASS))
def test_real_markup_is_dropped(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


def test_a_comment_reads_as_an_omission(tmp_path: Path) -> None:
    m = match(tmp_path, "First part <!-- a hidden note --> second part.", "First part second part")
    assert (m.lines, m.score, m.words, m.diff) == ((4, 4), 3.0, 4, "First part [...] second")
