"""Issue 28, item 1: a review covers exactly what the reviewer was shown.

Each must-fail case edits one thing the review showed (the document, the
evidence's source or author, the source sentence, the sentence before or
after, the heading above, the footnote's attribution, the evidence file)
and expects SC313 with a message naming what changed; its must-pass twin
edits something next to it that the review did not show and expects the
review to hold. Moving the quote, or the cited lines with ``fix`` carrying
the anchor, keeps the review.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FRONT, Package, line_of, locked
from skillcite.check import check
from skillcite.cli import main

REVIEWS = "docs/evidence/reviews.json"
BODY = """# Debugging

## What works

Start small. Assume you have a bug. Everything else follows from this.

A second paragraph, about something else.

## Later

The end.
"""
FOOTNOTE = '[^src]: A. Author, "A Post" (2020) — https://example.org/post ([cache](docs/evidence/src.md#L{line}))'


def evidence(body: str = BODY, front: str = FRONT) -> str:
    return locked(front.format(kind="excerpt", sha="0" * 64) + body)


def skill(ev: str, quote: str = "> Assume [...] a bug.[^src]", footnote: str = FOOTNOTE, above: str = "") -> str:
    line = line_of(ev, "Assume you have a bug")
    return f"---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n{above}\n{quote}\n\n{footnote.format(line=line)}\n"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture
def reviewed(tmp_path: Path) -> Package:
    """A package whose one elided quote is reviewed one by one."""
    p = Package(tmp_path)
    p.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\n')
    ev = evidence()
    p.write("docs/evidence/src.md", ev)
    p.write("SKILL.md", skill(ev))
    status, out = run("review", str(tmp_path))
    assert status == 1, out
    rid = out.split()[0]
    assert run("review", str(tmp_path), "--accept", rid, "--by", "R <r@example.org>")[0] == 0
    assert findings(p) == []
    return p


def findings(p: Package) -> list[str]:
    return [f"{d.code} {d.message}" for d in check(p.root).diagnostics]


def stale(what: str) -> list[str]:
    return [
        "SC313 blockquote departs from verbatim at docs/evidence/src.md L{line}-{line} and its review no longer applies "
        f"({what} changed since its review): elision [...] between 'Assume' and 'a bug', for 'you have' (run: skillcite review)"
    ]


def set_evidence(p: Package, body: str = BODY, front: str = FRONT) -> int:
    """Write the evidence and the skill citing its line again; the cited line."""
    ev = evidence(body, front)
    p.write("docs/evidence/src.md", ev)
    old = p.read("SKILL.md")
    line = line_of(ev, "Assume you have a bug")
    import re

    p.write("SKILL.md", re.sub(r"src\.md#L\d+", f"src.md#L{line}", old))
    return line


# (what the must-fail case edits, the edit, what the message names); the twin edits nearby, not shown.
EVIDENCE_EDITS = [
    ("sentence before", ("Start small.", "Start big."), "the sentence before"),
    ("sentence after", ("Everything else follows from this.", "Everything else follows from it."), "the sentence after"),
    ("source sentence", ("Assume you have a bug.", "Assume you have a bug, always."), "the source sentence(s)"),
    ("heading above", ("## What works", "## What helps"), "the heading above"),
]
EVIDENCE_TWINS = [
    ("another paragraph", ("A second paragraph, about something else.", "A second paragraph, now about more.")),
    ("a heading below", ("## Later", "## Much later")),
    ("the top heading (not the nearest)", ("# Debugging", "# Debugging notes")),
]


@pytest.mark.parametrize(("name", "edit", "what"), EVIDENCE_EDITS, ids=[e[0] for e in EVIDENCE_EDITS])
def test_must_fail_evidence_context_edit(reviewed: Package, name: str, edit: tuple[str, str], what: str) -> None:
    line = set_evidence(reviewed, BODY.replace(*edit))
    got = findings(reviewed)
    if name == "source sentence":
        # The departures are worded from the source too: the cut now leaves out ', always'.
        assert len(got) == 1 and got[0].startswith("SC313 ") and f"its review no longer applies ({what} and the departures found changed" in got[0]
    else:
        assert got == [s.format(line=line) for s in stale(what)]


@pytest.mark.parametrize(("name", "edit"), EVIDENCE_TWINS, ids=[e[0] for e in EVIDENCE_TWINS])
def test_must_pass_evidence_edit_outside_what_was_shown(reviewed: Package, name: str, edit: tuple[str, str]) -> None:
    set_evidence(reviewed, BODY.replace(*edit))
    assert findings(reviewed) == []


def test_must_fail_evidence_replaced_by_another_authors_page(reviewed: Package) -> None:
    line = set_evidence(reviewed, front=FRONT.replace("author: A. Author", "author: B. Other"))
    got = findings(reviewed)
    assert [f for f in got if not f.startswith("SC315")] == [s.format(line=line) for s in stale("the evidence's author")]
    assert [f[:5] for f in got if f.startswith("SC315")] == ["SC315"]  # and the footnote now names someone else (issue 28 item 5)


def test_must_fail_evidence_source_repointed(reviewed: Package) -> None:
    line = set_evidence(reviewed, front=FRONT.replace("https://example.org/post", "https://example.org/another"))
    got = findings(reviewed)
    assert [f for f in got if not f.startswith("SC314")] == [s.format(line=line) for s in stale("the evidence's source")]
    assert [f[:5] for f in got if f.startswith("SC314")] == ["SC314"]  # and the footnote's URL is no longer the evidence's


def test_must_pass_evidence_title_edit(reviewed: Package) -> None:
    set_evidence(reviewed, front=FRONT.replace('title: "A Post"', 'title: "A Post, revised"'))
    assert findings(reviewed) == []


def test_must_fail_footnote_repointed_to_another_file_holding_the_same_sentence(reviewed: Package) -> None:
    reviewed.write("docs/evidence/copy.md", evidence())
    reviewed.replace("SKILL.md", "docs/evidence/src.md#", "docs/evidence/copy.md#")
    [got] = [f for f in findings(reviewed) if f.startswith("SC313")]
    assert "its review no longer applies (the evidence file changed since its review)" in got


def test_must_fail_footnote_attribution_changed(reviewed: Package) -> None:
    reviewed.replace("SKILL.md", '[^src]: A. Author, "A Post"', '[^src]: C. Someone, "A Post"')
    line = line_of(reviewed.read("docs/evidence/src.md"), "Assume you have a bug")
    got = findings(reviewed)
    assert [f for f in got if not f.startswith("SC315")] == [s.format(line=line) for s in stale("the footnote's attribution")]
    assert [f[:5] for f in got if f.startswith("SC315")] == ["SC315"]  # C. Someone is not the evidence's author


def test_must_fail_identical_quote_in_another_document_does_not_ride(reviewed: Package) -> None:
    ev = reviewed.read("docs/evidence/src.md")
    reviewed.write("references/more.md", skill(ev).split("---\n", 2)[2].replace("(docs/evidence/", "(../docs/evidence/"))
    got = findings(reviewed)
    assert len(got) == 1 and got[0].startswith("SC313 ") and "and it is not reviewed:" in got[0]
    # The reviewed one in SKILL.md still holds: only references/more.md is reported.
    assert [d.path for d in check(reviewed.root).diagnostics] == ["references/more.md"]


def test_must_fail_two_identical_quotes_never_share_a_review(reviewed: Package) -> None:
    text = reviewed.read("SKILL.md")
    reviewed.write("SKILL.md", text.replace("> Assume [...] a bug.[^src]\n", "> Assume [...] a bug.[^src]\n\nText.\n\n> Assume [...] a bug.[^src]\n"))
    got = check(reviewed.root).diagnostics
    assert [(d.code, d.line) for d in got] == [("SC313", 11)]
    assert "its review no longer applies" not in got[0].message  # a second quote is new, not changed


def test_must_pass_quote_moved_in_its_document(reviewed: Package) -> None:
    reviewed.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA new paragraph above the quote.\n\nAnd another.\n")
    assert findings(reviewed) == []


def test_must_pass_cited_lines_moved_and_fix_carries_the_anchor(reviewed: Package) -> None:
    # Lines inserted above the cited ones, inside the same section: the anchor goes stale (SC2xx) and fix repairs it.
    body = BODY.replace("## What works\n", "## What works\n\nAn earlier paragraph.\n\nAnd one more.\n")
    reviewed.write("docs/evidence/src.md", evidence(body))
    assert any(not f.startswith("SC313") for f in findings(reviewed))
    status, out = run("fix", str(reviewed.root))
    assert status == 0, out
    assert findings(reviewed) == []
    records = json.loads(reviewed.read(REVIEWS))["reviews"]
    assert [r["bulk"] for r in records] == [False]


def test_record_shows_what_was_reviewed(reviewed: Package) -> None:
    [record] = json.loads(reviewed.read(REVIEWS))["reviews"]
    shown = {k: record[k] for k in ("document", "quote", "occurrence", "evidence", "source", "author", "heading", "before", "cited", "after", "attribution", "departures")}
    assert shown == {
        "document": "SKILL.md",
        "quote": "Assume [...] a bug.",
        "occurrence": 1,
        "evidence": "docs/evidence/src.md",
        "source": "https://example.org/post",
        "author": "A. Author",
        "heading": "What works",
        "before": "Start small.",
        "cited": "Assume you have a bug.",
        "after": "Everything else follows from this.",
        "attribution": 'A. Author, "A Post" (2020) — https://example.org/post',
        "departures": ["elision [...] between 'Assume' and 'a bug', for 'you have'"],
    }
    assert record["id"] == record["key_sha256"][:12] and record["bulk"] is False
