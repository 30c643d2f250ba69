"""How commands name what they work on: files for ``check``, and ``--root`` on every command."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import Package
from skillcite.cli.app import main
from skillcite.cli.fast import parse_check


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def broken(pkg: Package) -> Package:
    """The clean package with an altered quote in SKILL.md and a dead link in notes.md."""
    pkg.replace("SKILL.md", "Assume you have a bug", "Assume you have a defect")
    pkg.write("notes.md", "# Notes\n\n[gone](nope.md)\n")
    return pkg


SUMMARY = "checked 3 files: 1 quotes verified (1 verbatim, 0 with reviewed edits) against 1 sources, {errors}, 0 warnings"


def test_check_files_shows_only_their_findings(pkg: Package, monkeypatch: pytest.MonkeyPatch) -> None:
    broken(pkg)
    monkeypatch.chdir(pkg.root)
    r = run("check", "notes.md")
    assert r.exit_code == 1
    assert r.output.splitlines() == ["notes.md:3:8: SC601 link target 'nope.md' does not exist", SUMMARY.format(errors="1 error")]
    r = run("check", "SKILL.md", "notes.md", "--select", "SC3")
    assert r.exit_code == 1
    assert [line.split(" ")[:2] for line in r.output.splitlines()[:-1]] == [["SKILL.md:7:1:", "SC302"]]


def test_check_files_without_findings_exit_0(pkg: Package, monkeypatch: pytest.MonkeyPatch) -> None:
    """The twin: files of a broken package that hold no finding themselves pass (their package is still checked whole)."""
    broken(pkg)
    monkeypatch.chdir(pkg.root / "docs")
    r = run("check", "evidence/src.md", str(pkg.root / "pyproject.toml"))
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == [SUMMARY.format(errors="0 errors")]


def test_check_file_found_in_its_package_from_anywhere(pkg: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken(pkg)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    r = run("check", str(pkg.root / "notes.md"))
    assert r.exit_code == 1 and r.output.splitlines()[0] == "notes.md:3:8: SC601 link target 'nope.md' does not exist", r.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "nope.md"], "nope.md: no such file"),
        (["check", "notes.md", "docs"], "docs: a folder among files: give one folder (the root) or files"),
        (["check", "notes.md", "--write-baseline", "b.json"], "--write-baseline records the whole package: give no FILE"),
    ],
)
def test_check_path_usage_errors(pkg: Package, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str) -> None:
    monkeypatch.chdir(pkg.root)
    r = run(*args)
    assert r.exit_code == 2
    assert r.output == f"skillcite: error: {message}\n"


def test_check_file_outside_the_named_root_is_a_usage_error(pkg: Package, tmp_path_factory: pytest.TempPathFactory) -> None:
    other = tmp_path_factory.mktemp("elsewhere") / "other.md"
    other.write_text("# Other\n")
    r = run("check", str(other), "--root", str(pkg.root))
    assert r.exit_code == 2
    assert r.output == f"skillcite: error: {other}: not inside the package at {pkg.root}\n"


# Every command takes the package root as --root; those whose argument was the root keep it.
ROOTED = {
    "check": [], "stats": [], "fix": ["--check"], "review": [], "bundle": [], "init": ["--dry-run"],
    "lock": ["--check"], "install": ["--dry-run"], "uninstall": ["--dry-run"],
}


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(main)
    names = main.list_commands(ctx)  # type: ignore[attr-defined]
    out = {name: main.get_command(ctx, name) for name in names}  # type: ignore[attr-defined]
    evidence = out.pop("evidence")
    out.update({f"evidence {n}": evidence.get_command(ctx, n) for n in evidence.list_commands(ctx)})  # type: ignore[attr-defined]
    return out


def test_every_command_takes_root_as_an_option() -> None:
    missing = [name for name, cmd in _commands().items() if not any("--root" in p.opts for p in cmd.params)]
    assert missing == []


@pytest.mark.parametrize("command", sorted(ROOTED))
def test_root_option_and_argument_agree(pkg: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.chdir(tmp_path)
    extra = [*ROOTED[command], *(["--dest", str(tmp_path / "skills")] if command in ("install", "uninstall") else [])]
    as_option = run(command, "--root", str(pkg.root), *extra)
    assert as_option.exit_code in (0, 1) and "Traceback" not in as_option.output, as_option.output
    if command != "lock":  # lock's arguments are evidence files
        as_argument = run(command, str(pkg.root), *extra)
        assert (as_argument.exit_code, as_argument.output) == (as_option.exit_code, as_option.output)
        both = run(command, str(pkg.root), "--root", str(pkg.root / "docs"), *extra)
        assert both.exit_code == 2
        assert both.output.endswith(f"skillcite: error: two roots: {pkg.root} and --root {pkg.root / 'docs'}\n"), both.output


def test_fast_path_reads_root_option() -> None:
    assert parse_check(["check", "--root", "pkg", "--strict"]) == {"fmt": "text", "strict": True, "root": "pkg"}
    assert parse_check(["check", "--root=pkg"]) == {"fmt": "text", "strict": False, "root": "pkg"}
    assert parse_check(["check", "a", "--root", "b"]) is None  # two roots: the click command says so
