"""What ``skillcite refresh --write`` records, kept beside the evidence, never in it.

Line anchors count every line of an evidence file, front matter included
(docs/citations.md), so a key added to the front matter would shift every
anchor into that file. Refresh's observations (the day it compared the
passages, the status, the SHA-256 of the extracted upstream text) therefore
live in one sidecar file in the evidence folder, ``refresh.json``, keyed by
each evidence file's path relative to that folder. Writing it touches no
evidence file: neither anchors nor the content lock can move.

Evidence written by older versions may still carry ``checked:`` and
``upstream_sha256:`` in its front matter. Those keys are read as the last
check when the sidecar has no entry for the file, and never written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core.textio import InputError, atomic_write

RECORD_NAME = "refresh.json"
FORMAT = 1


@dataclass(frozen=True, slots=True)
class CheckRecord:
    """One source's last upstream check."""

    checked: str  # ISO date
    status: str
    upstream_sha256: str


def record_path(folder: Path) -> Path:
    """The sidecar file of an evidence folder."""
    return folder / RECORD_NAME


def record_key(folder: Path, path: Path) -> str:
    """The sidecar key of an evidence file: its path inside the folder, with ``/``."""
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return path.name


def load_records(folder: Path) -> dict[str, CheckRecord]:
    """The records of ``folder``; empty when there is no sidecar yet.

    A sidecar that is not the JSON this module writes is an
    :class:`InputError` naming the file: a record silently ignored would
    hide the "upstream text differs" hint.
    """
    path = record_path(folder)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not the JSON refresh --write writes ({exc})") from None
    sources = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(sources, dict):
        raise InputError(f"{path}: no \"sources\" object; delete the file to start afresh")
    out: dict[str, CheckRecord] = {}
    for key, entry in sources.items():
        fields = entry if isinstance(entry, dict) else {}
        values = [fields.get(k) for k in ("checked", "status", "upstream_sha256")]
        if not all(isinstance(v, str) for v in values):
            raise InputError(f"{path}: entry {key!r} needs string checked, status and upstream_sha256")
        out[key] = CheckRecord(*values)  # type: ignore[arg-type]
    return out


def render_records(records: dict[str, CheckRecord]) -> str:
    """The sidecar text: sorted keys, one field per line, so diffs stay small."""
    sources = {
        key: {"checked": r.checked, "status": r.status, "upstream_sha256": r.upstream_sha256}
        for key, r in sorted(records.items())
    }
    return json.dumps({"format": FORMAT, "sources": sources}, indent=2, ensure_ascii=False) + "\n"


def write_records(folder: Path, updates: dict[str, CheckRecord]) -> bool:
    """Merge ``updates`` into the sidecar of ``folder``; True when it changed.

    Entries of evidence files that no longer exist are dropped; entries of
    sources not refreshed this time are kept as they were.
    """
    records = load_records(folder)
    records.update(updates)
    records = {k: v for k, v in records.items() if (folder / k).is_file()}
    path = record_path(folder)
    text = render_records(records)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write(path, text.encode("utf-8"))
    return True
