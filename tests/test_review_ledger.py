"""Issue 28, items 2, 3 and 7: a readable, validated review file; bounded bulk acceptance; review's formats.

Every malformed, forged-looking or unsafe review file is refused with one
line and exit 2 by ``check`` and ``review`` alike, never a traceback (exit
3) nor a hang; each has a valid twin that passes.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import Package
from skillcite.check import check
from skillcite.cli import main

REVIEWS = "docs/evidence/reviews.json"
ELIDED = "> Assume [...] a bug."
SCHEMA = Path(__file__).parent / "schemas" / "review-1.json"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture
def accepted(pkg: Package) -> Package:
    """The clean package with one elided quote, reviewed one by one."""
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    rid = run("review", str(pkg.root))[1].split()[0]
    assert run("review", str(pkg.root), "--accept", rid, "--by", "R <r@example.org>")[0] == 0
    return pkg


def data(p: Package) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(p.read(REVIEWS))
    return loaded


def write(p: Package, doc: Any) -> None:
    p.write(REVIEWS, json.dumps(doc, indent=1))


def refused(p: Package) -> str:
    """The one line ``check`` prints for a refused review file (exit 2); ``review`` says the same."""
    status, out = run("check", str(p.root), "--no-cache")
    assert status == 2, out
    assert out.count("\n") == 1, out
    assert run("review", str(p.root)) == (2, out)
    return out.rstrip("\n")


def prefix(problem: str) -> str:
    return f"skillcite: error: {REVIEWS}: invalid review file: {problem}"


def test_must_pass_valid_review_file(accepted: Package) -> None:
    assert run("check", str(accepted.root), "--strict", "--no-cache") == (
        0,
        "checked 3 files: 2 quotes verified (1 verbatim, 1 with reviewed edits) against 1 sources, 0 errors, 0 warnings\n",
    )


def test_must_pass_utf8_bom(accepted: Package) -> None:
    accepted.write(REVIEWS, b"\xef\xbb\xbf" + (accepted.root / REVIEWS).read_bytes())
    assert [d.code for d in check(accepted.root).diagnostics] == []


# (case, how the record or file is changed, the exact problem reported)
def _drop(key: str) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        del doc["reviews"][0][key]

    return edit


def _set(key: str, value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        doc["reviews"][0][key] = value

    return edit


def _top(key: str, value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        doc[key] = value

    return edit


def _twice(doc: dict[str, Any]) -> None:
    doc["reviews"].append(dict(doc["reviews"][0]))


FORGED = "record 1: its fields are not what 'key_sha256' certifies (was the quote, the source or the context edited by hand?)"
RECORD_CASES = [
    ("missing field", _drop("accepted_by"), "record 1 lacks 'accepted_by'"),
    ("missing hash", _drop("key_sha256"), "record 1 lacks 'key_sha256'"),
    ("quote of wrong type", _set("quote", 3), "record 1: 'quote' must be text, not 3"),
    ("departures not a list", _set("departures", "elision"), "record 1: 'departures' must be a non-empty list of texts"),
    ("occurrence a boolean", _set("occurrence", True), "record 1: 'occurrence' must be a whole number >= 1, not true"),
    ("empty reviewer", _set("accepted_by", " "), "record 1: 'accepted_by' must name who accepted it (one line of text)"),
    ("reviewer with a newline", _set("accepted_by", "R\nX"), "record 1: 'accepted_by' must name who accepted it (one line of text)"),
    ("not a date", _set("accepted_at", "yesterday"), 'record 1: \'accepted_at\' must be a UTC time like 2026-11-27T09:00:00Z, not "yesterday"'),
    (
        "a date that does not exist",
        _set("accepted_at", "2026-02-30T09:00:00Z"),
        "record 1: 'accepted_at' must be a UTC time like 2026-11-27T09:00:00Z, not \"2026-02-30T09:00:00Z\"",
    ),
    ("bulk not a boolean", _set("bulk", "yes"), 'record 1: \'bulk\' must be true or false, not "yes"'),
    ("unknown key", _set("note", "hand-written"), "record 1 has an unknown key 'note'"),
    ("visible quote not what the hash certifies", _set("quote", "Assume [...] bug."), FORGED),
    ("visible source sentence forged", _set("cited", "Assume you have no bug."), FORGED),
    ("id not the hash's", _set("id", "000000000000"), "record 1: 'id' is not the first 12 digits of 'key_sha256'"),
    ("the same review twice", _twice, "record 2 repeats record 1 (the same review twice)"),
    ("version true", _top("version", True), '"version" must be the number 2, not true'),
    ("version a string", _top("version", "2"), '"version" must be the number 2, not "2"'),
    ("reviews not a list", _top("reviews", {}), '"reviews" must be a list of records'),
    ("unknown top-level key", _top("extra", 1), "unknown top-level key 'extra'"),
]


@pytest.mark.parametrize(("name", "edit", "problem"), RECORD_CASES, ids=[c[0] for c in RECORD_CASES])
def test_must_fail_malformed_record(accepted: Package, name: str, edit: Any, problem: str) -> None:
    doc = data(accepted)
    edit(doc)
    write(accepted, doc)
    assert refused(accepted) == prefix(problem)


RAW_CASES = [
    ("duplicate key", '{"version": 2, "version": 2, "reviews": []}', "duplicate key 'version'"),
    ("top level a list", "[]", "the top level is not a JSON object"),
    ("not JSON", "{", "Expecting property name enclosed in double quotes"),
    ("deep nesting", '{"version": 2, "reviews": [' + "[" * 100_000 + "]" * 100_000 + "]}", "nested 100002 levels deep; a review file needs 4"),
]


@pytest.mark.parametrize(("name", "text", "problem"), RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_must_fail_malformed_file(accepted: Package, name: str, text: str, problem: str) -> None:
    accepted.write(REVIEWS, text)
    assert refused(accepted) == prefix(problem)


def test_must_fail_not_utf8(accepted: Package) -> None:
    accepted.write(REVIEWS, b'{"version": 2, "reviews": [], "x": "\xff"}')
    assert refused(accepted) == prefix("not UTF-8")


def test_must_fail_version_1_names_the_migration(accepted: Package) -> None:
    write(accepted, {"version": 1, "reviews": []})
    assert refused(accepted) == (
        f"skillcite: error: {REVIEWS}: a version 1 review file (its reviews cover only the quote and the source sentence); run: skillcite review --migrate"
    )


def test_must_fail_symlink_out_of_the_package(accepted: Package, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "reviews.json"
    outside.write_bytes((accepted.root / REVIEWS).read_bytes())
    (accepted.root / REVIEWS).unlink()
    os.symlink(outside, accepted.root / REVIEWS)
    assert refused(accepted) == (
        f"skillcite: error: {REVIEWS}: the review file leads outside the package (a symbolic link to {os.path.realpath(outside)}); commit a regular file"
    )


def test_must_pass_symlink_inside_the_package(accepted: Package) -> None:
    (accepted.root / "kept").mkdir()
    os.replace(accepted.root / REVIEWS, accepted.root / "kept" / "reviews.json")
    os.symlink(accepted.root / "kept" / "reviews.json", accepted.root / REVIEWS)
    assert [d.code for d in check(accepted.root).diagnostics] == []


def test_must_fail_fifo_without_hanging(accepted: Package) -> None:
    (accepted.root / REVIEWS).unlink()
    os.mkfifo(accepted.root / REVIEWS)
    started = time.monotonic()
    assert refused(accepted) == f"skillcite: error: {REVIEWS}: a FIFO, not a regular file: never read"
    assert time.monotonic() - started < 60


def test_must_fail_folder(accepted: Package) -> None:
    (accepted.root / REVIEWS).unlink()
    (accepted.root / REVIEWS).mkdir()
    assert refused(accepted) == f"skillcite: error: {REVIEWS}: cannot read the review file (Is a directory)"


def test_must_fail_bad_file_even_when_no_quote_needs_review(pkg: Package) -> None:
    pkg.write(REVIEWS, '{"version": 2}')
    assert refused(pkg) == prefix('"reviews" must be a list of records')


# -- item 3: bulk acceptance is visible and bounded ------------------------------------
WARNED = "> Assume [really] you have a bug."  # an insertion from nothing: SC310


def test_accept_all_lists_what_it_accepts_and_refuses_warnings(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED + "[^src]\n\n" + WARNED)
    listed = run("review", str(pkg.root))[1]
    elided_id, warned_id = re.findall(r"^([0-9a-f]{12})  ", listed, re.MULTILINE)
    status, out = run("review", str(pkg.root), "--accept-all", "--by", "B <b@example.org>")
    assert status == 1
    assert out.splitlines() == [
        f"accepted in bulk {elided_id}  SKILL.md:7:1  'Assume [...] a bug.'",
        f"refused {warned_id}  SKILL.md:9:1: warning SC310: insertion [really] replaces nothing in the source: 'Assume you have a bug' "
        "(read it with skillcite review and accept it by ID, or pass --include-warnings)",
        f"recorded 1 bulk acceptance by B <b@example.org> in {REVIEWS}; 1 with a reviewer's warning refused",
    ]
    codes = [d.code for d in check(pkg.root).diagnostics]
    assert codes == ["SC310", "SC313"]


def test_accept_all_with_include_warnings_takes_them_too(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", WARNED)
    status, out = run("review", str(pkg.root), "--accept-all", "--include-warnings", "--by", "B <b@example.org>")
    assert status == 0, out
    assert out.splitlines()[-1] == f"recorded 1 bulk acceptance by B <b@example.org> in {REVIEWS}"
    assert [d.code for d in check(pkg.root).diagnostics] == []


def test_include_warnings_alone_is_a_usage_error(pkg: Package) -> None:
    assert run("review", str(pkg.root), "--include-warnings") == (2, "skillcite: error: --include-warnings goes with --accept-all\n")


def test_summary_counts_bulk_apart_and_never_calls_it_reviewed(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    assert run("review", str(pkg.root), "--accept-all")[0] == 0
    status, out = run("check", str(pkg.root), "--strict", "--no-cache")
    assert (status, out) == (0, "checked 3 files: 2 quotes verified (1 verbatim, 0 with reviewed edits, 1 with edits accepted in bulk) against 1 sources, 0 errors, 0 warnings\n")
    report = json.loads(run("check", str(pkg.root), "--no-cache", "--format", "json")[1])["summary"]
    assert (report["quotes_verbatim"], report["quotes_reviewed"], report["quotes_bulk"]) == (1, 0, 1)
    assert run("review", str(pkg.root))[1] == "1 quote departs from verbatim: 0 reviewed, 1 accepted in bulk, 0 not reviewed\n"
    # One by one, afterwards: the bulk record becomes a review.
    rid = run("review", str(pkg.root), "--all")[1].split()[0]
    assert run("review", str(pkg.root), "--accept", rid, "--by", "R <r@example.org>") == (0, f"recorded 1 review by R <r@example.org> in {REVIEWS}\n")
    assert [r["bulk"] for r in data(pkg)["reviews"]] == [False]


def bulk_dated(p: Package, when: str, bulk: bool = True) -> None:
    """Re-date the one record (through the CLI's writer, so the hash stays right)."""
    from skillcite.check.reviewing import accept, departures

    (p.root / REVIEWS).unlink(missing_ok=True)
    ws, found = departures(p.root)
    import datetime as dt

    accept(ws, found, "B <b@example.org>", bulk=bulk, now=dt.datetime.fromisoformat(when))


def test_must_fail_bulk_after_the_configured_date(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nbulk_reviews_until = "2026-11-01"\n')
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    bulk_dated(pkg, "2026-11-02T10:00:00+00:00")
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC313"
    assert "and its bulk acceptance of 2026-11-02 is after bulk_reviews_until (2026-11-01), so it must be reviewed one by one:" in d.message


@pytest.mark.parametrize(("when", "bulk"), [("2026-11-01T23:59:59+00:00", True), ("2026-11-05T10:00:00+00:00", False)], ids=["bulk on the day", "reviewed later"])
def test_must_pass_bulk_until_the_date_and_reviews_after_it(pkg: Package, when: str, bulk: bool) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nbulk_reviews_until = "2026-11-01"\n')
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    bulk_dated(pkg, when, bulk)
    assert [d.code for d in check(pkg.root).diagnostics] == []


def test_bulk_reviews_until_must_be_a_date(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nbulk_reviews_until = "last week"\n')
    status, out = run("check", str(pkg.root), "--no-cache")
    assert (status, out) == (2, f"skillcite: error: {pkg.root / 'pyproject.toml'}: [tool.skillcite] bulk_reviews_until must be a date written YYYY-MM-DD\n")


# -- item 7: review --format json and github -------------------------------------------
def test_format_json_validates_against_its_schema(pkg: Package) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("review", str(pkg.root), "--format", "json")
    assert status == 1
    doc = json.loads(out)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["summary"] == {"departures": 1, "reviewed": 0, "bulk": 0, "not_reviewed": 1}
    [q] = doc["quotes"]
    assert (q["path"], q["line"], q["state"], q["quote"], q["cited"], q["warning"]) == ("SKILL.md", 7, "not reviewed", "Assume [...] a bug.", "Assume you have a bug.", None)
    # Reviewed: not listed without --all; listed with it.
    run("review", str(pkg.root), "--accept", q["id"])
    status, out = run("review", str(pkg.root), "--format", "json")
    assert status == 0 and json.loads(out)["quotes"] == []
    doc = json.loads(run("review", str(pkg.root), "--format", "json", "--all")[1])
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert [q["state"] for q in doc["quotes"]] == ["reviewed"]


def test_schema_refuses_a_wrong_document() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 1, "root": ".", "summary": {}, "quotes": []}, schema)


def test_format_github_annotates_unreviewed_quotes(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    status, out = run("review", str(pkg.root), "--format", "github")
    assert status == 1
    rid = run("review", str(pkg.root))[1].split()[0]
    assert out.splitlines() == [
        f"::warning file=SKILL.md,line=7,col=1,title=skillcite review::{rid} quote departs from verbatim and not reviewed: "
        "elision [...] between 'Assume' and 'a bug', for 'you have' (run: skillcite review)",
        "1 quote departs from verbatim: 0 reviewed, 0 not reviewed".replace("0 not", "1 not"),
    ]


def test_format_github_escapes_what_comes_from_files(pkg: Package) -> None:
    text = pkg.read("SKILL.md").split("---\n", 2)[2].replace("> Assume you have a bug.", ELIDED)
    pkg.write("notes,x:y.md", text)
    out = run("review", str(pkg.root), "--format", "github")[1]
    first = out.splitlines()[0]
    assert first.startswith("::warning file=notes%2Cx%3Ay.md,line=3,col=1,title=skillcite review::")


def test_format_with_accept_is_a_usage_error(pkg: Package) -> None:
    assert run("review", str(pkg.root), "--format", "json", "--accept-all") == (
        2,
        "skillcite: error: --format json lists quotes; it cannot be combined with --accept, --accept-all, --interactive or --migrate\n",
    )


# -- migration from version 1 ------------------------------------------------------------
def test_migrate_carries_version_1_records_as_bulk(pkg: Package) -> None:
    from skillcite.check.judging.reviews import digest

    pkg.replace("SKILL.md", "> Assume you have a bug.", ELIDED)
    old = {
        "quote_sha256": digest("Assume [...] a bug."), "source_sha256": digest("Assume you have a bug."), "document": "SKILL.md",
        "evidence": "docs/evidence/src.md", "quote": "Assume [...] a bug.", "accepted_by": "R <r@example.org>",
        "accepted_at": "2026-11-27T09:00:00Z", "bulk": False, "id": "x",
    }
    gone = dict(old, quote_sha256=digest("something else"))
    write(pkg, {"version": 1, "reviews": [old, gone]})
    assert run("check", str(pkg.root), "--no-cache")[0] == 2
    status, out = run("review", str(pkg.root), "--migrate")
    assert (status, out) == (
        0,
        "migrated 1 review to the current key, each as a bulk acceptance (1 had been reviewed one by one: read them again with "
        "skillcite review --all and accept them by ID); 1 matched no quote and were dropped\n",
    )
    [record] = data(pkg)["reviews"]
    assert (record["accepted_by"], record["accepted_at"], record["bulk"]) == ("R <r@example.org>", "2026-11-27T09:00:00Z", True)
    assert [d.code for d in check(pkg.root).diagnostics] == []


def test_migrate_refuses_a_version_2_file(accepted: Package) -> None:
    assert run("review", str(accepted.root), "--migrate") == (2, f"skillcite: error: {REVIEWS}: not a version 1 review file; nothing to migrate\n")


# -- the stale-review scan is linear ---------------------------------------------------
def test_stale_reviews_are_explained_with_one_comparison_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """N stale reviews cost N record comparisons, not N x N (bench/review_scale.py times it)."""
    import sys

    from skillcite.check.judging.reviews import Shown

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from review_scale import stale_package

    n = 150
    stale_package(tmp_path, n)
    calls = []
    original = Shown.changes

    def counted(self: Shown, other: Shown) -> list[str]:
        calls.append(1)
        return original(self, other)

    monkeypatch.setattr(Shown, "changes", counted)
    report = check(tmp_path)
    stale = [d for d in report.diagnostics if d.code == "SC313"]
    assert len(stale) == n
    assert all("its review no longer applies (the sentence after changed since its review)" in d.message for d in stale)
    assert len(calls) == n
