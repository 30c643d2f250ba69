"""``skillcite review``: list, show and accept quotes that depart from verbatim."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..check.workspace import Workspace
from .app import CONTEXT, fail, package_root, root_argument


@click.command(context_settings=CONTEXT)
@root_argument()
@click.option("--accept", "accept_ids", metavar="ID", multiple=True, help="Record the quote with this ID as reviewed (repeatable).")
@click.option("--accept-all", is_flag=True, help="Record every current departure as reviewed, marked as a bulk acceptance.")
@click.option("-i", "--interactive", is_flag=True, help="Show each unreviewed quote and ask whether to accept it.")
@click.option("--all", "show_all", is_flag=True, help="List reviewed quotes too.")
@click.option("--by", metavar="WHO", help="Who reviews (default: the git author, as git var GIT_AUTHOR_IDENT gives it).")
def review(root: Path | None, accept_ids: tuple[str, ...], accept_all: bool, interactive: bool, show_all: bool, by: str | None) -> None:
    """Show quotes that depart from verbatim beside their source, and record reviews.

    A quote is verified when its words are the author's, verbatim at the
    cited lines, or when a person reviewed every departure from verbatim:
    an elision, an insertion, an editor's note, a changed first letter, or
    a cut next to a word that changes the sentence's force ("not", "only",
    "unless", "must", ...). The review is recorded in the review file
    (docs/evidence/reviews.json by default), keyed by the quote and the
    source sentence(s); editing either undoes it. Exit 1 while a departure
    is left unreviewed.

    \b
    Examples:
      skillcite review                    # list what needs review
      skillcite review --accept 3f2a9c1e07b4
      skillcite review --interactive
      skillcite review --accept-all       # adopting a repository whose quotes were reviewed before
    """
    from ..check.reviewing import accept, departures, render
    from ..check.reviews import reviewer

    root = package_root(root)
    ws, found = departures(root)
    pending = [d for d in found if not d.reviewed]
    who = by or reviewer(root)
    by_id = {d.id: d for d in found}
    if accept_ids or accept_all:
        unknown = [i for i in accept_ids if i not in by_id]
        if unknown:
            fail(f"no quote that departs from verbatim has the ID {unknown[0]!r} (run: skillcite review)")
        chosen = pending if accept_all else [by_id[i] for i in dict.fromkeys(accept_ids)]
        accept(ws, chosen, who, bulk=accept_all)
        fresh = [d for d in chosen if not d.reviewed]
        kind = "bulk acceptance" if accept_all else "review"
        click.echo(f"recorded {len(fresh)} {kind}{'s' * (len(fresh) != 1)} by {who} in {_where(ws)}")
        sys.exit(0)
    if interactive:
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
        left = len(pending) - len(chosen)
        click.echo(f"recorded {len(chosen)} review{'s' * (len(chosen) != 1)} by {who}; {left} left unreviewed")
        sys.exit(1 if left else 0)
    shown = found if show_all else pending
    for d in shown:
        click.echo(render(d))
        click.echo("")
    reviewed = len(found) - len(pending)
    verb = "departs" if len(found) == 1 else "depart"
    click.echo(f"{len(found)} quote{'s' * (len(found) != 1)} {verb} from verbatim: {reviewed} reviewed, {len(pending)} not reviewed")
    sys.exit(1 if pending else 0)


def _where(ws: Workspace) -> str:
    """The review file's path as printed: relative to the root where it lies inside."""
    from ..check.reviews import review_path
    from ..core.shown import shown

    path = review_path(ws.root, ws.config)
    try:
        return shown(path.relative_to(ws.root).as_posix())
    except ValueError:
        return shown(str(path))
