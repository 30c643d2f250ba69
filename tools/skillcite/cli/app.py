"""The ``skillcite`` command line: a thin click layer over the library.

Exit status (docs/codes.md, "Exit status"): 0 clean, 1 findings, 2 usage
error or unreadable input, 3 internal error. The library raises the typed
errors of :mod:`skillcite.core.errors`; :class:`LazyGroup` maps them to a
one-line message and their exit status, and any other exception (a bug) to
one line asking for a bug report and exit status 3.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from .. import __version__
from ..core.diagnostics import CODES
from ..core.errors import EXIT_INTERNAL, EXIT_USAGE, SkillciteError
from ..core.shown import one_line, shown
from ..core.textio import InputError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


TRACEBACK_ENV = "SKILLCITE_TRACEBACK"  # set to 1 to see the traceback of an internal error


def fail(message: str, status: int = EXIT_USAGE) -> NoReturn:
    """Print a one-line error and exit (2: usage or unreadable input)."""
    # Intended line breaks stay (a list of problems); any other control character is escaped.
    shown_message = "\n".join(one_line(line) for line in message.split("\n"))
    click.echo(f"skillcite: error: {shown_message}", err=True)
    sys.exit(status)


def internal_error(exc: BaseException) -> NoReturn:
    """Report a bug in one line and exit 3 (a traceback only with SKILLCITE_TRACEBACK=1)."""
    detail = one_line((str(exc).splitlines() or [""])[0])
    click.echo(
        f"skillcite: internal error: {type(exc).__name__}{': ' + detail if detail else ''}. "
        f"This is a bug in skillcite: please report it with the command you ran "
        f"(set {TRACEBACK_ENV}=1 to see the traceback).",
        err=True,
    )
    sys.exit(EXIT_INTERNAL)


def _codes(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    out = tuple(v.strip().upper() for v in value.split(",") if v.strip())
    for v in out:
        if not any(code.startswith(v) for code in CODES):
            raise click.BadParameter(f"{v!r} matches no diagnostic code (see docs/codes.md)")
    return out


class LazyGroup(click.Group):
    """A group whose heavier commands are imported only when used.

    ``skillcite check`` must start fast and must never import requests or
    trafilatura, so commands living in their own modules are named here and
    loaded on demand. It also maps errors to exit statuses (see the module).
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SkillciteError as exc:
            fail(str(exc), exc.exit_status)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:  # a bug: one line and exit 3, never a traceback or a silent 1
            if os.environ.get(TRACEBACK_ENV):
                raise
            internal_error(exc)

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            module, _, attr = self.lazy[name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


LAZY_COMMANDS = {
    "bundle": "skillcite.cli.bundle:bundle",
    "evidence": "skillcite.cli.adopt:evidence",
    "init": "skillcite.cli.adopt:init",
    "install": "skillcite.cli.install:install",
    "refresh": "skillcite.cli.refresh:refresh",
    "review": "skillcite.cli.review:review",
    "uninstall": "skillcite.cli.install:uninstall",
}


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS, context_settings=CONTEXT)
# The version of the code that runs, whichever distribution installed it
# (ml-debug from the repository root, or skillcite alone from tools/).
@click.version_option(version=__version__, prog_name="skillcite")
def main() -> None:
    """Verify that every quotation in a skill package matches its cached evidence.

    \b
    Example:
      skillcite check --strict
    """


# Every command names its package root the same way: --root PATH. Commands
# whose one argument was the root keep taking it there too.
ROOT_OPTION = click.option(
    "--root", "root_option", type=click.Path(path_type=Path, file_okay=False),
    help="Package root (default: the nearest folder above with [tool.skillcite], else the git work tree, else the current folder).",
)


def one_root(root: Path | None, root_option: Path | None) -> Path | None:
    """The root a command line names, as its argument or as --root (both: they must agree)."""
    if root is not None and root_option is not None and root.resolve() != root_option.resolve():
        fail(f"two roots: {shown(str(root))} and --root {shown(str(root_option))}")
    return root if root is not None else root_option


