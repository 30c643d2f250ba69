"""``skillcite install``: the skill copied into an agent's skills folder.

Skill trees are built in ``tmp_path`` (never a committed SKILL.md under
tests/); one test installs the real repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import Package, evidence_text, line_of
from skillcite.deliver import install as install_module
from skillcite.check import check
from skillcite.cli.app import main
from skillcite.core.config import Config
from skillcite.check.parsing.document import local_target
from skillcite.check.parsing.builder import parse_document
from skillcite.deliver.receipt import RECEIPT, digest, read_receipt
from skillcite.core.textio import read_text

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = evidence_text()
BUG = line_of(EVIDENCE, "Assume you have a bug")
CHECKED = ("SC2", "SC5", "SC6")

SKILL = f"""---
name: pkg
description: A test skill for the installer.
---
# Pkg

Sub-skills: [rl/SKILL.md](rl/SKILL.md) and [pinn](pinn/SKILL.md#pinn). Long form: [PLAYBOOK.md](PLAYBOOK.md), [a](refs/a.md), [notes](notes.md).

> Assume you have a bug.[^src]

[^src]: A. Author, "A Post" (2020) — https://example.org/post ([cache](docs/evidence/src.md): bug L{BUG})
"""

RL = f"""---
name: rl
description: The RL sub-skill.
---
# RL

See [the skill](../SKILL.md), [the loop](../PLAYBOOK.md#loop), [a](../refs/a.md), [the package](../) and [the web](https://example.org/).

> Assume you have a bug.[^src]

[^src]: A. Author, "A Post" (2020) — https://example.org/post ([cache](../docs/evidence/src.md): bug L{BUG})
"""

RL_INSTALLED = RL.replace("name: rl", "name: pkg-rl").replace("](../", "](../pkg/")


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HOME, so a default install can never reach the real one."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_default_install_goes_to_claude_code_under_home(tree: Package, home: Path) -> None:
    r = run("install", str(tree.root))
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (home / ".claude/skills").iterdir()) == ["pkg", "pkg-pinn", "pkg-rl"]


@pytest.fixture
def tree(tmp_path: Path) -> Package:
    """A package with two sub-skills, a playbook, refs, a note, evidence and files that stay behind."""
    p = Package(tmp_path / "src")
    p.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nexclude = ["drafts/**"]\n')
    p.write("docs/evidence/src.md", EVIDENCE)
    p.write("SKILL.md", SKILL)
    p.write("rl/SKILL.md", RL)
    p.write("pinn/SKILL.md", '---\nname: "pinn"\ndescription: The PINN sub-skill.\n---\n# PINN\n\nBack to [the skill](../SKILL.md).\n')
    p.write("PLAYBOOK.md", "# Playbook\n\n## Loop\n\nBack to [the skill](SKILL.md) and [rl](rl/SKILL.md#rl).\n")
    p.write("refs/a.md", "# A\n\nSee [the playbook](../PLAYBOOK.md) and [pinn](../pinn/SKILL.md).\n")
    p.write("notes.md", "# Notes\n")
    p.write("tools/run.py", "print('not part of the skill')\n")
    p.write("drafts/SKILL.md", "---\nname: drafts\ndescription: Excluded by the config.\n---\n# Drafts\n")
    return p


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def installed_files(folder: Path) -> list[str]:
    """The skill's files, without the install receipt."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != RECEIPT)


def assert_links_resolve(folder: Path, evidence: str) -> None:
    """Every local link of every installed document exists; every SKILL.md name equals its folder."""
    for path in folder.rglob("*.md"):
        if evidence in path.relative_to(folder).as_posix():
            continue
        doc = parse_document(path, path.name, read_text(path), lambda _t, _u: False)
        for link in doc.links:
            local = local_target(link.value)
            if local is not None and local[0]:
                assert (path.parent / local[0]).exists(), f"{path}: {link.value}"
        if path.name == "SKILL.md":
            assert doc.front_matter and doc.front_matter["name"] == path.parent.name
    report = check(folder, Config(evidence=evidence))
    assert [d for d in report.diagnostics if d.code.startswith(CHECKED)] == []


def test_install_writes_three_skills_with_rewritten_links(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    r = run("install", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        f"installed pkg -> {dest / 'pkg'} (5 files)",
        f"installed pkg-pinn -> {dest / 'pkg-pinn'} (1 file)",
        f"installed pkg-rl -> {dest / 'pkg-rl'} (1 file)",
        "checked: the installed skills pass skillcite check --strict (quotes, links, names); check them again with install --verify",
    ]
    assert sorted(p.name for p in dest.iterdir()) == ["pkg", "pkg-pinn", "pkg-rl"]
    # Seeds, link closure (notes.md) and evidence; not tools/, drafts/ or pyproject.toml.
    assert installed_files(dest / "pkg") == ["PLAYBOOK.md", "SKILL.md", "docs/evidence/src.md", "notes.md", "refs/a.md"]
    assert (dest / "pkg-rl/SKILL.md").read_text(encoding="utf-8") == RL_INSTALLED
    assert (dest / "pkg-pinn/SKILL.md").read_text(encoding="utf-8").startswith("---\nname: pkg-pinn\ndescription:")
    assert "Back to [the skill](../pkg/SKILL.md)." in (dest / "pkg-pinn/SKILL.md").read_text(encoding="utf-8")
    main_text = (dest / "pkg/SKILL.md").read_text(encoding="utf-8")
    assert "[rl/SKILL.md](../pkg-rl/SKILL.md) and [pinn](../pkg-pinn/SKILL.md#pinn)." in main_text
    assert "[PLAYBOOK.md](PLAYBOOK.md), [a](refs/a.md), [notes](notes.md)." in main_text
    assert "([cache](docs/evidence/src.md): bug L" in main_text
    assert "[rl](../pkg-rl/SKILL.md#rl)" in (dest / "pkg/PLAYBOOK.md").read_text(encoding="utf-8")
    assert "[pinn](../../pkg-pinn/SKILL.md)" in (dest / "pkg/refs/a.md").read_text(encoding="utf-8")
    assert (dest / "pkg/docs/evidence/src.md").read_bytes() == (tree.root / "docs/evidence/src.md").read_bytes()
    assert not (dest / "pkg/rl").exists() and not (dest / "pkg/tools").exists()
    assert_links_resolve(dest, "pkg/docs/evidence")


def test_dry_run_lists_files_and_writes_nothing(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    r = run("install", str(tree.root), "--dest", str(dest), "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        f"would write {dest / 'pkg/PLAYBOOK.md'} (1 link rewritten)",
        f"would write {dest / 'pkg/SKILL.md'} (2 links rewritten)",
        f"would write {dest / 'pkg/docs/evidence/src.md'}",
        f"would write {dest / 'pkg/notes.md'}",
        f"would write {dest / 'pkg/refs/a.md'} (1 link rewritten)",
        f"would write {dest / 'pkg-pinn/SKILL.md'} (name: pkg-pinn, 1 link rewritten)",
        f"would write {dest / 'pkg-rl/SKILL.md'} (name: pkg-rl, 5 links rewritten)",
        "dry run: 3 skills, 7 files; nothing written",
    ]
    assert not dest.exists()


def test_existing_skill_folder_is_never_overwritten_without_force(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    (dest / "pkg-rl").mkdir(parents=True)
    (dest / "pkg-rl/mine.txt").write_text("keep me")
    r = run("install", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: {dest / 'pkg-rl'} was not installed by skillcite; pass --force to replace it\n"
    assert sorted(p.name for p in dest.iterdir()) == ["pkg-rl"]  # nothing installed, no staging left
    assert (dest / "pkg-rl/mine.txt").read_text() == "keep me"
    dry = run("install", str(tree.root), "--dest", str(dest), "--dry-run")
    assert dry.exit_code == 2 and "pass --force" in dry.stderr


def test_force_replaces_and_drops_the_backup(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    (dest / "pkg-rl").mkdir(parents=True)
    (dest / "pkg-rl/mine.txt").write_text("old")
    r = run("install", str(tree.root), "--dest", str(dest), "--force")
    assert r.exit_code == 0, r.output
    assert f"replaced pkg-rl -> {dest / 'pkg-rl'} (1 file)" in r.stdout.splitlines()
    assert f"installed pkg -> {dest / 'pkg'} (5 files)" in r.stdout.splitlines()
    assert sorted(p.name for p in dest.iterdir()) == ["pkg", "pkg-pinn", "pkg-rl"]
    assert installed_files(dest / "pkg-rl") == ["SKILL.md"]


def test_failed_swap_restores_the_old_skills(tree: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "skills"
    (dest / "pkg").mkdir(parents=True)
    (dest / "pkg/mine.txt").write_text("old")
    real_rename = os.rename

    def failing_rename(src, dst) -> None:
        if Path(dst).name == "pkg-rl":  # the last skill to move into place
            raise OSError(28, "No space left on device")
        real_rename(src, dst)

    monkeypatch.setattr(install_module.os, "rename", failing_rename)
    r = run("install", str(tree.root), "--dest", str(dest), "--force")
    assert r.exit_code == 2
    assert r.stderr.startswith(f"skillcite: error: cannot install into {dest}: ")
    assert sorted(p.name for p in dest.iterdir()) == ["pkg"]  # pkg-pinn rolled back, no backup or staging left
    assert installed_files(dest / "pkg") == ["mine.txt"]


def test_unknown_agent_is_a_usage_error_and_dest_serves_any_agent(tree: Package, tmp_path: Path) -> None:
    r = run("install", str(tree.root), "--agent", "windsurf")
    assert r.exit_code == 2
    assert "Invalid value for '--agent': 'windsurf' is not one of" in r.stderr
    ok = run("install", str(tree.root), "--dest", str(tmp_path / "w"))
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "w/pkg/SKILL.md").is_file()


@pytest.mark.parametrize(
    ("agent", "scope", "folder"),
    [
        ("claude", "user", "home/.claude/skills"),
        ("claude", "project", "work/.claude/skills"),
        ("codex", "user", "home/.agents/skills"),
        ("gemini", "user", "home/.agents/skills"),
        ("cursor", "project", "work/.agents/skills"),
        ("copilot", "project", "work/.agents/skills"),
        ("copilot", "user", "home/.agents/skills"),
        ("agents", "user", "home/.agents/skills"),
        ("Agents", "project", "work/.agents/skills"),
    ],
)
def test_scope_and_agent_choose_the_documented_folder(
    tree: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str, scope: str, folder: str
) -> None:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    r = run("install", str(tree.root), "--agent", agent, "--scope", scope)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / folder).iterdir()) == ["pkg", "pkg-pinn", "pkg-rl"]
    gone = run("uninstall", str(tree.root), "--agent", agent, "--scope", scope)
    assert gone.exit_code == 0, gone.output
    assert list((tmp_path / folder).iterdir()) == []


def test_missing_root_is_a_usage_error(tmp_path: Path) -> None:
    r = run("install", str(tmp_path / "nope"), "--dest", str(tmp_path / "skills"))
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: {tmp_path / 'nope'}: no such directory\n"
    assert not (tmp_path / "skills").exists()


def test_broken_link_refuses_the_install(tree: Package, tmp_path: Path) -> None:
    tree.replace("pinn/SKILL.md", "(../SKILL.md)", "(../missing.md)")
    dest = tmp_path / "skills"
    r = run("install", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 1
    assert r.stdout == f"{dest / 'pkg-pinn/SKILL.md'}:7:21: SC601 link target '../pkg/missing.md' does not exist\n"
    assert r.stderr == "skillcite: error: 1 problem in the installed tree; nothing installed\n"
    assert list(dest.iterdir()) == []


def test_link_out_of_the_package_refuses_the_install_before_writing(tree: Package, tmp_path: Path) -> None:
    tree.replace("pinn/SKILL.md", "(../SKILL.md)", "(../../outside.md)")
    dest = tmp_path / "skills"
    r = run("install", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 1
    assert r.stdout == f"{tree.root / 'pinn/SKILL.md'}:7:21: SC603 link target '../../outside.md' resolves outside the package\n"
    assert r.stderr == "skillcite: error: 1 problem in the package; nothing installed\n"
    assert not dest.exists()


def test_refuses_to_replace_the_package_itself(tmp_path: Path) -> None:
    p = Package(tmp_path / "pkg")
    p.write("SKILL.md", "---\nname: pkg\ndescription: Installs onto itself.\n---\n# Pkg\n")
    r = run("install", str(p.root), "--dest", str(tmp_path), "--force")
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: refusing to install into {tmp_path / 'pkg'}: the package itself is there\n"
    assert p.read("SKILL.md").startswith("---\nname: pkg\n")


def test_help_has_an_example() -> None:
    for command in ("install", "uninstall"):
        r = run(command, "--help")
        assert r.exit_code == 0
        assert f"  skillcite {command} --agent codex --scope project" in r.output


def test_real_repository_installs_as_three_resolving_skills(tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    r = run("install", str(ROOT), "--dest", str(dest))
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in dest.iterdir()) == ["ml-debug", "ml-debug-pinn", "ml-debug-rl"]
    for folder in dest.iterdir():
        front = (folder / "SKILL.md").read_text(encoding="utf-8").split("---\n")[1]
        assert yaml.safe_load(front)["name"] == folder.name
    assert (dest / "ml-debug/PLAYBOOK.md").is_file() and (dest / "ml-debug/refs").is_dir()
    assert "](../ml-debug/SKILL.md)" in (dest / "ml-debug-rl/SKILL.md").read_text(encoding="utf-8")
    for path in (ROOT / "docs/evidence").glob("*.md"):
        assert (dest / "ml-debug/docs/evidence" / path.name).read_bytes() == path.read_bytes()
    assert_links_resolve(dest, "ml-debug/docs/evidence")
    # The whole strict check, every quote included, passes on the copy.
    plan = install_module.plan_install(ROOT, dest)
    report = check(dest, install_module.installed_config(plan))
    assert report.diagnostics == []
    assert report.quotes_verified == check(ROOT).quotes_verified > 300


def test_receipt_records_every_file_with_its_hash(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    assert run("install", str(tree.root), "--dest", str(dest)).exit_code == 0
    for name in ("pkg", "pkg-rl", "pkg-pinn"):
        receipt, problem = read_receipt(dest / name)
        assert problem is None and receipt is not None
        assert (receipt.package, receipt.skill) == ("pkg", name)
        assert sorted(receipt.files) == installed_files(dest / name)
        for rel, sha in receipt.files.items():
            assert digest((dest / name / rel).read_bytes()) == sha


def test_reinstall_over_an_unedited_install_updates_without_force(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    assert run("install", str(tree.root), "--dest", str(dest)).exit_code == 0
    tree.replace("PLAYBOOK.md", "## Loop", "## Loop\n\nA new line.")
    r = run("install", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[:3] == [
        f"updated pkg -> {dest / 'pkg'} (5 files)",
        f"updated pkg-pinn -> {dest / 'pkg-pinn'} (1 file)",
        f"updated pkg-rl -> {dest / 'pkg-rl'} (1 file)",
    ]
    assert "A new line." in (dest / "pkg/PLAYBOOK.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in dest.iterdir()) == ["pkg", "pkg-pinn", "pkg-rl"]  # no backup left


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda d: (d / "pkg/refs/a.md").write_text("mine"), "has local changes (refs/a.md changed)"),
        (lambda d: (d / "pkg/refs/a.md").unlink(), "has local changes (refs/a.md changed)"),
        (lambda d: (d / "pkg/todo.md").write_text("mine"), "has local changes (todo.md added)"),
        (lambda d: (d / "pkg" / RECEIPT).write_text("{"), "was not installed by skillcite (unreadable .skillcite-install.json"),
        (
            lambda d: (d / "pkg" / RECEIPT).write_text((d / "pkg" / RECEIPT).read_text().replace('"package": "pkg"', '"package": "other"')),
            "belongs to another package (other)",
        ),
    ],
)
def test_edited_or_foreign_folder_needs_force(tree: Package, tmp_path: Path, edit, reason: str) -> None:
    dest = tmp_path / "skills"
    assert run("install", str(tree.root), "--dest", str(dest)).exit_code == 0
    edit(dest)
    before = installed_files(dest / "pkg")
    r = run("install", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"skillcite: error: {dest / 'pkg'} {reason}")
    assert r.stderr.endswith("; pass --force to replace it\n")
    assert installed_files(dest / "pkg") == before  # nothing touched
    gone = run("uninstall", str(tree.root), "--dest", str(dest))
    assert gone.exit_code == 2 and "pass --force to remove it (nothing removed)" in gone.stderr
    assert sorted(p.name for p in dest.iterdir()) == ["pkg", "pkg-pinn", "pkg-rl"]
    forced = run("install", str(tree.root), "--dest", str(dest), "--force")
    assert forced.exit_code == 0, forced.output
    assert f"replaced pkg -> {dest / 'pkg'} (5 files)" in forced.stdout.splitlines()
    assert f"updated pkg-rl -> {dest / 'pkg-rl'} (1 file)" in forced.stdout.splitlines()


def test_uninstall_removes_only_this_package(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    (dest / "someone-else").mkdir(parents=True)
    (dest / "someone-else/SKILL.md").write_text("---\nname: someone-else\ndescription: Not ours.\n---\n")
    assert run("install", str(tree.root), "--dest", str(dest)).exit_code == 0
    dry = run("uninstall", str(tree.root), "--dest", str(dest), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.splitlines() == [
        f"would remove {dest / 'pkg'}",
        f"would remove {dest / 'pkg-pinn'}",
        f"would remove {dest / 'pkg-rl'}",
        "dry run: 3 skill folders; nothing removed",
    ]
    assert sorted(p.name for p in dest.iterdir()) == ["pkg", "pkg-pinn", "pkg-rl", "someone-else"]
    r = run("uninstall", "--name", "pkg", "--dest", str(dest))  # no package needed with --name
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [f"removed {dest / n}" for n in ("pkg", "pkg-pinn", "pkg-rl")]
    assert sorted(p.name for p in dest.iterdir()) == ["someone-else"]  # no hidden leftovers either
    again = run("uninstall", str(tree.root), "--dest", str(dest))
    assert again.exit_code == 0 and again.stdout == f"nothing to remove: no skill of pkg in {dest}\n"


def test_uninstall_keeps_a_same_named_folder_it_did_not_write(tree: Package, tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    (dest / "pkg-rl").mkdir(parents=True)
    (dest / "pkg-rl/notes.md").write_text("mine")
    r = run("uninstall", str(tree.root), "--dest", str(dest))
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: {dest / 'pkg-rl'} was not installed by skillcite; pass --force to remove it (nothing removed)\n"
    assert (dest / "pkg-rl/notes.md").read_text() == "mine"
    forced = run("uninstall", str(tree.root), "--dest", str(dest), "--force")
    assert forced.exit_code == 0 and not (dest / "pkg-rl").exists()


def test_uninstall_needs_a_package_or_a_name(tmp_path: Path) -> None:
    r = run("uninstall", str(tmp_path / "nope"), "--dest", str(tmp_path))
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: {tmp_path / 'nope'}: no such directory (pass --name to uninstall without the package)\n"


def test_verify_outside_any_package_refuses_at_once(tree: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a folder that is no package (a home folder, /tmp): one line, exit 2, no walk of the folder."""
    dest = tmp_path / "skills"
    assert run("install", str(tree.root), "--dest", str(dest)).exit_code == 0
    monkeypatch.chdir(tmp_path)  # holds the package two levels down, and the skills folder
    line = (
        f"skillcite: error: {tmp_path}: not inside a skill package (no SKILL.md here, no pyproject.toml with [tool.skillcite] "
        "or git work tree here or above); run it from the package, or name the package folder"
    )
    for args, tail in (
        (["install", "--dest", str(dest), "--verify"], "\n"),
        (["install", "--dest", str(dest)], "\n"),
        (["bundle"], "\n"),
        (["uninstall", "--dest", str(dest)], " (pass --name to uninstall without the package)\n"),
    ):
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        assert r.stderr == line + tail
        assert r.stdout == ""
    named = run("install", "src", "--dest", str(dest), "--verify")
    assert named.exit_code == 0, named.output
    monkeypatch.chdir(tree.root / "rl")  # inside the package: found above the current folder
    inside = run("install", "--dest", str(dest), "--verify")
    assert inside.exit_code == 0, inside.output
    assert inside.stdout == f"checked: pkg, pkg-pinn, pkg-rl in {dest} pass skillcite check --strict (quotes, links, names)\n"
