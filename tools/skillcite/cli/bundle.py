"""``skillcite bundle``: the click command over :mod:`skillcite.deliver.bundle`."""

from __future__ import annotations

from pathlib import Path

import click

from ..core.textio import InputError, atomic_write
from ..deliver.bundle import BundleError, build_bundle
from .app import CONTEXT, fail, root_argument


@click.command(context_settings=CONTEXT)
@root_argument()
@click.option(
    "--include",
    "includes",
    multiple=True,
    metavar="WHAT",
    help="Add to SKILL.md: playbook, refs, rl, pinn (any sub-skill folder), all, or a path or glob (repeatable, comma-separated).",
)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write here (atomically) instead of stdout.")
@click.option("--max-tokens", type=click.IntRange(min=1), metavar="N", help="Exit 1, writing nothing, if the estimate exceeds N.")
def bundle(root: Path | None, includes: tuple[str, ...], output: Path | None, max_tokens: int | None) -> None:
    """Write the skill as one self-contained Markdown file for a system prompt.

    ROOT is a skill folder (default: the skill holding the current folder;
    in a collection, skills/<name>/SKILL.md, name one). The SKILL.md body,
    then what --include adds, in a fixed order (SKILL.md, PLAYBOOK.md,
    refs/, sub-skills with the files they link to; paths, folders and globs
    such as 'rl/**' after them): front matter removed, a header with the
    package version, git commit and token estimate, footnote ids made unique,
    links rewritten to in-bundle anchors, to source URLs (evidence) or to the
    repository on the web ([tool.skillcite] repository or project.urls). The
    same files give the same bytes.

    \b
    Examples:
      skillcite bundle > prompt.md
      skillcite bundle --include rl,pinn -o prompt.md
      skillcite bundle --include all --max-tokens 200000 -o prompt.md
    """
    try:
        result = build_bundle(root, includes)
    except BundleError as exc:
        fail("the bundle would not stand alone:\n  " + str(exc).replace("\n", "\n  "), exc.exit_status)
    except InputError as exc:
        fail(str(exc))
    for warning in result.warnings:
        click.echo(f"skillcite: warning: {warning}", err=True)
    n = len(result.files)
    click.echo(f"bundle: {n} file{'s' * (n != 1)}, {len(result.text)} characters, about {result.tokens} tokens (characters/4)", err=True)
    if max_tokens is not None and result.tokens > max_tokens:
        fail(f"about {result.tokens} tokens is over --max-tokens {max_tokens}; nothing written", 1)
    if output is None:
        click.echo(result.text, nl=False)
        return
    if output.resolve() in {(result.root / rel).resolve() for rel in result.files}:
        fail(f"{output}: refusing to overwrite a bundled source file")
    try:
        atomic_write(output, result.text.encode("utf-8"))
    except OSError as exc:
        fail(f"{output}: cannot write ({exc.strerror or exc})")
    click.echo(f"wrote {output}", err=True)
