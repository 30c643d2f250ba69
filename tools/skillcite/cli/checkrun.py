"""What ``check`` prints, shared by the fast entry point and the click command.

The reporting options spelled one way, the root a command line names, and
the rendering of a summary under those options. Imports neither click nor
the parser, so that :mod:`skillcite.cli.fast` stays light.
"""

from __future__ import annotations

import os

# No typing, pathlib or collections.abc at import: the warm path imports this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..check.reporting.summary import Summary
    from ..core.config import Config
    from ..core.rootfind import TableMemo


def output_options(parsed: dict[str, str | bool]) -> dict[str, str | bool | None]:
    """The reporting options of a ``check`` command line, spelled one way (a key of the output cache)."""
    baseline = parsed.get("baseline")
    spelled = None
    if isinstance(baseline, str):
        from pathlib import Path  # the key spells the baseline as the click command does

        spelled = str(Path(baseline))
    return {
        "fmt": str(parsed.get("fmt", "text")),
        "strict": bool(parsed.get("strict")),
        "select": _text(parsed.get("select")),
        "ignore": _text(parsed.get("ignore")),
        "baseline": spelled,
    }


def package_root(root: Path | None, say: Callable[[str], None]) -> Path:
    """``root`` as given, or the root found from the current folder (said through ``say`` when elsewhere)."""
    from pathlib import Path

    return root if root is not None else Path(found_root(say))


def found_root(say: Callable[[str], None], memo: TableMemo | None = None) -> str:
    """The root found from the current folder, as a string; said through ``say`` when it is elsewhere or a fallback."""
    from ..core.rootfind import BY_DEFAULT, find_root

    here = os.getcwd()
    found, why = find_root(here, memo)
    if found != os.path.realpath(here) or why == BY_DEFAULT:
        say(f"skillcite: root {found} ({why})")
    return found


def render_check(
    root: Path, config: Config, summary: Summary, options: dict[str, str | bool | None], only: frozenset[str] = frozenset()
) -> tuple[str, int, Path | None]:
    """What ``check`` prints for ``summary`` under the reporting options, its exit status, and the baseline file used.

    ``only``: relative paths whose findings alone are shown and counted (``check FILE ...``); empty: all.

    Raises :class:`~skillcite.core.errors.UsageError` for codes that match
    nothing and :class:`~skillcite.core.textio.InputError` for a bad baseline.
    """
    from pathlib import Path

    from ..check.judging.selection import apply, policy
    from ..check.reporting.output import RENDERERS
    from ..core.diagnostics import Severity

    baseline = options.get("baseline")
    chosen = policy(
        root,
        config,
        select=_text(options.get("select")),
        ignore=_text(options.get("ignore")),
        strict=bool(options.get("strict")),
        baseline=Path(baseline) if isinstance(baseline, str) else None,
    )
    found = summary.diagnostics
    if config.baseline and (chosen.baseline is None or chosen.baseline.resolve() != (root / config.baseline).resolve()):
        found = [d for d in found if d.code != "SC006"]  # stale entries of a baseline this run does not use
    diagnostics, accepted = apply(found, chosen)
    if only:
        diagnostics = [d for d in diagnostics if d.path in only]
    summary.accepted = accepted
    text = RENDERERS[str(options.get("fmt", "text"))](summary, diagnostics)
    status = 1 if any(d.severity is Severity.ERROR for d in diagnostics) else 0
    if summary.files == 0:
        # A CI job pointed at the wrong folder must not stay green.
        status = 1
        if options.get("fmt", "text") == "text":
            text += (
                f"\nskillcite: error: nothing to check under {root}: no Markdown file matches include {config.include}"
                f" (exclude {config.exclude}; hidden folders, venvs and build output are never checked); is this the skill's folder?"
            )
    return text, status, chosen.baseline


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def run_check(root: Path, config: Config, options: dict[str, str | bool | None], use_cache: bool) -> tuple[str, int]:
    """Check ``root``, render the result under ``options``, remember the output for the warm path; (text, status).

    Shared by the click command and the entry point's plain path, so both
    print the same thing and fill the same caches.
    """
    import gc

    from ..check.resultcache import check_summary, store_output

    # The check builds many small objects without reference cycles and then
    # exits; the cyclic collector would only re-scan them (about a tenth of
    # the time on large packages).
    gc.disable()
    try:
        summary, tree = check_summary(root, config, use_cache=use_cache)
    finally:
        gc.enable()
    text, status, chosen_baseline = render_check(root, config, summary, options)
    if tree is not None:  # the next identical command prints this without checking
        store_output(root, config, options, tree, chosen_baseline, text, status)
    return text, status
