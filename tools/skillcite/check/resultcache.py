"""A cache of whole check results: a check of unchanged inputs parses nothing.

The findings and counts of a check (a :class:`~skillcite.check.reporting.summary.Summary`)
are a function of skillcite's code and libraries, of the configuration, and
of the files under the root. An entry is stored under a key that covers all
of them, computed *before* the check reads anything:

* :func:`skillcite.check.parsing.cache.code_fingerprint`: every source file of the
  package, the parsing libraries' versions, Python and its Unicode tables;
* the configuration, the root as given and resolved, the working folder and
  the user (who may read what);
* a snapshot of the tree (:func:`snapshot`): every folder under the root and
  under each evidence folder outside it, each entry's name and type, and for
  each file its size and mode; the content (SHA-256) of every file the check
  may read as text (Markdown, TOML, JSON, YAML). No times, inodes or
  devices: a fresh clone of the same commit (a CI runner with the cache
  restored) has the same key. Left out are the folders the check never
  reads: those of version control (``.git``, ``.hg``, ``.svn``), Python's
  ``__pycache__`` (an in-tree install writes its bytecode on first run), and
  the folders its configuration excludes from discovery (hidden folders such
  as ``.venv``, ``node_modules``, ``venv``, ``build``, ``dist``, ``exclude``)
  unless an evidence folder, ``.claude-plugin`` or a folder a plugin manifest
  names lies inside one (see :func:`skip_rules`). A link
  of a document into a folder left out is recorded with the entry, as the
  content of its target, and verified on a hit (see :func:`covered`).

Any change to any of these is a different key, so a stale result is never
served. One more thing is compared on a hit, as git does for "racily clean"
files: another file changed in the seconds before the snapshot has times
that could not tell a second edit from the first, so its content digest is
stored with the entry and checked again before the entry is served. It is
not part of the key, which therefore does not depend on the moment of the
lookup (a key that did was found different a few seconds later, and a
fresh result went unserved). The snapshot is
taken again after the check, and the result stored only if nothing changed
while it ran. A result is not stored when the check may have read something
the snapshot does not cover:
a folder reached through a symbolic link, a link or an evidence file outside
the root (see :func:`covered`).

Entries are plain JSON in the parse cache's folder (:mod:`skillcite.check.parsing.cache`),
pruned with it; ``--no-cache`` and ``SKILLCITE_NO_CACHE`` turn this off too.
This module imports only the standard library and the small core modules:
a hit never imports the Markdown parser, YAML or the fuzzy matcher.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time

from .parsing import cache
from .parsing.statmemo import StatMemo, content_digest

# Neither typing, pathlib nor dataclasses at import: a warm check imports this
# module, and those cost more than the rest of its work.
TYPE_CHECKING = False
if TYPE_CHECKING:  # imported on use: a warm check loads neither configuration nor findings
    from pathlib import Path
    from typing import Any

    from ..core.config import Config
    from .reporting.report import Report
    from .reporting.summary import Summary

FORMAT = "skillcite-result-3"  # 3: content keys, excluded folders left out
VCS_FOLDERS = frozenset({".git", ".hg", ".svn"})  # never read by the check, and busy
NEVER_READ = frozenset({*VCS_FOLDERS, "__pycache__"})  # left out of every snapshot
PLUGIN_FOLDER = ".claude-plugin"  # its manifests may name components anywhere: the folders they name are walked
# Files the check may read as text (Markdown under any of its names,
# configuration, manifests, the Python module a dynamic project version is
# read from, plain-text excerpts a cache link may name): their content is
# hashed. The key holds no times, so a same-size edit of any file read would
# otherwise go unseen.
READ_SUFFIXES = (".md", ".markdown", ".mdx", ".toml", ".json", ".yaml", ".yml", ".py", ".txt")
RACY_SECONDS = 3.0  # a file changed this recently is verified by content: its times may not show a second edit


class Uncacheable(Exception):
    """The tree holds something a snapshot cannot vouch for (a linked folder)."""


class Tree:
    """The state of a tree: the digest that keys entries, and the racy files to verify on a hit.

    Immutable; equal when both parts are. (A plain class, not a dataclass:
    see the imports.)
    """

    __slots__ = ("digest", "racy")
    digest: str
    racy: tuple[tuple[str, str], ...]  # (absolute path, SHA-256 hex of its content)

    def __init__(self, digest: str, racy: tuple[tuple[str, str], ...] = ()) -> None:
        object.__setattr__(self, "digest", digest)
        object.__setattr__(self, "racy", racy)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Tree is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tree) and (self.digest, self.racy) == (other.digest, other.racy)

    def __hash__(self) -> int:
        return hash((self.digest, self.racy))

    def __repr__(self) -> str:
        return f"Tree(digest={self.digest!r}, racy={self.racy!r})"

    def racy_data(self) -> list[list[str]]:
        """:attr:`racy` as JSON data, stored with an entry."""
        return [list(pair) for pair in self.racy]


def still_same(racy: object) -> bool:
    """Whether every racy file recorded with an entry (see :meth:`Tree.racy_data`) still has that content."""
    if not isinstance(racy, list):
        return False
    for pair in racy:
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair)):
            return False
        if content_digest(pair[0]).hex() != pair[1]:
            return False
    return True


def snapshot(root: Path, config: Config, now: float | None = None) -> Tree:
    """The state of every file and folder the check of ``root`` may read (see the module).

    Files changed less than :data:`RACY_SECONDS` before ``now`` (default:
    the present) whose content the digest does not cover are listed with
    their content digests. Raises :class:`Uncacheable` when the tree links
    to a folder elsewhere.
    """
    return snapshot_of(root, outside_folders(root, config), now, skip_rules(root, config))


def skip_rules(root: Path, config: Config) -> list[str]:
    """What :func:`snapshot_of` may leave out for ``config``: its exclusion globs, then ``"!"`` and the folders to walk anyway.

    Walked anyway: each evidence folder inside the root, ``.claude-plugin``,
    and the top folder of every path a plugin manifest names (its components
    may lie in a folder discovery excludes). Empty (leave nothing out) when
    a manifest cannot be read as JSON. Plain data, so that the entry point's
    warm path can keep it without reading the configuration.
    """
    from ..core.config import DEFAULT_EXCLUDE

    top = os.path.abspath(root)
    keep = [os.path.relpath(os.path.abspath(os.path.join(root, f)), top).replace(os.sep, "/") for f in config.evidence_folders]
    named = _manifest_tops(os.path.join(root, PLUGIN_FOLDER))
    if named is None:
        return []
    return [*DEFAULT_EXCLUDE, *config.exclude, "!", *sorted({*(f for f in keep if not f.startswith("..")), *named})]


def _manifest_tops(folder: str) -> set[str] | None:
    """The top folders of the relative paths named in the plugin manifests in ``folder`` (and the folder); None when one is unreadable."""
    if not os.path.lexists(folder):
        return set()
    tops = {PLUGIN_FOLDER}
    for name in ("plugin.json", "marketplace.json"):
        path = os.path.join(folder, name)
        if not os.path.lexists(path):
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return None
        stack: list[Any] = [data]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, str) and "://" not in value and ("/" in value or "\\" in value):
                parts = [p for p in value.replace("\\", "/").split("/") if p not in ("", ".")]
                if parts and parts[0] != "..":
                    tops.add(parts[0])
    return tops


class _Skip:
    """Which folders under the root a snapshot leaves out (see :func:`skip_rules`)."""

    def __init__(self, top: str, rules: list[str]) -> None:
        self.top = top
        cut = rules.index("!") if "!" in rules else len(rules)
        self.globs = rules[:cut]
        self.keep = [f.rstrip("/") for f in rules[cut + 1 :]]
        self._walked: dict[str, bool] = {}  # folder -> whether the snapshot walked it

    def folder(self, path: str) -> bool:
        """True when the folder at the absolute ``path`` (under the top) is left out."""
        if not self.globs:
            return False
        from ..core.globs import covers_folder

        rel = os.path.relpath(path, self.top).replace(os.sep, "/")
        if any(f in (rel, ".") or f.startswith(rel + "/") or rel.startswith(f + "/") for f in self.keep):
            return False  # a folder to walk is, holds or lies around this one
        return any(covers_folder(rel, g) for g in self.globs)

    def covers(self, path: str) -> bool:
        """True when the snapshot walked the folder holding the absolute ``path`` (under the top)."""
        return self._was_walked(os.path.dirname(path))

    def _was_walked(self, folder: str) -> bool:
        found = self._walked.get(folder)
        if found is None:
            if folder == self.top or not _inside(folder, self.top):
                found = True  # the top, or (never asked) a folder outside it
            else:
                found = self._was_walked(os.path.dirname(folder)) and os.path.basename(folder) not in NEVER_READ and not self.folder(folder)
            self._walked[folder] = found
        return found


def outside_folders(root: Path, config: Config) -> list[str]:
    """The evidence folders of ``config`` that are not under ``root`` (absolute)."""
    top = os.path.abspath(root)
    paths = (os.path.abspath(os.path.join(root, folder)) for folder in config.evidence_folders)
    return [path for path in paths if not _inside(path, top)]


def snapshot_of(root: str | Path, outside: list[str], now: float | None = None, rules: list[str] | None = None) -> Tree:
    """:func:`snapshot` of ``root`` and the folders ``outside`` it, leaving out what ``rules`` allow (:func:`skip_rules`)."""
    h = hashlib.sha256(FORMAT.encode())
    h.update(json.dumps(rules or []).encode())
    now = time.time() if now is None else now
    skip = _cache_folder()
    racy: list[tuple[str, str]] = []
    memo = StatMemo(os.path.abspath(root), skip)
    for n, top in enumerate([os.path.abspath(root), *outside]):
        _walk(top, h, now, skip, racy, memo, _Skip(top, rules or []) if n == 0 else None)
    memo.save()
    return Tree(h.hexdigest(), tuple(racy))


def _cache_folder() -> str:
    return os.path.abspath(cache.cache_base())


def _walk(top: str, h: hashlib._Hash, now: float, skip: str, racy: list[tuple[str, str]], memo: StatMemo, leave: _Skip | None = None) -> None:
    """Feed ``h`` with the state of the tree under ``top`` (sorted, symlinks not followed); list racy files in ``racy``.

    The content of a file read as text comes from ``memo`` when its metadata
    are unchanged (:mod:`skillcite.check.parsing.statmemo`): the digest is the same
    either way.
    """
    stack = [top]
    while stack:
        folder = stack.pop()
        h.update(f"\0D{folder}\0".encode("utf-8", "surrogateescape"))
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:  # an unlistable folder is a finding (SC004): its state is an input
            h.update(f"unlistable {exc.errno}".encode())
            continue
        subfolders = []
        for entry in entries:
            if entry.name == "__pycache__" and entry.is_dir(follow_symlinks=False):
                continue  # bytecode, never read: its appearance after a first run must not change the key
            h.update(f"\0{entry.name}\0".encode("utf-8", "surrogateescape"))
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                h.update(f"?{exc.errno}".encode())
                continue
            if stat.S_ISLNK(st.st_mode):
                h.update(b"L" + os.fsencode(os.readlink(entry.path)))
                try:
                    st = os.stat(entry.path)
                except OSError as exc:  # dangling or looping: read as missing
                    h.update(f"?{exc.errno}".encode())
                    continue
                if stat.S_ISDIR(st.st_mode):
                    if leave is not None and leave.folder(entry.path):
                        continue  # a linked folder the check never enters (an excluded venv -> elsewhere)
                    raise Uncacheable(f"{entry.path} links to a folder")
            if stat.S_ISDIR(st.st_mode):
                h.update(f"d{st.st_mode}".encode())
                if entry.name in NEVER_READ or os.path.abspath(entry.path) == skip:
                    continue
                if leave is not None and leave.folder(entry.path):
                    # Never read by the check; a SKILL.md there would make it a sub-skill.
                    h.update(b"S" if os.path.lexists(os.path.join(entry.path, "SKILL.md")) else b"-")
                    continue
                subfolders.append(entry.path)
            elif stat.S_ISREG(st.st_mode):
                # Content and kind only, no times or inode: a fresh clone has the same key.
                h.update(f"f{st.st_size} {st.st_mode}".encode())
                if entry.name.lower().endswith(READ_SUFFIXES):
                    h.update(memo.digest(entry.path, st))
                elif now - max(st.st_mtime_ns, st.st_ctime_ns) / 1e9 < RACY_SECONDS:
                    racy.append((entry.path, content_digest(entry.path).hex()))
            else:  # a fifo, socket or device: never read, only its kind counts
                h.update(f"o{st.st_mode}".encode())
        stack.extend(reversed(subfolders))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def key(root: Path, config: Config, tree: Tree) -> str:
    """The entry name for a check of ``root`` with ``config`` over the tree state ``tree``."""
    import dataclasses

    settings = json.dumps(dataclasses.asdict(config), sort_keys=True, default=str)
    return cache.key("result", FORMAT, *_place(root), settings, tree.digest)


def _place(root: str | Path) -> tuple[str, ...]:
    """Where and as whom the check runs: the root as given and resolved, the working folder, the user."""
    uid = os.geteuid() if hasattr(os, "geteuid") else -1
    return str(root), os.path.realpath(root), os.getcwd(), f"uid={uid}"


def load(name: str, root: Path) -> Summary | None:
    """The stored result named ``name``, or None (missing, foreign or damaged: a miss)."""
    from .reporting.summary import Summary

    data = cache.load(name)
    if not isinstance(data, dict) or not still_same(data.get("racy")):
        return None
    try:
        return Summary.from_data(root, data["summary"])
    except (KeyError, TypeError, ValueError):
        return None


def store(name: str, summary: Summary, tree: Tree) -> None:
    """Keep ``summary`` under ``name`` (failures are ignored: the cache is an optimization)."""
    cache.store(name, {"summary": summary.to_data(), "racy": tree.racy_data()})


# -- printed output, for the entry point's warm path ------------------------------
# Two entries: the first, keyed by the code, the place, the command line and the
# bytes of pyproject.toml (all the configuration is), names the evidence folders
# outside the root and the baseline file; the second, keyed by the first and by
# the snapshot and the baseline's bytes, holds what was printed and the status.
def _setup_name(root: str | Path, options: dict[str, Any]) -> str:
    wanted = json.dumps(options, sort_keys=True)
    return cache.key("output-setup", FORMAT, *_place(root), wanted, _file_digest(os.path.join(root, "pyproject.toml")))


def _output_name(setup: str, tree: Tree, baseline: str | None) -> str:
    return cache.key("output", setup, tree.digest, "none" if baseline is None else _file_digest(baseline))


def _file_digest(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).digest()
    except OSError as exc:
        return f"unreadable {exc.errno}".encode()


def cached_output(root: str | Path, options: dict[str, Any]) -> tuple[str, int] | None:
    """What ``check`` printed for these options when the tree was as it is now, and its status; else None.

    Reads no configuration: everything it depends on is in the keys.
    """
    setup_name = _setup_name(root, options)
    setup = cache.load(setup_name)
    if not isinstance(setup, dict):
        return None
    outside, baseline, rules = setup.get("outside"), setup.get("baseline"), setup.get("skip")
    if not isinstance(outside, list) or not all(isinstance(p, str) for p in outside):
        return None
    if not isinstance(rules, list) or not all(isinstance(p, str) for p in rules):
        return None
    if baseline is not None and not isinstance(baseline, str):
        return None
    try:
        tree = snapshot_of(root, outside, None, rules)
    except (Uncacheable, OSError, RecursionError):
        return None
    found = cache.load(_output_name(setup_name, tree, baseline))
    if not isinstance(found, dict) or not still_same(found.get("racy")):
        return None
    text, status = found.get("text"), found.get("status")
    if not isinstance(text, str) or type(status) is not int:
        return None
    return text, status


def store_output(root: Path, config: Config, options: dict[str, Any], tree: Tree, baseline: Path | None, text: str, status: int) -> None:
    """Remember what ``check`` printed for ``options`` over the tree state ``tree`` (see :func:`cached_output`)."""
    setup_name = _setup_name(root, options)
    chosen = None if baseline is None else os.fspath(baseline)
    cache.store(setup_name, {"outside": outside_folders(root, config), "baseline": chosen, "skip": skip_rules(root, config)})
    cache.store(_output_name(setup_name, tree, chosen), {"text": text, "status": status, "racy": tree.racy_data()})


def covered(report: Report, config: Config) -> bool:
    """Whether everything the check behind ``report`` read lies inside the snapshot (see :func:`probes`)."""
    return probes(report, config) is not None


def probes(report: Report, config: Config) -> tuple[tuple[str, str], ...] | None:
    """The link targets the check may have read in folders the snapshot left out, with their content digests; None when not covered.

    Every document and evidence file it loaded, and every local link target
    of the documents (existence is probed, a target may be read): each must
    stay under the root, or under an evidence folder the snapshot walked,
    and out of the folders of version control. A target in a folder the
    snapshot left out (``.github/workflows/x.yml``) is returned with its
    content digest (or the error of reading it: missing, a folder), to be
    verified before the entry is served.
    """
    from pathlib import Path
    from urllib.parse import unquote

    root = report.root
    tops = [os.path.abspath(root)]
    tops += [os.path.abspath(os.path.join(root, folder)) for folder in config.evidence_folders]
    real_root = os.path.realpath(root)

    def inside(path: str) -> bool:
        full = os.path.abspath(path)
        if not any(_inside(full, top) for top in tops):
            return False
        return not VCS_FOLDERS.intersection(Path(full).parts)

    loaded = [*(doc.path for doc in report.documents), *report.evidence]
    if not all(inside(str(p)) or _inside(os.path.realpath(p), real_root) for p in loaded):
        return None
    leave = _Skip(tops[0], skip_rules(root, config))
    found: dict[str, str] = {}
    for doc in report.documents:
        base = os.path.dirname(os.path.abspath(doc.path))
        targets = [link.value.partition("#")[0] for link in doc.links]
        targets += [link.target for d in doc.definitions for link in d.links]
        for target in targets:
            path = unquote(target)
            if not path or "://" in path:
                continue
            full = os.path.normpath(os.path.join(base, path))
            if not inside(full):
                return None
            if _inside(full, tops[0]) and full not in found and not leave.covers(full):
                found[full] = content_digest(full).hex()
    if config.baseline:  # read for SC006 (stale entries)
        full = os.path.normpath(os.path.join(os.path.abspath(root), config.baseline))
        if not inside(full):
            return None
        if not leave.covers(full):
            found[full] = content_digest(full).hex()
    return tuple(sorted(found.items()))


def check_summary(root: Path, config: Config, use_cache: bool) -> tuple[Summary, Tree | None]:
    """The summary of a check of ``root``, and the snapshot it holds for (None: not cacheable).

    From the result cache when the inputs are unchanged. With ``use_cache``
    false nothing is read from or written to any cache.
    """
    from . import run  # the full check: the parser, YAML and the matcher
    from .reporting.summary import Summary

    if not use_cache:
        return Summary.of(run.check(root, config, cache=False)), None
    started = time.time()
    tree = lookup_tree(root, config, started)
    name = None if tree is None else key(root, config, tree)
    if name is not None:
        found = load(name, root)
        if found is not None:
            return found, tree
    report = run.check(root, config, cache=True)
    summary = Summary.of(report)
    # Stored only if the tree is still as the key says: a file edited while
    # the check ran may have been read in either state.
    seen = None if tree is None else probes(report, config)
    if tree is not None and name is not None and seen is not None and lookup_tree(root, config, started) == tree:
        tree = Tree(tree.digest, tuple(dict.fromkeys((*tree.racy, *seen))))
        store(name, summary, tree)
        return summary, tree
    return summary, None


def lookup_tree(root: Path, config: Config, now: float | None = None) -> Tree | None:
    """The snapshot of ``root`` as it is now, or None when it cannot be cached (``now``: see :func:`snapshot`)."""
    try:
        return snapshot(root, config, now)
    except (Uncacheable, OSError, RecursionError):
        return None


def lookup_name(root: Path, config: Config, now: float | None = None) -> str | None:
    """The result entry's name for ``root`` as it is now, or None when it cannot be cached."""
    tree = lookup_tree(root, config, now)
    return None if tree is None else key(root, config, tree)


def cached_summary(root: Path, config: Config) -> tuple[Summary, Tree] | None:
    """A stored result for ``root`` as it is now, and its snapshot; else None."""
    if not cache.has_entries():
        return None  # a fresh runner: no snapshot of the tree is worth taking
    tree = lookup_tree(root, config)
    if tree is None:
        return None
    found = load(key(root, config, tree), root)
    return None if found is None else (found, tree)


__all__ = ["Tree", "Uncacheable", "cached_output", "cached_summary", "check_summary", "covered", "key", "snapshot", "store_output"]
