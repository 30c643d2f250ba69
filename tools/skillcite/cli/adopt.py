"""``skillcite init`` and ``skillcite evidence adopt``: the first steps in another repository."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.textio import InputError
from .app import CONTEXT, fail, package_root, root_argument


@click.command(context_settings=CONTEXT)
@root_argument(file_okay=False)
@click.option("--dry-run", is_flag=True, help="Print the table and the reasons; write nothing.")
@click.option("--force", is_flag=True, help="Replace an existing [tool.skillcite] table.")
def init(root: Path | None, dry_run: bool, force: bool) -> None:
    """Write a [tool.skillcite] table fitted to the repository under ROOT.

    Finds the SKILL.md files, the evidence folders (those footnotes cite with
    line anchors, and folders named evidence, sources, references or cache
    whose files are cached sources by their front matter or header), and the
    Markdown files the skills link to; excludes test fixtures and bundle
    output. Prints each decision and the table, and every folder of cached
    sources it leaves out, with the reason.

    \b
    Examples:
      skillcite init --dry-run
      skillcite init
    """
    from ..adopt.init import plan_init, write_table

    root = package_root(root)
    if not root.is_dir():
        fail(f"{root}: no such directory")
    plan = plan_init(root)
    for line in plan.decisions:
        click.echo(f"- {line}")
    click.echo("")
    click.echo(plan.table(), nl=False)
    if dry_run:
        return
    try:
        path = write_table(plan, force=force)
    except InputError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or root}: cannot write ({exc.strerror or exc})")
    click.echo(f"\nwrote [tool.skillcite] to {path}; next: skillcite evidence adopt, then skillcite check", err=True)


@click.group(context_settings=CONTEXT)
def evidence() -> None:
    """Work on the evidence files (excerpt caches) of a package.

    \b
    Example:
      skillcite evidence adopt --dry-run
    """


@evidence.command(context_settings=CONTEXT)
@click.argument("files", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), help="Package root (default: found as for check).")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
def adopt(files: tuple[Path, ...], root: Path | None, dry_run: bool) -> None:
    """Give evidence files front matter, lock them, and move the anchors into them.

    The header block in the first lines of each file (Source:, Title:, URL:,
    Author:, Date: ... lines; a # Title heading then Source:; the Title: /
    URL Source: / Markdown Content: block of page-to-Markdown tools) becomes
    YAML front matter; a heading above the block stays in the body; retrieved and kind are inferred when
    absent, author from an Author: line on the page, license from the page's
    licence link or statement (or a publisher that states one on every
    page), format: pdf when the source is a PDF, arXiv or DOI; required keys
    that cannot be known are listed and written as TODO to fill in (filling
    one moves no anchor). Every anchor
    pointing into a converted file moves by exactly the lines added or
    removed. With no FILES, every evidence file without front matter.

    \b
    Examples:
      skillcite evidence adopt --dry-run
      skillcite evidence adopt
      skillcite evidence adopt docs/evidence/karpathy.md
    """
    from ..adopt.evidence import plan_adoption, write_plan
    from ..adopt.headers import REQUIRED, WINDOW

    root = package_root(root)
    try:
        plan = plan_adoption(root, [Path(f) for f in files] if files else None)
    except InputError as exc:
        fail(str(exc))
    for r in plan.results:
        if r.status == "skipped":
            if files:
                click.echo(f"{r.rel}: skipped ({r.reason})")
            continue
        shift = f"{r.delta:+d} lines" if r.delta else "no line shift"
        click.echo(f"{r.rel}: front matter from {r.reason}; {shift}; {r.anchors_moved} anchor(s) moved")
        if r.found:
            click.echo(f"  filled {', '.join(r.found)} from the header ({r.origin})")
        else:
            click.echo(f"  no header found in the first {WINDOW} lines (Source:/URL:/Title: lines, or a # Title heading then Source:)")
        for key, how in sorted(r.inferred.items()):
            click.echo(f"  inferred {key}: {how}")
        for key in r.missing:
            if key in REQUIRED:
                click.echo(f"  TODO {key}: nothing in the file says it; its line reads TODO; fill it in, then run skillcite lock {r.rel}")
            else:
                click.echo(f"  fix {key}, then run skillcite lock {r.rel}")
        for note in r.uncarried:
            click.echo(f"  not moved: {note}")
    adopted = plan.adopted
    if not dry_run and plan.writes:
        try:
            write_plan(plan)
        except OSError as exc:
            fail(f"{exc.filename or 'a file'}: cannot write ({exc.strerror or exc})")
    verb = "would adopt" if dry_run else "adopted"
    moved = sum(r.anchors_moved for r in adopted)
    click.echo(f"{verb} {len(adopted)} evidence file(s); {moved} anchor(s) moved", err=True)
    if any(r.missing for r in adopted):
        click.echo(
            "filling in a TODO moves no line, so skillcite lock is enough; if you add or remove front-matter lines,"
            " run skillcite fix first (it carries the anchors), then skillcite lock",
            err=True,
        )
    sys.exit(1 if any(r.uncarried for r in adopted) else 0)
