"""skillcite installs on its own, from a git URL with ``#subdirectory=tools``.

The repository is cloned for real (its committed state), then pip installs
the ``skillcite`` distribution from ``git+file://`` into a fresh virtual
environment (tests/venvs.py: it sees the test environment's packages, never
the base interpreter's), offline and built with the test environment's
setuptools. Skipped, with the reason, where git is not available or the
checkout is not a git repository.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import clean_package
from venvs import build_backend_problem, make_venv

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git on the PATH (pip clones git+file:// URLs with it)")


def _run(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_skillcite_installs_alone_from_a_git_url(tmp_path: Path) -> None:
    if _run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"]).returncode != 0:
        pytest.skip("this copy of the repository is not a git checkout")
    problem = build_backend_problem()
    assert problem is None, problem
    clone = tmp_path / "clone"
    done = _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)])
    assert done.returncode == 0, done.stderr

    venv = make_venv(tmp_path / "venv")
    bindir, python, env = venv.bindir, venv.python, venv.env
    done = venv.pip_install(f"git+{clone.as_uri()}#subdirectory=tools")
    assert done.returncode == 0, done.stderr

    # The distribution is skillcite, not ml-debug, and its code is the venv's copy.
    done = _run([str(python), "-c", "import importlib.metadata as m, skillcite; print(m.version('skillcite'), skillcite.__version__, skillcite.__file__)"], env=env)
    assert done.returncode == 0, done.stderr
    dist_version, code_version, where = done.stdout.split()
    assert dist_version == code_version
    assert Path(where).resolve().is_relative_to(venv.root.resolve())

    skillcite = bindir / "skillcite"
    done = _run([str(skillcite), "--version"], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"skillcite, version {code_version}"

    pkg = clean_package(tmp_path / "pkg")
    done = _run([str(skillcite), "check", "--strict", str(pkg.root)], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors, 0 warnings" in done.stdout


def test_both_distributions_read_the_one_version() -> None:
    # ml-debug (root) and skillcite (tools/) declare the version dynamic, read
    # from skillcite.__version__; bundle's provenance header reads it the same way.
    import skillcite
    from skillcite.core.config import load_project

    assert load_project(ROOT) == load_project(ROOT).__class__("ml-debug", skillcite.__version__, load_project(ROOT).urls)
    assert load_project(ROOT / "tools").name == "skillcite"
    assert load_project(ROOT / "tools").version == skillcite.__version__
