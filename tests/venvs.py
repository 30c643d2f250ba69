"""A throwaway virtual environment for tests that install skillcite, built without the base interpreter.

``python -m venv --system-site-packages`` run from a virtual environment
exposes the *base* interpreter's site-packages, not the running
environment's: on a fresh machine that is setuptools 65.5 without
``wheel``, which cannot build a wheel (``invalid command 'bdist_wheel'``).
So the new environment sees no system packages; a ``.pth`` file puts the
running test environment's site-packages after its own. The build backend
(setuptools, from the test extra, pinned in .ci/constraints.txt) and the
dependencies then come from the environment the suite was installed into,
and pip installs offline (``--no-index --no-build-isolation``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

MIN_SETUPTOOLS = (70, 1)  # the first release that builds wheels without the separate wheel package


@dataclass(frozen=True)
class Venv:
    """A created environment: its interpreter, its scripts folder, and an environment for its commands."""

    root: Path
    python: Path
    bindir: Path
    env: dict[str, str]

    def pip_install(self, *args: str, timeout: int = 900) -> subprocess.CompletedProcess[str]:
        """``pip install ARGS`` into this environment with the test environment's pip, offline."""
        cmd = [sys.executable, "-m", "pip", "--python", str(self.python), "install", "--quiet", "--no-index", "--no-build-isolation", *args]
        return subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=timeout, check=False)


def build_backend_problem() -> str | None:
    """Why the running environment cannot build skillcite offline, or None."""
    try:
        import setuptools
    except ImportError:
        return "setuptools is not installed in the test environment (it is in the test extra)"
    version = tuple(int(p) for p in setuptools.__version__.split(".")[:2] if p.isdigit())
    if version < MIN_SETUPTOOLS:
        return f"setuptools {setuptools.__version__} in the test environment cannot build wheels alone; the test extra asks for >= 70.1"
    return None


def make_venv(root: Path) -> Venv:
    """A new environment at ``root`` that sees its own packages, then the running environment's, never the base's."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, capture_output=True, timeout=300)
    bindir = root / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True, timeout=60)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    # Plain path lines: the test environment's own .pth files (an editable
    # install of this repository among them) are not processed there.
    (Path(site.stdout.strip()) / "_test_environment.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": "", "PYTHONNOUSERSITE": "1"}
    return Venv(root, python, bindir, env)
