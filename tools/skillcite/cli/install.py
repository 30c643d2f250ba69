"""``skillcite install`` and ``skillcite uninstall``: click commands over :mod:`skillcite.deliver`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from ..core.textio import InputError
from ..deliver.install import AGENT_FOLDERS, InstallPlan, check_destination, install_plan, plan_installs, skills_folder, verify_tree, write_tree
from ..deliver.uninstall import package_name, plan_removal, remove_folder
from .app import CONTEXT, fail, root_argument

SCOPE = click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True, help="Your home folder, or the current folder.")
AGENT = click.option(
    "--agent",
    type=click.Choice(list(AGENT_FOLDERS), case_sensitive=False),
    default="claude",
    show_default=True,
    help="Whose skills folder: claude is ~/.claude/skills; the others share ~/.agents/skills.",
)
DEST = click.option("--dest", type=click.Path(path_type=Path, file_okay=False), help="Use this skills folder instead (any agent).")


@click.command(context_settings=CONTEXT)
@root_argument()
@SCOPE
@AGENT
@DEST
@click.option("--force", is_flag=True, help="Replace folders this package did not install, or that were edited since.")
@click.option("--dry-run", is_flag=True, help="List what would be written, check it, write nothing.")
@click.option("--verify", is_flag=True, help="Write nothing; check the copy already installed, side by side, as install checks it.")
def install(root: Path | None, scope: str, agent: str, dest: Path | None, force: bool, dry_run: bool, verify: bool) -> None:
    """Copy the skill into an agent's skills folder, sub-skills as skills of their own.

    The main skill installs under its name (ml-debug) with PLAYBOOK.md, refs/,
    the evidence and whatever its links need; rl/ and pinn/ install as
    ml-debug-rl and ml-debug-pinn, with names and relative links rewritten.
    In a collection (skills/<name>/SKILL.md) every skill installs, or the one
    ROOT names; ROOT defaults to the skill or repository holding the current
    folder (outside any package, name it). Every link is checked before the tree is moved into place. An
    earlier, unedited install of the same package is updated; anything else
    in the way needs --force. A skill links to its siblings and shares their
    evidence, so an installed copy is checked side by side with them:
    --verify checks it again later (a plain skillcite check of one installed
    folder does not know the package's settings).

    \b
    Examples:
      skillcite install                                # ~/.claude/skills
      skillcite install --agent codex --scope project  # ./.agents/skills
      skillcite install --dest ~/my-skills --force
      skillcite install --dry-run
      skillcite install --verify                       # check the installed copy again
    """
    folder = dest
    try:
        folder = skills_folder(agent, scope, dest)
        plans = plan_installs(root, folder)
    except InputError as exc:
        fail(str(exc))
    for plan in plans:
        if verify:
            _verify_one(plan)
        else:
            _install_one(plan, force, dry_run)


def _verify_one(plan: InstallPlan) -> None:
    missing = [s.name for s in plan.skills if not (plan.dest / s.name).is_dir()]
    if missing:
        fail(f"not installed in {plan.dest}: {', '.join(missing)}", 1)
    problems = verify_tree(plan, plan.dest)
    for problem in problems:
        click.echo(problem)
    if problems:
        fail(f"{len(problems)} problem{'s' * (len(problems) != 1)} in the installed copy", 1)
    click.echo(f"checked: {', '.join(s.name for s in plan.skills)} in {plan.dest} pass skillcite check --strict (quotes, links, names)")


def _install_one(plan: InstallPlan, force: bool, dry_run: bool) -> None:
    folder = plan.dest
    try:
        if plan.problems:  # the package reaches outside itself (SC603) or holds a FIFO or device (SC604)
            for problem in plan.problems:
                click.echo(problem)
            n = len(plan.problems)
            fail(f"{n} problem{'s' * (n != 1)} in the package; nothing installed", 1)
        taken = {state.path.name: state for state in check_destination(plan, force)}
        if dry_run:  # build and check in a scratch folder: the destination stays untouched
            with tempfile.TemporaryDirectory(prefix="skillcite-install-") as tmp:
                write_tree(plan, Path(tmp))
                problems = verify_tree(plan, Path(tmp))
        else:
            problems = install_plan(plan, force)
    except OSError as exc:
        fail(f"cannot install into {folder}: {exc}")
    for problem in problems:
        click.echo(problem)
    if problems:
        fail(f"{len(problems)} problem{'s' * (len(problems) != 1)} in the installed tree; nothing installed", 1)
    if dry_run:
        for rel in sorted(plan.files, key=lambda rel: (rel.split("/")[0], rel)):
            note = f" ({plan.notes[rel]})" if rel in plan.notes else ""
            click.echo(f"would write {plan.dest / rel}{note}")
        click.echo(f"dry run: {len(plan.skills)} skills, {len(plan.files)} files; nothing written")
        return
    for skill in plan.skills:
        state, n = taken.get(skill.name), plan.count(skill)
        verb = "installed" if state is None else "replaced" if state.describe(plan.skills[0].name) else "updated"
        click.echo(f"{verb} {skill.name} -> {plan.dest / skill.name} ({n} file{'s' * (n != 1)})")
    click.echo("checked: the installed skills pass skillcite check --strict (quotes, links, names); check them again with install --verify")


@click.command(context_settings=CONTEXT)
@root_argument()
@SCOPE
@AGENT
@DEST
@click.option("--name", metavar="NAME", help="The package to remove (default: the name in ROOT/SKILL.md).")
@click.option("--force", is_flag=True, help="Also remove folders edited since the install, or not installed by skillcite.")
@click.option("--dry-run", is_flag=True, help="List what would be removed, remove nothing.")
def uninstall(root: Path | None, scope: str, agent: str, dest: Path | None, name: str | None, force: bool, dry_run: bool) -> None:
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