def root_argument(file_okay: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The package root of a command, as its argument ``ROOT`` or as ``--root`` (the form every command takes).

    The command function receives one ``root`` (None when neither is given);
    both given and different is a usage error.
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, root: Path | None = None, root_option: Path | None = None, **kwargs: Any) -> Any:
            return func(*args, root=one_root(root, root_option), **kwargs)

        with_option = ROOT_OPTION(wrapper)
        return click.argument("root", required=False, type=click.Path(path_type=Path, file_okay=file_okay))(with_option)

    return decorate


def package_root(root: Path | None) -> Path:
    """``root`` as given, or the root found from the current folder (said on stderr when elsewhere)."""
    from .checkrun import package_root as find

    return find(root, lambda note: click.echo(one_line(note), err=True))


@main.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@ROOT_OPTION
@click.option("--strict", is_flag=True, default=None, help="Treat warnings as errors (also: strict = true).")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "github", "sarif"]), default="text", show_default=True,
    help="Output format (sarif: SARIF 2.1.0 for code scanning).",
)
@click.option("--select", metavar="CODES", help="Only report these codes or prefixes (comma-separated, e.g. SC3,SC101).")
@click.option("--ignore", metavar="CODES", help="Do not report these codes or prefixes.")
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False), help="Report only findings not accepted in this baseline file.")
@click.option("--write-baseline", type=click.Path(path_type=Path, dir_okay=False), help="Accept every current finding: write them to this file and exit 0.")
@click.option("--no-cache", is_flag=True, help="Parse everything afresh (also: SKILLCITE_NO_CACHE=1).")
def check(
    paths: tuple[Path, ...], root_option: Path | None, strict: bool | None, fmt: str, select: str | None, ignore: str | None,
    baseline: Path | None, write_baseline: Path | None, no_cache: bool,
) -> None:
    """Check quotes, footnotes, evidence, links and skill front matter of a package.

    PATHS is the package root (a folder, as --root), or files: then the
    package that holds them is checked whole (a quote depends on its
    evidence) and only the findings in those files are reported. Without
    either, the package root is the nearest folder above with a
    [tool.skillcite] table in pyproject.toml, else the top of the git work
    tree, else the current folder. Settings in [tool.skillcite] (select,
    ignore, strict, baseline) apply unless an option overrides them.

    \b
    Examples:
      skillcite check
      skillcite check --strict --format github
      skillcite check SKILL.md refs/sweeps.md
      skillcite check --write-baseline .skillcite-baseline.json
      skillcite check --root docs-site --select SC3 --format json
    """
    from ..check.judging.baseline import write_baseline as save_baseline
    from ..check.judging.selection import apply, policy
    from ..check.parsing.cache import enabled
    from ..check.resultcache import check_summary
    from ..core.config import load_config
    from .checkrun import output_options, run_check

    root, files = _root_and_files(paths, root_option)
    if files and write_baseline is not None:
        fail("--write-baseline records the whole package: give no FILE")
    config = load_config(root) if root.is_dir() else None
    if config is None:  # the workspace names the problem (missing, not a folder)
        from ..check.parsing.workspace import Workspace

        Workspace(root)
    assert config is not None
    if write_baseline is not None:
        summary, _ = check_summary(root, config, use_cache=enabled() and not no_cache)
        chosen = policy(root, config, select=select, ignore=ignore, strict=bool(strict), baseline=baseline)
        reported, _ = apply(summary.diagnostics, chosen, use_baseline=False)
        count = save_baseline(write_baseline, reported)
        click.echo(f"wrote {count} finding{'s' * (count != 1)} to {shown(str(write_baseline))}: they are accepted until fixed")
        sys.exit(0)
    given: dict[str, str | bool] = {"fmt": fmt, "strict": bool(strict)}
    for name, value in (("select", select), ("ignore", ignore), ("baseline", baseline)):
        if value is not None:
            given[name] = str(value)
    if files:  # the whole package is checked, the given files' findings shown (never stored as the package's output)
        from .checkrun import render_check

        summary, _ = check_summary(root, config, use_cache=enabled() and not no_cache)
        text, status, _ = render_check(root, config, summary, output_options(given), only=files)
    else:
        text, status = run_check(root, config, output_options(given), use_cache=enabled() and not no_cache)
    click.echo(text)
    sys.exit(status)


