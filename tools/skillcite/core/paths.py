"""Staying inside the package: where paths really lead, and which files may be read.

``check`` and ``install`` read what a package's links and folders point at,
and ``install`` copies it into an agent's skills folder. A symlink or a link
with an absolute target could make them read ``/proc/self/environ``, walk
``/`` or read ``/dev/zero`` forever, and a FIFO would block the first
``open``. So every path is resolved before use and must stay under the
package root, and only regular files are ever opened (and then without
blocking, in case one was swapped for a FIFO in between).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from .regular import special_file
from .textio import resolve


def is_absolute_target(target: str) -> bool:
    """True for ``/x``, ``\\\\server\\x``, ``C:/x`` or ``C:\\x``: a link target that names the whole file system."""
    return PurePosixPath(target).is_absolute() or PureWindowsPath(target).is_absolute() or target.startswith("\\")


def is_inside(path: Path, root: Path) -> bool:
    """True when ``path``, all symlinks followed, is ``root`` or under it (``root`` already resolved)."""
    real = resolve(path)
    return real == root or root in real.parents


def outside_target(path: Path, root: Path) -> Path | None:
    """Where ``path`` really leads when that is outside ``root`` (resolved); None when it stays inside."""
    real = resolve(path)
    return None if real == root or root in real.parents else real


def unsafe_entry(path: Path, root: Path) -> tuple[str, str] | None:
    """``(code, message)`` when ``path`` must not be read, else None (``root`` already resolved).

    SC603 when it resolves outside the package (through itself or a
    symlinked folder above it), SC604 when it is a FIFO, device or socket.
    """
    real = outside_target(path, root)
    if real is not None:
        what = "symlink" if path.is_symlink() else "path"
        return "SC603", f"{what} resolves outside the package (to {real})"
    kind = special_file(path)
    if kind is not None:
        return "SC604", f"a {kind}, not a regular file: never read"
    return None


def unsafe_link(target: str, base: Path, root: Path) -> tuple[str, str] | None:
    """``(code, message)`` for a local link target (``%``-decoded, no fragment) written in folder ``base``.

    An absolute target names the whole file system (SC603); so does one
    that climbs or is symlinked out of ``root`` (resolved); a FIFO, device
    or socket would block or never end (SC604). None when the link may be
    followed.
    """
    if is_absolute_target(target):
        return "SC603", f"link target {target!r} is an absolute path: links must stay inside the package"
    path = base / target
    if outside_target(path, root) is not None:
        return "SC603", f"link target {target!r} resolves outside the package"
    kind = special_file(path)
    if kind is not None:
        return "SC604", f"link target {target!r} is a {kind}, not a regular file: never read"
    return None
