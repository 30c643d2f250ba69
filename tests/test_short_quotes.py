"""A one-word change in a short quote is altered at its cited lines (SC302 with the word diff), not "not found"."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import Package
from skillcite.check import check
from skillcite.cli import main


def findings(pkg: Package) -> list[str]:
    return [d.format() for d in check(pkg.root).diagnostics]


def test_one_word_changed_in_a_five_word_quote_is_altered_at_the_cited_line(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", "> Assume you have a defect.")
    line = pkg.read("docs/evidence/src.md").splitlines().index("Assume you have a bug. Everything else follows from this.") + 1
    assert findings(pkg) == [
        f"SKILL.md:7:1: SC302 blockquote differs from docs/evidence/src.md L{line}-{line} (score 80.0): Assume you have a [-defect-] {{+bug.+}}"
    ]
    fixed = CliRunner().invoke(main, ["fix", str(pkg.root), "--check"])
    assert fixed.exit_code == 1  # nothing fix can do: the quote is wrong, the anchor right
    assert "not fixed: SKILL.md:7: blockquote is altered in docs/evidence/src.md; fix the quote by hand" in fixed.output


def test_the_changed_word_may_be_the_first(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", "> Suppose you have a bug.")
    assert [f.split(" ")[1] for f in findings(pkg)] == ["SC302"]
    assert "[-Suppose-] {+Assume+}" in findings(pkg)[0]


@pytest.mark.parametrize(
    "quote",
    [
        "> Assume you own a defect.",  # two words changed: not this rule's case
        "> Assume bugs.",  # two words: too few to say which one changed
    ],
)
def test_more_than_one_word_or_too_short_stays_not_found(pkg: Package, quote: str) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", quote)
    assert [f.split(" ")[1] for f in findings(pkg)] == ["SC303"]


def test_verbatim_short_quote_is_clean(pkg: Package) -> None:
    assert findings(pkg) == []


@pytest.mark.parametrize(
    ("quote", "code"),
    [
        ("> Everything else arrives.", "SC303"),  # three words, the last replaced: could be any neighbour
        ("> Everything else follows from that.", "SC302"),  # five words, the last replaced
    ],
)
def test_edge_words_and_dropped_words(pkg: Package, quote: str, code: str) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", quote)
    assert [f.split(" ")[1] for f in findings(pkg)] == [code]
