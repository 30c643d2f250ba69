"""Politeness and caching for ``skillcite refresh``: per-host pacing and an HTTP cache.

Split from :mod:`skillcite.fetch` so each module stays small; neither part
imports ``requests``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..core.textio import atomic_write


class HostGate:
    """Serializes and spaces requests per host (``host:port``), across threads.

    A request holds its host's lock from the wait until its body is read, so
    two threads never hit one host at once and the gap between the end of
    one request and the start of the next is at least ``delay``.
    """

    def __init__(self, delay: float, sleep: Callable[[float], None], clock: Callable[[], float] = time.monotonic) -> None:
        self.delay = delay
        self._sleep = sleep
        self._clock = clock
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._last: dict[str, float] = {}

    @contextmanager
    def slot(self, host: str) -> Iterator[None]:
        """Context in which one request to ``host`` may run."""
        with self._guard:
            lock = self._locks.setdefault(host, threading.Lock())
        with lock:
            last = self._last.get(host)
            if last is not None and self.delay > 0:
                wait = last + self.delay - self._clock()
                if wait > 0:
                    self._sleep(wait)
            try:
                yield
            finally:
                self._last[host] = self._clock()


# --- cache -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """Validators and body of an earlier 200 response for one URL."""

    url: str
    etag: str | None
    last_modified: str | None
    content_type: str
    body: bytes


class HttpCache:
    """Bodies and validators on disk, one JSON + one body file per URL.

    A damaged or mismatched entry is ignored (a full GET follows), never an
    error: the cache is only an optimization.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def _paths(self, url: str) -> tuple[Path, Path]:
        assert self.folder is not None
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.folder / f"{key}.json", self.folder / f"{key}.body"

    def get(self, url: str) -> CacheEntry | None:
        """The stored entry for ``url``, or None."""
        if self.folder is None:
            return None
        meta_path, body_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("url") != url or meta.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        return CacheEntry(url, meta.get("etag"), meta.get("last_modified"), meta.get("content_type") or "", body)

    def put(self, entry: CacheEntry) -> None:
        """Store ``entry``; failures to write are ignored (read-only home, full disk)."""
        if self.folder is None:
            return
        meta_path, body_path = self._paths(entry.url)
        meta = {
            "url": entry.url,
            "etag": entry.etag,
            "last_modified": entry.last_modified,
            "content_type": entry.content_type,
            "sha256": hashlib.sha256(entry.body).hexdigest(),
            "stored": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            # Body first: the JSON names the body's digest, so a crash in
            # between leaves an entry that get() rejects, not a wrong one.
            atomic_write(body_path, entry.body)
            atomic_write(meta_path, json.dumps(meta, indent=1).encode("utf-8"))
        except OSError:
            pass
