"""Issue 19 §5: every path is escaped in every output format and on stderr.

A file name may hold a newline (a forged finding, or a GitHub workflow
command when the text format runs inside Actions), an escape sequence or a
bidirectional override. Printed, it is quoted with those characters
escaped (``core/shown.py``); JSON and SARIF escape it as their formats do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Package, evidence_text
from skillcite.cli import main
from skillcite.core.shown import one_line, shown

NEWLINE = "x\n::error::injected.md"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_shown_and_one_line() -> None:
    assert shown("refs/a b.md") == "refs/a b.md"
    assert shown("a\nb.md") == '"a\\x0ab.md"'
    assert shown('q"\\\x1b[31m.md') == '"q\\"\\\\\\x1b[31m.md"'
    assert shown("evil\u202egnp.md") == '"evil\\u202egnp.md"'
    assert shown("\udcff.md") == '"\\udcff.md"'
    assert one_line("a\r\nb") == "a\\x0d\\x0ab"


def test_text_format_keeps_each_finding_on_one_line(pkg: Package) -> None:
    pkg.write(NEWLINE, "# X\n\nSee [gone](gone.md).\n")
    status, out, _ = run("check", str(pkg.root), "--no-cache")
    assert status == 1
    assert out.splitlines() == [
        "\"x\\x0a::error::injected.md\":3:12: SC601 link target 'gone.md' does not exist",
        "checked 4 files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, 1 error, 0 warnings",
    ]


@pytest.mark.parametrize("fmt", ["text", "github", "sarif", "json"])
def test_unreadable_document_path_is_escaped_on_stderr(pkg: Package, fmt: str) -> None:
    pkg.write("raw\n::error::x\x1b[31m.md", b"# X\n\xff\n")
    status, out, err = run("check", str(pkg.root), "--format", fmt, "--no-cache")
    assert status == 2 and out == ""
    assert err.startswith('skillcite: error: "') and err.count("\n") == 1
    assert err.endswith('/raw\\x0a::error::x\\x1b[31m.md": not valid UTF-8 at byte 4\n')


@pytest.mark.skipif(os.uname().sysname == "Darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_undecodable_file_name_is_escaped(pkg: Package) -> None:
    fd = os.open(os.fsencode(pkg.root) + b"/n\xff.md", os.O_WRONLY | os.O_CREAT)
    os.write(fd, b"# X\n\nSee [gone](gone.md).\n")
    os.close(fd)
    status, out, _ = run("check", str(pkg.root), "--no-cache")
    assert status == 1
    assert out.splitlines()[0] == "\"n\\udcff.md\":3:12: SC601 link target 'gone.md' does not exist"
    status, out, _ = run("check", str(pkg.root), "--no-cache", "--format", "json")
    assert json.loads(out)["diagnostics"][0]["path"] == "n\udcff.md"


def test_lock_check_escapes_evidence_paths(pkg: Package) -> None:
    pkg.write("docs/evidence/a\nb.md", evidence_text() + "An edit after the lock.\n")
    status, out, _ = run("lock", "--check", "--root", str(pkg.root))
    assert status == 1
    [line] = [line for line in out.splitlines() if "stale" in line and "sha256" in line]
    assert line.startswith('"') and "a\\x0ab.md\": stale sha256 " in line
    assert all(not line.startswith("b.md") for line in out.splitlines())


def test_review_escapes_paths(pkg: Package) -> None:
    text = pkg.read("SKILL.md").replace("> Assume you have a bug.", "> Assume [...] a bug.")
    (pkg.root / "SKILL.md").unlink()
    name = "sub\x1b[2J"
    pkg.write(f"{name}/SKILL.md", text.replace("docs/evidence/", "../docs/evidence/"))
    status, out, _ = run("review", str(pkg.root))
    assert "\x1b" not in out
    assert '"sub\\x1b[2J/SKILL.md":7:1 cites docs/evidence/src.md' in out


def test_package_root_note_is_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "w\nx"
    folder.mkdir()
    monkeypatch.chdir(folder)
    _, _, err = run("check", "--no-cache")
    assert all("\n" not in line.rstrip("\n") for line in err.splitlines(keepends=True))
    assert "w\\x0ax" in err or err == ""
