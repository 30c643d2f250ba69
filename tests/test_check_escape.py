"""``skillcite check`` reads nothing outside the package and never blocks on a special file.

Issue 15, sections 2.1 and 2.3: links with absolute targets or targets that
leave the root, symlinks that resolve outside it (SC603), FIFOs and devices
among the documents (SC604), and configuration that points outside the root
(a one-line error, exit 2). Everything is built for real in ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Package

from skillcite.cli.app import main

SUMMARY = "checked {files} files: 2 quotes verified (2 verbatim, 0 with reviewed edits) against 1 sources, {errors} error{s}, 0 warnings"
fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def check(pkg: Package, *extra: str):
    return CliRunner().invoke(main, ["check", str(pkg.root), *extra])


def summary(files: int, errors: int) -> str:
    return SUMMARY.format(files=files, errors=errors, s="s" * (errors != 1))


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that is not under the package (``pkg`` is ``tmp_path`` itself)."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.md").write_text("# Secret\n\n## Key\n", encoding="utf-8")
    return folder


# --- SC603: links and symlinks that leave the package ------------------------------


@pytest.mark.parametrize("target", ["/proc/self/environ", "/etc/passwd#top", "/", "/dev/zero", "{outside}/secret.md#key"])
def test_absolute_link_target_is_sc603(pkg: Package, outside: Path, target: str) -> None:
    target = target.format(outside=outside)
    pkg.replace("notes.md", "Plain text.\n", f"See [it]({target}).\n")
    r = check(pkg)
    assert r.exit_code == 1, r.output
    shown = target.split("#")[0]
    assert r.output.splitlines() == [
        f"notes.md:3:10: SC603 link target {shown!r} is an absolute path: links must stay inside the package",
        summary(3, 1),
    ]


def test_relative_link_out_of_the_root_is_sc603_even_when_the_target_exists(pkg: Package, outside: Path) -> None:
    pkg.replace("notes.md", "Plain text.\n", "See [it](../outside/secret.md#key) and [gone](../outside/gone.md).\n")
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == [
        "notes.md:3:10: SC603 link target '../outside/secret.md' resolves outside the package",
        "notes.md:3:47: SC603 link target '../outside/gone.md' resolves outside the package",
        summary(3, 2),
    ]


def test_link_through_a_symlink_that_leaves_is_sc603(pkg: Package, outside: Path) -> None:
    (pkg.root / "shared").symlink_to(outside, target_is_directory=True)
    pkg.replace("notes.md", "Plain text.\n", "See [it](shared/secret.md#key).\n")
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == [
        "notes.md:3:10: SC603 link target 'shared/secret.md' resolves outside the package",
        f"shared:1:1: SC603 symlink resolves outside the package (to {outside})",
        summary(3, 2),
    ]


def test_symlinked_document_pointing_outside_is_sc603_and_not_read(pkg: Package, outside: Path) -> None:
    (pkg.root / "leak.md").symlink_to(outside / "secret.md")
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == [
        f"leak.md:1:1: SC603 symlink resolves outside the package (to {outside / 'secret.md'})",
        summary(3, 1),
    ]


def test_links_and_symlinks_inside_the_package_are_clean(pkg: Package) -> None:
    pkg.write("refs/real.md", "# Real\n\n## Part\n")
    (pkg.root / "refs" / "alias.md").symlink_to("real.md")
    (pkg.root / "more").symlink_to("refs", target_is_directory=True)
    pkg.replace("notes.md", "Plain text.\n", "See [a](refs/alias.md#part), [b](more/real.md) and [up](./refs/../SKILL.md).\n")
    r = check(pkg)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == [summary(5, 0)]


# --- SC604: special files -----------------------------------------------------------


@fifo_only
def test_fifo_document_is_sc604_and_the_check_finishes(pkg: Package) -> None:
    os.mkfifo(pkg.root / "pipe.md")  # reading it would wait for a writer forever
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == ["pipe.md:1:1: SC604 a FIFO, not a regular file: never read", summary(3, 1)]


@fifo_only
def test_fifo_in_the_evidence_folder_is_sc604(pkg: Package) -> None:
    os.mkfifo(pkg.root / "docs/evidence/pipe.md")
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == ["docs/evidence/pipe.md:1:1: SC604 a FIFO, not a regular file: never read", summary(3, 1)]


@fifo_only
def test_link_to_a_fifo_is_sc604_at_the_link(pkg: Package) -> None:
    os.mkfifo(pkg.root / "pipe")
    pkg.replace("notes.md", "Plain text.\n", "See [it](pipe#frag).\n")
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == ["notes.md:3:10: SC604 link target 'pipe' is a FIFO, not a regular file: never read", summary(3, 1)]


def test_device_linked_as_markdown_is_sc604(pkg: Package) -> None:
    (pkg.root / "zero.md").symlink_to("/dev/zero")  # outside too: SC603 wins, nothing is read
    r = check(pkg)
    assert r.exit_code == 1, r.output
    assert r.output.splitlines() == ["zero.md:1:1: SC603 symlink resolves outside the package (to /dev/zero)", summary(3, 1)]


# --- configuration that points outside the root -------------------------------------


@pytest.mark.parametrize(
    ("value", "why"),
    [("/", "is an absolute path"), ("../x", "points outside the package root"), ("docs/../../x", "points outside the package root"), ("C:/evidence", "is an absolute path")],
)
def test_evidence_folder_outside_the_root_is_refused(pkg: Package, value: str, why: str) -> None:
    pkg.write("pyproject.toml", f'[tool.skillcite]\nevidence = "{value}"\n')
    r = check(pkg)
    assert r.exit_code == 2
    assert r.output == f"skillcite: error: {pkg.root / 'pyproject.toml'}: [tool.skillcite] evidence {value!r} {why}; name a folder inside the package\n"


def test_evidence_folder_symlinked_outside_is_refused(pkg: Package, outside: Path) -> None:
    (pkg.root / "ev").symlink_to(outside, target_is_directory=True)
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = ["docs/evidence", "ev"]\n')
    r = check(pkg)
    assert r.exit_code == 2
    assert r.output == (
        f"skillcite: error: {pkg.root / 'pyproject.toml'}: [tool.skillcite] evidence 'ev' leads outside the package root "
        f"(to {outside}); name a folder inside the package\n"
    )


def test_evidence_folder_inside_the_root_is_accepted(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "./docs/evidence"\n')
    r = check(pkg)
    assert r.exit_code == 0, r.output
