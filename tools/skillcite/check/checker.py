"""``skillcite check``: the whole-package verification, as a library call."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from urllib.parse import unquote

from .anchors import Anchor, CacheLink
from ..core.config import Config, glob_match, is_markdown_name, load_config
from ..core.diagnostics import Diagnostic, Fix
from .document import Document, FootnoteDef, Quote, local_target, parse_document
from .evidence import Evidence
from .manifests import check_manifests
from .matching import Match, locate
from .skills import check_skill, check_toc
from ..core.textio import (
    InputError,
    TextFile,
    exists_or_unreadable,
    is_dir_safe,
    is_file_or_unreadable,
    line_starts,
    read_text,
    resolve,
    resolve_cache_clear,
)

_LINE_FRAGMENT = re.compile(r"L\d+(?:-L?\d+)?")
_RANK = {"verified": 0, "moved": 1, "marks": 2, "altered": 3, "notfound": 4}
EVIDENCE_EXEMPT = {"README.md"}


@dataclass(slots=True)
class QuoteOutcome:
    """The verdict on one quote, kept for ``fix`` and ``stats``."""

    doc: Document
    quote: Quote
    definition: FootnoteDef | None
    link: CacheLink | None
    evidence: Evidence | None
    match: Match | None


@dataclass(slots=True)
class Report:
    """Everything a check found, plus counts for the summary line."""

    root: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    evidence: dict[Path, Evidence] = field(default_factory=dict)
    outcomes: list[QuoteOutcome] = field(default_factory=list)

    @property
    def quotes_verified(self) -> int:
        """Quotes found verbatim at their cited lines."""
        return sum(1 for o in self.outcomes if o.match and o.match.status == "verified")

    @property
    def sources(self) -> int:
        """Evidence files in the evidence folder."""
        return len(self.evidence)

    @property
    def files(self) -> int:
        """Markdown documents and evidence files read."""
        return len(self.documents) + len(self.evidence)


class Checker:
    """Runs every rule of DESIGN §3-§5 over one root folder."""

    def __init__(
        self,
        root: Path,
        config: Config | None = None,
        overrides: dict[Path, str] | None = None,
        use_cache: bool = False,
    ) -> None:
        if not root.exists():
            raise InputError(f"{root}: no such directory")
        if not root.is_dir():
            raise InputError(f"{root}: not a directory")
        self.root = root
        self.config = config if config is not None else load_config(root)
        resolve_cache_clear()  # folders may have changed since the last run in this process
        self.evidence_dir = resolve(root / self.config.evidence)
        self.report = Report(root)
        self._docs_by_path: dict[Path, Document] = {}
        # Documents checked from memory instead of disk (``fix`` re-checks
        # its result before writing anything); keyed by resolved path.
        self.overrides = overrides or {}
        self.use_cache = use_cache
        self._real: dict[Path, Path] = {}
        self._resolved: dict[tuple[str, str], tuple[Path | None, str | None]] = {}

    # -- discovery -----------------------------------------------------
    def rel(self, path: Path) -> str:
        """``path`` relative to the root, with forward slashes."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return os.path.relpath(path, self.root).replace(os.sep, "/")

    def discover(self) -> list[Path]:
        """Markdown documents to check, sorted, never inside the evidence folder."""
        found: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            base = Path(dirpath)
            keep = []
            for d in sorted(dirnames):
                rel = self.rel(base / d)
                if resolve(base / d) == self.evidence_dir or self.config.is_excluded(rel + "/x"):
                    continue
                keep.append(d)
            dirnames[:] = keep
            for name in sorted(filenames):
                rel = self.rel(base / name)
                if self.config.is_document(rel):
                    found.append(base / name)
        return sorted(found)

    def is_cache_for(self, doc_path: Path):
        """The predicate telling cache links from other links in ``doc_path``."""
        parent = doc_path.parent

        def is_cache(text: str, target: str) -> bool:
            if text.strip().lower() == "cache":
                return True
            if not target or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|//", target):
                return False
            resolved = resolve(parent / unquote(target))
            return resolved == self.evidence_dir or self.evidence_dir in resolved.parents

        return is_cache

    def load_document(self, path: Path) -> Document:
        """Read and parse one document (cached)."""
        key = resolve(path)
        if key not in self._docs_by_path:
            if key in self.overrides:
                text = self.overrides[key]
                file = TextFile(path, text, False, line_starts(text))
            else:
                file = read_text(path)
            self._docs_by_path[key] = self._parse(key, path, file)
        return self._docs_by_path[key]

    def _parse(self, key: Path, path: Path, file: TextFile) -> Document:
        """Parse, or reuse a cached parse of the same bytes at the same place."""
        if not self.use_cache or key in self.overrides:
            return parse_document(path, self.rel(path), file, self.is_cache_for(path))
        from . import cache

        name = cache.key("doc", str(key), str(self.evidence_dir), file.text)
        fields = cache.load(name)
        if isinstance(fields, dict):
            return Document(path, self.rel(path), file, **fields)
        doc = parse_document(path, self.rel(path), file, self.is_cache_for(path))
        cache.store(name, {f.name: getattr(doc, f.name) for f in dataclass_fields(doc) if f.name not in ("path", "rel", "file")})
        return doc

    def evidence(self, path: Path) -> Evidence:
        """Load one evidence file (cached by resolved path)."""
        key = self._real.get(path)
        if key is None:
            key = self._real[path] = resolve(path)
        ev = self.report.evidence.get(key)
        if ev is None:
            ev = Evidence.load(path, self.rel(path), self.use_cache)
            self.report.evidence[key] = ev
        return ev

    # -- running -------------------------------------------------------
    def emit(self, code: str, path: str, line: int, column: int, message: str, fix: Fix | None = None) -> None:
        self.report.diagnostics.append(Diagnostic.make(code, path, line, column, message, fix))

    def run(self) -> Report:
        """Check everything and return the report (diagnostics sorted)."""
        if self.evidence_dir.is_dir():
            for path in sorted(self.evidence_dir.rglob("*.md")):
                if path.name not in EVIDENCE_EXEMPT and is_file_or_unreadable(path):
                    self.evidence(path)
        cited: set[Path] = set()
        for path in self.discover():
            doc = self.load_document(path)
            self.report.documents.append(doc)
        for doc in self.report.documents:
            self.check_document(doc, cited)
        for key, ev in sorted(self.report.evidence.items()):
            for code, line, message in ev.validate():
                self.emit(code, ev.rel, line, 1, message)
            if key not in cited and self.evidence_dir in key.parents:
                self.emit("SC404", ev.rel, 1, 1, "evidence file is cited by nothing; cite it or delete it")
        for code, rel, line, col, message in check_manifests(self.root):
            self.emit(code, rel, line, col, message)
        self.report.diagnostics.sort(key=Diagnostic.sort_key)
        return self.report

    def check_document(self, doc: Document, cited: set[Path]) -> None:
        rel = doc.rel
        for fence in doc.unclosed_fences:
            self.emit("SC001", rel, fence.line, fence.column, f"code fence {fence.value} is never closed")
        for deep in doc.too_deep:
            self.emit("SC002", rel, deep.line, deep.column, f"nested more than {deep.value} levels deep: Markdown parsers stop here, so nothing in this block is checked")
        if doc.front_matter_error is not None:
            problem = doc.front_matter_error
            self.emit("SC003", rel, problem.line, problem.column, f"front matter cannot be read: {problem.value}")
        for dup in doc.front_matter_duplicates:
            self.emit("SC003", rel, dup.line, dup.column, f"front matter key {dup.value} is given twice; YAML would keep only this one")
        for hidden in doc.unverifiable:
            self.emit("SC307", rel, hidden.line, hidden.column, f"{hidden.value} inside a sourced blockquote cannot be verified: quote its text as plain paragraphs or move it out of the blockquote")
        for ref in doc.undefined:
            self.emit("SC101", rel, ref.line, ref.column, f"footnote [^{ref.value}] is not defined")
        definitions: dict[str, FootnoteDef] = {}
        for d in doc.definitions:
            if d.label in definitions:
                first = definitions[d.label]
                self.emit("SC103", rel, d.line, d.column, f"footnote [^{d.label}] is already defined at line {first.line}")
            else:
                definitions[d.label] = d
        used = {r.value for r in doc.references}
        for label, d in definitions.items():
            if label not in used:
                self.emit("SC102", rel, d.line, d.column, f"footnote [^{label}] is defined but never referenced")
        for d in doc.definitions:
            for link in d.cache_links:
                self.check_cache_link(doc, d, link, cited)
        is_content = self.config.is_content(rel)
        for bq in doc.unsourced:
            if is_content:
                self.emit("SC304", rel, bq.line, bq.column, "blockquote has no footnote reference: cite its source or drop the quote marks")
        for quote in doc.quotes:
            self.check_quote(doc, quote, definitions)
        if doc.path.name == "SKILL.md":
            for code, line, col, message in check_skill(
                doc, self.config.skill_max_lines, self.config.skill_max_tokens, at_root=doc.rel == "SKILL.md"
            ):
                self.emit(code, rel, line, col, message)
        if any(glob_match(rel, g) for g in self.config.toc):
            for code, line, col, message in check_toc(doc, self.config.toc_min_lines):
                self.emit(code, rel, line, col, message)
        self.check_links(doc)

    def resolve_cache(self, doc: Document, link: CacheLink) -> tuple[Path | None, str | None]:
        """The evidence path of a cache link, or ``(None, code)`` on failure (cached)."""
        key = (str(doc.path.parent), link.target)
        if key not in self._resolved:
            self._resolved[key] = self._resolve_cache(doc, link)
        return self._resolved[key]

    def _resolve_cache(self, doc: Document, link: CacheLink) -> tuple[Path | None, str | None]:
        target = unquote(link.target)
        if not target:
            return None, "SC201"
        if target.startswith("/") or re.match(r"[A-Za-z]:[\\/]", target):
            return None, "SC202"
        path = doc.path.parent / target
        resolved = resolve(path)
        if self.evidence_dir not in resolved.parents:
            return None, "SC202"
        if not is_file_or_unreadable(path):
            return None, "SC201"
        return path, None

    def check_cache_link(self, doc: Document, d: FootnoteDef, link: CacheLink, cited: set[Path]) -> None:
        rel = doc.rel
        line, col = _pos(doc, link.offset)
        path, problem = self.resolve_cache(doc, link)
        if problem == "SC202":
            self.emit("SC202", rel, line, col, f"cache link {link.target!r} points outside the evidence folder {self.config.evidence}/")
            return
        if problem == "SC201":
            self.emit("SC201", rel, line, col, f"cache link {link.target!r}: no such file")
            return
        assert path is not None
        ev = self.evidence(path)
        cited.add(self._real.get(path) or resolve(path))
        if ev.file is None:
            self.emit("SC203", rel, line, col, f"cache link {link.target!r}: {ev.error}")
            return
        for offset, message in link.errors:
            self.emit("SC204", rel, *_pos(doc, offset), message)
        if not link.anchors and not link.errors:
            self.emit("SC209", rel, line, col, f"cache link to {link.target} has no line anchors (add ': L<start>-<end>')")
        total = ev.line_count
        for anchor in link.anchors:
            aline, acol = _pos(doc, anchor.span[0] if anchor.span else anchor.offset)
            for r in anchor.ranges:
                where = f"anchor {r.render()} of {link.target}"
                if r.start == 0:
                    self.emit("SC205", rel, aline, acol, f"{where}: lines are numbered from 1")
                elif r.start > r.end:
                    self.emit("SC206", rel, aline, acol, f"{where}: start is after end")
                elif r.end > total:
                    self.emit("SC207", rel, aline, acol, f"{where}: the file has {total} lines")
                elif ev.is_blank(r.start, r.end):
                    self.emit("SC208", rel, aline, acol, f"{where}: only blank lines")

    def check_quote(self, doc: Document, quote: Quote, definitions: dict[str, FootnoteDef]) -> None:
        rel = doc.rel
        best: QuoteOutcome | None = None
        for label in quote.labels:
            d = definitions.get(label)
            if d is None:
                continue
            if not d.cache_links:
                outcome = QuoteOutcome(doc, quote, d, None, None, None)
                best = best or outcome
                continue
            for link in d.cache_links:
                path, problem = self.resolve_cache(doc, link)
                if problem or path is None:
                    continue
                ev = self.evidence(path)
                if ev.file is None:
                    continue
                if ev.kind == "notes":
                    outcome = QuoteOutcome(doc, quote, d, link, ev, Match("notes"))
                else:
                    m = locate(quote.text, ev, [a.ranges for a in link.anchors])
                    outcome = QuoteOutcome(doc, quote, d, link, ev, m)
                if best is None or _rank(outcome) < _rank(best):
                    best = outcome
        if best is None:
            return  # every label undefined: SC101 already says so
        self.report.outcomes.append(best)
        m, what = best.match, _describe(quote)
        if m is None:
            self.emit("SC305", rel, quote.line, quote.column, f"{what} cites [^{best.definition.label}], which has no cache link to evidence")
        elif m.status == "notes":
            self.emit("SC306", rel, quote.line, quote.column, f"{what} cites {best.evidence.rel}, of kind notes: notes are not the author's words")
        elif m.status == "moved":
            a, b = m.lines
            new = f"L{a}" if a == b else f"L{a}-{b}"
            self.emit(
                "SC301",
                rel,
                quote.line,
                quote.column,
                f"{what} is at {best.evidence.rel} {new}, outside the lines [^{best.definition.label}] cites (run: skillcite fix)",
                Fix(best.definition.line, "", new),
            )
        elif m.status == "altered":
            a, b = m.lines
            self.emit("SC302", rel, quote.line, quote.column, f"{what} differs from {best.evidence.rel} L{a}-{b} (score {m.score}): {m.diff}")
        elif m.status == "marks":
            where = f"{best.evidence.rel} L{m.lines[0]}-{m.lines[1]}" if m.lines else best.evidence.rel
            self.emit(m.code or "SC310", rel, quote.line, quote.column, f"{what} at {where}: {m.detail}")
        elif m.status == "notfound":
            if m.lines:
                a, b = m.lines
                closest = f"closest: L{a}-{b}, {int(m.score or 0)} of {m.words} words: {_excerpt(m.diff or '')}"
                self.emit("SC303", rel, quote.line, quote.column, f"{what} not found in {best.evidence.rel}; {closest}")
            else:
                self.emit("SC303", rel, quote.line, quote.column, f"{what} not found in {best.evidence.rel}: no word of it is there: {_excerpt(quote.text)}")
        elif m.status != "verified":
            raise AssertionError(f"unknown match status {m.status!r}")  # never a silent pass

    def check_links(self, doc: Document) -> None:
        cache_targets = {link.target for d in doc.definitions for link in d.cache_links}
        for link in doc.links:
            local = local_target(link.value)
            if local is None:
                continue
            path_part, fragment = local
            if path_part in cache_targets or link.value.split("#")[0] in cache_targets:
                continue
            target = (doc.path.parent / path_part) if path_part else doc.path
            if not exists_or_unreadable(target):
                self.emit("SC601", doc.rel, link.line, link.column, f"link target {path_part!r} does not exist")
                continue
            if not fragment or _LINE_FRAGMENT.fullmatch(fragment) or is_dir_safe(target):
                continue
            if not is_markdown_name(target.name):
                continue
            try:
                target_doc = self.load_document(target)
            except InputError:
                continue
            if fragment not in target_doc.slugs and fragment.lower() not in target_doc.slugs:
                name = "this file" if not path_part else path_part
                self.emit("SC602", doc.rel, link.line, link.column, f"no heading #{fragment} in {name}")


def _rank(o: QuoteOutcome) -> int:
    if o.match is None:
        return 6
    return _RANK.get(o.match.status, 5)


def _pos(doc: Document, offset: int) -> tuple[int, int]:
    line = doc.file.line_of(offset)
    return line, offset - doc.file.line_starts[line - 1] + 1


def _describe(quote: Quote) -> str:
    return "blockquote" if quote.block else "quote"


def _excerpt(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def check(root: Path, config: Config | None = None, *, cache: bool = False) -> Report:
    """Run the full check on ``root`` and return its :class:`Report`.

    ``cache=True`` reuses parses and normalizations from the on-disk cache
    (see :mod:`skillcite.cache`); results are the same either way.
    """
    return Checker(root, config, use_cache=cache).run()


__all__ = ["Anchor", "Checker", "QuoteOutcome", "Report", "check"]
