"""Issue 28 §4: a verbatim quote whose context qualifies it needs a review, like an edit does.

Each must-review case is every word of a source sentence, so it matches
verbatim; its context (the next sentence, the sentence before, the
heading above, the source quoting someone else) changes what it says, so
the match carries a departure (SC313 until a person reviews it). Each has
a must-pass twin whose context does not qualify it, and a must-fail twin
that changes the words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import match, outcome

Q = "Warmup fixes divergence."

# (body, departure the match must name)
MUST_REVIEW = [
    # The next sentence contrasts, retracts or negates.
    (f"{Q} But not on small data.", "the next sentence qualifies it: 'But not on small data.'"),
    (f"{Q} However, it hurts RNNs.", "the next sentence qualifies it: 'However, it hurts RNNs.'"),
    (f"{Q} That is a myth.", "the next sentence qualifies it: 'That is a myth.'"),
    (f"{Q} Wrong.", "the next sentence qualifies it: 'Wrong.'"),
    (f"{Q}\n\nUpdate: I was wrong about this.", "the next sentence qualifies it: 'Update: I was wrong about this.'"),
    (f"{Q} Yet it rarely matters.", "the next sentence qualifies it: 'Yet it rarely matters.'"),
    (f"{Q} That said, most runs never diverge.", "the next sentence qualifies it: 'That said, most runs never diverge.'"),
    (f"{Q} Nonetheless we dropped it.", "the next sentence qualifies it: 'Nonetheless we dropped it.'"),
    (f"{Q} He was wrong.", "the next sentence qualifies it: 'He was wrong.'"),
    # ... in the other languages of the quote rules.
    (f"{Q} Mais pas toujours.", "the next sentence qualifies it: 'Mais pas toujours.'"),
    (f"{Q} Aber nicht immer.", "the next sentence qualifies it: 'Aber nicht immer.'"),
    (f"{Q} Sin embargo, no siempre.", "the next sentence qualifies it: 'Sin embargo, no siempre.'"),
    (f"{Q} Tuttavia, non sempre.", "the next sentence qualifies it: 'Tuttavia, non sempre.'"),
    (f"{Q} No entanto, nem sempre.", "the next sentence qualifies it: 'No entanto, nem sempre.'"),
    (f"{Q} Das ist falsch.", "the next sentence qualifies it: 'Das ist falsch.'"),
    # The sentence before frames it.
    (f"Here is a myth we all believed. {Q}", "the sentence before frames it: 'Here is a myth we all believed.'"),
    (f"A common misconception goes like this. {Q}", "the sentence before frames it: 'A common misconception goes like this.'"),
    (f"This is false. {Q}", "the sentence before frames it: 'This is false.'"),
    (f"Critics put it bluntly. {Q}", "the sentence before frames it: 'Critics put it bluntly.'"),
    # The heading above frames it.
    (f"## What did not work\n\nWe tried many things.\n\n{Q}", "the heading above frames it: 'What did not work'"),
    (f"# Myths\n\n{Q}", "the heading above frames it: 'Myths'"),
    (f"### Mistakes we made\n\n{Q}", "the heading above frames it: 'Mistakes we made'"),
    (f"## Things that don't help\n\n{Q}", "the heading above frames it: \"Things that don't help\""),
    # The source quotes someone else's words.
    (f'He wrote: "{Q}" He was wrong.', "the source quotes these words from someone else: 'He wrote:'"),
    (f"The reviewer said \u201c{Q}\u201d and we disagreed.", "the source quotes these words from someone else: 'The reviewer said'"),
]

MUST_PASS = [
    f"{Q} It also speeds training.",
    f"{Q} Use it with a cosine schedule.",
    f"{Q}\n\nThe second paragraph says more.",
    f"We measured it twice. {Q}",
    f"If the dimensions are wrong in any of the many layers, it is easy to miss. {Q}",
    f"## What worked\n\n{Q}",
    f"## Results\n\n```python\n# Mistakes we made: a comment in code.\n```\n\n{Q}",
    f"It's a trick we don't skip. {Q}",
    f"Warmup 'works'. {Q}",
    f"{Q} But also see the appendix"[: len(Q)],  # the quote alone
]

MUST_FAIL = [
    # The words change: no context makes these verbatim.
    (f"{Q} But not on small data.", "Warmup fixes divergence, even on small data.", ("altered", "SC302")),
    (f"Here is a myth we all believed. {Q}", "Warmup always fixes divergence.", ("altered", "SC302")),
    (f'He wrote: "{Q}" He was wrong.', "Warmup fixes divergence. He was right.", ("altered", "SC302")),
]


@pytest.mark.parametrize(("body", "departure"), MUST_REVIEW, ids=[d[len("the ") : 40] + "|" + b[-25:] for b, d in MUST_REVIEW])
def test_qualifying_context_needs_a_review(tmp_path: Path, body: str, departure: str) -> None:
    m = match(tmp_path, body, Q)
    assert m.status == "verified"
    assert departure in m.edits


@pytest.mark.parametrize("body", MUST_PASS, ids=[b[-40:] for b in MUST_PASS])
def test_plain_context_is_verbatim(tmp_path: Path, body: str) -> None:
    m = match(tmp_path, body, Q)
    assert (m.status, m.edits) == ("verified", ())


@pytest.mark.parametrize(("body", "quote", "expected"), MUST_FAIL, ids=[q[:40] for _, q, _ in MUST_FAIL])
def test_changed_words_fail_whatever_the_context(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert outcome(tmp_path, body, quote) == expected


def test_context_beyond_the_cited_line_is_read(tmp_path: Path) -> None:
    """The take-back on the next line of the paragraph counts although the footnote cites the quote's line only."""
    from skillcite.check.parsing.anchors import Range
    from skillcite.check.matching.locate import locate

    from adversarial_cases import FIRST_BODY_LINE, evidence

    ev = evidence(tmp_path, f"{Q}\nBut not on small data.\n\nAnother paragraph.")
    m = locate(Q, ev, [[Range(FIRST_BODY_LINE, FIRST_BODY_LINE)]])
    assert m.edits == ("the next sentence qualifies it: 'But not on small data.'",)


# Every opener docs/citations.md names, each opening a sentence after the quote.
OPENERS = [
    "But", "However,", "Yet", "Nevertheless,", "Nonetheless,", "Although", "Except", "Unfortunately,", "That said,",
    "On the other hand,", "Update:", "Edit:", "Correction:", "Wrong:", "False:", "Mais", "Cependant,", "Pourtant,",
    "Aber", "Jedoch", "Doch", "Pero", "Sin embargo,", "Ma", "Però", "Tuttavia,", "Mas", "Porém,", "No entanto,",
]


@pytest.mark.parametrize("opener", OPENERS)
def test_every_documented_opener_takes_back(tmp_path: Path, opener: str) -> None:
    m = match(tmp_path, f"{Q} {opener} the data set was tiny.", Q)
    assert m.edits == (f"the next sentence qualifies it: '{opener} the data set was tiny.'",)
