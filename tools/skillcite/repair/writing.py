"""Writing the documents ``fix`` changed: atomically, and only if nobody changed them meanwhile."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..core.textio import BOM, atomic_write
from .plan import ChangedOnDisk, FixPlan

# tempfile.mkstemp's names: prefix, 8 characters of its alphabet, suffix.
_TEMP = "[a-z0-9_]{8}"


def remove_stale_temps(path: Path) -> list[Path]:
    """Delete temporary files an interrupted write of ``path`` left beside it.

    :func:`~skillcite.core.textio.atomic_write` writes ``.<name>.XXXXXXXX.tmp``
    in the same folder and renames it over the target; a kill between the
    two leaves it behind. Only names of exactly that shape are removed.
    """
    pattern = re.compile(rf"\.{re.escape(path.name)}\.{_TEMP}\.tmp")
    removed: list[Path] = []
    try:
        names = os.listdir(path.parent)
    except OSError:
        return removed
    for name in names:
        if pattern.fullmatch(name):
            try:
                os.unlink(path.parent / name)
                removed.append(path.parent / name)
            except OSError:
                pass
    return removed


def write(plan: FixPlan) -> list[Path]:
    """Write the changed documents atomically; return their paths.

    Each file is read again just before it is replaced: if its bytes are no
    longer those the plan was made from (an editor saved it meanwhile), it
    is left alone and :class:`ChangedOnDisk` is raised after the others.
    """
    written: list[Path] = []
    moved_on: list[str] = []
    fixed = plan.fixed
    for path in plan.changed:
        remove_stale_temps(path)
        try:
            now = path.read_bytes()
        except OSError:
            now = None
        if now != plan.raw.get(path):
            moved_on.append(str(path))
            continue
        data = (BOM if plan.bom.get(path) else "") + fixed[path]
        atomic_write(path, data.encode("utf-8"))
        written.append(path)
    if moved_on:
        raise ChangedOnDisk(f"{', '.join(moved_on)}: changed while fix ran; nothing written to it (run fix again)")
    return written
