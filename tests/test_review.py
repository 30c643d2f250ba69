"""``skillcite review`` and the review file: the editorial model of issue 19.

A quote is verified when verbatim, or when every departure from verbatim
was reviewed by a person and the review recorded; any change to the quote
or to the source sentence(s) it stands for undoes the review.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Package
from skillcite.check import check
from skillcite.cli import main

ROOT = Path(__file__).resolve().parents[1]
REVIEWS = "docs/evidence/reviews.json"
ELIDED = "> Assume [...] a bug."  # for "Assume you have a bug."


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.output


def codes(pkg: Package) -> list[str]:
    return [d.code for d in check(pkg.root).diagnostics]


def ids(pkg: Package) -> list[str]:
    status, out = run("review", str(pkg.root))
    return re.findall(r"^([0-9a-f]{12})  ", out, re.MULTILINE)


def test_verbatim_quotes_need_no_review(pkg: Package) -> None:
    status, out = run("review", str(pkg.root))
    assert (status, out) == (0, "0 quotes depart from verbatim: 0 reviewed, 0 not reviewed\n")
    report = check(pkg.root)
    assert (report.quotes_verified, report.quotes_verbatim, report.quotes_reviewed) == (2, 2, 0)
    assert not (pkg.root / REVIEWS).exists()


def test_unreviewed_departure_is_sc313_and_review_shows_it_beside_its_source(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    assert codes(pkg) == ["SC313"]
    status, out = run("review", str(pkg.root))
    assert status == 1
    lines = out.splitlines()
    assert re.fullmatch(r"[0-9a-f]{12}  SKILL\.md:7:1 cites docs/evidence/src\.md L15-15  \[not reviewed\]", lines[0])
    assert lines[1].split() == ["quote", "|", "source"]
    assert lines[2].startswith("  Assume [...] a bug.") and lines[2].endswith("| Assume you have a bug.")
    assert "marked ([-quote-]{+source+}): Assume [-[...]-] {+you have+} a bug" in out
    assert "  - elision [...] between 'Assume' and 'a bug', for 'you have'" in out
    assert lines[-1] == "1 quote departs from verbatim: 0 reviewed, 1 not reviewed"
    # --strict makes it an error; without, a warning (exit 0).
    assert run("check", str(pkg.root), "--no-cache")[0] == 0
    assert run("check", str(pkg.root), "--strict", "--no-cache")[0] == 1


def test_accept_records_who_and_when_and_check_counts_it(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    [rid] = ids(pkg)
    status, out = run("review", str(pkg.root), "--accept", rid, "--by", "R. Viewer <r@example.org>")
    assert (status, out) == (0, f"recorded 1 review by R. Viewer <r@example.org> in {REVIEWS}\n")
    data = json.loads(pkg.read(REVIEWS))
    [record] = data["reviews"]
    assert data["version"] == 2
    assert record["id"] == rid and record["bulk"] is False and record["accepted_by"] == "R. Viewer <r@example.org>"
    assert (record["document"], record["evidence"], record["quote"]) == ("SKILL.md", "docs/evidence/src.md", "Assume [...] a bug.")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["accepted_at"])
    assert codes(pkg) == []
    report = check(pkg.root)
    assert (report.quotes_verified, report.quotes_verbatim, report.quotes_reviewed) == (2, 1, 1)
    status, out = run("check", str(pkg.root), "--strict", "--no-cache")
    assert (status, out) == (0, "checked 3 files: 2 quotes verified (1 verbatim, 1 with reviewed edits) against 1 sources, 0 errors, 0 warnings\n")
    assert run("review", str(pkg.root))[0] == 0


def test_default_reviewer_is_the_git_author(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("review", str(pkg.root), "--accept-all")
    assert status == 0, out
    [record] = json.loads(pkg.read(REVIEWS))["reviews"]
    assert record["accepted_by"] == "skillcite tests <tests@example.org>"  # GIT_AUTHOR_* of the hermetic git
    assert record["bulk"] is True


def test_unknown_id_is_a_usage_error(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("review", str(pkg.root), "--accept", "000000000000")
    assert status == 2
    assert "no quote that departs from verbatim has the ID '000000000000'" in out
    assert not (pkg.root / REVIEWS).exists()


def test_a_changed_quote_undoes_the_review(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    run("review", str(pkg.root), "--accept-all")
    pkg.replace("SKILL.md", ELIDED, "> Assume [...] bug.")
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC313"
    # The departures are worded from the quote, so they change with it.
    assert "its review no longer applies (the quote and the departures found changed since its review)" in d.message


def test_a_changed_source_undoes_the_review(pkg: Package) -> None:
    from conftest import locked

    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    run("review", str(pkg.root), "--accept-all")
    # Issue 28 changes this: the sentence after is part of what the review covers (it was not before).
    pkg.write("docs/evidence/src.md", locked(pkg.read("docs/evidence/src.md").replace("Assume you have a bug.", "Assume you have a bug. Never.")))
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC313"
    assert "its review no longer applies (the sentence after and the departures found changed since its review)" in d.message
    pkg.write("docs/evidence/src.md", locked(pkg.read("docs/evidence/src.md").replace("Assume you have a bug. Never.", "Assume you have a bug, unless.")))
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC313"
    assert "its review no longer applies (the source sentence(s) and the departures found changed since its review)" in d.message


def test_accept_drops_records_that_match_nothing(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    run("review", str(pkg.root), "--accept-all")
    pkg.replace("SKILL.md", ELIDED, "> Assume you [...] a bug.")
    run("review", str(pkg.root), "--accept-all")
    [record] = json.loads(pkg.read(REVIEWS))["reviews"]
    assert record["quote"] == "Assume you [...] a bug."


def test_interactive_accepts_what_the_reviewer_says_yes_to(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("review", str(pkg.root), "--interactive", "--by", "R <r@x>", input="n\n")
    assert status == 1 and out.endswith("recorded 0 reviews by R <r@x>; 1 left unreviewed\n")
    status, out = run("review", str(pkg.root), "--interactive", "--by", "R <r@x>", input="y\n")
    assert status == 0 and out.endswith("recorded 1 review by R <r@x>; 0 left unreviewed\n")
    assert codes(pkg) == []


def test_configured_review_file(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nreviews = "reviews/quotes.json"\n')
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    assert run("review", str(pkg.root), "--accept-all")[0] == 0
    assert (pkg.root / "reviews/quotes.json").is_file() and not (pkg.root / REVIEWS).exists()
    assert codes(pkg) == []


def test_invalid_review_file_is_an_input_error(pkg: Package) -> None:
    pkg.write(REVIEWS, '{"version": 2, "reviews": [{"quote_sha256": 3}]}\n')
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("check", str(pkg.root), "--no-cache")
    assert status == 2 and "docs/evidence/reviews.json: invalid review file" in out


# -- the documented commands run -----------------------------------------------------
def documented_review_commands() -> list[tuple[str, list[str], int]]:
    """Every ``skillcite review`` line of a sh block in README.md and docs/, with its documented exit status."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
            for line in block.splitlines():
                command, _, comment = line.partition("#")
                if not command.startswith("skillcite review"):
                    continue
                words = shlex.split(command)
                if words[:2] == ["skillcite", "review"]:
                    status = re.search(r"exit (\d) while", comment)
                    found.append((path.name, words[2:], 1 if status else 0))
    return found


def test_readme_and_docs_show_review() -> None:
    assert {name for name, _, _ in documented_review_commands()} >= {"README.md", "adopting.md"}


@pytest.mark.parametrize(("name", "args", "status"), documented_review_commands(), ids=lambda v: str(v))
def test_documented_review_command_runs(pkg: Package, monkeypatch: pytest.MonkeyPatch, name: str, args: list[str], status: int) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    monkeypatch.chdir(pkg.root)
    args = [ids(pkg)[0] if a == "ID" else a for a in args]
    got, out = run("review", *args)
    assert got == status, out
    if args:  # an acceptance: the quote is now verified
        assert codes(pkg) == []


def test_review_file_outside_the_package_is_refused(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nreviews = "../reviews.json"\n')
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("check", str(pkg.root), "--no-cache")
    assert status == 2 and "reviews '../reviews.json' is outside the package" in out
    assert not (pkg.root.parent / "reviews.json").exists()
