"""``skillcite review``: list, show and accept quotes that depart from verbatim."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..check.parsing.workspace import Workspace
from .app import CONTEXT, fail, package_root, root_argument


@click.command(context_settings=CONTEXT)
@root_argument()
@click.option("--accept", "accept_ids", metavar="ID", multiple=True, help="Record the quote with this ID as reviewed (repeatable).")
@click.option(
    "--accept-all",
    is_flag=True,
    help="Record every current departure as accepted in bulk, listing each; quotes with a reviewer's warning, or whose context may change their force, are left.",
)
@click.option("--include-warnings", is_flag=True, help="With --accept-all: accept quotes with a reviewer's warning (SC310-SC312) too.")
@click.option(
    "--include-context",
    is_flag=True,
    help="With --accept-all: accept quotes whose context departs too (a next sentence that qualifies them, a lead-in or a 'not' left out).",
)
@click.option("-i", "--interactive", is_flag=True, help="Show each unreviewed quote and ask whether to accept it.")
@click.option("--all", "show_all", is_flag=True, help="List reviewed quotes too.")
@click.option("--by", metavar="WHO", help="Who reviews (default: the git author, as git var GIT_AUTHOR_IDENT gives it).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True, help="How to list (json, or github workflow annotations).")
@click.option("--migrate", is_flag=True, help="Re-key a version 1 review file; every record carried over becomes a bulk acceptance.")
def review(
    root: Path | None,
    accept_ids: tuple[str, ...],
    accept_all: bool,
    include_warnings: bool,
    include_context: bool,
    interactive: bool,
    show_all: bool,
    by: str | None,
    fmt: str,
    migrate: bool,
) -> None:
    """Show quotes that depart from verbatim beside their source, and record reviews.

    A quote is verified when its words are the author's, verbatim at the
    cited lines, or when a person reviewed every departure from verbatim:
    an elision, an insertion, an editor's note, a changed first letter, or
    a cut next to a word that changes the sentence's force ("not", "only",
    "unless", "must", ...). The review is recorded in the review file
    (docs/evidence/reviews.json by default) with what it covers: the quote,
    the source sentence(s), the sentences before and after, the heading
    above, the evidence's source and author, the footnote and the
    departures; a change to any of them undoes it. Exit 1 while a departure
    is left unreviewed.

    \b
    Examples:
      skillcite review                    # list what needs review
      skillcite review --accept 3f2a9c1e07b4
      skillcite review --interactive
      skillcite review --accept-all       # adopting a repository whose quotes were reviewed before
      skillcite review --format github    # annotate unreviewed quotes in CI
    """
    from ..check.judging.reviews import reviewer
    from ..check.reviewing import accept, departures, render, tally, to_github, to_json

    acting = bool(accept_ids or accept_all or interactive or migrate)
    if fmt != "text" and acting:
        fail(f"--format {fmt} lists quotes; it cannot be combined with --accept, --accept-all, --interactive or --migrate")
    if include_warnings and not accept_all:
        fail("--include-warnings goes with --accept-all")
    if include_context and not accept_all:
        fail("--include-context goes with --accept-all")
    if migrate and (accept_ids or accept_all or interactive):
        fail("--migrate runs alone; accept quotes after it")
    root = package_root(root)
    if migrate:
        _migrate(root)
    ws, found = departures(root)
    pending = [d for d in found if not d.reviewed]
    by_id = {d.id: d for d in found}
    if accept_ids or accept_all:
        who = by or reviewer(root)
        unknown = [i for i in accept_ids if i not in by_id]
        if unknown:
            fail(f"no quote that departs from verbatim has the ID {unknown[0]!r} (run: skillcite review)")
        if accept_all:
            chosen = [d for d in pending if (include_warnings or d.warning is None) and (include_context or not d.context_edits)]
            refused = [d for d in pending if d not in chosen]
        else:
            chosen = [by_id[i] for i in dict.fromkeys(accept_ids)]
            refused = []
        accept(ws, chosen, who, bulk=accept_all)
        fresh = [d for d in chosen if not d.reviewed or (not accept_all and d.outcome.review == "bulk")]
        kind = "bulk acceptance" if accept_all else "review"
        if accept_all:
            for d in fresh:
                click.echo(f"accepted in bulk {d.id}  {d.where()}  {_brief(d.shown.quote)}")
            for d in refused:
                if d.warning is not None and not include_warnings:
                    click.echo(
                        f"refused {d.id}  {d.where()}: warning {d.warning[0]}: {d.warning[1]} "
                        f"(read it with skillcite review and accept it by ID, or pass --include-warnings)"
                    )
                else:
                    click.echo(
                        f"left {d.id}  {d.where()}: its context departs: {'; '.join(d.context_edits)} "
                        f"(read it with skillcite review and accept it by ID, or pass --include-context)"
                    )
        warned = sum(1 for d in refused if d.warning is not None and not include_warnings)
        left = "".join(
            [
                f"; {warned} with a reviewer's warning refused" if warned else "",
                f"; {len(refused) - warned} whose context departs left to review one by one" if len(refused) > warned else "",
            ]
        )
        click.echo(f"recorded {len(fresh)} {kind}{'s' * (len(fresh) != 1)} by {who} in {_where(ws)}{left}")
        sys.exit(1 if refused else 0)
    if interactive:
        who = by or reviewer(root)
        chosen = []
        for d in pending:
            click.echo(render(d))
            answer = click.prompt("accept? [y]es, [n]o, [q]uit", type=click.Choice(["y", "n", "q"]), show_choices=False, default="n")
            click.echo("")
            if answer == "q":
                break
            if answer == "y":
                chosen.append(d)
        if chosen:
            accept(ws, chosen, who, bulk=False)
        left_count = len(pending) - len(chosen)
        click.echo(f"recorded {len(chosen)} review{'s' * (len(chosen) != 1)} by {who}; {left_count} left unreviewed")
        sys.exit(1 if left_count else 0)
    listed = found if show_all else pending
    if fmt == "json":
        click.echo(to_json(root, found, listed))
    elif fmt == "github":
        click.echo(to_github(found, listed))
    else:
        for d in listed:
            click.echo(render(d))
            click.echo("")
        click.echo(tally(found))
    sys.exit(1 if pending else 0)


def _migrate(root: Path) -> None:
    """Run ``review --migrate`` and exit."""
    from ..check.reviewing import migrate

    done = migrate(root)
    click.echo(
        f"migrated {done.carried} review{'s' * (done.carried != 1)} to the current key, each as a bulk acceptance "
        f"({done.were_individual} had been reviewed one by one: read them again with skillcite review --all and accept them by ID); "
        f"{done.dropped} matched no quote and were dropped"
    )
    sys.exit(0)


def _brief(text: str, most: int = 60) -> str:
    """A quote shortened for a one-line listing."""
    return repr(text if len(text) <= most else text[: most - 3] + "...")


def _where(ws: Workspace) -> str:
    """The review file's path as printed: relative to the root where it lies inside."""
    from ..check.judging.reviews import review_path
    from ..core.shown import shown

    path = review_path(ws.root, ws.config)
    try:
        return shown(path.relative_to(ws.root).as_posix())
    except ValueError:
        return shown(str(path))
