"""The install and pre-commit commands of docs/adopting.md install something that exists.

The commands are read from the docs (never retyped here), their commit SHA is
checked against this repository's history, and then they are run: pip
installs skillcite from a local clone at that commit, the installed command
checks a small package, and pre-commit runs the hook at that ``rev``. Only
the repository URL is swapped for the local clone.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import clean_package
from venvs import build_backend_problem, make_venv

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs/adopting.md"
URL = "https://github.com/OWNER/ml-debug"
SHA = re.compile(r"\b[0-9a-f]{40}\b")


def _run(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)


def documented_pins() -> dict[str, set[str]]:
    """Every commit SHA the adoption docs, the example workflow and the hook file name."""
    files = [DOCS, ROOT / ".github/workflows/quote-fidelity.yml", ROOT / ".pre-commit-hooks.yaml"]
    return {f.relative_to(ROOT).as_posix(): set(SHA.findall(f.read_text(encoding="utf-8"))) for f in files}


def install_command() -> list[str]:
    """The first ``pip install`` line of the Install section, as words."""
    section = DOCS.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    line = next(line for line in block.splitlines() if line.startswith("pip install "))
    return shlex.split(line)


def pre_commit_rev() -> str:
    """The ``rev:`` of the pre-commit example."""
    section = DOCS.read_text(encoding="utf-8").split("## pre-commit", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    [repo] = yaml.safe_load(block)["repos"]
    assert repo["repo"] == URL
    return str(repo["rev"])


def pinned() -> str:
    pins = documented_pins()
    everywhere = set().union(*pins.values())
    assert len(everywhere) == 1, pins
    assert all(pins.values()), pins  # each file names it
    return everywhere.pop()


def test_the_docs_pin_one_commit_and_no_tag() -> None:
    sha = pinned()
    assert pre_commit_rev() == sha
    words = install_command()
    assert words[:2] == ["pip", "install"] and words[2] == f"git+{URL}@{sha}#subdirectory=tools"
    for f in (DOCS, ROOT / ".github/workflows/quote-fidelity.yml", ROOT / ".pre-commit-hooks.yaml"):
        assert not re.search(r"@v\d+\.\d+|rev: v\d", f.read_text(encoding="utf-8")), f"{f.name} still names a tag"


def _history_has(sha: str) -> bool:
    if shutil.which("git") is None or _run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"]).returncode != 0:
        pytest.skip("this copy of the repository is not a git checkout")
    if _run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"]).stdout.strip() == "true":
        pytest.skip("a shallow clone may not hold the pinned commit")
    return _run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", sha, "HEAD"]).returncode == 0


def test_the_pinned_commit_is_in_main_history() -> None:
    sha = pinned()
    assert _history_has(sha), f"{sha} is not an ancestor of HEAD: pin a commit of main"


def _install_pinned(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """skillcite installed by the documented command (the URL swapped for a local clone); its path and environment."""
    sha = pinned()
    if not _history_has(sha):
        pytest.fail(f"{sha} is not in this repository's history")
    clone = tmp_path / "clone"
    assert _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)]).returncode == 0
    problem = build_backend_problem()
    assert problem is None, problem
    venv = make_venv(tmp_path / "venv")
    env = venv.env
    words = install_command()
    words[2] = words[2].replace(URL, clone.as_uri())  # the only change: where the repository is
    # Offline, built with the test environment's setuptools (tests/venvs.py).
    done = venv.pip_install(*words[2:])
    assert done.returncode == 0, done.stderr
    return venv.bindir / "skillcite", env


@pytest.mark.slow
def test_the_documented_install_works_at_the_pinned_commit(tmp_path: Path) -> None:
    skillcite, env = _install_pinned(tmp_path)
    version = _run([str(skillcite), "--version"], env=env)
    assert version.returncode == 0 and version.stdout.startswith("skillcite, version "), version.stdout + version.stderr
    pkg = clean_package(tmp_path / "pkg")
    done = _run([str(skillcite), "check", "--strict", str(pkg.root)], env=env)
    assert done.returncode == 0 and "0 errors, 0 warnings" in done.stdout, done.stdout + done.stderr


def documented_commands() -> list[list[str]]:
    """Every ``skillcite`` command of docs/adopting.md's code blocks (``- run:`` steps of its workflow snippets included)."""
    text = DOCS.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```(?:sh|yaml)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command = line.strip().removeprefix("- run:").strip().split("#", 1)[0].split(">", 1)[0]
            if command.startswith("skillcite "):
                out.append(shlex.split(command)[1:])
    return out


@pytest.mark.slow
def test_every_documented_command_runs_at_the_pinned_commit(tmp_path: Path) -> None:
    # The SARIF step of the docs was pinned to a commit without --format sarif, and "|| true" hid it:
    # each documented command must be known to the pinned skillcite (exit 0 or 1, findings; never 2, usage).
    commands = documented_commands()
    assert ["check", "--strict", "--format", "sarif"] in commands and ["evidence", "adopt"] in commands
    skillcite, env = _install_pinned(tmp_path)
    pkg = clean_package(tmp_path / "pkg")
    (pkg.root / "pyproject.toml").unlink()  # a repository that has not adopted skillcite yet: init writes the table
    assert _run(["git", "init", "-q"], cwd=pkg.root).returncode == 0
    for args in commands:
        done = _run([str(skillcite), *args], cwd=pkg.root, env=env)
        assert done.returncode in (0, 1), (args, done.stdout + done.stderr)
    assert "|| true" not in DOCS.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pre-commit") is None, reason="needs pre-commit (test extra)")
def test_the_documented_hook_runs_at_the_pinned_rev(tmp_path: Path) -> None:
    sha = pre_commit_rev()
    if not _history_has(sha):
        pytest.fail(f"{sha} is not in this repository's history")
    clone = tmp_path / "clone"
    assert _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)]).returncode == 0
    p = clean_package(tmp_path / "skills-repo")
    assert _run(["git", "init", "-q"], cwd=p.root).returncode == 0
    assert _run(["git", "add", "-A"], cwd=p.root).returncode == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    done = _run(["pre-commit", "try-repo", str(clone), "skillcite-check", "--ref", sha, "--all-files"], cwd=p.root, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skillcite check" in done.stdout and "Passed" in done.stdout