def _root_and_files(paths: tuple[Path, ...], root_option: Path | None) -> tuple[Path, frozenset[str]]:
    """The package root and the files (relative to it, ``/``-separated) whose findings ``check`` shows; none: all.

    One folder is the root (as ``--root``); files are checked within the
    package found above the first of them (or ``--root``), and must lie in it.
    """
    if len(paths) == 1 and not paths[0].exists() and paths[0].name.lower().endswith((".md", ".markdown", ".mdx", ".json")):
        fail(f"{shown(str(paths[0]))}: no such file")
    if len(paths) == 1 and not paths[0].is_file():
        if root_option is not None and root_option.resolve() != paths[0].resolve():
            fail(f"two roots: {shown(str(paths[0]))} and --root {shown(str(root_option))}")
        return package_root(paths[0]), frozenset()
    if not paths:
        return package_root(root_option), frozenset()
    for p in paths:
        if not p.is_file():
            fail(f"{shown(str(p))}: {'no such file' if not p.exists() else 'a folder among files: give one folder (the root) or files'}")
    from ..core.config import find_root

    root = root_option if root_option is not None else find_root(paths[0].resolve().parent)[0]
    top = root.resolve()
    rels = []
    for p in paths:
        try:
            rels.append(p.resolve().relative_to(top).as_posix())
        except ValueError:
            fail(f"{shown(str(p))}: not inside the package at {shown(str(root))}")
    return root, frozenset(rels)


@main.command(context_settings=CONTEXT)
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(path_type=Path), help="Package root (for the default file list; default: found as for check).")
@click.option("--check", "check_only", is_flag=True, help="Only report stale locks; exit 1 if any.")
def lock(files: tuple[Path, ...], root: Path | None, check_only: bool) -> None:
    """Record the SHA-256 of each evidence body after a reviewed edit.

    With no FILES, every evidence file of the package under --root.

    \b
    Examples:
      skillcite lock docs/evidence/jones_rl_debugging.md
      skillcite lock --check
    """
    from ..check.parsing.workspace import Workspace
    from ..repair.lock import lock_file

    try:
        if not files:
            ws = Workspace(package_root(root))
            missing = [d for d in ws.evidence_dirs if not d.is_dir()]
            if missing:
                fail(f"{missing[0]}: no evidence folder")
            files = tuple(ws.evidence_files())
        results = [lock_file(p, write=not check_only) for p in files]
    except InputError as exc:
        fail(str(exc))
    except OSError as exc:  # a read-only folder or file: one line, not a traceback
        fail(f"{exc.filename or 'an evidence file'}: cannot write ({exc.strerror or exc})")
    stale = [r for r in results if r.status == "stale"]
    for r in results:
        if r.status != "ok":
            click.echo(f"{shown(str(r.path))}: {r.status} sha256 {r.digest}")
    click.echo(f"{len(results)} evidence files: {sum(r.status == 'locked' for r in results)} locked, {len(stale)} stale, {sum(r.status == 'ok' for r in results)} unchanged")
    sys.exit(1 if stale else 0)


@main.command(context_settings=CONTEXT)
@root_argument()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def stats(root: Path | None, fmt: str) -> None:
    """Sources, quotes, words and estimated tokens per file.

    \b
    Example:
      skillcite stats
    """
    from ..check.stats import collect, render

    root = package_root(root)

    try:
        rows = collect(root)
    except InputError as exc:
        fail(str(exc))
    click.echo(render(rows, fmt))


