"""Machine formats of ``skillcite check``: GitHub workflow commands and SARIF.

A checked file's name and text reach these outputs; none of it may turn
into a workflow command of its own (issue 15, section 2.2).
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import Package

from skillcite.cli.app import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_escape_rules_of_workflow_commands() -> None:
    from skillcite.check.output import escape_data, escape_property

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
        "checked 4 files: 2 quotes verified against 1 sources, 1 error, 0 warnings",
    ]


def test_escaped_newline_in_a_fragment_stays_text(pkg: Package) -> None:
    pkg.write("notes.md", "# Notes\n\nSee [x](#a%0A::stop-commands::tok%0D%0A::error::y) and\r\n[y](#b%25).\n")
    r = run("check", str(pkg.root), "--format", "github")
    assert r.exit_code == 1
    assert r.output.splitlines() == [
        # The fragment is percent-decoded into real line breaks, and escaped back.
        "::error file=notes.md,line=3,col=9,title=SC602::SC602 no heading #a%0A::stop-commands::tok%0D%0A::error::y in this file",
        "::error file=notes.md,line=4,col=5,title=SC602::SC602 no heading #b%25 in this file",
        "checked 3 files: 2 quotes verified against 1 sources, 2 errors, 0 warnings",
    ]


def test_every_line_is_a_command_or_the_summary(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    pkg.write("docs/evidence/orphan.md", (pkg.root / "docs/evidence/src.md").read_text(encoding="utf-8"))
    r = run("check", str(pkg.root), "--format", "github")
    lines = r.output.splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:-1]] == ["::error", "::warning"]
    assert lines[-1] == "checked 4 files: 2 quotes verified against 2 sources, 1 error, 1 warning"
