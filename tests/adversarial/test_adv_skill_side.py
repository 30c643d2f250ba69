"""Whole-check cases: how the skill file writes a quote, and issue 13's false alarms (§6).

Each case builds a package in ``tmp_path`` (the conftest's clean package),
puts one passage in the evidence and one quote in SKILL.md, runs
``check`` and asserts the exact findings: code, line and message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Package, clean_package, evidence_text
from skillcite.check import check

FRONT_LINES = 10  # conftest.evidence_text's front matter
HEAD = "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"


def package(tmp_path: Path, body: str, quote_block: str, anchors: str | None = None) -> Package:
    """A package whose evidence body is ``body`` and whose SKILL.md holds ``quote_block`` citing [^s]."""
    p = clean_package(tmp_path)
    p.write("docs/evidence/src.md", evidence_text(body))
    last = FRONT_LINES + body.count("\n")
    ranges = anchors or f"L{FRONT_LINES + 1}-{last}"
    p.write("SKILL.md", HEAD + quote_block + f"\n\n[^s]: A. Author, \"Post\" (2020) — https://example.org/post ([cache](docs/evidence/src.md): {ranges})\n")
    return p


def findings(p: Package) -> list[tuple[str, int, str]]:
    return [(d.code, d.line, d.message) for d in check(p.root).diagnostics]


# -- how the skill file writes it ------------------------------------------------
SKILL_SIDE = [
    # (evidence body, quote block in SKILL.md, expected codes)
    ("Use 23 as the scale.\n", "> Use 2\\*3 as the scale.[^s]", ["SC302"]),  # an escaped * is text
    ("Use 2*3 as the scale.\n", "> Use 2\\*3 as the scale.[^s]", []),
    ("Use the model.\n", "> Use *the* model.[^s]", []),  # emphasis the parser found
    ("Use fns0 first.\n", "> Use `fns[0](x)` first.[^s]", ["SC303"]),  # code is text, never a link
    ("Use `fns[0](x)` first.\n", "> Use `fns[0](x)` first.[^s]", []),
    ("Use fns[0](x) first.\n", "> Use `fns[0](x)` first.[^s]", ["SC303"]),  # the evidence's parser reads a link there
    ("Set x1 to zero.\n", "> Set x<sub>1</sub> to zero.[^s]", ["SC302"]),
    ("Set x₁ to zero.\n", "> Set x<sub>1</sub> to zero.[^s]", []),
    ("It took 106 steps.\n", "> It took 10<sup>6</sup> steps.[^s]", ["SC302"]),
    # Departures from verbatim: unreviewed (SC313), with the reviewer's warning.
    ("Adam is not a good default.\n", "> Adam is [...] a good default.[^s]", ["SC311", "SC313"]),
    ("Always normalize your inputs.\n", 'They wrote "[Never] normalize your inputs"[^s].', ["SC311", "SC313"]),
    ("You can't go wrong with it.\n", 'They wrote "you can"[^s] here.', ["SC302"]),
]


@pytest.mark.parametrize(("body", "block", "codes"), SKILL_SIDE, ids=[b for _, b, _ in SKILL_SIDE])
def test_skill_side_cases(tmp_path: Path, body: str, block: str, codes: list[str]) -> None:
    assert [f[0] for f in findings(package(tmp_path, body, block))] == codes


def test_marks_finding_message(tmp_path: Path) -> None:
    p = package(tmp_path, "Adam is not a good default.\n", "> Adam is [...] a good default.[^s]")
    assert findings(p) == [
        ("SC311", 7, "blockquote at docs/evidence/src.md L11-11: [...] drops 'not' from 'Adam is not a good default': it removes a negation"),
        (
            "SC313",
            7,
            "blockquote departs from verbatim at docs/evidence/src.md L11-11 and it is not reviewed: "
            "elision [...] between 'Adam is' and 'a good default', for 'not' (run: skillcite review)",
        ),
    ]


# -- issue 13 §6: false alarms ----------------------------------------------------
LISTS = [
    ("- Check the data.\n- Check the labels.\n", "> - Check the data.\n> - Check the labels.[^s]"),
    ("1. Check the data.\n2. Check the labels.\n", "> 1. Check the data.\n> 2. Check the labels.[^s]"),
    ("* Check the data.\n* Check the labels.\n", "> * Check the data.\n> * Check the labels.[^s]"),
    ("+ Check the data.\n+ Check the labels.\n", "> + Check the data.\n> + Check the labels.[^s]"),
    ("1) Check the data.\n2) Check the labels.\n", "> 1) Check the data.\n> 2) Check the labels.[^s]"),
    ("- Check the data.\n- Check the labels.\n", "> * Check the data.\n> * Check the labels.[^s]"),  # any marker for any
    ("  - Check the data.\n  - Check *the* labels.\n", "> - Check the data.\n> - Check the labels.[^s]"),
]


@pytest.mark.parametrize(("body", "block"), LISTS, ids=[b.split("\n")[0] for b, _ in LISTS])
def test_a_quoted_list_verifies_against_the_same_list(tmp_path: Path, body: str, block: str) -> None:
    assert findings(package(tmp_path, body, block)) == []


def test_a_list_with_a_changed_item_still_fails(tmp_path: Path) -> None:
    p = package(tmp_path, "- Check the data.\n- Check the labels.\n", "> - Check the data.\n> - Check the weights.[^s]")
    assert findings(p) == [
        ("SC302", 7, "blockquote differs from docs/evidence/src.md L11-12 (score 88.5): Check the data. Check the [-weights-] {+labels.+}")
    ]


def test_pdf_hyphenation_joins_only_at_a_line_break(tmp_path: Path) -> None:
    body = "Heavy-tailed dis-\ntributions are common.\nThe dis- tributions here are not.\n"
    assert findings(package(tmp_path, body, "> Heavy-tailed distributions are common.[^s]", "L11-12")) == []
    assert findings(package(tmp_path, body, "> Heavy-tailed dis-tributions are common.[^s]", "L11-12")) == []
    # The same spelling inside a line is not a line-break hyphen: no join there.
    assert [f[0] for f in findings(package(tmp_path, body, "> The distributions here are not.[^s]", "L13"))] == ["SC302"]
    # A real compound broken at a line end keeps its hyphen too.
    body = "A well-\nknown trick.\n"
    assert findings(package(tmp_path, body, "> A well-known trick.[^s]")) == []


def test_altered_diff_does_not_mark_matching_edge_words_missing(tmp_path: Path) -> None:
    body = "The tracking is done in a forward hook, which gets invoked immediately after `forward` has completed.\n"
    block = "> The tracking is done in a forward hook, which is invoked immediately after `forward` has completed.[^s]"
    [(code, line, message)] = findings(package(tmp_path, body, block))
    assert (code, line) == ("SC302", 7)
    assert message == (
        "blockquote differs from docs/evidence/src.md L11-11 (score 96.9): "
        "... forward hook, which [-is-] {+gets+} invoked immediately after forward has completed"
    )


def test_not_found_reports_the_closest_stretch(tmp_path: Path) -> None:
    body = "Neural networks fail silently and you will not notice.\nSomething else entirely.\n"
    p = package(tmp_path, body, "> Networks break loudly, and you will surely notice it at once.[^s]")
    assert findings(p) == [
        ("SC303", 7, "blockquote not found in docs/evidence/src.md; closest: L11-11, 4 of 11 words: 'and you will not notice.'")
    ]
    p = package(tmp_path, body, "> Gradient descent is a harsh mistress.[^s]")
    assert findings(p) == [
        ("SC303", 7, "blockquote not found in docs/evidence/src.md: no word of it is there: 'Gradient descent is a harsh mistress.'")
    ]
