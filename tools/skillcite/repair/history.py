"""Earlier versions of files from git: the text at a revision, the version a lock names.

``fix`` carries anchors from an earlier version of an evidence file
(docs/maintaining.md, "Repairing anchors"); git is run in the file's own
folder, so evidence outside the root works too.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..check.parsing.evidence import Evidence, body_sha256, lock_sha256, split_front_matter
from ..core.textio import BOM, InputError, TextFile, line_starts, resolve

HISTORY_DEPTH = 200  # commits searched for a locked evidence body


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=False)
    except OSError:
        return None


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError:
        return None


def file_at(path: Path, rev: str) -> str | None:
    """The text of ``path`` at git revision ``rev``; None when absent or not in git.

    git runs in the file's own folder with a ``./`` path: the evidence folder
    may lie outside the root (``evidence = "../ev"``).
    """
    real = resolve(path)
    done = _git(real.parent, "show", f"{rev}:./{real.name}")
    if done is None or done.returncode != 0:
        return None
    return _decode(done.stdout)


def verify_revision(root: Path, rev: str) -> None:
    """Raise :class:`InputError` unless ``rev`` names a commit of the repository at ``root``."""
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if done is None or done.returncode != 0:
        raise InputError(f"--from {rev}: not a git revision of {root}")


def locked_version(ev: Evidence) -> tuple[str, str] | None:
    """``(text, revision)`` from git history whose body matches the current lock.

    The revision is the newest one where the file still had that body: the
    documents at that revision hold the anchors written for it.
    """
    if ev.front is None or not ev.front.data:
        return None
    locked = ev.front.data.get("sha256")
    if not isinstance(locked, str):
        return None
    real = resolve(ev.path)
    log = _git(real.parent, "log", f"-n{HISTORY_DEPTH}", "--format=%H", "--", f"./{real.name}")
    if log is None or log.returncode != 0:
        return None
    commits = log.stdout.decode("ascii", "replace").split()
    for i, commit in enumerate(commits):
        text = file_at(real, commit)
        if text is None:
            continue
        tf = TextFile(Path(real.name), text, False, line_starts(text))
        fm = split_front_matter(tf)
        # A version locked before the lock covered the front matter holds its body's digest.
        if fm.end_line and locked in (lock_sha256(tf, fm), body_sha256(text, fm.body_offset)):
            return text, ("HEAD" if i == 0 else f"{commits[i - 1]}^")
    return None


def before_last_change(path: Path) -> str | None:
    """The text of ``path`` just before the last commit that changed it; None without one."""
    real = resolve(path)
    log = _git(real.parent, "log", "-n1", "--format=%H", "--", f"./{real.name}")
    if log is None or log.returncode != 0 or not log.stdout.strip():
        return None
    commit = log.stdout.decode("ascii", "replace").strip()
    return file_at(real, f"{commit}^")
