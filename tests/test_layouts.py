"""bundle, install and uninstall on a collection (``skills/<name>/SKILL.md``), from sub-folders, with the repository's settings."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import evidence_text
from skillcite.check import check
from skillcite.cli.app import main

PG = """---
name: pg-tuning
description: Tune PostgreSQL with verified quotes.
---
# PG tuning

> Assume you have a bug.[^b]

Details in [the reference](references/vacuum.md) and [the design notes](../../docs/design.md).

[^b]: A. Author ([cache](../../evidence/src.md): bug L15)
"""

VACUUM = """# Vacuum

Quoted: "It is a cheap assumption"[^c].

[^c]: A. Author ([cache](../../../evidence/src.md): cheap L16)
"""

OTHER = """---
name: other
description: Another skill with its own evidence.
---
# Other

> The first paragraph says that neural nets fail silently[^f]

[^f]: A. Author ([cache](evidence/own.md): first L11)
"""


def git(root: Path, *args: str) -> str:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    root = tmp_path / "collection"
    files = {
        "pyproject.toml": '[tool.skillcite]\nevidence = ["evidence", "skills/other/evidence"]\ncontent = ["skills/**"]\n',
        "skills/pg-tuning/SKILL.md": PG,
        "skills/pg-tuning/references/vacuum.md": VACUUM,
        "skills/other/SKILL.md": OTHER,
        "skills/other/evidence/own.md": evidence_text(),
        "evidence/src.md": evidence_text(),
        "docs/design.md": "# Design\n",
        "README.md": "# Skills\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "remote", "add", "origin", "git@github.com:someone/collection.git")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "skills")
    assert [d.code for d in check(root).diagnostics] == []
    return root


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_bundle_names_the_skills_of_a_collection_and_bundles_one(collection: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(collection)
    status, _, err = run("bundle")
    assert status == 2
    assert "holds 2 skills (skills/other, skills/pg-tuning); bundle one: skillcite bundle skills/other" in err
    status, out, err = run("bundle", "skills/pg-tuning", "--include", "references")
    assert status == 0, err
    assert "bundled by skillcite" in out and "from skills/pg-tuning/SKILL.md, skills/pg-tuning/references/vacuum.md;" in out
    assert "<https://example.org/post>" in out  # the shared evidence's source stands in for the cache link
    # A file left out links to the repository, taken from the git remote.
    assert "(https://github.com/someone/collection/blob/main/docs/design.md)" in out
    assert "no repository URL" not in err
    # From inside the skill, the skill is found without naming it.
    monkeypatch.chdir(collection / "skills/pg-tuning/references")
    status, again, _ = run("bundle", "--include", "references/**")
    assert status == 0 and again == out


def test_install_a_collection_from_a_sub_folder_and_uninstall(collection: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "agent-skills"
    monkeypatch.chdir(collection / "docs")
    status, out, err = run("install", "--dest", str(dest))
    assert status == 0, out + err
    assert f"installed other -> {dest / 'other'} (2 files)" in out
    assert f"installed pg-tuning -> {dest / 'pg-tuning'} (4 files)" in out
    # The shared evidence travels with the skill that cites it, its links rewritten to the new place.
    assert (dest / "pg-tuning/evidence/src.md").read_bytes() == (collection / "evidence/src.md").read_bytes()
    assert "([cache](evidence/src.md): bug L15)" in (dest / "pg-tuning/SKILL.md").read_text()
    assert "([cache](../evidence/src.md): cheap L16)" in (dest / "pg-tuning/references/vacuum.md").read_text()
    # One skill by its folder: the repository's settings apply, and only it is installed.
    other = tmp_path / "one"
    status, out, err = run("install", str(collection / "skills/pg-tuning"), "--dest", str(other))
    assert status == 0, out + err
    assert sorted(p.name for p in other.iterdir()) == ["pg-tuning"]
    monkeypatch.chdir(collection / "skills/pg-tuning/references")
    status, out, err = run("uninstall", "--dest", str(other))
    assert status == 0, out + err
    assert out == f"removed {other / 'pg-tuning'}\n"


def test_an_installed_copy_is_checked_again_with_verify(collection: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "agent-skills"
    (dest / "someone-else").mkdir(parents=True)
    (dest / "someone-else/SKILL.md").write_text("> unsourced, and not ours to check\n")
    monkeypatch.chdir(collection)
    status, out, err = run("install", "--dest", str(dest))
    assert status == 0, out + err
    assert "check them again with install --verify" in out
    status, out, err = run("install", "--dest", str(dest), "--verify")
    assert status == 0, out + err
    assert out.splitlines() == [
        f"checked: other in {dest} pass skillcite check --strict (quotes, links, names)",
        f"checked: pg-tuning in {dest} pass skillcite check --strict (quotes, links, names)",
    ]
    skill = dest / "pg-tuning/SKILL.md"
    skill.write_text(skill.read_text().replace("> Assume you have a bug.", "> Assume you have two bugs."))
    status, out, err = run("install", "--dest", str(dest), "--verify")
    assert status == 1
    assert f"{skill}:7:1: SC302" in out and "1 problem in the installed copy" in err
