"""The package root a command works on, found with the standard library's lightest modules.

A warm ``check`` served from the result cache spends most of its time
starting Python and importing modules, so this module imports neither
pathlib, dataclasses nor typing, and parses a ``pyproject.toml`` with
tomllib only when it must: bytes that do not name skillcite (and hold no
escape that could spell it) cannot hold its table, and the verdict on bytes
parsed before is remembered by their digest (:class:`TableMemo`).
:func:`skillcite.core.config.find_root` is this search with paths as
:class:`pathlib.Path`.
"""

from __future__ import annotations

import hashlib
import marshal
import os

BY_TABLE = "nearest pyproject.toml with [tool.skillcite]"
BY_GIT = "top of the git work tree"
BY_DEFAULT = "current folder: no [tool.skillcite] or git work tree above it"


def parses_with_table(data: bytes) -> bool:
    """True when ``data`` is UTF-8 TOML holding a ``[tool.skillcite]`` table (tomllib decides)."""
    import tomllib

    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    tool = parsed.get("tool")
    return isinstance(tool, dict) and "skillcite" in tool


class TableMemo:
    """Verdicts of :func:`parses_with_table`, by the SHA-256 of the bytes, kept in a file (or nowhere)."""

    def __init__(self, path: str | None = None) -> None:
        """A memo read from ``path`` (None: remember within this process only)."""
        self._path = path
        self._known: dict[bytes, bool] = {}
        if path is not None:
            try:
                with open(path, "rb") as fh:
                    data = marshal.loads(fh.read())
                if isinstance(data, dict):
                    self._known = {k: v for k, v in data.items() if type(k) is bytes and type(v) is bool}
            except (OSError, EOFError, ValueError, TypeError):
                pass
        self._changed = False

    def has_table(self, data: bytes) -> bool:
        """Whether the bytes of a ``pyproject.toml`` hold ``[tool.skillcite]``."""
        if b"skillcite" not in data and b"\\" not in data:
            return False  # the key cannot be spelled without the word, or an escape standing for part of it
        digest = hashlib.sha256(data).digest()
        found = self._known.get(digest)
        if found is None:
            found = self._known[digest] = parses_with_table(data)
            self._changed = True
        return found

    def save(self) -> None:
        """Write what was learnt, atomically (an optimization: failures are ignored)."""
        if self._path is None or not self._changed:
            return
        try:
            os.makedirs(os.path.dirname(self._path), exist_ok=True)
            tmp = f"{self._path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                fh.write(marshal.dumps(dict(list(self._known.items())[-256:])))  # the newest verdicts
            os.replace(tmp, self._path)
        except OSError:
            return


def find_root(start: str, memo: TableMemo | None = None) -> tuple[str, str]:
    """The package root for a command run in the folder ``start`` (resolved), and why it was chosen.

    The nearest folder at or above ``start`` whose ``pyproject.toml`` has a
    ``[tool.skillcite]`` table; else the top of the git work tree that holds
    ``start``; else ``start`` itself.
    """
    memo = memo if memo is not None else TableMemo()
    start = os.path.realpath(start)
    folders = [start]
    while (parent := os.path.dirname(folders[-1])) != folders[-1]:
        folders.append(parent)
    for folder in folders:
        pyproject = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(pyproject):
            try:
                with open(pyproject, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if memo.has_table(data):
                return folder, BY_TABLE
    for folder in folders:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder, BY_GIT
    return start, BY_DEFAULT


__all__ = ["BY_DEFAULT", "BY_GIT", "BY_TABLE", "TableMemo", "find_root", "parses_with_table"]
