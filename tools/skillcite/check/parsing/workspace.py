"""The workspace of one check: configuration, discovery, loaded files, link resolution.

A :class:`Workspace` knows where things are and loads each document and
evidence file once; it holds no rules. The rules (:mod:`skillcite.check.rules`)
read from it and yield diagnostics, and :func:`skillcite.check.run.check`
composes them. ``fix``, ``bundle`` and ``install`` use a workspace to load
files and resolve cache links the same way the check does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import TypeVar, cast
from urllib.parse import unquote

from ...core.config import Config, gitignore_globs, is_markdown_name, load_config, markdown_alias
from ...core.globs import covers_folder, glob_match
from ...core.paths import unsafe_entry
from ...core.shown import shown
from ...core.textio import InputError, TextFile, is_dir_safe, is_file_or_unreadable, line_starts, read_text, resolve, resolve_cache_clear
from .anchors import CacheLink
from .builder import parse_document
from .document import Document, select_cache_links
from .evidence import Evidence

BUNDLE_MARK = re.compile(r"<!-- .*bundled by skillcite \S+ from ")
EVIDENCE_EXEMPT = frozenset({"README.md"})  # an evidence folder's README is about the folder, not a source
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")

T = TypeVar("T")


def list_evidence(
    folder: Path, onerror: Callable[[OSError], None] | None = None, refuse: Callable[[Path], bool] | None = None
) -> list[Path]:
    """Evidence files in ``folder`` at any depth, sorted: Markdown by any name, its README excepted.

    ``x.MD`` or ``x.markdown`` is evidence as much as ``x.md`` (docs/citations.md,
    What is checked): left out, it would never be validated, locked or refreshed.
    ``onerror`` hears of folders that cannot be listed; ``refuse`` may keep out
    (and report) a file that leads outside the package or is a FIFO or device.
    """
    if not is_dir_safe(folder):
        return []
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder, onerror=onerror):
        dirnames.sort()
        found.extend(
            Path(dirpath) / name
            for name in filenames
            if is_markdown_name(name)
            and markdown_alias(name) not in EVIDENCE_EXEMPT
            and not (refuse is not None and refuse(Path(dirpath) / name))
            and is_file_or_unreadable(Path(dirpath) / name)
        )
    return sorted(found)


class Workspace:
    """One root folder: its configuration, its files, and where links lead.

    ``overrides`` maps resolved document paths to text used instead of the
    file on disk (``fix`` checks its result in memory before writing).
    ``use_cache`` reuses parses and normalizations from the on-disk cache.
    """

    def __init__(
        self,
        root: Path,
        config: Config | None = None,
        overrides: dict[Path, str] | None = None,
        use_cache: bool = False,
    ) -> None:
        if not root.exists():
            raise InputError(f"{shown(str(root))}: no such directory")
        if not root.is_dir():
            raise InputError(f"{shown(str(root))}: not a directory")
        self.root = root
        self.config = config if config is not None else load_config(root)
        resolve_cache_clear()  # folders may have changed since the last run in this process
        # One evidence folder or several (a sub-skill may keep its own).
        self.evidence_dirs = [resolve(root / folder) for folder in self.config.evidence_folders]
        # Membership is a set lookup per parent folder: with many evidence folders
        # (one per sub-skill or copy), comparing every folder with every parent
        # of every link was the one superlinear term of a large check.
        self._evidence_set = frozenset(self.evidence_dirs)
        self.overrides = overrides or {}
        self.use_cache = use_cache
        self.documents: dict[Path, Document] = {}  # every document loaded, by resolved path
        self.evidence: dict[Path, Evidence] = {}  # every evidence file loaded, by resolved path
        self._real: dict[Path, Path] = {}
        self._resolved: dict[tuple[str, str], tuple[Path | None, str | None]] = {}
        self._derived: dict[str, object] = {}
        self.unreadable: list[tuple[Path, str]] = []  # folders discovery could not list, and why
        self.root_real = resolve(root)
        self._gitignored = gitignore_globs(root)
        # Paths found while walking that are never read: rel -> (code, message).
        self._unsafe: dict[str, tuple[str, str]] = {}

    # -- paths -----------------------------------------------------------
    def rel(self, path: Path) -> str:
        """``path`` relative to the root, with forward slashes."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return os.path.relpath(path, self.root).replace(os.sep, "/")

    def in_evidence_dir(self, resolved: Path) -> bool:
        """True when the resolved path is an evidence folder or inside one."""
        return resolved in self._evidence_set or self._under_evidence(resolved)

    def _under_evidence(self, resolved: Path) -> bool:
        """True when an evidence folder is a proper parent of the resolved path."""
        return any(parent in self._evidence_set for parent in resolved.parents)

    # -- discovery -------------------------------------------------------
    def discover(self) -> list[Path]:
        """Markdown documents to check, sorted: never inside an evidence folder, never a bundle.

        A folder that cannot be listed is recorded in :attr:`unreadable`
        (reported as SC004), never skipped in silence. A document or folder
        that resolves outside the package, and a document that is a FIFO,
        device or socket, is left out and kept for :meth:`unsafe_paths`:
        nothing outside the root is read, nothing is opened that could block.
        """
        found: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(self.root, onerror=self._unreadable):
            base = Path(dirpath)
            keep = []
            for d in sorted(dirnames):
                rel = self.rel(base / d)
                if resolve(base / d) in self._evidence_set or self.config.excludes_folder(rel):
                    continue
                if os.path.isfile(base / d / "pyvenv.cfg") or d == "site-packages" or any(covers_folder(rel, g) for g in self._gitignored):
                    continue  # a virtual environment, installed packages, or what .gitignore leaves out
                if os.path.islink(base / d) and self._refused(base / d, rel):
                    continue  # os.walk would not descend it; install would copy it
                keep.append(d)
            dirnames[:] = keep
            for name in sorted(filenames):
                rel = self.rel(base / name)
                if any(glob_match(rel, g) for g in self._gitignored):
                    continue
                if self.config.is_document(rel) and not self._refused(base / name, rel) and not is_bundle(base / name):
                    found.append(base / name)
        return sorted(found)

    def _refused(self, path: Path, rel: str) -> bool:
        """True (and remembered for SC603/SC604) when ``path`` must not be read."""
        unsafe = unsafe_entry(path, self.root_real)
        if unsafe is not None:
            self._unsafe[rel] = unsafe
        return unsafe is not None

    def evidence_files(self) -> list[Path]:
        """Evidence files in the evidence folders (any depth), sorted; a folder's README is not one.

        Listed once per workspace; unlistable folders go to :attr:`unreadable`.
        """

        def compute() -> list[Path]:
            refuse = lambda p: self._refused(p, self.rel(p))  # noqa: E731
            return sorted({p for folder in self.evidence_dirs for p in list_evidence(folder, self._unreadable, refuse)})

        return self.derived("evidence_files", compute)

    def _unreadable(self, error: OSError) -> None:
        path = Path(error.filename) if error.filename else self.root
        self.unreadable.append((path, error.strerror or str(error)))

    def unsafe_paths(self) -> dict[str, tuple[str, str]]:
        """Documents, folders and evidence files that were not read: rel -> (code, message)."""
        self.checked_documents()
        self.evidence_files()
        return dict(sorted(self._unsafe.items()))

    def checked_documents(self) -> list[Document]:
        """The documents the check covers (discovered and loaded once, in order)."""
        return self.derived("documents", lambda: [self.load_document(p) for p in self.discover()])

    def all_evidence(self) -> dict[Path, Evidence]:
        """Every evidence file of the folder, loaded, plus any other one loaded so far."""
        for path in self.evidence_files():
            self.load_evidence(path)
        return self.evidence

    # -- loading ---------------------------------------------------------
    def is_cache_link(self, doc_path: Path, text: str, target: str) -> bool:
        """Whether a link in a footnote of ``doc_path`` is a cache link.

        It is when its text is ``cache``, or when its target is a relative
        path that leads into the evidence folder.
        """
        if text.strip().lower() == "cache":
            return True
        if not target or _SCHEME.match(target):
            return False
        return self.in_evidence_dir(resolve(doc_path.parent / unquote(target)))

    def is_cache_for(self, doc_path: Path) -> Callable[[str, str], bool]:
        """:meth:`is_cache_link` for the links of one document."""
        return lambda text, target: self.is_cache_link(doc_path, text, target)

    def load_document(self, path: Path) -> Document:
        """Read and parse one document (once), then select its cache links."""
        key = resolve(path)
        doc = self.documents.get(key)
        if doc is None:
            if key in self.overrides:
                text = self.overrides[key]
                file = TextFile(path, text, False, line_starts(text))
            else:
                file = read_text(path)
            doc = self._parse(key, path, file)
            select_cache_links(doc, self.is_cache_for(path))
            self.documents[key] = doc
        return doc

    def _parse(self, key: Path, path: Path, file: TextFile) -> Document:
        """Parse, or reuse a cached parse of the same bytes (anywhere: a parse depends on the text alone)."""
        if not self.use_cache or key in self.overrides:
            return parse_document(path, self.rel(path), file)
        from . import cache

        # Keyed by content only: the copy install checks, a second clone and a
        # CI runner's checkout reuse the parse of the same text.
        name = cache.key("doc", file.text)
        cached = cache.load(name)
        if isinstance(cached, dict):
            try:
                return Document(path, self.rel(path), file, **cached)
            except TypeError:  # an entry of another shape (damaged): a miss
                pass
        doc = parse_document(path, self.rel(path), file)
        cache.store(name, {f.name: getattr(doc, f.name) for f in dataclass_fields(doc) if f.name not in ("path", "rel", "file")})
        return doc

    def load_evidence(self, path: Path) -> Evidence:
        """Load one evidence file (once per resolved path)."""
        key = self.real(path)
        ev = self.evidence.get(key)
        if ev is None:
            # Named as the root sees it (``docs/evidence/x.md``), not as the first
            # link that reached it (``skills/a/../../docs/evidence/x.md``).
            shown = self.rel(Path(os.path.normpath(path)))
            ev = self.evidence[key] = Evidence.load(path, shown, self.use_cache)
        return ev

    def real(self, path: Path) -> Path:
        """The resolved path (remembered)."""
        key = self._real.get(path)
        if key is None:
            key = self._real[path] = resolve(path)
        return key

    # -- link resolution -------------------------------------------------
    def resolve_cache(self, doc: Document, link: CacheLink) -> tuple[Path | None, str | None]:
        """The evidence path of a cache link, or ``(None, code)``: SC201 missing, SC202 outside."""
        key = (str(doc.path.parent), link.target)
        if key not in self._resolved:
            self._resolved[key] = self._resolve_cache(doc, link)
        return self._resolved[key]

    def _resolve_cache(self, doc: Document, link: CacheLink) -> tuple[Path | None, str | None]:
        target = unquote(link.target)
        if not target:
            return None, "SC201"
        if target.startswith("/") or _DRIVE.match(target):
            return None, "SC202"
        path = doc.path.parent / target
        if not self._under_evidence(resolve(path)):
            return None, "SC202"
        if not is_file_or_unreadable(path):
            return None, "SC201"
        return path, None

    def cited(self) -> dict[Path, Path]:
        """Evidence files some cache link of a checked document reaches: resolved path -> path as linked."""

        def compute() -> dict[Path, Path]:
            out: dict[Path, Path] = {}
            for doc in self.checked_documents():
                for d in doc.definitions:
                    for link in d.cache_links:
                        path, _ = self.resolve_cache(doc, link)
                        if path is not None:
                            out.setdefault(self.real(path), path)
            return out

        return self.derived("cited", compute)

    # -- results shared by several rules -----------------------------------
    def derived(self, name: str, compute: Callable[[], T]) -> T:
        """A result computed once per workspace (documents, citations, quote outcomes)."""
        if name not in self._derived:
            self._derived[name] = compute()
        return cast(T, self._derived[name])


def is_bundle(path: Path) -> bool:
    """True when ``path`` was written by ``skillcite bundle`` (its first line says so).

    A bundle repeats the skill's text with rewritten links and footnotes; it
    is output, not a source, and checking it would report every change the
    bundler made.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return BUNDLE_MARK.match(head.decode("utf-8", "replace").lstrip("\ufeff")) is not None


def position(doc: Document, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset in ``doc``."""
    line = doc.file.line_of(offset)
    return line, offset - doc.file.line_starts[line - 1] + 1
