"""``skillcite refresh``: the click command over :mod:`skillcite.refresh.runner`.

requests and trafilatura are imported only when a refresh runs (``check``
must stay light); this module is loaded only for ``skillcite refresh``.
"""

from __future__ import annotations

import datetime as dt
import sys
from contextlib import nullcontext
from pathlib import Path

import click

from ..refresh.fetch import DEFAULT_MAX_BYTES, FetchConfig
from ..refresh.record import record_path
from ..refresh.runner import (
    FAILING,
    WRITABLE,
    SourceReport,
    evidence_files,
    evidence_folders,
    record_reports,
    refresh_sources,
    render_table,
    require_fetchers,
)
from .app import CONTEXT, package_root


@click.command(context_settings=CONTEXT)
@click.argument("ids", nargs=-1)
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), help="Package root (default: found as for check).")
@click.option("--write", is_flag=True, help="Record the date, status and upstream SHA-256 of fetched sources in <evidence>/refresh.json.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=20.0, show_default=True, help="Connect and read timeout, seconds.")
@click.option("--jobs", type=click.IntRange(min=1), default=4, show_default=True, help="Parallel fetches.")
@click.option("--delay", type=click.FloatRange(min=0), default=1.0, show_default=True, help="Seconds between two requests to one host.")
@click.option("--retries", type=click.IntRange(0, 10), default=3, show_default=True, help="Retries after a timeout, 429 or 5xx.")
@click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True, help="First retry wait, seconds; doubles each retry.")
@click.option("--max-wait", type=click.FloatRange(min=0), default=60.0, show_default=True, help="Longest single wait, Retry-After included.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True, help="Body size cap.")
@click.option("--min-score", type=click.FloatRange(0, 100), default=100.0, show_default=True, help="Passage score counted as found (100 = verbatim).")
@click.option("--no-cache", is_flag=True, help="No conditional requests, no cache writes.")
@click.option("-v", "--verbose", is_flag=True, help="Show a word diff for each passage not found.")
def refresh(
    ids: tuple[str, ...], root: Path | None, write: bool, timeout: float, jobs: int, delay: float, retries: int,
    backoff: float, max_wait: float, max_bytes: int, min_score: float, no_cache: bool, verbose: bool,
) -> None:
    """Re-fetch each evidence source and report whether its passages are still there.

    IDS are evidence file names without .md (default: all). Status per source:
    ok, changed (passages not found, with line and score), moved (permanent
    redirect), cannot verify (401/403/429/5xx, timeout, size cap, ...), gone
    (404/410). Exit 1 when a source is changed or gone, or when none could be
    verified (all cannot verify). Needs the extra:
    pip install requests trafilatura (skillcite's refresh extra). HTTP cache: $SKILLCITE_CACHE_DIR, else
    $XDG_CACHE_HOME/skillcite or ~/.cache/skillcite.

    \b
    Examples:
      skillcite refresh
      skillcite refresh jones_rl_debugging --write
      skillcite refresh --jobs 8 --timeout 10 -v
    """
    require_fetchers()
    root = package_root(root)
    config = FetchConfig(
        timeout=timeout, retries=retries, backoff=backoff, max_wait=max_wait, max_bytes=max_bytes, host_delay=delay
    )
    if no_cache:
        config.cache_dir = None
    total = len(evidence_files(root, ids))
    bar = click.progressbar(length=total, label="refreshing", file=sys.stderr) if sys.stderr.isatty() else nullcontext()
    with bar as progress:
        reports = refresh_sources(root, ids, config, jobs, min_score, progress)
    today = dt.date.today().isoformat()
    write_errors: list[str] = []
    recorded = 0
    if write:
        recorded, write_errors = record_reports(root, reports, today)
    click.echo(render_table(reports))
    if verbose:
        _print_diffs(reports)
    if write and not write_errors:
        where = ", ".join(str(record_path(folder)) for folder in evidence_folders(root))
        click.echo(f"recorded checked: {today} for {recorded} source{'s' * (recorded != 1)} in {where}")
    for message in write_errors:
        click.echo(f"skillcite: error: {message}", err=True)
    if write_errors:
        sys.exit(2)
    if not any(r.status in WRITABLE for r in reports):
        # Every source unreachable (no network, all blocked) or none at all: a run
        # that compared nothing must not read as a pass.
        n = len(reports)
        click.echo(f"skillcite: error: no source could be verified ({n} source{'s' * (n != 1)}, none fetched and compared)", err=True)
        sys.exit(1)
    sys.exit(1 if any(r.status in FAILING for r in reports) else 0)


def _print_diffs(reports: list[SourceReport]) -> None:
    from ..check.matching.diff import word_diff

    for r in reports:
        for s in r.scores:
            if s.score < 100:
                click.echo(f"\n{r.path}:{s.line}: score {s.score:g}\n  {word_diff(s.passage, s.found)}")
