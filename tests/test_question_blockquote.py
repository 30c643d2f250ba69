"""A question in quotation marks set as a blockquote is held to SC304 (issue 29, williamhallatt/cogworks).

cogworks-encode's SKILL.md tells the agent ``Before extracting concepts,
answer:`` and sets the question below it as a blockquote in quotation
marks. It is the skill's own prompt, not a quotation, and SC304 reports it:
a known false alarm of the corpus (bench/adoption_corpus.toml), left on
purpose. Its form is a quotation's (quotation marks, a blockquote); only
the meaning of the lead-in says otherwise, and a rule keyed on lead-ins
such as "answer:" or "ask yourself:" would also pass a quoted question
("Ask yourself Hamming's question:"), an unsourced quotation the check
exists to catch. The remedies are one line each, tested here: the question
as plain text, or a suppression comment.
"""

from __future__ import annotations

import pytest

from conftest import Package
from skillcite.check import check

LEAD = "Before extracting concepts, answer:\n\n"
QUESTION = '"What deeper understanding can I build beyond restating what the sources say individually?"'


def sc304(pkg: Package, text: str) -> list[int]:
    pkg.replace("SKILL.md", "# Pkg\n", "# Pkg\n\n" + text + "\n")
    return [d.line for d in check(pkg.root).diagnostics if d.code == "SC304"]


def test_a_question_in_quotation_marks_as_a_blockquote_is_sc304(pkg: Package) -> None:
    assert sc304(pkg, LEAD + "> " + QUESTION + "\n") == [9]


@pytest.mark.parametrize("form", [LEAD + QUESTION + "\n", LEAD + "<!-- skillcite: ignore SC304 -->\n> " + QUESTION + "\n"])
def test_the_same_question_as_plain_text_or_suppressed_is_clean(pkg: Package, form: str) -> None:
    assert sc304(pkg, form) == []
