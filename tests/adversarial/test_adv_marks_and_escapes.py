"""Issue 28 §6: backslashes the source writes, and footnote marks a quote leaves out.

False alarms before: the evidence side dropped every backslash, so
``$\\nabla L$`` or ``C:\\temp\\model.pt`` quoted verbatim failed (SC302); a
quote that left out the source's footnote mark (``bug¹``, ``bug[1]``)
failed too. Each family has must-pass, must-review and must-fail twins,
through the whole check (the skill side is parsed as Markdown too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import match
from test_adv_skill_side import findings, package

BACKSLASH_PASS = [
    ("The gradient $\\nabla L$ explodes.\n", "> The gradient $\\nabla L$ explodes.[^s]"),
    ("Save it to C:\\temp\\model.pt first.\n", "> Save it to C:\\temp\\model.pt first.[^s]"),
    ("Use \\alpha and \\beta as weights.\n", 'They wrote "Use \\alpha and \\beta as weights"[^s].'),
    ("Escape it: 2\\*3 stays.\n", "> Escape it: 2\\*3 stays.[^s]"),  # a real escape still drops its backslash
]
BACKSLASH_REVIEW = [
    ("The gradient $\\nabla L$ explodes in deep nets.\n", "> The gradient $\\nabla L$ explodes [...].[^s]", ["SC313"]),
    ("Save it to C:\\temp\\model.pt first.\n", "> Save it to [...] C:\\temp\\model.pt first.[^s]", ["SC313"]),
]
BACKSLASH_FAIL = [
    ("The gradient $\\nabla L$ explodes.\n", "> The gradient $nabla L$ explodes.[^s]", ["SC302"]),
    ("Save it to C:\\temp\\model.pt first.\n", "> Save it to C:\\tmp\\model.pt first.[^s]", ["SC302"]),
    ("Save it to C:\\temp\\model.pt first.\n", "> Save it to C:tempmodel.pt first.[^s]", ["SC302"]),
]


@pytest.mark.parametrize(("body", "block"), BACKSLASH_PASS, ids=[b for _, b in BACKSLASH_PASS])
def test_backslashes_of_the_source_pass(tmp_path: Path, body: str, block: str) -> None:
    assert findings(package(tmp_path, body, block)) == []


@pytest.mark.parametrize(("body", "block", "codes"), BACKSLASH_REVIEW + BACKSLASH_FAIL, ids=[b for _, b, _ in BACKSLASH_REVIEW + BACKSLASH_FAIL])
def test_backslash_quotes_that_depart(tmp_path: Path, body: str, block: str, codes: list[str]) -> None:
    assert [f[0] for f in findings(package(tmp_path, body, block))] == codes


# Footnote marks: (evidence body, quote, expected (status, edits or code))
MARK_PASS = [
    ("A footnote bug\u00b9 hides here.", "A footnote bug hides here."),
    ("A footnote bug[1] hides here.", "A footnote bug hides here."),
    ("It works.[2] Then it fails.", "It works. Then it fails."),
    ("It works.\u00b2\u00b3 Then it fails.", "It works. Then it fails."),
    ("It works.[2, 3] Then it fails.", "It works. Then it fails."),
    ("A footnote bug[1] hides here.", "A footnote bug[1] hides here."),  # kept: verbatim as ever
]
MARK_REVIEW = [
    # An elision elsewhere in the quote still needs its review.
    ("A footnote bug\u00b9 hides here, in the loss.", "A footnote bug hides [...] in the loss."),
]
MARK_FAIL = [
    ("Energy is mc\u00b2 here.", "Energy is mc here.", ("altered", None)),  # an exponent, not a mark
    ("The area is x\u00b2 now.", "The area is x now.", ("altered", None)),
    ("A footnote bug[1] hides here.", "A footnote bug[2] hides here.", ("marks", "SC312")),  # another number
    ("A footnote bug\u00b9 hides here.", "A footnote bugs hides here.", ("altered", None)),
]


@pytest.mark.parametrize(("body", "quote"), MARK_PASS, ids=[q for _, q in MARK_PASS])
def test_left_out_footnote_marks_pass(tmp_path: Path, body: str, quote: str) -> None:
    m = match(tmp_path, body, quote)
    assert (m.status, m.edits) == ("verified", ())


@pytest.mark.parametrize(("body", "quote"), MARK_REVIEW, ids=[q for _, q in MARK_REVIEW])
def test_footnote_marks_keep_other_departures(tmp_path: Path, body: str, quote: str) -> None:
    m = match(tmp_path, body, quote)
    assert m.status == "verified"
    assert m.edits == ("elision [...] between 'footnote bug\u00b9 hides' and 'in the loss', for 'here,'",)


@pytest.mark.parametrize(("body", "quote", "expected"), MARK_FAIL, ids=[q for _, q, _ in MARK_FAIL])
def test_footnote_marks_never_hide_a_change(tmp_path: Path, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    m = match(tmp_path, body, quote)
    assert (m.status, m.code if m.status == "marks" else None) == expected
