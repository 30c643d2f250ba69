"""Content digests remembered by file metadata: an unchanged tree is recognised without reading it.

The result cache keys a check by the *content* of every file it may read
(:mod:`skillcite.check.resultcache`), and the code fingerprint by the
content of every module of skillcite (:func:`skillcite.check.parsing.cache.code_fingerprint`).
Hashing those bytes was most of a warm check. A :class:`StatMemo` keeps,
per file, the metadata it had when it was hashed (size, modification and
change times in nanoseconds, inode and device) with the digest; a file whose
metadata are the same gets its remembered digest without being read, as
git's index does for its working tree.

Only the *digest* is remembered, never the key: keys stay content digests,
so a fresh clone of the same commit (other inodes, other times) computes the
same keys and finds entries restored from a CI cache.

Racy entries are never trusted: a file changed less than :data:`RACY_NS`
before its digest was taken could be changed again within the same
timestamp tick (coarse file-system clocks) with no visible difference, so
such an entry is hashed again on every use until the file has been quiet
for that long. Any write to a file moves its change time (``st_ctime``),
which no program can set back, so an edit that keeps size and modification
time still shows.

The memo is an optimization like the rest of the cache: a missing, foreign
or damaged memo file is an empty memo, and a failure to write it is ignored.
Stored with :mod:`marshal` (plain data only: no code is loaded) in
``<cache>/stat/``, one file per folder walked, written atomically; the
files of folders not walked for :data:`MAX_AGE_DAYS` are pruned with the
cache. This module imports only the standard library.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import time

FORMAT = 1
RACY_NS = 3_000_000_000  # as the result cache's RACY_SECONDS: metadata this close to the hashing prove nothing
MAX_AGE_DAYS = 30
_CHUNK = 1 << 20

# One remembered file: size, mtime_ns, ctime_ns, inode, device, when hashed (ns), digest.
Entry = tuple[int, int, int, int, int, int, bytes]


def content_digest(path: str) -> bytes:
    """SHA-256 of the file's bytes; for an unreadable file, the error (it is part of the state)."""
    try:
        with open(path, "rb") as fh:
            digest = hashlib.sha256()
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
            return digest.digest()
    except OSError as exc:
        return f"unreadable {exc.errno}".encode()


class StatMemo:
    """Digests of the files under one folder, remembered by their metadata (see the module)."""

    def __init__(self, folder: str, cache: str | None) -> None:
        """The memo of ``folder`` kept under the cache folder ``cache`` (None: remember nothing)."""
        self._path = None if cache is None else os.path.join(cache, "stat", hashlib.sha256(os.fsencode(folder)).hexdigest()[:32] + ".memo")
        self._old: dict[str, Entry] = self._read() if self._path is not None else {}
        self._new: dict[str, Entry] = {}
        self.hashed = 0  # files read this time (for tests and benchmarks)

    def _read(self) -> dict[str, Entry]:
        assert self._path is not None
        try:
            with open(self._path, "rb") as fh:
                data = marshal.loads(fh.read())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not (isinstance(data, tuple) and len(data) == 2 and data[0] == FORMAT and isinstance(data[1], dict)):
            return {}
        return data[1]

    def digest(self, path: str, st: os.stat_result) -> bytes:
        """The content digest of the regular file ``path`` whose metadata are ``st``: remembered, or read now."""
        meta = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
        old = self._old.get(path)
        if (
            type(old) is tuple
            and len(old) == 7
            and old[:5] == meta
            and max(st.st_mtime_ns, st.st_ctime_ns) < old[5] - RACY_NS
            and type(old[6]) is bytes
        ):
            self._new[path] = old
            return old[6]
        hashed_at = time.time_ns()
        found = content_digest(path)
        self.hashed += 1
        if not found.startswith(b"unreadable"):
            self._new[path] = (*meta, hashed_at, found)
        return found

    def save(self) -> None:
        """Keep what this walk saw (and only that), atomically; nothing when it is what was read."""
        if self._path is None:
            return
        if self._new == self._old:
            try:
                os.utime(self._path)  # still in use: pruned by age, like cache entries
            except OSError:
                pass
            return
        try:
            os.makedirs(os.path.dirname(self._path), exist_ok=True)
            tmp = f"{self._path}.{os.getpid()}.{time.time_ns()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(marshal.dumps((FORMAT, self._new)))
                os.replace(tmp, self._path)
            except BaseException:
                os.unlink(tmp)
                raise
        except Exception:  # noqa: BLE001 - an optimization only
            return


def prune(cache: str, max_age_days: float = MAX_AGE_DAYS) -> int:
    """Delete the memo files of folders not walked for ``max_age_days``; return how many went."""
    folder = os.path.join(cache, "stat")
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            pass
    return removed


__all__ = ["StatMemo", "content_digest", "prune"]
