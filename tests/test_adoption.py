"""Other repositories adopting the check: pre-commit hook, example workflow, settings docs."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest
import yaml
from conftest import Package, clean_package
from skillcite.core.config import Config

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for the module: built once (a few seconds), reused."""
    return tmp_path_factory.mktemp("pre-commit-home")


def adopter(root: Path) -> Package:
    """A small skill repository under git, as another project would have it."""
    p = clean_package(root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return p


def try_hook(p: Package, home: Path) -> subprocess.CompletedProcess[str]:
    """Run our skillcite-check hook on the adopter through pre-commit itself."""
    subprocess.run(["git", "add", "-A"], cwd=p.root, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    cmd = ["pre-commit", "try-repo", str(ROOT), "skillcite-check", "--all-files"]
    return subprocess.run(cmd, cwd=p.root, capture_output=True, text=True, env=env, timeout=600, check=False)


def _in_git() -> bool:
    """pre-commit installs hooks from a git repository: is this checkout one?"""
    if shutil.which("git") is None:
        return False
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False)
    return done.returncode == 0 and Path(done.stdout.strip()).resolve() == ROOT


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pre-commit") is None, reason="needs pre-commit (test extra)")
@pytest.mark.skipif(not _in_git(), reason="pre-commit installs hooks from a git repository; this copy is not one")
def test_pre_commit_hook_passes_a_clean_repository_and_fails_an_altered_quote(tmp_path: Path, pre_commit_home: Path) -> None:
    p = adopter(tmp_path / "skills-repo")
    clean = try_hook(p, pre_commit_home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "skillcite check" in clean.stdout and "Passed" in clean.stdout
    p.replace("SKILL.md", "Assume you have a bug", "Assume you have a defect")
    broken = try_hook(p, pre_commit_home)
    assert broken.returncode == 1
    assert "Failed" in broken.stdout and "SKILL.md:" in broken.stdout and " SC30" in broken.stdout


def test_hook_definitions() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert set(hooks) == {"skillcite-check", "skillcite-lock-check"}
    for hook in hooks.values():
        assert {"id", "name", "entry", "language", "files"} <= set(hook)
        assert hook["entry"].split()[0] == "skillcite" and hook["pass_filenames"] is False
    import re

    files = re.compile(hooks["skillcite-check"]["files"])
    for path in ("SKILL.md", "refs/a.md", "docs/evidence/x.md", ".claude-plugin/plugin.json", "pyproject.toml"):
        assert files.search(path), path
    for path in ("tools/x.py", "README.rst", "sub/pyproject.toml.bak"):
        assert not files.search(path), path


def _steps(workflow: str) -> list[str]:
    data = yaml.safe_load((ROOT / ".github/workflows" / workflow).read_text(encoding="utf-8"))
    return [step.get("run", "") for job in data["jobs"].values() for step in job["steps"]]


def test_workflows_run_the_check_with_github_annotations() -> None:
    assert "skillcite check --strict --format github" in _steps("quote-fidelity.yml")
    own = _steps("check.yml")
    assert "bash .ci/run" in own and any(run.endswith("skillcite check --strict --format github") for run in own)


def test_every_setting_is_documented_for_adopters() -> None:
    text = (ROOT / "docs/adopting.md").read_text(encoding="utf-8")
    for f in fields(Config):
        assert f"`{f.name}`" in text, f.name
    assert "skillcite-check" in text and "quote-fidelity.yml" in text
