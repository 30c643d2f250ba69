"""``skillcite install`` never copies anything from outside the package (issue 15, sections 2.1 and 4).

Every trick is built for real in ``tmp_path``: absolute link targets,
symlinked files and folders that leave the package, a FIFO, a link to ``/``
or ``/dev/zero``, sub-skill folders whose names collide, a symlink loop as the
destination, a receipt nested 100,000 levels deep. Each must end in findings
or a one-line error with nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Package, clean_package

from skillcite.cli.app import main
from skillcite.deliver.receipt import RECEIPT


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def pkg(tmp_path: Path) -> Package:
    return clean_package(tmp_path / "src")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the package holding a secret that must never be copied."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text("# Secret\n\nAPI_KEY=do-not-copy\n", encoding="utf-8")
    return folder


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def install(pkg: Package, dest: Path, *extra: str):
    return run("install", str(pkg.root), "--dest", str(dest), *extra)


def nothing_written(dest: Path) -> bool:
    """No skill folder, no staging folder, no backup: the destination is empty or absent."""
    return not dest.exists() or list(dest.iterdir()) == []


def copied_secret(dest: Path) -> bool:
    return dest.exists() and any(b"do-not-copy" in p.read_bytes() for p in dest.rglob("*") if p.is_file())


# --- links and files that leave the package -----------------------------------


@pytest.mark.parametrize("target", ["{outside}/secret.md", "/proc/self/environ", "/", "/dev/zero", "{outside}"])
def test_link_with_an_absolute_target_is_a_finding_and_nothing_is_copied(pkg: Package, outside: Path, tmp_path: Path, target: str) -> None:
    target = target.format(outside=outside)
    pkg.replace("notes.md", "Plain text.\n", f"Plain text; see [there]({target}).\n")
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 1, r.output
    assert r.stdout.splitlines() == [f"{pkg.root / 'notes.md'}:3:25: SC603 link target {target!r} is an absolute path: links must stay inside the package"]
    assert r.stderr == "skillcite: error: 1 problem in the package; nothing installed\n"
    assert nothing_written(dest) and not copied_secret(dest)


def test_relative_link_out_of_the_package_is_a_finding(pkg: Package, outside: Path, tmp_path: Path) -> None:
    pkg.replace("notes.md", "Plain text.\n", "Plain text; see [there](../outside/secret.md).\n")
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 1, r.output
    assert r.stdout.splitlines() == [f"{pkg.root / 'notes.md'}:3:25: SC603 link target '../outside/secret.md' resolves outside the package"]
    assert nothing_written(dest)


def test_symlinked_file_pointing_outside_is_a_finding(pkg: Package, outside: Path, tmp_path: Path) -> None:
    (pkg.root / "leak.md").symlink_to(outside / "secret.md")
    pkg.replace("notes.md", "Plain text.\n", "Plain text; see [leak](leak.md).\n")
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 1, r.output
    assert r.stdout.splitlines() == [f"{pkg.root / 'notes.md'}:3:24: SC603 link target 'leak.md' resolves outside the package"]
    assert nothing_written(dest) and not copied_secret(dest)


def test_symlinked_folder_pointing_outside_is_a_finding(pkg: Package, outside: Path, tmp_path: Path) -> None:
    (pkg.root / "refs").symlink_to(outside, target_is_directory=True)  # refs/ is installed even unlinked
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 1, r.output
    assert r.stdout.splitlines() == [f"{pkg.root / 'refs'}:1:1: SC603 symlink resolves outside the package (to {outside})"]
    assert nothing_written(dest) and not copied_secret(dest)


def test_symlink_to_the_root_folder_is_a_finding(pkg: Package, tmp_path: Path) -> None:
    (pkg.root / "refs").mkdir()
    (pkg.root / "refs" / "everything").symlink_to("/", target_is_directory=True)
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 1, r.output
    assert r.stdout.splitlines() == [f"{pkg.root / 'refs/everything'}:1:1: SC603 symlink resolves outside the package (to /)"]
    assert nothing_written(dest)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_in_the_package_is_a_finding_and_never_opened(pkg: Package, tmp_path: Path) -> None:
    (pkg.root / "refs").mkdir()
    os.mkfifo(pkg.root / "refs" / "pipe.md")  # opening it for reading would wait for a writer forever
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 1, r.output
    assert r.stdout.splitlines() == [f"{pkg.root / 'refs/pipe.md'}:1:1: SC604 a FIFO, not a regular file: never read"]
    assert nothing_written(dest)


def test_symlinks_that_stay_inside_are_copied_as_files(pkg: Package, tmp_path: Path) -> None:
    pkg.write("refs/real.md", "# Real\n\nText.\n")
    (pkg.root / "refs" / "alias.md").symlink_to("real.md")
    (pkg.root / "more").symlink_to("refs", target_is_directory=True)
    pkg.replace("notes.md", "Plain text.\n", "Plain text; see [more](more/alias.md).\n")
    dest = tmp_path / "skills"
    r = install(pkg, dest)
    assert r.exit_code == 0, r.output
    real = (pkg.root / "refs/real.md").read_bytes()
    assert (dest / "pkg/refs/alias.md").read_bytes() == real and (dest / "pkg/more/alias.md").read_bytes() == real
    assert not (dest / "pkg/refs/alias.md").is_symlink() and not (dest / "pkg/more").is_symlink()


# --- collisions, destination and receipts --------------------------------------


SUB = "---\nname: {name}\ndescription: A sub-skill.\n---\n# Sub\n"


@pytest.mark.parametrize(("first", "second", "name"), [("a-b", "a_b", "pkg-a-b"), ("X", "x", "pkg-x"), ("a.b", "a b", "pkg-a-b")])
def test_sub_skills_with_one_name_are_refused_before_anything_changes(
    pkg: Package, tmp_path: Path, first: str, second: str, name: str
) -> None:
    if first.lower() == second.lower() and (pkg.root / first.upper()).exists() == (pkg.root / first.lower()).exists():
        probe = pkg.root / "CaseProbe"
        probe.mkdir()
        case_blind = (pkg.root / "caseprobe").exists()
        probe.rmdir()
        if case_blind:
            pytest.skip("case-insensitive file system")
    pkg.write(f"{first}/SKILL.md", SUB.format(name=first))
    pkg.write(f"{second}/SKILL.md", SUB.format(name=second))
    dest = tmp_path / "skills"
    (dest / "pkg").mkdir(parents=True)
    (dest / "pkg" / "mine.txt").write_text("keep")
    r = install(pkg, dest, "--force")
    a, b = sorted([first, second])
    assert r.exit_code == 2, r.output
    assert r.stderr == f"skillcite: error: {pkg.root}: sub-skill folders {a!r} and {b!r} would both install as {name}; rename one\n"
    assert sorted(p.name for p in dest.iterdir()) == ["pkg"]  # no partial install, no backup, no staging
    assert [p.name for p in (dest / "pkg").iterdir()] == ["mine.txt"]


def test_symlink_loop_as_destination_is_a_one_line_error(pkg: Package, tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    r = install(pkg, loop)
    assert r.exit_code == 2, r.output
    assert r.stderr == f"skillcite: error: {loop}: symlink loop; cannot install there\n"
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_symlink_loop_below_the_destination_is_a_one_line_error(pkg: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    dest.mkdir()
    (dest / "pkg").symlink_to(dest / "pkg")
    r = install(pkg, dest)
    assert r.exit_code == 2, r.output
    assert r.stderr == f"skillcite: error: {dest / 'pkg'}: symlink loop; cannot install there\n"


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_deeply_nested_receipt_is_a_one_line_error(pkg: Package, tmp_path: Path, command: str) -> None:
    dest = tmp_path / "skills"
    (dest / "pkg").mkdir(parents=True)
    (dest / "pkg" / RECEIPT).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    r = run(command, str(pkg.root), "--dest", str(dest))
    assert r.exit_code == 2, r.output
    what = "replace it" if command == "install" else "remove it (nothing removed)"
    assert r.stderr == (
        f"skillcite: error: {dest / 'pkg'} was not installed by skillcite (unreadable {RECEIPT}: nested too deeply); pass --force to {what}\n"
    )
    assert (dest / "pkg" / RECEIPT).exists()
