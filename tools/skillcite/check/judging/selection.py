"""Which findings a check reports: select, ignore, strict and the baseline.

The command line and ``[tool.skillcite]`` both set these; the command line
wins for each of them. Inline suppressions and ``per_file_ignores`` are
applied earlier, by the check itself (:func:`skillcite.check.run.run_rules`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from ...core.config import Config
from ...core.diagnostics import CODES, Diagnostic, Severity, matches_prefix
from ...core.errors import UsageError
from .baseline import Baseline, load_baseline


@dataclass(frozen=True, slots=True)
class Policy:
    """The reporting settings in force for one run."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    baseline: Path | None = None


def parse_codes(words: list[str] | tuple[str, ...], where: str) -> tuple[str, ...]:
    """Codes or prefixes, upper-cased; one that matches no code is a usage error naming ``where``."""
    out = tuple(w.strip().upper() for w in words if w.strip())
    for w in out:
        if not w.startswith("SC") or not any(code.startswith(w) for code in CODES):
            raise UsageError(f"{where}: {w!r} matches no diagnostic code (see docs/codes.md)")
    return out


def policy(
    root: Path,
    config: Config,
    *,
    select: str | None = None,
    ignore: str | None = None,
    strict: bool = False,
    baseline: Path | None = None,
) -> Policy:
    """Merge the command line (``select``/``ignore`` as comma lists) over ``config``."""
    where = f"{root / 'pyproject.toml'} [tool.skillcite]"
    chosen_select = parse_codes(select.split(","), "--select") if select else parse_codes(config.select, where + " select")
    chosen_ignore = parse_codes(ignore.split(","), "--ignore") if ignore else parse_codes(config.ignore, where + " ignore")
    chosen_baseline = baseline if baseline is not None else (root / config.baseline if config.baseline else None)
    return Policy(chosen_select, chosen_ignore, strict or config.strict, chosen_baseline)


def apply(diagnostics: list[Diagnostic], chosen: Policy, use_baseline: bool = True) -> tuple[list[Diagnostic], int]:
    """``(reported, accepted)``: the findings to report, and how many the baseline accepted."""
    out: list[Diagnostic] = []
    for d in diagnostics:
        if chosen.select and not matches_prefix(d.code, chosen.select):
            continue
        if chosen.ignore and matches_prefix(d.code, chosen.ignore):
            continue
        if chosen.strict and d.severity is Severity.WARNING:
            d = dataclasses.replace(d, severity=Severity.ERROR)
        out.append(d)
    if not use_baseline or chosen.baseline is None:
        return out, 0
    base: Baseline = load_baseline(chosen.baseline)
    new, known = base.split(out)
    return new, len(known)
