"""Reading and writing text files exactly, with errors that name the file."""

from __future__ import annotations

import os
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .errors import InputError
from .regular import read_regular
from .shown import shown

BOM = "\ufeff"

__all__ = [
    "BOM",
    "InputError",  # re-exported: it lives in core.errors
    "TextFile",
    "atomic_write",
    "decode",
    "exists_or_unreadable",
    "is_dir_safe",
    "is_file_or_unreadable",
    "line_starts",
    "read_text",
    "resolve",
    "resolve_cache_clear",
]


@dataclass(slots=True)
class TextFile:
    """A decoded text file and its physical line index.

    Lines are counted on ``\\n`` only, as GitHub counts them; a ``\\r`` before
    the ``\\n`` stays part of the line's text. A leading BOM is dropped from
    :attr:`text` (``bom`` remembers it so writers can put it back).
    """

    path: Path
    text: str
    bom: bool
    line_starts: Sequence[int]  # an array of 8-byte offsets from line_starts(); a list will do

    @property
    def line_count(self) -> int:
        """Number of physical lines (a final newline does not open a new line)."""
        n = len(self.line_starts)
        if self.text.endswith("\n"):
            n -= 1
        return max(n, 0) if self.text else 0

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return bisect_right(self.line_starts, offset)

    def line_span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines ``first..last`` (1-based, inclusive)."""
        start = self.line_starts[first - 1]
        end = self.line_starts[last] if last < len(self.line_starts) else len(self.text)
        return start, end

    def line(self, number: int) -> str:
        """Text of one line, without its line ending."""
        start, end = self.line_span(number, number)
        return self.text[start:end].rstrip("\r\n")


def resolve(path: Path) -> Path:
    """``path.resolve()``, or the absolute path when a symlink loop stops it.

    Python 3.11 raises RuntimeError on a loop (later versions OSError). The
    looping path then fails to read like a missing file, and is reported as one.

    The folder part is resolved once per folder and remembered: a large
    package resolves tens of thousands of links into a few folders, and a
    full ``realpath`` costs one ``lstat`` per path component every time.
    The last component is still followed when it is a symlink.
    """
    head, tail = os.path.split(os.fspath(path))
    if tail in ("", ".", ".."):
        return _resolve_uncached(path)
    real_head = _resolve_dir(head or ".")
    candidate = os.path.join(real_head, tail)
    if os.path.islink(candidate):
        return _resolve_uncached(Path(candidate))
    return Path(candidate)


def resolve_cache_clear() -> None:
    """Forget remembered folder resolutions (each check starts afresh)."""
    _resolve_dir.cache_clear()


@lru_cache(maxsize=4096)
def _resolve_dir(head: str) -> str:
    return os.fspath(_resolve_uncached(Path(head)))


def _resolve_uncached(path: Path) -> Path:
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(path))


def line_starts(text: str) -> array[int]:
    """Offsets where each line begins (line 1 at offset 0).

    An array, not a list: 8 bytes a line instead of about 36, for evidence
    files of many lines that are never quoted.
    """
    starts = array("q", [0])
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def decode(data: bytes, path: Path) -> tuple[str, bool]:
    """Decode UTF-8 bytes; raise :class:`InputError` with the byte offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{shown(str(path))}: not valid UTF-8 at byte {exc.start}") from None
    if text.startswith(BOM):
        return text[1:], True
    return text, False


def read_text(path: Path) -> TextFile:
    """Read and decode a text file, or raise :class:`InputError`."""
    try:
        data = read_regular(path)  # a FIFO or a device is refused, never opened blocking
    except FileNotFoundError:
        raise InputError(f"{shown(str(path))}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{shown(str(path))}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{shown(str(path))}: cannot read ({exc.strerror})") from None
    if b"\x00" in data[:8192]:
        raise InputError(f"{shown(str(path))}: binary file (NUL byte)")
    text, bom = decode(data, path)
    return TextFile(path, text, bom, line_starts(text))


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its permissions.

    The bytes go to a temporary file in the same folder, which is flushed,
    synced and then renamed over the target: a crash at any point leaves
    either the old file or the new one, never a mix.
    """
    import tempfile  # here only: a check writes no files of the package

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def is_file_or_unreadable(path: Path) -> bool:
    """``path.is_file()``, but true when the file cannot be inspected.

    pathlib swallows only "no such file" errors: in a folder without search
    permission ``stat`` fails with EACCES and ``is_file()`` raises. Such a
    path is kept, and reading it reports the real problem in one line.
    """
    try:
        return path.is_file()
    except OSError:
        return True


def exists_or_unreadable(path: Path) -> bool:
    """``path.exists()``, true when it cannot be inspected (see :func:`is_file_or_unreadable`)."""
    try:
        return path.exists()
    except OSError:
        return True


def is_dir_safe(path: Path) -> bool:
    """``path.is_dir()``, false when it cannot be inspected."""
    try:
        return path.is_dir()
    except OSError:
        return False


def drop_html_comments(text: str, replacement: str = "") -> str:
    """``text`` with each closed HTML comment (``<!-- ... -->``) replaced, in one linear scan.

    A regular expression such as ``<!--[\\s\\S]*?-->`` rescans the rest of the
    text from every ``<!--`` that never closes: 40,000 of them took over
    40 s. Here, once one ``<!--`` finds no ``-->`` after it, none after it
    can, and the rest is kept as it is.
    """
    if "<!--" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start == -1:
            break
        end = text.find("-->", start + 4)
        if end == -1:
            break
        out.append(text[pos:start])
        out.append(replacement)
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)
