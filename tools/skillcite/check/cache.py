"""An on-disk cache of parsed documents and normalized evidence.

Parsing Markdown and normalizing evidence dominate a check once the
interpreter is up; both are pure functions of a file's bytes (and, for
documents, of where the file and the evidence folder are). Results are kept
under the user's cache folder, keyed by a SHA-256 of those inputs and of the
source of the modules that compute them, so an edit to either a file or to
skillcite itself simply misses the cache.

The cache is an optimization only: any error reading or writing it is
ignored and the work is done afresh. ``SKILLCITE_NO_CACHE=1`` or
``skillcite check --no-cache`` turns it off; ``SKILLCITE_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path

FORMAT = b"skillcite-cache-1"
_MODULES = ("anchors.py", "document.py", "normalize.py", "markup.py", "evidence.py", "cache.py")


def cache_dir() -> Path:
    """Where cached results live (created on first write)."""
    explicit = os.environ.get("SKILLCITE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "skillcite"


def enabled() -> bool:
    """False when ``SKILLCITE_NO_CACHE`` is set to a non-empty value."""
    return not os.environ.get("SKILLCITE_NO_CACHE")


@lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """A digest of the modules whose output is cached."""
    h = hashlib.sha256(FORMAT)
    here = Path(__file__).parent
    for name in _MODULES:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(name.encode())
    return h.digest()


def key(kind: str, *parts: bytes | str) -> str:
    """A cache key from the code fingerprint and the given inputs."""
    h = hashlib.sha256(code_fingerprint())
    h.update(kind.encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def load(name: str):
    """The cached object for ``name``, or None."""
    path = cache_dir() / name[:2] / name
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)  # our own cache folder: same trust as our own files
    except Exception:  # a missing, truncated or foreign entry is just a miss
        return None


def store(name: str, value) -> None:
    """Write ``value`` for ``name`` atomically; failures are ignored."""
    folder = cache_dir() / name[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, folder / name)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:
        pass
