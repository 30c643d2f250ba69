"""The command line: exact output lines, formats, exit codes, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Package, line_of, evidence_text
from skillcite.cli.app import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_clean_check_prints_summary_and_exits_0(pkg: Package) -> None:
    r = run("check", str(pkg.root))
    assert r.exit_code == 0
    assert r.output == "checked 3 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, 0 errors, 0 warnings\n"


def test_findings_are_sorted_lines_and_exit_1(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    pkg.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^nope]\n")
    r = run("check", str(pkg.root))
    assert r.exit_code == 1
    assert r.output.splitlines() == [
        "SKILL.md:7:9: SC101 footnote [^nope] is not defined",
        "SKILL.md:13:41: SC601 link target 'gone.md' does not exist",
        "checked 3 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, 2 errors, 0 warnings",
    ]


def test_warnings_pass_unless_strict(pkg: Package) -> None:
    pkg.write("docs/evidence/orphan.md", evidence_text())
    loose = run("check", str(pkg.root))
    assert loose.exit_code == 0
    assert "SC404" in loose.output and loose.output.rstrip().endswith("0 errors, 1 warning")
    strict = run("check", str(pkg.root), "--strict")
    assert strict.exit_code == 1
    assert strict.output.rstrip().endswith("1 error, 0 warnings")


def test_select_and_ignore(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    pkg.write("docs/evidence/orphan.md", evidence_text())
    assert "SC601" not in run("check", str(pkg.root), "--ignore", "SC6").output
    out = run("check", str(pkg.root), "--select", "SC4").output
    assert "SC404" in out and "SC601" not in out
    bad = run("check", str(pkg.root), "--select", "XX9")
    assert bad.exit_code == 2 and "matches no diagnostic code" in bad.output


def test_json_format_follows_schema(pkg: Package) -> None:
    bug = line_of(evidence_text(), "Assume you have a bug")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    r = run("check", str(pkg.root), "--format", "json")
    assert r.exit_code == 1
    doc = json.loads(r.output)
    assert doc["version"] == 1
    assert doc["summary"] == {
        "files": 3, "quotes": 2, "quotes_verified": 1, "quotes_verbatim": 1, "quotes_reviewed": 0, "quotes_bulk": 0, "sources": 1, "errors": 1, "warnings": 0
    }
    [d] = doc["diagnostics"]
    assert d["code"] == "SC301" and d["severity"] == "error" and d["path"] == "SKILL.md"
    assert d["fix"]["replacement"] == f"L{bug}"


def test_github_format_has_annotations_and_full_summary(pkg: Package) -> None:
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    lines = run("check", str(pkg.root), "--format", "github").output.splitlines()
    assert lines == [  # each finding once, as an annotation (issue 13), then the summary
        "::error file=SKILL.md,line=11,col=41,title=SC601::SC601 link target 'gone.md' does not exist",
        "checked 3 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, 1 error, 0 warnings",
    ]


def test_missing_root_exits_2(tmp_path: Path) -> None:
    r = run("check", str(tmp_path / "nope"))
    assert r.exit_code == 2
    assert r.output.strip() == f"skillcite: error: {tmp_path / 'nope'}: no such directory"


def test_non_utf8_document_names_file_and_byte(pkg: Package) -> None:
    pkg.write("bad.md", b"# ok\n\xe9t\xe9\n")
    r = run("check", str(pkg.root))
    assert r.exit_code == 2
    assert r.output.strip() == f"skillcite: error: {pkg.root / 'bad.md'}: not valid UTF-8 at byte 5"


def test_invalid_yaml_front_matter_is_a_finding(pkg: Package) -> None:
    # A finding (exit 1) rather than an input error: the rest of the package is still checked.
    pkg.write("sub/SKILL.md", "---\nname: [oops\n---\n")
    r = run("check", str(pkg.root))
    assert r.exit_code == 1, r.output
    [line] = [x for x in r.output.splitlines() if "SC" in x]
    assert line.startswith("sub/SKILL.md:3:1: SC003 front matter cannot be read: ")
    assert "Traceback" not in r.output


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_exits_2(pkg: Package) -> None:
    path = pkg.write("locked.md", "# x\n")
    path.chmod(0)
    r = run("check", str(pkg.root))
    assert r.exit_code == 2 and "cannot read" in r.output


def test_crlf_and_bom_documents(pkg: Package) -> None:
    text = "\ufeff" + pkg.read("SKILL.md").replace("\n", "\r\n")
    pkg.write("SKILL.md", text)
    ev = "\ufeff" + pkg.read("docs/evidence/src.md")
    pkg.write("docs/evidence/src.md", ev)
    r = run("check", str(pkg.root))
    assert r.exit_code == 0, r.output


def test_invalid_config_exits_2(pkg: Package) -> None:
    pkg.write("pyproject.toml", "[tool.skillcite]\nevidnce = 'x'\n")
    r = run("check", str(pkg.root))
    assert r.exit_code == 2 and "unknown key 'evidnce'" in r.output


def test_config_moves_the_evidence_folder(pkg: Package) -> None:
    pkg.write("cache/src.md", pkg.read("docs/evidence/src.md"))
    (pkg.root / "docs/evidence/src.md").unlink()
    pkg.replace("SKILL.md", "docs/evidence/src.md", "cache/src.md")
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "cache"\n')
    assert run("check", str(pkg.root)).exit_code == 0


def test_every_command_help_has_an_example() -> None:
    names = main.list_commands(None)
    assert {"check", "fix", "lock", "stats", "refresh"} <= set(names)
    for name in names:
        r = run(name, "--help")
        assert r.exit_code == 0
        assert "Example" in r.output, name


def test_lock_writes_and_check_mode(pkg: Package) -> None:
    pkg.write("docs/evidence/src.md", pkg.read("docs/evidence/src.md") + "More.\n")
    stale = run("lock", "--root", str(pkg.root), "--check")
    assert stale.exit_code == 1 and "stale" in stale.output
    done = run("lock", str(pkg.root / "docs/evidence/src.md"))
    assert done.exit_code == 0 and "1 locked" in done.output
    assert run("check", str(pkg.root)).exit_code == 0
    assert run("lock", "--root", str(pkg.root), "--check").exit_code == 0


def test_stats_counts(pkg: Package) -> None:
    r = run("stats", str(pkg.root), "--format", "json")
    rows = {row["path"]: row for row in json.loads(r.output)}
    assert rows["SKILL.md"]["quotes"] == 2 and rows["SKILL.md"]["verified"] == 2
    assert rows["total"]["sources"] == 1


def test_python_m_and_no_network_imports(pkg: Package) -> None:
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['skillcite', 'check', {str(pkg.root)!r}]\n"
        "try:\n    runpy.run_module('skillcite', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "bad = [m for m in ('requests', 'trafilatura') if m in sys.modules]\n"
        "print('exit', code, 'imported', bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "exit 0 imported []"


def test_cache_gives_the_same_result_and_survives_corruption(pkg: Package, tmp_path_factory, monkeypatch) -> None:
    cache_dir = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(cache_dir))
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    cold = run("check", str(pkg.root)).output
    entries = [p for p in cache_dir.rglob("*") if p.is_file()]
    assert entries, "the first run fills the cache"
    assert run("check", str(pkg.root)).output == cold
    for p in entries:
        p.write_bytes(b"not a pickle")
    assert run("check", str(pkg.root)).output == cold
    assert run("check", str(pkg.root), "--no-cache").output == cold
    # An edit misses the cache: the finding goes away.
    pkg.replace("SKILL.md", "(gone.md)", "(notes.md)")
    assert run("check", str(pkg.root)).exit_code == 0


def test_dangling_symlink_document_exits_2(pkg: Package) -> None:
    os.symlink(pkg.root / "nowhere.md", pkg.root / "broken.md")
    r = run("check", str(pkg.root))
    assert r.exit_code == 2
    assert r.output.strip() == f"skillcite: error: {pkg.root / 'broken.md'}: no such file"


# --- internal errors: exit 3, one line, no traceback ----------------------------

_BOOM = (
    "import sys, skillcite.check.run as run\n"
    "def boom(*args, **kwargs):\n"
    "    raise ZeroDivisionError('injected fault')\n"
    "run.check = boom\n"
    "from skillcite.cli import main\n"
    "main(['check', sys.argv[1]])\n"
)


def _boom(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    # The fault is injected by replacing the library's check: no real input
    # may crash skillcite, so none can stand in for a bug here.
    return subprocess.run(
        [sys.executable, "-c", _BOOM, str(root)], capture_output=True, text=True, check=False, env={**os.environ, **env}
    )


def test_internal_error_exits_3_with_one_line_and_no_traceback(pkg: Package) -> None:
    r = _boom(pkg.root, SKILLCITE_TRACEBACK="")
    assert r.returncode == 3
    assert r.stdout == ""
    assert r.stderr == (
        "skillcite: internal error: ZeroDivisionError: injected fault. This is a bug in skillcite: "
        "please report it with the command you ran (set SKILLCITE_TRACEBACK=1 to see the traceback).\n"
    )


def test_internal_error_traceback_on_request(pkg: Package) -> None:
    r = _boom(pkg.root, SKILLCITE_TRACEBACK="1")
    assert r.returncode == 1  # Python's own status for an uncaught exception
    assert "Traceback (most recent call last)" in r.stderr and "ZeroDivisionError: injected fault" in r.stderr


def test_library_errors_map_to_their_exit_status(pkg: Package) -> None:
    r = run("check", str(pkg.root / "nowhere"))
    assert r.exit_code == 2
    assert r.output == f"skillcite: error: {pkg.root / 'nowhere'}: no such directory\n"
    (pkg.root / "pyproject.toml").write_text("[tool.skillcite]\nevidnce = 'x'\n")
    r = run("check", str(pkg.root))
    assert r.exit_code == 2 and r.output.startswith("skillcite: error: ") and r.output.count("\n") == 1
