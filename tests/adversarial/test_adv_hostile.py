"""Family 5 (issue 15 §4): hostile anchors and quotes become findings, never tracebacks or passes.

Speed is measured in bench/check_speed.py (no wall-clock assertions here);
these tests pin the outcomes of the inputs that used to be slow or crash.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from adversarial_cases import match
from conftest import Package, clean_package, evidence_text
from skillcite.check import check


def _cite(tmp_path: Path, anchors: str) -> Package:
    p = clean_package(tmp_path)
    body = "Assume you have a bug.\n"
    p.write("docs/evidence/src.md", evidence_text(body))
    p.write(
        "SKILL.md",
        "---\nname: pkg\ndescription: A test skill.\n---\n# Pkg\n\n> Assume you have a bug.[^s]\n\n"
        f'[^s]: A. Author, "Post" (2020) — https://example.org/post ([cache](docs/evidence/src.md): {anchors})\n',
    )
    return p


@pytest.mark.parametrize(
    ("anchors", "message"),
    [
        ("L\u0661\u0661", "anchor 'L\u0661\u0661': write line numbers with the digits 0-9"),
        ("L" + "9" * 5000, "anchor 'L999999999999999999999999999999999999999': a line number has more than 9 digits"),
        ("L11-" + "1" * 12, "anchor 'L11-111111111111': a line number has more than 9 digits"),
    ],
    ids=["arabic-indic digits", "5000 digits", "12 digits"],
)
def test_hostile_anchors_are_sc204(tmp_path: Path, anchors: str, message: str) -> None:
    report = check(_cite(tmp_path, anchors).root)
    found = [(d.code, d.message) for d in report.diagnostics]
    assert ("SC204", message) in found
    # The quote is not verified against an anchor that could not be read:
    # it is found elsewhere in the file and reported there.
    assert sorted(c for c, _ in found) == ["SC204", "SC301"]


def test_an_ascii_anchor_twin_is_clean(tmp_path: Path) -> None:
    assert check(_cite(tmp_path, "L11").root).diagnostics == []


def _soup(words: int, vocab: list[str], seed: int = 3) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(vocab) for _ in range(words))


BODY = " ".join(f"word{k} means something about training run {k % 7}." for k in range(700))  # ~28 KB


@pytest.mark.parametrize("words", [2000, 4000])
def test_long_non_matching_quotes_are_not_found(tmp_path: Path, words: int) -> None:
    quote = _soup(words, BODY.split())
    m = match(tmp_path, BODY, quote)
    assert m.status == "notfound"
    assert m.words == words and 0 < m.score <= words


def test_a_megabyte_quote_is_not_found(tmp_path: Path) -> None:
    quote = _soup(200_000, BODY.split())  # ~1.2 MB
    assert len(quote) > 1_000_000
    m = match(tmp_path, BODY, quote)
    assert (m.status, m.words) == ("notfound", 200_000)


def test_a_long_quote_that_matches_with_one_change_is_altered(tmp_path: Path) -> None:
    quote = BODY[:6000].rsplit(" ", 1)[0]
    assert match(tmp_path, BODY, quote).status == "verified"
    changed = quote.replace("word5 means", "word5 says", 1)
    m = match(tmp_path, BODY, changed)
    assert (m.status, m.lines) == ("altered", (4, 4))
    assert "[-says-] {+means+}" in m.diff
