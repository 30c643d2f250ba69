"""Install receipts: what ``skillcite install`` wrote into a skill folder.

Each installed skill folder gets a hidden ``.skillcite-install.json`` naming
the package it came from and the SHA-256 of every file written. With it,
``install`` can update its own earlier install without ``--force`` while still
refusing to replace a folder someone else made or edited, and ``uninstall``
removes only what it can prove it wrote. Agents skip hidden files, so the
receipt does not show up as part of the skill.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..core.regular import read_regular

RECEIPT = ".skillcite-install.json"
FORMAT = 1


@dataclass(slots=True)
class Receipt:
    """The record of one installed skill folder."""

    package: str  # the main skill's name: every skill of one package shares it
    skill: str
    version: str | None  # the package version from its pyproject.toml, if any
    files: dict[str, str] = field(default_factory=dict)  # path inside the folder -> sha256

    def to_json(self) -> bytes:
        """Stable bytes (sorted keys), so the same install writes the same receipt."""
        data = {
            "format": FORMAT,
            "tool": f"skillcite {__version__}",
            "package": self.package,
            "version": self.version,
            "skill": self.skill,
            "files": dict(sorted(self.files.items())),
        }
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass(slots=True)
class FolderState:
    """What is in an existing skill folder, compared with its receipt."""

    path: Path
    receipt: Receipt | None
    problem: str | None = None  # unreadable or malformed receipt
    changed: list[str] = field(default_factory=list)  # edited or deleted since the install
    added: list[str] = field(default_factory=list)  # files the install did not write

    def describe(self, package: str) -> str | None:
        """Why replacing or removing the folder needs ``--force``; None when it does not."""
        if self.receipt is None:
            return f"{self.path} was not installed by skillcite" + (f" ({self.problem})" if self.problem else "")
        if self.receipt.package != package:
            return f"{self.path} belongs to another package ({self.receipt.package})"
        edits = [*(f"{rel} changed" for rel in self.changed), *(f"{rel} added" for rel in self.added)]
        if edits:
            shown = ", ".join(edits[:3]) + (f" and {len(edits) - 3} more" if len(edits) > 3 else "")
            return f"{self.path} has local changes ({shown})"
        return None


def digest(data: bytes) -> str:
    """The hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def read_receipt(folder: Path) -> tuple[Receipt | None, str | None]:
    """The folder's receipt, or ``(None, reason)`` when there is none or it is malformed."""
    path = folder / RECEIPT
    if not path.is_file():
        return None, None
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except RecursionError:  # "[[[[..." 100,000 deep: the parser gives up, and so do we
        return None, f"unreadable {RECEIPT}: nested too deeply"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"unreadable {RECEIPT}: {exc}"
    files = data.get("files") if isinstance(data, dict) else None
    ok = (
        isinstance(files, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
        and isinstance(data.get("package"), str)
        and isinstance(data.get("skill"), str)
    )
    if not ok or not isinstance(files, dict):
        return None, f"malformed {RECEIPT}"
    version = data.get("version")
    return Receipt(data["package"], data["skill"], version if isinstance(version, str) else None, files), None


def inspect_folder(folder: Path) -> FolderState:
    """Compare an existing skill folder with its receipt, file by file."""
    if folder.is_symlink() or not folder.is_dir():
        return FolderState(folder, None, "not a folder" if folder.exists() or folder.is_symlink() else None)
    receipt, problem = read_receipt(folder)
    state = FolderState(folder, receipt, problem)
    if receipt is None:
        return state
    present = {
        p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if (p.is_file() or p.is_symlink()) and p.name != RECEIPT
    }
    for rel, sha in sorted(receipt.files.items()):
        path = present.pop(rel, None)
        if path is None or path.is_symlink() or digest(path.read_bytes()) != sha:
            state.changed.append(rel)
    state.added = sorted(present)
    return state
