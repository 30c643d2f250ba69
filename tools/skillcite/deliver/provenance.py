"""Where a bundle came from: package version, git commit, repository URL.

A prompt file travels far from its repository; its header says which
version of the skill it holds, and links it cannot keep (files left out of
the bundle) point at the repository on the web instead of at nothing.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from ..core.config import Config, load_project

GIT_TIMEOUT = 10  # seconds; a hung git must not hang the bundle


@dataclass(slots=True)
class Provenance:
    """The facts a bundle header states, each None when unknown."""

    name: str | None
    version: str | None
    commit: str | None  # abbreviated hash of HEAD
    dirty: bool  # the bundled files differ from that commit
    repository: str | None  # e.g. https://github.com/OWNER/REPO
    branch: str
    left_out: set[str] = field(default_factory=set)  # package paths linked but not bundled

    def label(self, fallback_name: str | None = None) -> str:
        """``ml-debug 0.1.0 at git 1a2b3c4d5e6f (with uncommitted changes)``, leaving out what is unknown.

        ``fallback_name`` (the skill's front-matter name) stands in when
        ``pyproject.toml`` names no project.
        """
        out = " ".join(part for part in (self.name or fallback_name, self.version) if part)
        if self.commit:
            out += f" at git {self.commit}" + (" (with uncommitted changes)" if self.dirty else "")
        return out.strip()

    def url(self, rel: str, folder: bool) -> str | None:
        """The web address of package path ``rel`` (GitHub-style ``blob``/``tree``), if the repository is known."""
        if not self.repository:
            return None
        kind = "tree" if folder else "blob"
        path = quote(rel.strip("/"), safe="/") if rel not in ("", ".") else ""
        return f"{self.repository}/{kind}/{self.branch}/{path}".rstrip("/")


def _git(root: Path, *args: str) -> str | None:
    """Output of a git command in ``root``; None when git is missing or the folder is not a work tree."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def provenance(root: Path, config: Config, files: list[str]) -> Provenance:
    """Read name and version from ``pyproject.toml``, commit and state of ``files`` from git."""
    project = load_project(root)
    commit = _git(root, "rev-parse", "--short=12", "HEAD")
    status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", *files) if commit else None
    repository = (config.repository or project.repository() or _remote(root) or "").rstrip("/") or None
    return Provenance(project.name, project.version, commit.strip() if commit else None, bool(status and status.strip()), repository, config.branch)


_SCP = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+):(?P<path>[^/].*)$")  # git@github.com:owner/repo.git


def _remote(root: Path) -> str | None:
    """The web address of the ``origin`` remote (``git@host:o/r.git`` and ``https://host/o/r.git`` alike), if any."""
    url = (_git(root, "remote", "get-url", "origin") or "").strip()
    if not url:
        return None
    if url.startswith(("https://", "http://")):
        web = re.sub(r"^(https?://)[^@/]*@", r"\1", url)  # never show credentials
    elif url.startswith("ssh://"):
        web = "https://" + re.sub(r"^ssh://(?:[^@/]*@)?", "", url)
        web = re.sub(r":\d+/", "/", web, count=1)
    elif m := _SCP.match(url):
        web = f"https://{m.group('host')}/{m.group('path')}"
    else:
        return None  # a local path: no web address
    return web.removesuffix(".git").rstrip("/")
