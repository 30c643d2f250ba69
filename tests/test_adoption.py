"""Other repositories adopting the check: pre-commit hook, example workflow, settings docs."""

from __future__ import annotations

import os
import re
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
        if f.metadata.get("setting", True):  # package_paths is set by install for its copy, never by a user
            assert f"`{f.name}`" in text, f.name
    assert "skillcite-check" in text and "quote-fidelity.yml" in text


# Files whose change alone can turn the check red or green: Markdown and evidence,
# manifests, the settings, the review file and a baseline (any name the settings give it).
CHECK_INPUTS = (
    "SKILL.md", "refs/a.md", "NOTES.MD", "docs/x.markdown", "docs/evidence/x.md",
    "docs/evidence/reviews.json", "pinn/docs/evidence/reviews.json", ".skillcite-baseline.json",
    ".claude-plugin/plugin.json", "pyproject.toml", "skills/pkg/pyproject.toml",
)
NOT_INPUTS = ("tools/x.py", "README.rst", "sub/pyproject.toml.bak", "uv.lock", "docs/evidence/x.md.orig")


def _github_paths(patterns: list[str]) -> re.Pattern[str]:
    """GitHub's path filters as a regex: ``**`` crosses folders, ``*`` does not (filter pattern cheat sheet)."""
    parts = []
    for p in patterns:
        rx = re.escape(p).replace(r"\*\*", "\0").replace(r"\*", "[^/]*").replace("\0", ".*")
        parts.append(f"(?:{rx})")
    return re.compile("^(?:" + "|".join(parts) + ")$")


def test_hook_filter_runs_on_every_file_the_check_reads() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    files = re.compile(hooks["skillcite-check"]["files"])
    assert [p for p in CHECK_INPUTS if not files.search(p)] == []
    assert [p for p in NOT_INPUTS if files.search(p)] == []
    lock = re.compile(hooks["skillcite-lock-check"]["files"])
    assert [p for p in ("docs/evidence/x.md", "ev/X.MD", "a.markdown") if not lock.search(p)] == []
    assert [p for p in ("docs/evidence/reviews.json", "tools/x.py") if lock.search(p)] == []


def test_example_workflow_paths_run_on_every_file_the_check_reads() -> None:
    data = yaml.safe_load((ROOT / ".github/workflows/quote-fidelity.yml").read_text(encoding="utf-8"))
    triggers = data[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"]["paths"] == triggers["pull_request"]["paths"]
    paths = _github_paths(triggers["push"]["paths"])
    assert [p for p in CHECK_INPUTS if not paths.match(p)] == []
    assert [p for p in NOT_INPUTS if paths.match(p)] == []


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pre-commit") is None, reason="needs pre-commit (test extra)")
@pytest.mark.skipif(not _in_git(), reason="pre-commit installs hooks from a git repository; this copy is not one")
def test_pre_commit_hook_runs_when_only_a_json_file_changed(tmp_path: Path, pre_commit_home: Path) -> None:
    p = adopter(tmp_path / "skills-repo")
    p.replace("SKILL.md", "Assume you have a bug", "Assume you have a defect")
    (p.root / ".skillcite-baseline.json").write_text("{}\n", encoding="utf-8")
    (p.root / "tool.py").write_text("x = 1\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=p.root, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}

    def hook(changed: str) -> subprocess.CompletedProcess[str]:
        cmd = ["pre-commit", "try-repo", str(ROOT), "skillcite-check", "--files", changed]
        return subprocess.run(cmd, cwd=p.root, capture_output=True, text=True, env=env, timeout=600, check=False)

    ran = hook(".skillcite-baseline.json")
    assert ran.returncode == 1 and "Failed" in ran.stdout and " SC30" in ran.stdout, ran.stdout
    skipped = hook("tool.py")
    assert skipped.returncode == 0 and "Skipped" in skipped.stdout, skipped.stdout


def sarif_recipe_problems(block: str) -> list[str]:
    """What keeps a SARIF upload recipe from showing findings: no write permission, or an upload skipped on failure."""
    job = next(iter(yaml.safe_load(block)["jobs"].values()))
    problems = []
    if (job.get("permissions") or {}).get("security-events") != "write":
        problems.append("no security-events: write")
    upload = next(s for s in job["steps"] if "upload-sarif" in s.get("uses", ""))
    if not any(word in str(upload.get("if", "")) for word in ("always()", "!cancelled()", "failure()")):
        problems.append("upload runs only when the check passed")
    return problems


def test_sarif_recipe_uploads_findings_when_the_check_fails() -> None:
    text = (ROOT / "docs/adopting.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "upload-sarif" in b)
    assert sarif_recipe_problems(block) == []
    bare = re.sub(r"\n *permissions:\n( +[a-z-]+: \w+.*\n)+", "\n", block)
    bare = re.sub(r"\n *if: .*", "", bare)
    assert sarif_recipe_problems(bare) == ["no security-events: write", "upload runs only when the check passed"]
