"""An on-disk cache of parsed documents and normalized evidence.

Parsing Markdown and normalizing evidence dominate a check once the
interpreter is up; both are pure functions of a file's text, of skillcite's
own code, of the libraries that parse (markdown-it-py, mdit-py-plugins,
PyYAML with or without libyaml, rapidfuzz) and of Python's Unicode tables
(NFKC). Results are kept under the user's cache folder, keyed by a SHA-256
of the text and of :func:`code_fingerprint`, which covers every one of those:
an edit to a file, to any module of skillcite, an upgrade of a library or of
Python simply misses the cache.

Entries are JSON (never pickle: loading an entry cannot run code). Only the
dataclasses named in :data:`_ALLOWED` are rebuilt from it; anything else in
an entry makes it a miss. Entries live in one folder per code fingerprint;
the folders of other fingerprints (older code or libraries) are deleted the
first time this process writes, and the current folder is kept under
:data:`MAX_ENTRIES` entries and :data:`MAX_AGE_DAYS` days (oldest first).

The cache is an optimization only: any error reading or writing it is
ignored and the work is done afresh. ``SKILLCITE_NO_CACHE=1`` or
``skillcite check --no-cache`` turns it off; ``SKILLCITE_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import unicodedata
from functools import lru_cache

# pathlib and typing are not imported here: a warm check loads this module and pays for every import.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

FORMAT = b"skillcite-cache-2"  # 1 was pickle
DEPENDENCIES = ("markdown-it-py", "mdit-py-plugins", "PyYAML", "rapidfuzz")
MAX_ENTRIES = 4000
MAX_AGE_DAYS = 30
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # tools/skillcite
_pruned = False


def cache_dir() -> Path:
    """Where cached results live (created on first write); refresh keeps its HTTP cache in ``http/`` here."""
    from pathlib import Path

    return Path(cache_base())


def cache_base() -> str:
    """:func:`cache_dir` as a string (the warm path's form: no pathlib)."""
    explicit = os.environ.get("SKILLCITE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "skillcite")


def enabled() -> bool:
    """False when ``SKILLCITE_NO_CACHE`` is set to a non-empty value."""
    return not os.environ.get("SKILLCITE_NO_CACHE")


def _dist_key(name: str) -> str:
    """A distribution name as its ``.dist-info`` folder spells it, for comparison (PEP 503, underscores)."""
    return "".join("_" if c in "-_." else c for c in name.lower())


def _version(name: str) -> str:
    """The installed version of distribution ``name`` ("absent" when none).

    Read from the first ``<name>-<version>.dist-info`` folder on ``sys.path``,
    the one :func:`importlib.metadata.version` would read: importing
    ``importlib.metadata`` costs more than a warm check may spend in all.
    Other layouts (eggs, zips) fall back to ``importlib.metadata``.
    """
    want = _dist_key(name)
    for entry in sys.path:
        version = _dist_versions(entry or ".").get(want)
        if version:
            return version
    from importlib import metadata  # other layouts

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


@lru_cache(maxsize=64)
def _dist_versions(folder: str) -> dict[str, str]:
    """``{distribution key: version}`` of the ``.dist-info``/``.egg-info`` folders in ``folder`` (listed once)."""
    found: dict[str, str] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for entry in names:
        stem, dot, suffix = entry.rpartition(".")
        if dot and suffix in ("dist-info", "egg-info"):
            dist, _, version = stem.partition("-")
            found.setdefault(_dist_key(dist), version)
    return found


def _has_libyaml() -> bool:
    """Whether PyYAML's C extension is installed, found without importing PyYAML."""
    from importlib.machinery import EXTENSION_SUFFIXES, PathFinder

    spec = PathFinder.find_spec("yaml")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        if any(os.path.exists(os.path.join(folder, "_yaml" + suffix)) for suffix in EXTENSION_SUFFIXES):
            return True
    return False


@lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """A digest of everything a cached result depends on besides its input text.

    Every source file of the skillcite package (not only the parsing
    modules: a rule may change what a parse must hold), the versions of the
    parsing libraries, whether PyYAML has its C loader, the Python version
    and its Unicode database version.
    """
    from .statmemo import StatMemo

    h = hashlib.sha256(FORMAT)
    # The modules' digests are remembered by their metadata: reading them all was a third of a warm check.
    memo = StatMemo(_PACKAGE, cache_base() if enabled() else None)
    for rel in _sources(_PACKAGE):
        h.update(rel.encode())
        path = os.path.join(_PACKAGE, rel)
        try:
            h.update(memo.digest(path, os.stat(path)))
        except OSError:
            h.update(b"unreadable")
    memo.save()
    for name in DEPENDENCIES:
        h.update(f"{name}={_version(name)};".encode())
    libyaml = _has_libyaml()
    _dist_versions.cache_clear()  # a later fingerprint (a test) sees what is installed then
    h.update(f"libyaml={libyaml};python={sys.version};unicode={unicodedata.unidata_version}".encode())
    return h.digest()


def _sources(top: str) -> list[str]:
    """The ``.py`` files under ``top``, as sorted ``/``-separated relative paths (as ``rglob`` finds them)."""
    found: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(top, rel)))
        except OSError:
            continue
        for entry in entries:
            sub = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir():
                stack.append(sub)
            elif entry.name.endswith(".py"):
                found.append(sub)
    return sorted(found, key=lambda r: r.split("/"))


