"""skillcite installs on its own, from a git URL with ``#subdirectory=tools``.

The repository is cloned for real (its committed state), then pip installs
the ``skillcite`` distribution from ``git+file://`` into a fresh virtual
environment. The environment sees the system site-packages, so the
dependencies are already there and nothing is downloaded (``--no-index``);
the build uses the installed setuptools (``--no-build-isolation``). The
test is skipped, with the reason, where git, setuptools or a virtual
environment is not available.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import clean_package

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git on the PATH (pip clones git+file:// URLs with it)")


def _run(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_skillcite_installs_alone_from_a_git_url(tmp_path: Path) -> None:
    if _run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"]).returncode != 0:
        pytest.skip("this copy of the repository is not a git checkout")
    try:
        import setuptools  # noqa: F401  (the build backend, used without isolation)
    except ImportError:
        pytest.skip("setuptools is not installed: pip cannot build skillcite offline")
    clone = tmp_path / "clone"
    done = _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)])
    assert done.returncode == 0, done.stderr

    venv = tmp_path / "venv"
    # Without a pip of its own: the venv's bundled setuptools may predate
    # bdist_wheel; this interpreter's pip installs into it (``--python``)
    # and builds with the setuptools both see.
    done = _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)])
    if done.returncode != 0:
        pytest.skip(f"cannot create a virtual environment here: {done.stderr.strip()[:200]}")
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": "", "PYTHONNOUSERSITE": "1"}
    url = f"git+{clone.as_uri()}#subdirectory=tools"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    done = _run([*pip, "install", "--quiet", "--no-index", "--no-build-isolation", url], env=env)
    if done.returncode != 0 and ("No matching distribution" in done.stderr or "Could not find a version" in done.stderr):
        pytest.skip(f"pip cannot build offline here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr

    # The distribution is skillcite, not ml-debug, and its code is the venv's copy.
    done = _run([str(python), "-c", "import importlib.metadata as m, skillcite; print(m.version('skillcite'), skillcite.__version__, skillcite.__file__)"], env=env)
    assert done.returncode == 0, done.stderr
    dist_version, code_version, where = done.stdout.split()
    assert dist_version == code_version
    assert Path(where).resolve().is_relative_to(venv.resolve())

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
