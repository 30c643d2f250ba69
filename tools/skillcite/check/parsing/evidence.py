"""Evidence files: excerpt caches with YAML front matter and a content lock."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.frontmatter import FENCE, closing_fence, key_lines, top_key
from ...core.textio import InputError, TextFile, read_text
from .markup import copy_env, markup_offsets, plain_starts, top_blocks
from .normalize import Normalized, normalize
from .yamltext import YamlResult, parse_yaml

REQUIRED_KEYS = ("source", "title", "author", "retrieved", "kind", "license", "sha256")
NO_FRONT_MATTER = (
    "no YAML front matter: open the file with a --- block holding "
    + ", ".join(REQUIRED_KEYS)
    + " (skillcite evidence adopt converts Source:/Title: header lines)"
)
KINDS = ("excerpt", "transcript", "notes")
_SHA = re.compile(r"[0-9a-f]{64}")


# A narrow stretch is the whole blocks holding the cited lines, widened
# until it holds this many normalized characters beyond them: the matcher
# reads a little past a region (the letter after a full stop, the characters
# around a word boundary), and there the stretch must read as the whole
# file does.
NARROW_AFTER = 64
# Where an HTML comment might begin once markup is dropped ("<!--", "<\\!--",
# "<!`--`"): normalization reads a comment up to its "-->" wherever that is,
# across any block, so a file with one is normalized whole.
_COMMENTISH = re.compile(r"![\\*_`\[\]]{0,3}-")

LOCK_EXEMPT_KEYS = ("sha256", "checked", "upstream_sha256")  # the lock itself, and refresh's old records


@dataclass(slots=True)
class FrontMatter:
    """The YAML block at the top of a file: its data and where it ends."""

    data: dict[str, Any] | None
    end_line: int  # last line of the block (the closing ``---``); 0 if none
    body_offset: int  # character offset where the body starts
    error: str | None = None
    error_line: int = 1  # file line of the problem
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)  # (key, line, first line), file lines


def split_front_matter(tf: TextFile) -> FrontMatter:
    """Find a ``---`` delimited YAML block at the top of ``tf`` and parse it."""
    if not tf.text.startswith("---") or not FENCE.fullmatch(tf.line(1)):
        return FrontMatter(None, 0, 0)
    number = closing_fence(tf)
    if not number:
        return FrontMatter(None, 0, 0, "front matter has no closing ---")
    start = tf.line_starts[1] if len(tf.line_starts) > 1 else len(tf.text)
    block = tf.text[start : tf.line_starts[number - 1]]
    body = tf.line_starts[number] if number < len(tf.line_starts) else len(tf.text)
    result = parse_yaml(block) if block.strip() else YamlResult({})
    if result.error is not None:
        line = result.error_line + 2 if result.error_line is not None else 1
        where = f" (line {line})" if result.error_line is not None else ""
        return FrontMatter(None, number, body, f"invalid YAML{where}: {result.error}", line)
    if not isinstance(result.data, dict):
        return FrontMatter(None, number, body, "front matter is not a mapping")
    duplicates = [(key, line + 2, first + 2) for key, line, first in result.duplicates]
    return FrontMatter(result.data, number, body, duplicates=duplicates)


def normalize_markdown(text: str) -> Normalized:
    """Normalize raw Markdown: the markup the parser finds is dropped first."""
    return normalize(text, drop=markup_offsets(text))


def body_sha256(text: str, body_offset: int) -> str:
    """Hex SHA-256 of the UTF-8 bytes of the body below the front matter (the lock before 0.2)."""
    return hashlib.sha256(text[body_offset:].encode("utf-8")).hexdigest()


def lock_sha256(tf: TextFile, fm: FrontMatter) -> str:
    """The lock: hex SHA-256 of the whole file but its lock lines (docs/citations.md).

    The UTF-8 text, BOM excluded, with the front matter's ``sha256`` key
    removed (and ``checked``/``upstream_sha256``, which ``refresh --write``
    once kept there), each with its continuation lines. Front matter and
    body are both covered: a reader trusts ``kind``, ``source`` and the
    rest as much as the text.
    """
    if not fm.end_line:
        return body_sha256(tf.text, fm.body_offset)
    kept = [tf.text[: tf.line_starts[1] if len(tf.line_starts) > 1 else len(tf.text)]]
    skipping = False
    for number in range(2, fm.end_line):
        start, end = tf.line_span(number, number)
        line = tf.text[start:end]
        key = top_key(line)
        if key is not None:
            skipping = key in LOCK_EXEMPT_KEYS
        elif line[:1] not in (" ", "\t", "\r", "\n", ""):
            skipping = False  # a comment or odd line at column 0 ends a key's value
        if not skipping:
            kept.append(line)
    kept.append(tf.text[tf.line_starts[fm.end_line - 1] :])
    return hashlib.sha256("".join(kept).encode("utf-8")).hexdigest()


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
    _blocks: tuple[list[int], dict[str, Any]] | None = field(default=None, repr=False)
    _stretches: dict[tuple[int, int], Normalized] = field(default_factory=dict, repr=False)
    _narrowed: int = field(default=0, repr=False)  # characters normalized in stretches so far
    _expected: list[tuple[int, int]] = field(default_factory=list, repr=False)  # cited spans announced by expect()

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

    def matchable_text(self, start: int = 0, end: int | None = None) -> str:
        """The file's text with its front matter blanked out, offsets and lines kept.

        Front matter is provenance, not the author's words: a quote must
        never be found in a ``note:`` or ``via:`` value. Each of its
        characters but line breaks becomes a space, so offsets and line
        numbers still agree with the file. ``start`` and ``end`` take a
        slice (a stretch of a large file costs only its own length).
        """
        assert self.file is not None
        text = self.file.text
        stop = len(text) if end is None else end
        head = self.front.body_offset if self.front is not None and self.front.end_line else 0
        if start >= head:
            return text[start:stop] if start or stop < len(text) else text
        blank = "".join(ch if ch in "\r\n" else " " for ch in text[start : min(head, stop)])
        return blank + text[head:stop] if stop > head else blank

    def whole(self) -> Normalized:
        """The body normalized, front matter blanked (computed once, on demand)."""
        if self._whole is None:
            text = self.matchable_text()
            if self.use_cache:
                from . import cache

                name = cache.key("norm-body", text)
                found = cache.load(name)
                if isinstance(found, Normalized):
                    self._whole = found
                else:
                    self._whole = normalize_markdown(text)
                    cache.store(name, self._whole)
            else:
                self._whole = normalize_markdown(text)
        return self._whole

    def expect(self, first: int, last: int) -> None:
        """Announce that a quote will be looked for at lines ``first..last``.

        Before the first :meth:`narrow`, the check announces every cited
        span of the file, so that a file whose stretches would together be
        longer than the file (an excerpt quoted all over) is normalized
        whole at once, not stretch by stretch and then whole.
        """
        self._expected.append((first, last))

    def narrow(self, first: int, last: int) -> Normalized | None:
        """Lines ``first..last`` (1-based) normalized with whole blocks around them; None: use :meth:`whole`.

        A quote cites a few lines of a file that is mostly never quoted: the
        blocks around those lines are parsed and normalized on their own,
        offsets still the file's. The stretch starts on a top-level block
        (no container open there, the whole file's link and footnote
        definitions given) and widens by whole blocks until it holds
        enough normalized text after the lines (:data:`NARROW_AFTER`);
        within it the text and the offset map are those of :meth:`whole`
        (``tests/test_narrow.py`` compares them). None when the whole is
        already normalized, when the stretches of the file would add up to
        more than the file, or when the file holds what may begin an HTML
        comment.
        """
        assert self.file is not None
        if self._whole is not None:
            return None
        if self._blocks is None:
            text = self.matchable_text()
            if "<" in text and _COMMENTISH.search(text):
                self._blocks = ([], {})  # no stretch: normalized whole
            else:
                # A scan of the lines finds enough block starts in most files;
                # the parser (block structure only) places them in the others.
                scanned = plain_starts(text)
                self._blocks = (scanned, {}) if scanned is not None else top_blocks(text)
            del text  # a blanked copy of the whole file: not kept
            planned = {self._bounds(f, k, 1) for f, k in self._expected}
            if sum(end - start for start, end in planned) > len(self.file.text):
                self._blocks = ([], {})  # quoted all over: cheaper normalized whole
        size = len(self.file.text)
        starts, env = self._blocks
        hi = self.file.line_span(first, last)[1]
        extra = 1  # blocks after the cited ones, doubled until the stretch reads far enough
        while True:
            start, end = self._bounds(first, last, extra)
            if start == 0 and end == size:
                return None  # the stretch is the whole file
            if (start, end) not in self._stretches and self._narrowed + end - start > size:
                # Quotes all over the file: its stretches would cost more than the whole.
                return None
            norm = self._stretch(start, end, env)
            if end == size or len(norm.text) - norm.from_source(hi) >= NARROW_AFTER:
                return norm
            extra *= 2

    def _bounds(self, first: int, last: int, extra: int) -> tuple[int, int]:
        """File offsets of the stretch for lines ``first..last``: their blocks and ``extra`` blocks after."""
        assert self.file is not None and self._blocks is not None
        starts, lines = self._blocks[0], self.file.line_starts
        a = bisect_right(starts, first - 1) - 1  # the block holding the first cited line
        stop = bisect_right(starts, last - 1) + extra  # past the last cited line's block
        start = lines[starts[a]] if a > 0 else 0
        end = lines[starts[stop]] if stop < len(starts) else len(self.file.text)
        return start, end

    def _stretch(self, start: int, end: int, env: dict[str, Any]) -> Normalized:
        """The file's ``[start, end)`` (whole top-level blocks) normalized, offsets the file's."""
        found = self._stretches.get((start, end))
        if found is None:
            # From the line break before the stretch: a blockquote's ">" is
            # markup only after one, as in the whole file.
            base = start - 1 if start > 0 else 0
            piece = self.matchable_text(base, end)
            drop = markup_offsets(piece, copy_env(env), front=base == 0)
            found = self._stretches[(start, end)] = normalize(piece, base=base, drop=drop)
            self._narrowed += end - start
        return found

    def is_blank(self, first: int, last: int) -> bool:
        """True when lines ``first..last`` hold only whitespace."""
        assert self.file is not None
        start, end = self.file.line_span(first, last)
        return not self.file.text[start:end].strip()

    def validate(self) -> list[tuple[str, int, str, str]]:
        """Check the front matter and lock: ``(code, line, message, subject)``.

        The subject names what is wrong (``front matter``, a key such as
        ``kind``, ``missing: license``), for the finding's identity.
        """
        if self.file is None or self.front is None:
            return []
        fm = self.front
        if fm.error:
            return [("SC402", fm.error_line, fm.error, "front matter")]
        if fm.data is None:
            return [("SC401", 1, NO_FRONT_MATTER, "front matter")]
        out: list[tuple[str, int, str, str]] = []
        data = fm.data
        line_of = key_lines(self.file, fm.end_line)
        for key, line, first in fm.duplicates:
            out.append(("SC402", line, f"key {key!r} is given twice (first at line {first}); YAML would keep only this one", f"duplicate {key}"))
        missing = [k for k in REQUIRED_KEYS if data.get(k) in (None, "")]
        if missing:
            out.append(("SC402", 1, "front matter lacks " + ", ".join(missing), "missing: " + ", ".join(missing)))
        # A TODO left by ``evidence adopt`` (it could not tell the value): one finding for the file, never one per quote.
        todo = [k for k in REQUIRED_KEYS if isinstance(data.get(k), str) and data[k].strip().startswith("TODO")]
        if todo:
            notes = [data[k].strip()[4:].lstrip(" :") for k in todo]
            hint = "; ".join(n for n in notes if n)
            out.append((
                "SC402", line_of.get(todo[0], 1),
                f"front matter: {', '.join(todo)} still TODO; fill in what the source says" + (f" ({hint})" if hint else ""),
                "todo: " + ", ".join(todo),
            ))
        kind = data.get("kind")
        if kind not in (None, "") and kind not in KINDS:
            out.append(("SC402", line_of.get("kind", 1), f"kind {kind!r} is not one of {', '.join(KINDS)}", "kind"))
        retrieved = data.get("retrieved")
        if retrieved not in (None, "") and not _is_date(retrieved):
            out.append(("SC402", line_of.get("retrieved", 1), f"retrieved {retrieved!r} is not a date (YYYY-MM-DD)", "retrieved"))
        source = data.get("source")
        if isinstance(source, str) and source and "source" not in todo and not re.match(r"https?://", source):
            out.append(("SC402", line_of.get("source", 1), f"source {source!r} is not an http(s) URL", "source"))
        sha = data.get("sha256")
        if sha not in (None, ""):
            actual = self.lock_digest
            where = line_of.get("sha256", 1)
            if not isinstance(sha, str) or not _SHA.fullmatch(sha):
                out.append(("SC403", where, f"sha256 {sha!r} is not a lock; run: skillcite lock {self.rel}", "sha256"))
            elif sha == body_sha256(self.file.text, fm.body_offset) and sha != actual:
                out.append(("SC403", where, f"locked by an older skillcite that covered only the body; review the front matter, then run: skillcite lock {self.rel}", "sha256"))
            elif sha != actual:
                out.append(("SC403", where, f"file changed since its lock (sha256 {actual[:12]}..., locked {sha[:12]}...); review, then run: skillcite lock {self.rel}", "sha256"))
        return out

    @property
    def lock_digest(self) -> str:
        """The lock the file has now (:func:`lock_sha256`)."""
        assert self.file is not None and self.front is not None
        return lock_sha256(self.file, self.front)


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
