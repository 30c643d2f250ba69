"""Which skill ``bundle``, ``install`` and ``uninstall`` work on, and in which repository.

Three layouts: the skill at the repository root (ml-debug, sub-skills in
top-level folders); a skill folder named on the command line inside a
repository whose ``pyproject.toml`` holds the settings; and a collection,
``skills/<name>/SKILL.md``, with no skill at the root. The settings always
come from the repository root (:func:`skillcite.core.config.find_root`), and
paths stay relative to it, so globs and evidence folders mean what they mean
for ``check``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core.config import Config, find_root, load_config
from ..core.textio import InputError

_SKIP_DIRS = {"node_modules", "venv", "build", "dist", "__pycache__", "site-packages", "tests", "test", "fixtures", "examples"}
_DEPTH = 3  # a collection's skills sit at most this deep (skills/<name>/SKILL.md is 2)


@dataclass(frozen=True, slots=True)
class Located:
    """The repository root, its settings, and the skill folders (relative to the root; "" is the root itself)."""

    root: Path
    config: Config
    homes: tuple[str, ...]
    why: str  # how the root was chosen, for the message

    def folder(self, home: str) -> Path:
        """The skill folder ``home`` on disk."""
        return self.root / home if home else self.root


def collection_skills(root: Path, config: Config) -> list[str]:
    """Folders below ``root`` holding a ``SKILL.md`` that no folder above them (below ``root``) holds, sorted."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root).as_posix()
        depth = 0 if rel == "." else rel.count("/") + 1
        if rel != "." and "SKILL.md" in filenames and not config.is_excluded(f"{rel}/SKILL.md"):
            found.append(rel)
            dirnames[:] = []  # its sub-skills belong to it
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS) if depth < _DEPTH else []
    return sorted(found)


def locate(root: Path | None) -> Located:
    """The skill(s) for ROOT, or for the current folder when ROOT is not given.

    Without ROOT, the topmost folder holding a ``SKILL.md`` between the
    current folder and the repository root is the skill (so any sub-folder
    of a skill works); with none, the repository's skills are all of them.
    Without ROOT and outside any package (no ``SKILL.md`` in the current
    folder, no ``[tool.skillcite]`` or git work tree at or above it), a
    usage error at once, before any folder is walked.
    """
    start = (root if root is not None else Path.cwd()).resolve()
    if not start.is_dir():
        raise InputError(f"{root}: no such directory")
    repo, why = find_root(start)
    if root is None and repo == start and why.startswith("current folder") and not (start / "SKILL.md").is_file():
        # Not inside a package: searching the current folder (a home folder, /tmp)
        # for skills would walk all of it, for minutes, and read other programs' files.
        raise InputError(
            f"{start}: not inside a skill package (no SKILL.md here, no pyproject.toml with [tool.skillcite] "
            "or git work tree here or above); run it from the package, or name the package folder"
        )
    if root is not None and (start / "SKILL.md").is_file() and repo != start and not why.startswith("nearest pyproject"):
        repo, why = start, "the folder named (no [tool.skillcite] above it)"  # a skill of its own, kept in a larger work tree
    config = load_config(repo)
    if (repo / "SKILL.md").is_file():
        return Located(repo, config, ("",), why)
    chain = [start, *start.parents]
    above = [f for f in chain[: chain.index(repo)] if (f / "SKILL.md").is_file()] if repo in chain else []
    if above:
        return Located(repo, config, (above[-1].relative_to(repo).as_posix(),), why)
    if root is not None and start != repo:
        homes = tuple(f"{start.relative_to(repo).as_posix()}/{h}" for h in collection_skills(start, config))
    else:
        homes = tuple(collection_skills(repo, config))
    if not homes:
        above_it = f", above it up to {repo}," if repo != start else ""
        raise InputError(f"{start}: no SKILL.md here{above_it} or in the folders below it")
    return Located(repo, config, homes, why)