def _folder() -> Path:
    from pathlib import Path

    return Path(_folder_path())


def _folder_path() -> str:
    return os.path.join(cache_base(), "check", code_fingerprint().hex()[:16])


def has_entries() -> bool:
    """False when this code has stored nothing yet (its folder is missing): every lookup would miss."""
    try:
        return os.path.isdir(_folder_path())
    except OSError:
        return False


def key(kind: str, *parts: bytes | str) -> str:
    """A cache key from the code fingerprint and the given inputs."""
    h = hashlib.sha256(code_fingerprint())
    h.update(kind.encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


# -- a JSON codec for the cached dataclasses --------------------------------------
@lru_cache(maxsize=1)
def _allowed() -> dict[str, type]:
    """The classes an entry may hold, by name (imported on first use)."""
    import dataclasses

    from . import anchors, document, normalize

    classes: list[type] = [
        anchors.Range,
        anchors.Anchor,
        anchors.CacheLink,
        normalize.Normalized,
        *(getattr(document, name) for name in dir(document)),
    ]
    return {c.__name__: c for c in classes if isinstance(c, type) and dataclasses.is_dataclass(c)}


def encode(value: Any) -> Any:
    """``value`` as JSON data; raises TypeError for anything the codec does not know."""
    import base64  # the codec's modules are loaded on first use: a warm check may need none
    import dataclasses
    import datetime as dt
    from array import array

    allowed = _allowed()
    fields: dict[type, tuple[str, ...]] = {}  # per class: the fields to store (looked up once, not per object)

    def enc(value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [enc(v) for v in value]
        if isinstance(value, tuple):
            return {"__tuple__": [enc(v) for v in value]}
        if isinstance(value, (set, frozenset)):
            return {"__set__": sorted((enc(v) for v in value), key=repr)}
        if isinstance(value, dict):
            if all(isinstance(k, str) for k in value):
                return {"__dict__": {k: enc(v) for k, v in value.items()}}
            return {"__pairs__": [[enc(k), enc(v)] for k, v in value.items()]}
        if isinstance(value, array):
            return {"__array__": [value.typecode, base64.b64encode(value.tobytes()).decode("ascii")]}
        if isinstance(value, dt.datetime):
            return {"__datetime__": value.isoformat()}
        if isinstance(value, dt.date):
            return {"__date__": value.isoformat()}
        cls = type(value)
        names = fields.get(cls)
        if names is None:
            if not dataclasses.is_dataclass(value) or allowed.get(cls.__name__) is not cls:
                raise TypeError(f"cannot cache {cls.__qualname__}")
            names = fields[cls] = tuple(f.name for f in dataclasses.fields(value) if f.init)
        return {"__class__": cls.__name__, "fields": {name: enc(getattr(value, name)) for name in names}}

    return enc(value)


def decode(data: Any) -> Any:
    """The value :func:`encode` turned into ``data``; ValueError for anything unexpected."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError("not a cache entry")
    if "__class__" in data:
        cls = _allowed().get(data["__class__"])
        if cls is None or not isinstance(data.get("fields"), dict):
            raise ValueError(f"class {data['__class__']!r} is not cached here")
        return cls(**{k: decode(v) for k, v in data["fields"].items()})
    (tag, body), = data.items()
    if tag == "__tuple__":
        return tuple(decode(v) for v in body)
    if tag == "__set__":
        return {decode(v) for v in body}
    if tag == "__dict__":
        return {k: decode(v) for k, v in body.items()}
    if tag == "__pairs__":
        return {decode(k): decode(v) for k, v in body}
    if tag == "__array__":
        import base64  # here only: a stored result holds no arrays or dates, and a warm check loads neither
        from array import array

        typecode, raw = body
        out = array(typecode)
        out.frombytes(base64.b64decode(raw))
        return out
    if tag in ("__datetime__", "__date__"):
        import datetime as dt

        return (dt.datetime if tag == "__datetime__" else dt.date).fromisoformat(body)
    raise ValueError(f"unknown tag {tag!r}")


# -- entries on disk ------------------------------------------------------------
def load(name: str) -> Any:
    """The cached value for ``name``, or None (a missing, truncated or foreign entry is a miss)."""
    path = os.path.join(_folder_path(), name[:2], f"{name}.json")
    try:
        with open(path, "rb") as fh:
            value = decode(json.loads(fh.read()))
        os.utime(path)  # recently used: pruned last
        return value
    except Exception:  # noqa: BLE001 - any problem with an entry is only a miss
        return None


_written = 0  # entries this process has written: part of each temporary file's name


def store(name: str, value: Any) -> None:
    """Write ``value`` for ``name`` atomically; failures (and values the codec refuses) are ignored."""
    global _written
    try:
        data = json.dumps(encode(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        folder = _folder() / name[:2]
        folder.mkdir(parents=True, exist_ok=True)
        # A name no other process or call uses (the process id and a count),
        # created exclusively: what tempfile would give, without importing
        # it (and random, and shutil) on every cold check.
        _written += 1
        tmp = folder / f".{name}.{os.getpid()}.{_written}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, folder / f"{name}.json")
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:  # noqa: BLE001 - the cache is an optimization only
        return
    global _pruned
    if not _pruned:
        _pruned = True
        prune()


def prune(max_entries: int = MAX_ENTRIES, max_age_days: float = MAX_AGE_DAYS) -> int:
    """Delete stale entries; return how many files went.

    Stale: every folder of another code fingerprint, entries of the pickle
    format (version 1, two-hex-digit folders at the top), entries not used for
    ``max_age_days``, and the least recently used beyond ``max_entries``.
    """
    import shutil
    from pathlib import Path

    removed = 0
    base = cache_dir()
    current = _folder()
    try:
        for old in (base / "check").iterdir():
            if old != current and old.is_dir():
                removed += sum(1 for _ in old.rglob("*"))
                shutil.rmtree(old, ignore_errors=True)
        for legacy in base.iterdir():  # format 1 kept pickles in <base>/<2 hex>/<64 hex>
            if len(legacy.name) == 2 and all(c in "0123456789abcdef" for c in legacy.name) and legacy.is_dir():
                removed += sum(1 for _ in legacy.iterdir())
                shutil.rmtree(legacy, ignore_errors=True)
        entries: list[tuple[float, Path]] = []
        for sub in current.iterdir():
            for entry in os.scandir(sub):
                entries.append((entry.stat().st_mtime, Path(entry.path)))
    except OSError:
        return removed
    from .statmemo import prune as prune_memos

    removed += prune_memos(str(base), max_age_days)
    entries.sort(reverse=True)  # newest first
    cutoff = time.time() - max_age_days * 86400
    for n, (mtime, path) in enumerate(entries):
        if n >= max_entries or mtime < cutoff:
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed
