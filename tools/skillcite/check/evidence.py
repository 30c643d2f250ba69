"""Evidence files: excerpt caches with YAML front matter and a content lock."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .normalize import Normalized, normalize
from ..core.textio import InputError, TextFile, read_text

REQUIRED_KEYS = ("source", "title", "author", "retrieved", "kind", "license", "sha256")
KINDS = ("excerpt", "transcript", "notes")
_SHA = re.compile(r"[0-9a-f]{64}")
_FENCE = re.compile(r"---[ \t]*\r?")


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str):
    """Safe YAML load, with libyaml's C loader when present (much faster)."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader


@dataclass(slots=True)
class FrontMatter:
    """The YAML block at the top of a file: its data and where it ends."""

    data: dict | None
    end_line: int  # last line of the block (the closing ``---``); 0 if none
    body_offset: int  # character offset where the body starts
    error: str | None = None


def split_front_matter(tf: TextFile) -> FrontMatter:
    """Find a ``---`` delimited YAML block at the top of ``tf`` and parse it."""
    if not tf.text.startswith("---") or not _FENCE.fullmatch(tf.line(1)):
        return FrontMatter(None, 0, 0)
    for number in range(2, len(tf.line_starts) + 1):
        if _FENCE.fullmatch(tf.line(number)):
            start = tf.line_starts[1] if len(tf.line_starts) > 1 else len(tf.text)
            block = tf.text[start : tf.line_starts[number - 1]]
            body = tf.line_starts[number] if number < len(tf.line_starts) else len(tf.text)
            try:
                data = load_yaml(block) if block.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (line {mark.line + 2})" if mark is not None else ""
                problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
                return FrontMatter(None, number, body, f"invalid YAML{where}: {problem}")
            if not isinstance(data, dict):
                return FrontMatter(None, number, body, "front matter is not a mapping")
            return FrontMatter(data, number, body)
    return FrontMatter(None, 0, 0, "front matter has no closing ---")


def body_sha256(text: str, body_offset: int) -> str:
    """Hex SHA-256 of the UTF-8 bytes of the body below the front matter."""
    return hashlib.sha256(text[body_offset:].encode("utf-8")).hexdigest()


@dataclass(slots=True)
class Evidence:
    """One excerpt cache, loaded lazily and shared by every citation of it."""

    path: Path
    rel: str
    file: TextFile | None = None
    error: str | None = None  # set when the file cannot be read as text
    front: FrontMatter | None = None
    use_cache: bool = False
    _whole: Normalized | None = field(default=None, repr=False)

    @classmethod
    def load(cls, path: Path, rel: str, use_cache: bool = False) -> Evidence:
        """Read ``path``; unreadable or non-UTF-8 files record :attr:`error`."""
        try:
            tf = read_text(path)
        except InputError as exc:
            return cls(path, rel, error=str(exc).split(": ", 1)[-1])
        return cls(path, rel, tf, None, split_front_matter(tf), use_cache)

    @property
    def kind(self) -> str | None:
        """The front matter's ``kind``, when present."""
        if self.front and self.front.data:
            value = self.front.data.get("kind")
            return value if isinstance(value, str) else None
        return None

    @property
    def line_count(self) -> int:
        """Number of physical lines in the file."""
        return self.file.line_count if self.file else 0

    def whole(self) -> Normalized:
        """The whole file normalized (computed once, on demand)."""
        if self._whole is None:
            assert self.file is not None
            if self.use_cache:
                from . import cache

                name = cache.key("norm", self.file.text)
                found = cache.load(name)
                if isinstance(found, Normalized):
                    self._whole = found
                else:
                    self._whole = normalize(self.file.text)
                    cache.store(name, self._whole)
            else:
                self._whole = normalize(self.file.text)
        return self._whole

    def norm_span(self, first: int, last: int) -> tuple[int, int]:
        """Bounds in :meth:`whole` of lines ``first..last`` (1-based, inclusive)."""
        assert self.file is not None
        start, end = self.file.line_span(first, last)
        whole = self.whole()
        return whole.from_source(start), whole.from_source(end)

    def is_blank(self, first: int, last: int) -> bool:
        """True when lines ``first..last`` hold only whitespace."""
        assert self.file is not None
        start, end = self.file.line_span(first, last)
        return not self.file.text[start:end].strip()

    def validate(self) -> list[tuple[str, int, str]]:
        """Check the front matter and lock: ``(code, line, message)`` triples."""
        if self.file is None or self.front is None:
            return []
        fm = self.front
        if fm.error:
            return [("SC402", 1, fm.error)]
        if fm.data is None:
            return [("SC401", 1, "no YAML front matter (--- block with source, title, ...)")]
        out: list[tuple[str, int, str]] = []
        data = fm.data
        line_of = _key_lines(self.file, fm.end_line)
        missing = [k for k in REQUIRED_KEYS if data.get(k) in (None, "")]
        if missing:
            out.append(("SC402", 1, "front matter lacks " + ", ".join(missing)))
        kind = data.get("kind")
        if kind not in (None, "") and kind not in KINDS:
            out.append(("SC402", line_of.get("kind", 1), f"kind {kind!r} is not one of {', '.join(KINDS)}"))
        retrieved = data.get("retrieved")
        if retrieved not in (None, "") and not _is_date(retrieved):
            out.append(("SC402", line_of.get("retrieved", 1), f"retrieved {retrieved!r} is not a date (YYYY-MM-DD)"))
        source = data.get("source")
        if isinstance(source, str) and source and not re.match(r"https?://", source):
            out.append(("SC402", line_of.get("source", 1), f"source {source!r} is not an http(s) URL"))
        sha = data.get("sha256")
        if sha not in (None, ""):
            actual = self.body_digest
            if not isinstance(sha, str) or not _SHA.fullmatch(sha):
                out.append(("SC403", line_of.get("sha256", 1), f"sha256 {sha!r} is not a lock; run: skillcite lock {self.rel}"))
            elif sha != actual:
                out.append(("SC403", line_of.get("sha256", 1), f"body changed since its lock (sha256 {actual[:12]}..., locked {sha[:12]}...); review, then run: skillcite lock {self.rel}"))
        return out

    @property
    def body_digest(self) -> str:
        """SHA-256 of the current body."""
        assert self.file is not None and self.front is not None
        return body_sha256(self.file.text, self.front.body_offset)


def _is_date(value: object) -> bool:
    if isinstance(value, dt.date):
        return True
    if isinstance(value, str):
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    return False


def _key_lines(tf: TextFile, end_line: int) -> dict[str, int]:
    """Line of each top-level key in the front matter, for precise reports."""
    found: dict[str, int] = {}
    for number in range(2, end_line):
        m = re.match(r"([A-Za-z_][\w-]*):", tf.line(number))
        if m:
            found.setdefault(m.group(1), number)
    return found
