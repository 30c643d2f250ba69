"""Reading only regular files: a FIFO, a device or a socket is named, never opened.

A FIFO blocks the first ``open`` and a device can be read forever, so the
type is checked before opening and again on the descriptor (see
:func:`read_regular`). The lowest module of ``core`` after the errors: text
I/O and path policy both build on it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InputError

_KINDS = (
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
)


class SpecialFileError(InputError):
    """A path names a FIFO, a device or a socket: never read."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path}: a {kind}, not a regular file: never read")
        self.path = path
        self.kind = kind


def special_kind(mode: int) -> str | None:
    """``"FIFO"``, ``"character device"``, ... for a special file's mode; None for files, folders and links."""
    return next((name for test, name in _KINDS if test(mode)), None)


def special_file(path: Path) -> str | None:
    """The kind of special file ``path`` is (symlinks followed), or None (also when it cannot be inspected)."""
    try:
        return special_kind(path.stat().st_mode)
    except (OSError, RuntimeError):  # missing, unreadable, or a symlink loop: reading reports it
        return None


def read_regular(path: Path) -> bytes:
    """The bytes of the regular file at ``path``; :class:`SpecialFileError` for anything else.

    The type is checked before opening (opening some devices has effects of
    its own) and again on the open descriptor, which is opened non-blocking
    so that a FIFO put there in between cannot hang the read.
    """
    mode = path.stat().st_mode  # what cannot be inspected cannot be read: the OSError says why
    kind = special_kind(mode)
    if kind is not None:
        raise SpecialFileError(path, kind)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise SpecialFileError(path, special_kind(mode) or "special file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)
