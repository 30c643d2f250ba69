"""Baseline files: accept today's findings, fail only on new ones.

A baseline records each finding by its identity (code, file, subject; see
docs/codes.md, "Finding identity"), never by its line or message, so an
accepted finding stays accepted when lines move above it or its message
changes, and a new finding of the same code in the same file still fails.
Identities are compared as multisets: a baseline that accepts one altered
quote does not accept a second copy of the same finding.

The file is JSON, sorted, one finding per entry, so a diff of it in review
shows exactly which findings were accepted or fixed::

    {"skillcite_baseline": 1,
     "findings": [{"code": "SC302", "path": "SKILL.md", "subject": "...", "message": "..."}]}

``message`` is there for the reader; it plays no part in matching.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ...core.diagnostics import Diagnostic
from ...core.shown import shown
from ...core.textio import InputError, atomic_write

FORMAT = 1


@dataclass(frozen=True, slots=True)
class Baseline:
    """The accepted identities, with how many of each."""

    accepted: Counter[tuple[str, str, str]]

    def split(self, diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """``(new, accepted)``: findings beyond the baseline's count, and those it covers."""
        left = Counter(self.accepted)
        new: list[Diagnostic] = []
        known: list[Diagnostic] = []
        for d in diagnostics:
            if left[d.identity] > 0:
                left[d.identity] -= 1
                known.append(d)
            else:
                new.append(d)
        return new, known


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file; a missing or malformed one is an input error (exit 2)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{shown(str(path))}: no such baseline file (write one with --write-baseline)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{shown(str(path))}: cannot read baseline ({exc})") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{shown(str(path))}: baseline is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("skillcite_baseline") != FORMAT or not isinstance(data.get("findings"), list):
        raise InputError(f"{shown(str(path))}: not a skillcite baseline (expected skillcite_baseline: {FORMAT} and a findings list)")
    accepted: Counter[tuple[str, str, str]] = Counter()
    for n, item in enumerate(data["findings"]):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("code", "path", "subject")):
            raise InputError(f"{shown(str(path))}: findings[{n}] needs string code, path and subject")
        accepted[(item["code"], item["path"], item["subject"])] += 1
    return Baseline(accepted)


def write_baseline(path: Path, diagnostics: list[Diagnostic]) -> int:
    """Write every finding of ``diagnostics`` as accepted; return how many."""
    entries = sorted(
        # A baseline never accepts its own stale entries (SC006): rewriting it drops them.
        ({"code": d.code, "path": d.path, "subject": d.subject, "message": d.message} for d in diagnostics if d.code != "SC006"),
        key=lambda e: (e["path"], e["code"], e["subject"], e["message"]),
    )
    text = json.dumps({"skillcite_baseline": FORMAT, "findings": entries}, indent=1, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8"))
    return len(entries)
