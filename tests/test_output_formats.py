"""Machine formats of ``skillcite check``: GitHub workflow commands and SARIF.

A checked file's name and text reach these outputs; none of it may turn
into a workflow command of its own (issue 15, section 2.2).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import Package

from skillcite.cli.app import main
from skillcite.core.diagnostics import CODES


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_escape_rules_of_workflow_commands() -> None:
    from skillcite.check.reporting.output import escape_data, escape_property

    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_data("%0A") == "%250A"  # an escape already in the text stays text
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_newline_in_a_file_name_cannot_start_a_command(pkg: Package) -> None:
    name = "x\n::stop-commands::pwned\n::error::injected.md"
    pkg.write(name, "# X\n\nSee [gone](gone.md).\n")
    r = run("check", str(pkg.root), "--format", "github")
    assert r.exit_code == 1
    assert r.output.splitlines() == [
        "::error file=x%0A%3A%3Astop-commands%3A%3Apwned%0A%3A%3Aerror%3A%3Ainjected.md,line=3,col=12,title=SC601"
        "::SC601 link target 'gone.md' does not exist",
        "checked 4 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, 1 error, 0 warnings",
    ]


def test_escaped_newline_in_a_fragment_stays_text(pkg: Package) -> None:
    pkg.write("notes.md", "# Notes\n\nSee [x](#a%0A::stop-commands::tok%0D%0A::error::y) and\r\n[y](#b%25).\n")
    r = run("check", str(pkg.root), "--format", "github")
    assert r.exit_code == 1
    assert r.output.splitlines() == [
        # The fragment is percent-decoded into real line breaks, and escaped back.
        "::error file=notes.md,line=3,col=9,title=SC602::SC602 no heading #a%0A::stop-commands::tok%0D%0A::error::y in this file",
        "::error file=notes.md,line=4,col=5,title=SC602::SC602 no heading #b%25 in this file",
        "checked 3 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, 2 errors, 0 warnings",
    ]


def test_every_line_is_a_command_or_the_summary(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    pkg.write("docs/evidence/orphan.md", (pkg.root / "docs/evidence/src.md").read_text(encoding="utf-8"))
    r = run("check", str(pkg.root), "--format", "github")
    lines = r.output.splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:-1]] == ["::error", "::warning"]
    assert lines[-1] == "checked 4 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 2 sources, 1 error, 1 warning"


# --- SARIF ------------------------------------------------------------------------

SCHEMA = Path(__file__).parent / "schemas" / "sarif-2.1.0-rtm.4.json"


def sarif(pkg: Package, *extra: str) -> tuple[int, dict]:
    r = run("check", str(pkg.root), "--format", "sarif", *extra)
    return r.exit_code, json.loads(r.output)


def validate(doc: dict) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(doc)


def test_sarif_log_validates_against_the_sarif_2_1_0_schema(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    pkg.write("docs/evidence/orphan.md", (pkg.root / "docs/evidence/src.md").read_text(encoding="utf-8"))
    pkg.write("notes dir/ünï code.md", "# Ü\n\nSee [x](#nowhere).\n")
    code, doc = sarif(pkg)
    assert code == 1
    validate(doc)
    run_ = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run_["tool"]["driver"]["name"] == "skillcite"
    assert run_["originalUriBaseIds"] == {"SRCROOT": {"uri": pkg.root.resolve().as_uri() + "/"}}
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(CODES)
    assert rules[[r["id"] for r in rules].index("SC601")] == {
        "id": "SC601",
        "name": "LocalLinkToAMissingFile",
        "shortDescription": {"text": "local link to a missing file"},
        "defaultConfiguration": {"level": "error"},
    }
    got = [
        (
            r["ruleId"],
            rules[r["ruleIndex"]]["id"],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"],
            r["message"]["text"],
        )
        for r in run_["results"]
    ]
    assert got == [
        ("SC601", "SC601", "error", "SKILL.md", {"startLine": 11, "startColumn": 41}, "link target 'gone.md' does not exist"),
        ("SC404", "SC404", "warning", "docs/evidence/orphan.md", {"startLine": 1, "startColumn": 1}, "evidence file is cited by nothing; cite it or delete it"),
        ("SC602", "SC602", "error", "notes%20dir/%C3%BCn%C3%AF%20code.md", {"startLine": 3, "startColumn": 9}, "no heading #nowhere in this file"),
    ]


def test_sarif_schema_is_not_a_formality() -> None:
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"level": "fatal", "message": {"text": "m"}}]}]})


def test_sarif_fingerprint_is_the_identity_and_survives_moved_lines(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    _, before = sarif(pkg)
    pkg.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA new paragraph.\n\nAnother one.\n")
    _, after = sarif(pkg)
    [b], [a] = before["runs"][0]["results"], after["runs"][0]["results"]
    assert a["locations"][0]["physicalLocation"]["region"]["startLine"] == b["locations"][0]["physicalLocation"]["region"]["startLine"] + 4
    assert a["partialFingerprints"] == b["partialFingerprints"]
    assert list(a["partialFingerprints"]) == ["skillciteIdentity/v1"]


def test_sarif_tells_findings_with_one_identity_apart(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md) and again [the notes](gone.md)")
    _, doc = sarif(pkg)
    prints = [r["partialFingerprints"]["skillciteIdentity/v1"] for r in doc["runs"][0]["results"]]
    assert len(prints) == 2 and prints[0].rsplit(":", 1)[0] == prints[1].rsplit(":", 1)[0]
    assert [p.rsplit(":", 1)[1] for p in prints] == ["0", "1"]


def test_sarif_strict_reports_warnings_as_errors_and_clean_run_is_valid(pkg: Package) -> None:
    code, clean = sarif(pkg)
    assert code == 0 and clean["runs"][0]["results"] == []
    validate(clean)
    pkg.write("docs/evidence/orphan.md", (pkg.root / "docs/evidence/src.md").read_text(encoding="utf-8"))
    code, doc = sarif(pkg, "--strict")
    assert code == 1
    assert [(r["ruleId"], r["level"]) for r in doc["runs"][0]["results"]] == [("SC404", "error")]
