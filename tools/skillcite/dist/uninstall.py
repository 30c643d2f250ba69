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

import click

from ..cli.app import CONTEXT, fail
from ..core.config import load_config
from .install import AGENT, DEST, SCOPE, find_skills, skills_folder
from .receipt import inspect_folder
from ..core.textio import InputError


@dataclass(slots=True)
class Removal:
    """One skill folder to remove, and why it may (or may not) go."""

    name: str
    blocked: str | None  # the reason it needs --force, if any


def package_name(root: Path, name: str | None) -> tuple[str, list[str]]:
    """The package name and the skill folder names an install of it creates."""
    if name is not None:
        return name, []
    if not root.is_dir():
        raise InputError(f"{root}: no such directory (pass --name to uninstall without the package)")
    if not (root / "SKILL.md").is_file():
        raise InputError(f"{root}: no SKILL.md (pass --name to uninstall without the package)")
    skills = find_skills(root, load_config(root))
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


@click.command(context_settings=CONTEXT)
@click.argument("root", default=".", type=click.Path(path_type=Path))
@SCOPE
@AGENT
@DEST
@click.option("--name", metavar="NAME", help="The package to remove (default: the name in ROOT/SKILL.md).")
@click.option("--force", is_flag=True, help="Also remove folders edited since the install, or not installed by skillcite.")
@click.option("--dry-run", is_flag=True, help="List what would be removed, remove nothing.")
def uninstall(root: Path, scope: str, agent: str, dest: Path | None, name: str | None, force: bool, dry_run: bool) -> None:
    """Remove the skill and its sub-skills from an agent's skills folder.

    Removes every folder whose install receipt names the package. A folder
    with local edits, or one named like the skill but not installed by
    skillcite, is kept unless --force.

    \b
    Examples:
      skillcite uninstall                     # from ~/.claude/skills
      skillcite uninstall --agent codex --scope project
      skillcite uninstall --name ml-debug --dest ~/my-skills --dry-run
    """
    folder = dest
    try:
        folder = skills_folder(agent, scope, dest)
        package, expected = package_name(root, name)
        removals = plan_removal(folder, package, expected)
    except InputError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot read {folder}: {exc}")
    if not removals:
        click.echo(f"nothing to remove: no skill of {package} in {folder}")
        return
    blocked = [r.blocked for r in removals if r.blocked]
    if blocked and not force:
        one = len(blocked) == 1
        fail(f"{'; '.join(blocked)}; pass --force to remove {'it' if one else 'them'} (nothing removed)")
    for removal in removals:
        path = folder / removal.name
        if dry_run:
            click.echo(f"would remove {path}")
            continue
        try:
            remove_folder(path)
        except OSError as exc:
            fail(f"cannot remove {path}: {exc}")
        click.echo(f"removed {path}")
    if dry_run:
        click.echo(f"dry run: {len(removals)} skill folder{'s' * (len(removals) != 1)}; nothing removed")
