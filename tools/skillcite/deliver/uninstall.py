"""``skillcite uninstall``: remove what ``skillcite install`` put in a skills folder.

Only folders whose install receipt names this package are candidates, and a
folder edited since the install (a file changed, deleted or added) is kept
unless ``--force``: removing a user's work silently is the one thing an
uninstaller must not do. Each folder is first renamed to a hidden name in the
same skills folder, so a skill is either fully there or fully gone.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..core.textio import InputError
from .install import find_skills
from .locate import locate
from .receipt import inspect_folder


@dataclass(slots=True)
class Removal:
    """One skill folder to remove, and why it may (or may not) go."""

    name: str
    blocked: str | None  # the reason it needs --force, if any


def package_name(root: Path | None, name: str | None) -> tuple[str, list[str]]:
    """The package name and the skill folder names an install of it creates."""
    if name is not None:
        return name, []
    try:
        found = locate(root)
    except InputError as exc:
        raise InputError(f"{exc} (pass --name to uninstall without the package)") from None
    if len(found.homes) > 1:
        raise InputError(f"{found.root} holds {len(found.homes)} skills ({', '.join(found.homes)}); name one: skillcite uninstall {found.homes[0]}")
    skills = find_skills(found.root, found.config, found.homes[0])
    return skills[0].name, [s.name for s in skills]


def plan_removal(dest: Path, package: str, expected: list[str]) -> list[Removal]:
    """Folders in ``dest`` installed from ``package``, plus expected names found there without a receipt."""
    if not dest.is_dir():
        return []
    found: list[Removal] = []
    for folder in sorted(p for p in dest.iterdir() if not p.name.startswith(".")):
        state = inspect_folder(folder)
        ours = state.receipt is not None and state.receipt.package == package
        if ours or folder.name in expected:
            found.append(Removal(folder.name, state.describe(package)))
    return found


def remove_folder(folder: Path) -> None:
    """Rename out of sight first (atomic), then delete the renamed tree."""
    hidden = folder.with_name(f".{folder.name}.skillcite-removing-{uuid.uuid4().hex[:8]}")
    folder.rename(hidden)
    if hidden.is_symlink() or not hidden.is_dir():
        hidden.unlink()
    else:
        shutil.rmtree(hidden)
