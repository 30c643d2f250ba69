"""Issue 19 §2: the rules that were broken, each pinned by must-fail, must-need-review and must-pass twins.

Under the editorial model (docs/citations.md, "Verified") a quote is
certified when verbatim at its cited lines, or when a person reviewed every
departure from verbatim. So each family has three kinds of case:

* must fail: the quote is not the source's text (SC302/SC303), reviewed or not;
* must need review: found, with a departure (SC313 until reviewed), and
  the reviewer's warning the policy gives (SC310-SC312, or none);
* must pass: verbatim, no review needed.

The outcome is ``(verdict, warning)``: ``verbatim``, ``review`` or the
failing status (``altered``, ``notfound``), and the SC31x code or None.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_adv_skill_side import findings, package

from adversarial_cases import match
from skillcite.check.matching.locate import Match
from skillcite.cli import main
from skillcite.repair.fix import plan_fixes, write

VERBATIM = ("verbatim", None)
REVIEW = ("review", None)
NEG = ("review", "SC311")
EMPTY = ("review", "SC310")
NUM = ("review", "SC312")
ALTERED = ("altered", None)
NOTFOUND = ("notfound", None)


def verdict(m: Match) -> tuple[str, str | None]:
    if m.status in ("verified", "marks") and m.edits:
        return "review", m.code if m.status == "marks" else None
    assert m.status != "marks", "a broken mark is always a departure"
    return ("verbatim" if m.status == "verified" else m.status), None


# (family, evidence, quote, outcome)
CASES = [
    # Sentence ends: abbreviations, a colon, a source ellipsis are no sentence end.
    ("sentence ends", "Batch norm (Sec. 2) does not (Sec. 3) help.", "Batch norm [...] help.", NEG),
    ("sentence ends", "Dropout (e.g. in CNNs) does not help.", "Dropout [...] help", NEG),
    ("sentence ends", "Smith et al. did not replicate it.", "Smith et al. [...] replicate it", NEG),
    ("sentence ends", "As Fig. 3 shows, it does not converge.", "As Fig. 3 shows, it [...] converge", NEG),
    ("sentence ends", "The rule: do not normalize targets.", "The rule: [...] normalize targets", NEG),
    ("sentence ends", "The approach is... not... helpful.", "The approach is [...] helpful", NEG),
    ("sentence ends", "Batch norm (Sec. 2) does not (Sec. 3) help.", "Batch norm (Sec. 2) does not (Sec. 3) help.", VERBATIM),
    ("sentence ends", "Adam is not a good default. It is slow.", "Adam is not a good default. [...] slow", REVIEW),
    ("sentence ends", "Batch norm (Sec. 2) does not (Sec. 3) help.", "Batch norm does help.", NOTFOUND),
    # A leading or trailing mark is inspected; a leading insertion against the whole clause.
    ("leading and trailing marks", "Do not normalize the targets.", "[...] normalize the targets.", NEG),
    ("leading and trailing marks", "Normalize inputs unless they are images.", "Normalize inputs [...]", REVIEW),
    ("leading and trailing marks", "Do not ever normalize inputs.", "[Always] normalize inputs.", NEG),
    ("leading and trailing marks", "Do not normalize the targets.", "normalize the targets.", REVIEW),
    ("leading and trailing marks", "Normalize the targets.", "Normalize the targets.", VERBATIM),
    ("leading and trailing marks", "Do not normalize the targets.", "Do normalize the targets.", ALTERED),
    # Editor's notes stand for no source text.
    ("editor's notes", "Dropout is rarely helpful.", "Dropout is [sic] helpful", EMPTY),
    ("editor's notes", "Dropout is rarely helpful.", "Dropout is [emphasis added] helpful", EMPTY),
    ("editor's notes", "The modle works well.", "The modle [sic] works well", REVIEW),
    ("editor's notes", "The model works well.", "The model works well", VERBATIM),
    ("editor's notes", "Dropout is rarely helpful.", "Dropout is [sic] very helpful", ALTERED),
    # An HTML comment in a quote is hidden from readers: no elision.
    ("html comment", "Warmup is only useful for large batches.", "Warmup is <!-- --> useful", NOTFOUND),
    ("html comment", "Warmup is only useful for large batches.", "Warmup is <!-- note --> only useful", VERBATIM),
    ("html comment", "Warmup is only useful for large batches.", "Warmup is <!-- note --> [...] useful", REVIEW),
    # Numbers: words are numbers; an elision may not rebind a number to another unit.
    ("numbers", "Train with three seeds.", "Train with [five] seeds", NUM),
    ("numbers", "Train with three seeds.", "Train with [3] seeds", NUM),
    ("numbers", "Use 5 epochs and 3 seeds.", "Use 5 [...] seeds", NUM),
    ("numbers", "Use 5 epochs and 3 seeds.", "Use 5 epochs [...] seeds", REVIEW),
    ("numbers", "Train with three seeds.", "Train with three seeds", VERBATIM),
    ("numbers", "Train with three seeds.", "Train with five seeds", ALTERED),
    # A cut next to a word that changes the claim's force.
    ("force words", "It is rarely the case that dropout helps.", "dropout helps", REVIEW),
    ("force words", "Dropout helps only if the batch is large.", "Dropout helps", REVIEW),
    ("force words", "Dropout helps, unless the data is small.", "Dropout helps", REVIEW),
    ("force words", "Dropout helps but not always.", "Dropout helps", REVIEW),
    ("force words", "You must never skip the check.", "skip the check", REVIEW),
    ("force words", "Dropout helps and the data is small.", "Dropout helps", VERBATIM),
    ("force words", "Neural nets fail silently and you will not notice.", "Neural nets fail silently", VERBATIM),
    ("force words", "Dropout helps only if the batch is large.", "Dropout always helps", NOTFOUND),
    ("force words", "It is false that dropout helps.", "dropout helps", REVIEW),
    ("force words", "Critics claim dropout always helps.", "dropout always helps", REVIEW),
    ("force words", "Adam is better than nothing.", "Adam is better", REVIEW),
    ("force words", "Dropout helps, but hurts RNNs.", "Dropout helps", REVIEW),
    ("force words", "However, dropout helps.", "dropout helps", VERBATIM),
    ("force words", "A common pitfall is to normalize the test set too.", "normalize the test set too", REVIEW),
    ("force words", "A common step is to normalize the test set too.", "normalize the test set too", VERBATIM),
    ("force words", "Beginners think bigger batches help.", "bigger batches help", REVIEW),
    ("force words", "Bigger batches help, in theory.", "Bigger batches help", REVIEW),
    ("force words", "Bigger batches help, in our runs.", "Bigger batches help", VERBATIM),
    # An omission of the excerpt itself: what it stands for is not in the cache.
    ("evidence omissions", "Alpha is good.\n\n[...]\n\nBeta is bad.", "Alpha is good. [...] Beta is bad.", REVIEW),
    ("evidence omissions", "Alpha is good.\n\n[...]\n\nBeta is bad.", "Alpha is good. Beta is bad.", NOTFOUND),
    ("evidence omissions", "Alpha is good.\n\n[...]\n\nBeta is bad.", "Alpha is good.", VERBATIM),
    # A clause or the next sentence that refers back to the quote and takes it back.
    ("take-backs", "Dropout helps, or so they say.", "Dropout helps", REVIEW),
    ("take-backs", "Dropout helps and that is a myth.", "Dropout helps", REVIEW),
    ("take-backs", "Dropout helps. That is a myth.", "Dropout helps.", REVIEW),
    ("take-backs", "Dropout helps. Not always.", "Dropout helps.", REVIEW),
    ("take-backs", "Dropout helps. It is cheap.", "Dropout helps.", VERBATIM),
    ("take-backs", "Neural nets fail silently and you will not notice.", "Neural nets fail silently", VERBATIM),
    ("take-backs", "Dropout helps. That is a myth.", "Dropout always helps.", NOTFOUND),
    # A question quoted as a statement; text the source strikes through.
    ("questions and strikes", "Does dropout help? Rarely.", "Does dropout help", REVIEW),
    ("questions and strikes", "Does dropout help? Rarely.", "Does dropout help?", VERBATIM),
    ("questions and strikes", "~~Dropout helps.~~ It does not.", "Dropout helps.", REVIEW),
    ("questions and strikes", "Dropout helps. It does not hurt.", "Dropout helps.", VERBATIM),
    ("questions and strikes", "Does dropout help? Rarely.", "Dropout helps", ALTERED),
    # A lead-in before a colon frames what follows; a changed first letter is a departure.
    ("lead-in and case", "Myth: you never have a bug.", "you never have a bug", REVIEW),
    ("lead-in and case", "In short, you never have a bug.", "you never have a bug", VERBATIM),
    ("lead-in and case", "assume you have a bug.", "Assume you have a bug", REVIEW),
    ("lead-in and case", "Assume you have a bug.", "Assume you have a bug", VERBATIM),
    ("lead-in and case", "Myth: you never have a bug.", "Fact: you never have a bug", ALTERED),
]


@pytest.mark.parametrize(("family", "body", "quote", "expected"), CASES, ids=[f"{c[0]}: {c[2][:40]}" for c in CASES])
def test_case(tmp_path: Path, family: str, body: str, quote: str, expected: tuple[str, str | None]) -> None:
    assert verdict(match(tmp_path, body, quote)) == expected


def test_every_family_has_all_three_kinds() -> None:
    kinds: dict[str, set[str]] = {}
    for family, _, _, (v, _) in CASES:
        kinds.setdefault(family, set()).add("pass" if v == "verbatim" else ("review" if v == "review" else "fail"))
    assert {f: k for f, k in kinds.items() if k != {"fail", "review", "pass"}} == {}


def test_html_comment_end_to_end(tmp_path: Path) -> None:
    p = package(tmp_path / "a", "Warmup is only useful for large batches.\n", "> Warmup is <!-- --> useful for large batches.[^s]")
    assert [f[0] for f in findings(p)] == ["SC302"]
    p = package(tmp_path / "b", "Warmup is only useful for large batches.\n", "> Warmup is <!-- note --> only useful for large batches.[^s]")
    assert findings(p) == []


def test_fix_never_certifies_a_quote_in_a_reversing_context(tmp_path: Path) -> None:
    # The quote cites L13, but its words are at L11, after "Myth:". Issue 29 changed how fix keeps it
    # uncertified: it used to refuse the anchor (the quote then stayed SC301, which review cannot list);
    # now it places it, and the quote is SC313 naming the lead-in, which a bulk acceptance leaves alone.
    body = "Myth: you never have a bug.\n\nFact: the code is clean.\n"
    p = package(tmp_path / "a", body, 'The post says "you never have a bug"[^s].', "L13")
    assert [f[0] for f in findings(p)] == ["SC301"]
    plan = plan_fixes(p.root)
    assert plan.refused == [] and plan.changed == [p.root.resolve() / "SKILL.md"]
    assert len(plan.awaiting) == 1 and "SC313 quote departs from verbatim" in plan.awaiting[0]
    assert "leaves out the lead-in 'Myth:' before it" in plan.awaiting[0]
    write(plan)
    assert [f[0] for f in findings(p)] == ["SC313"]
    bulk = CliRunner().invoke(main, ["review", str(p.root), "--accept-all", "--by", "R <r@example.org>"])
    assert bulk.exit_code == 1 and bulk.output.startswith("left ")
    assert [f[0] for f in findings(p)] == ["SC313"]
    # The twin: the same words on their own, and fix follows them.
    p = package(tmp_path / "b", "you never have a bug.\n\nFact: the code is clean.\n", 'The post says "you never have a bug"[^s].', "L13")
    plan = plan_fixes(p.root)
    assert plan.refused == [] and plan.changed == [p.root.resolve() / "SKILL.md"]