@main.command(context_settings=CONTEXT)
@root_argument()
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of what would be written, and write nothing.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if anything would change.")
@click.option("--from", "base", metavar="REV", help="Carry anchors from each evidence file as it was at this git revision.")
@click.option("--select", metavar="CODES", help="Only make repairs for these codes or prefixes (SC403 carry, SC301 follow, SC209 add).")
@click.option("--ignore", metavar="CODES", help="Make no repairs for these codes or prefixes.")
def fix(root: Path | None, show_diff: bool, check_only: bool, base: str | None, select: str | None, ignore: str | None) -> None:
    """Rewrite line anchors that drifted: carried through evidence edits, or to where moved quotes are.

    Only anchor text in footnote definitions changes; altered or missing
    quotes are reported, never touched. The result is re-checked first; a
    change that would add a finding is refused (listed with its reason) and
    the rest is kept. A quote placed at its lines that departs from verbatim
    is then SC313, listed as "to review" for ``skillcite review``.

    Exit status: 0 when nothing is left to do; 1 when something was refused
    or left to do by hand (the last line says which), and with --check also
    when a file would change; 2 for usage errors or unreadable input.

    \b
    Examples:
      skillcite fix --diff
      skillcite fix
      skillcite fix --from HEAD~3   # evidence edited over several commits
      skillcite fix --check         # in CI: fail if anchors drifted
    """
    from ..repair.fix import ChangedOnDisk, plan_fixes, remove_stale_temps, write

    root = package_root(root)

    try:
        selected, ignored = _codes(select), _codes(ignore)
    except click.BadParameter as exc:
        fail(exc.format_message())
    try:
        plan = plan_fixes(root, base=base, select=selected, ignore=ignored)
    except ChangedOnDisk as exc:
        fail(str(exc), 1)
    except InputError as exc:
        fail(str(exc))
    for note in plan.unresolved:
        click.echo(f"not fixed: {one_line(note)}", err=True)
    for line in plan.refused:
        click.echo(f"refused: {one_line(line)}", err=True)
    for line in plan.awaiting:
        click.echo(f"to review: {one_line(line)}", err=True)
    changed = plan.changed
    added = plan.count("SC209")
    unanchored = f", {added} added to links without anchors" if added else ""
    counts = f"({plan.count('SC301')} for moved quotes{unanchored}, {plan.carried} carried, {len(plan.refusals)} refused)"
    trouble = bool(plan.unresolved or plan.refusals)
    # The last line says why the exit status is 1, so "0 files would change" never reads as a pass.
    why = ["anchors drifted"] if check_only and changed else []
    if plan.refusals:
        why.append(f"{len(plan.refusals)} refused")
    if plan.unresolved:
        why.append(f"{len(plan.unresolved)} not fixed")
    hand = f"; exit 1: {', '.join(why)}{' (listed above)' if trouble else ''}" if why else ""
    review = f"; {len(plan.awaiting)} placed quote{'s' * (len(plan.awaiting) != 1)} to review (run: skillcite review)" if plan.awaiting else ""
    if show_diff or check_only:
        if show_diff:
            click.echo(plan.diff(), nl=False)
        click.echo(f"{len(changed)} file{'s' * (len(changed) != 1)} would change {counts}{review}{hand}", err=True)
        sys.exit(1 if why else 0)
    for path in plan.original:
        remove_stale_temps(path)  # left by a fix or lock that was killed mid-write
    try:
        written = write(plan)
    except ChangedOnDisk as exc:
        fail(str(exc), 1)
    except OSError as exc:  # a read-only folder or file: one line, not a traceback
        fail(f"{exc.filename or 'a document'}: cannot write ({exc.strerror or exc})")
    for path in written:
        click.echo(f"fixed {shown(str(path))}")
    click.echo(f"{len(changed)} file{'s' * (len(changed) != 1)} changed {counts}{review}{hand}", err=True)
    sys.exit(1 if trouble else 0)
