"""The console entry point: a warm ``skillcite check`` answered without click.

``skillcite check`` of a package whose inputs did not change since the last
check prints the stored result (:mod:`skillcite.check.resultcache`). That is
worth doing only if start-up stays small, so this module imports neither
click nor the parser: it recognises the plain forms of ``check`` (a root or ``--root``,
``--strict``, ``--format``, ``--select``, ``--ignore``, ``--baseline``), and
when the result is stored, prints it exactly as the click command would.
On a miss it runs the check itself (:func:`try_plain_check`), still without
click: a cold check in CI is always such a miss. Anything else (another
command, another option, help, any error) goes to the click application
(:mod:`skillcite.cli.app`), which does the whole work and reports problems.
"""

from __future__ import annotations

import os
import sys

from .checkrun import found_root, output_options, package_root, render_check, run_check

# Nothing heavier than the standard library's lightest modules until a miss (no typing, no pathlib).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

FORMATS = ("text", "json", "github")
_VALUED = {"--format": "fmt", "--select": "select", "--ignore": "ignore", "--baseline": "baseline", "--root": "root"}


def run() -> None:
    """``skillcite``: serve a warm check from the result cache, else run the click application."""
    status = try_cached_check(sys.argv[1:])
    if status is None:
        status = try_plain_check(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from .app import main

    main()


def parse_check(argv: list[str]) -> dict[str, str | bool] | None:
    """The options of a plain ``check`` command line, or None for any other command line."""
    if not argv or argv[0] != "check":
        return None
    out: dict[str, str | bool] = {"fmt": "text", "strict": False}
    seen: set[str] = set()
    args = iter(argv[1:])
    for arg in args:
        name, eq, value = arg.partition("=")
        if arg == "--strict" and "strict" not in seen:
            seen.add("strict")
            out["strict"] = True
        elif name in _VALUED and _VALUED[name] not in seen:
            if not eq:
                value = next(args, None)  # type: ignore[assignment]
                if value is None:
                    return None
            seen.add(_VALUED[name])
            out[_VALUED[name]] = value
        elif arg and not arg.startswith("-") and "root" not in seen:
            seen.add("root")
            out["root"] = arg
        else:
            return None
    if out["fmt"] not in FORMATS or out.get("baseline") == "":
        return None
    return out


def try_cached_check(argv: list[str]) -> int | None:
    """Print a stored result for this ``check`` command line and return its exit status; else None."""
    parsed = parse_check(argv)
    if parsed is None:
        return None
    from ..check.parsing.cache import enabled

    if not enabled():
        return None
    notes: list[str] = []
    try:
        from ..check import resultcache
        from ..check.parsing import cache
        from ..core.rootfind import TableMemo

        given = parsed.get("root")
        root: str | Path
        if isinstance(given, str):
            root = package_root(_path(given), notes.append)
        else:  # the common case: found as a string, pathlib never imported on a hit
            memo = TableMemo(os.path.join(cache.cache_base(), "stat", "tables.memo"))
            root = found_root(notes.append, memo)
            memo.save()
        if not os.path.isdir(root):
            return None
        options = output_options(parsed)
        found = resultcache.cached_output(root, options)  # what was printed: needs no configuration
        if found is None:
            found = _from_summary(_path(root), options)
        if found is None:
            return None
    except Exception:  # noqa: BLE001 - the click application does the work again and reports it
        return None
    text, status = found
    for note in notes:
        print(note, file=sys.stderr)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return status


def try_plain_check(argv: list[str]) -> int | None:
    """Run a plain ``check`` command line without click, print what the click command prints, return its status.

    None for any other command line, and on any error: the click
    application then runs the command again and reports the problem in its
    own words (an error costs a second try; a check that succeeds, none).
    """
    parsed = parse_check(argv)
    if parsed is None:
        return None
    notes: list[str] = []
    try:
        from ..check.parsing.cache import enabled
        from ..core.config import load_config

        given = parsed.get("root")
        root = package_root(_path(given) if isinstance(given, str) else None, notes.append)
        if not root.is_dir():
            return None
        text, status = run_check(root, load_config(root), output_options(parsed), use_cache=enabled())
    except Exception:  # noqa: BLE001 - the click application does the work again and reports it
        return None
    for note in notes:
        print(note, file=sys.stderr)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return status


def _path(value: str | Path) -> Path:
    from pathlib import Path

    return Path(value)


def _from_summary(root: Path, options: dict[str, str | bool | None]) -> tuple[str, int] | None:
    """The stored findings (other options, same tree), rendered and remembered for these options."""
    from ..check import resultcache
    from ..core.config import load_config

    config = load_config(root)
    cached = resultcache.cached_summary(root, config)
    if cached is None:
        return None
    summary, tree = cached
    text, status, baseline = render_check(root, config, summary, options)
    resultcache.store_output(root, config, options, tree, baseline, text, status)
    return text, status
