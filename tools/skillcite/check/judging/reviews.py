"""Recorded reviews of quotes that depart from verbatim (docs/citations.md, "Verified").

A quote whose words are the author's, verbatim at the cited lines, is
verified by the check alone. A quote with a departure (an elision, an
insertion, an editor's note, a changed first letter, a cut next to a word
that changes the sentence's force, or context that qualifies it) is
verified only once a person has reviewed it: ``skillcite review --accept
ID`` records that in the review file.

A review binds to what the reviewer was shown (:class:`Shown`): the
document and the quote's text (and which of identical quotes of that
document it is), the evidence file with its ``source`` and ``author``, the
source sentence(s) the quote stands for, the sentence before and after
them in their paragraph, the nearest heading above, the footnote's
attribution, and the departures found. The record shows every one of these
fields, so that its diff in a pull request is reviewable on its own, and
``key_sha256`` is the SHA-256 of exactly those fields: a record whose
visible fields are not what its hash certifies is refused. Any change to
any field is a new key, so the old review no longer applies, and the check
names what changed. Line numbers are no part of it: moving a quote, or the
cited lines with their anchor, keeps the review.

The file is JSON, committed with the package (default: ``reviews.json`` in
the first evidence folder; ``reviews`` in ``[tool.skillcite]`` names
another path inside the package); :func:`load_reviews` validates it
completely and refuses anything else with one line (exit 2).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ...core.config import Config
from ...core.regular import read_regular
from ...core.shown import shown
from ...core.textio import InputError

FORMAT_VERSION = 2
FILE_NAME = "reviews.json"
MAX_BYTES = 64 * 1024 * 1024  # a review file larger than this is refused, not parsed
MIGRATE_HINT = "run: skillcite review --migrate"

# What each field of the key is called in a message that says what changed.
_WHAT = {
    "quote": "the quote",
    "occurrence": "its place among identical quotes of the document",
    "evidence": "the evidence file",
    "source": "the evidence's source",
    "author": "the evidence's author",
    "cited": "the source sentence(s)",
    "before": "the sentence before",
    "after": "the sentence after",
    "heading": "the heading above",
    "attribution": "the footnote's attribution",
    "departures": "the departures found",
}
_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_WHO = 500  # characters, at most, of a reviewer's name


def review_path(root: Path, config: Config) -> Path:
    """Where the review file of the package at ``root`` is; InputError for one outside the package.

    Inside, the check's result cache sees every change to it (a stored
    result never outlives an edit of the reviews).
    """
    if not config.reviews:
        return root / config.evidence_folders[0] / FILE_NAME
    path = root / config.reviews
    top = os.path.abspath(root)
    if Path(config.reviews).is_absolute() or not os.path.abspath(path).startswith(top + os.sep):
        raise InputError(f"[tool.skillcite] reviews {config.reviews!r} is outside the package; name a file inside it")
    return path


def digest(text: str) -> str:
    """SHA-256 of text with whitespace collapsed (line wrapping is no change of words)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def collapse(text: str) -> str:
    """``text`` with whitespace collapsed, as every text field of a record is stored."""
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Shown:
    """What a reviewer is shown of one quote: the fields a review binds to (see the module)."""

    document: str
    quote: str
    occurrence: int
    evidence: str
    source: str
    author: str
    cited: str
    before: str
    after: str
    heading: str
    attribution: str
    departures: tuple[str, ...]

    def normalized(self) -> Shown:
        """The same fields with every text's whitespace collapsed."""
        texts = {f.name: collapse(getattr(self, f.name)) for f in fields(self) if isinstance(getattr(self, f.name), str)}
        return Shown(**texts, occurrence=self.occurrence, departures=tuple(collapse(d) for d in self.departures))

    @property
    def key(self) -> str:
        """The SHA-256 of every field, in a fixed order (the key of the review file)."""
        s = self.normalized()
        data = [getattr(s, f.name) if f.name != "departures" else list(s.departures) for f in fields(s)]
        return hashlib.sha256(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()

    @property
    def id(self) -> str:
        """The short identifier ``review`` prints and ``--accept`` takes."""
        return self.key[:12]

    def changes(self, other: Shown) -> list[str]:
        """The fields that differ from ``other``'s (names as :data:`_WHAT` gives them), in the key's order."""
        a, b = self.normalized(), other.normalized()
        return [f.name for f in fields(a) if f.name != "document" and getattr(a, f.name) != getattr(b, f.name)]


@dataclass(frozen=True, slots=True)
class Review:
    """One recorded acceptance of what :attr:`shown` holds."""

    shown: Shown
    accepted_by: str
    accepted_at: str
    bulk: bool

    @property
    def id(self) -> str:
        return self.shown.id

    @property
    def date(self) -> str:
        """The day of the acceptance (``YYYY-MM-DD``)."""
        return self.accepted_at[:10]

    def to_data(self) -> dict[str, Any]:
        """The record as written: what was shown first, in reading order, then who, when and how."""
        s = self.shown.normalized()
        return {
            "id": self.id,
            "document": s.document,
            "quote": s.quote,
            "occurrence": s.occurrence,
            "evidence": s.evidence,
            "source": s.source,
            "author": s.author,
            "heading": s.heading,
            "before": s.before,
            "cited": s.cited,
            "after": s.after,
            "attribution": s.attribution,
            "departures": list(s.departures),
            "accepted_by": self.accepted_by,
            "accepted_at": self.accepted_at,
            "bulk": self.bulk,
            "key_sha256": self.shown.key,
        }


RECORD_KEYS = ("id", *(f.name for f in fields(Shown)), "accepted_by", "accepted_at", "bulk", "key_sha256")


@dataclass(slots=True)
class Reviews:
    """The review file's records, by key, with the indexes that explain a review out of date."""

    path: Path
    records: dict[str, Review]
    _by_quote: dict[tuple[str, str], list[Review]] | None = field(default=None, repr=False)
    _by_cited: dict[tuple[str, str, str], list[Review]] | None = field(default=None, repr=False)

    def find(self, shown: Shown) -> Review | None:
        """The review that covers exactly ``shown``, or None."""
        return self.records.get(shown.key)

    def stale_reason(self, shown: Shown) -> str | None:
        """What changed since an earlier review of this quote, or None when there was none.

        An earlier review is one of the same quote in the same document, or
        else one of the same source sentence(s) of the same evidence file in
        that document (the quote was edited). Each lookup is a dictionary
        probe: the cost is linear in quotes plus records.
        """
        if self._by_quote is None or self._by_cited is None:
            self._by_quote, self._by_cited = {}, {}
            for r in self.records.values():
                s = r.shown.normalized()
                self._by_quote.setdefault((s.document, s.quote), []).append(r)
                self._by_cited.setdefault((s.document, s.evidence, s.cited), []).append(r)
        s = shown.normalized()
        earlier = self._by_quote.get((s.document, s.quote)) or self._by_cited.get((s.document, s.evidence, s.cited))
        if not earlier:
            return None
        changed = min((s.changes(r.shown) for r in earlier), key=len)
        if changed == ["occurrence"]:
            return None  # another quote identical to a reviewed one: new, not changed
        if "occurrence" in changed:
            changed.remove("occurrence")  # a place that moved along with a real change is not news
        names = [_WHAT[c] for c in changed]
        said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"{said} changed since its review"


def load_reviews(root: Path, config: Config) -> Reviews:
    """The review file of the package (empty when there is none); InputError when it cannot be trusted.

    Refused with one line: a file that is not a regular file or that leads
    out of the package, one that is not UTF-8 JSON (a BOM is accepted),
    duplicate keys, nesting deeper than a record needs, a version other
    than :data:`FORMAT_VERSION`, and any record with a field missing, extra,
    empty where it must not be, or of the wrong type, a date that is not
    one, or fields that disagree with its hash or its id.
    """
    path = review_path(root, config)
    where = _shown(path, root)
    if not os.path.lexists(path):
        return Reviews(path, {})
    real = os.path.realpath(path)
    top = os.path.realpath(root)
    if not real.startswith(top + os.sep):
        raise InputError(f"{where}: the review file leads outside the package (a symbolic link to {shown(real)}); commit a regular file")
    try:
        if os.stat(path).st_size > MAX_BYTES:
            raise InputError(f"{where}: the review file is larger than {MAX_BYTES // (1024 * 1024)} MiB; refused")
        data = read_regular(path)
    except InputError as exc:
        raise InputError(f"{where}: {str(exc).split(': ', 1)[-1]}") from None
    except OSError as exc:
        raise InputError(f"{where}: cannot read the review file ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: invalid review file: not UTF-8") from None
    records = parse_reviews(text.removeprefix("\ufeff"), where)
    return Reviews(path, records)


def parse_reviews(text: str, where: str) -> dict[str, Review]:
    """The records of a review file's text, by key; InputError naming ``where`` and the first problem."""
    data = _json(text, where)
    if not isinstance(data, dict):
        raise _invalid(where, "the top level is not a JSON object")
    version = data.get("version")
    if type(version) is int and version == 1:
        raise InputError(f"{where}: a version 1 review file (its reviews cover only the quote and the source sentence); {MIGRATE_HINT}")
    if type(version) is not int or version != FORMAT_VERSION:
        raise _invalid(where, f'"version" must be the number {FORMAT_VERSION}, not {_brief(version)}')
    extra = sorted(set(data) - {"version", "reviews"})
    if extra:
        raise _invalid(where, f"unknown top-level key {extra[0]!r}")
    items = data.get("reviews")
    if not isinstance(items, list):
        raise _invalid(where, '"reviews" must be a list of records')
    records: dict[str, Review] = {}
    for n, item in enumerate(items, 1):
        review = _record(item, f"record {n}", where)
        if review.shown.key in records:
            raise _invalid(where, f"record {n} repeats record {list(records).index(review.shown.key) + 1} (the same review twice)")
        records[review.shown.key] = review
    return records


def _json(text: str, where: str) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"duplicate key {key!r}")
            out[key] = value
        return out

    depth = _depth(text)
    if depth > 4:  # a file, a list, a record, its departures
        raise _invalid(where, f"nested {depth} levels deep; a review file needs 4")
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except ValueError as exc:
        raise _invalid(where, str(exc).split(": line")[0] if isinstance(exc, json.JSONDecodeError) else str(exc)) from None


def _depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings (one pass; json's recursion never meets a deep file)."""
    depth = most = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            most = max(most, depth)
        elif ch in "]}":
            depth -= 1
    return most


def _record(item: Any, name: str, where: str) -> Review:
    """One validated record."""
    if not isinstance(item, dict):
        raise _invalid(where, f"{name} is not a JSON object")
    missing = [k for k in RECORD_KEYS if k not in item]
    if missing:
        raise _invalid(where, f"{name} lacks {', '.join(repr(k) for k in missing)}")
    extra = sorted(set(item) - set(RECORD_KEYS))
    if extra:
        raise _invalid(where, f"{name} has an unknown key {extra[0]!r}")
    for f in fields(Shown):
        value = item[f.name]
        if f.name == "occurrence":
            if type(value) is not int or value < 1:
                raise _invalid(where, f"{name}: 'occurrence' must be a whole number >= 1, not {_brief(value)}")
        elif f.name == "departures":
            if not isinstance(value, list) or not value or not all(isinstance(d, str) and d.strip() for d in value):
                raise _invalid(where, f"{name}: 'departures' must be a non-empty list of texts")
        elif not isinstance(value, str):
            raise _invalid(where, f"{name}: {f.name!r} must be text, not {_brief(value)}")
        elif f.name in ("document", "quote", "evidence", "cited") and not value.strip():
            raise _invalid(where, f"{name}: {f.name!r} is empty")
    shown_ = Shown(
        item["document"], item["quote"], item["occurrence"], item["evidence"], item["source"], item["author"], item["cited"],
        item["before"], item["after"], item["heading"], item["attribution"], tuple(item["departures"]),
    )
    who, when, bulk = item["accepted_by"], item["accepted_at"], item["bulk"]
    if not isinstance(who, str) or not who.strip() or len(who) > _WHO or any(ord(c) < 32 for c in who):
        raise _invalid(where, f"{name}: 'accepted_by' must name who accepted it (one line of text)")
    if not isinstance(when, str) or not _is_time(when):
        raise _invalid(where, f"{name}: 'accepted_at' must be a UTC time like 2026-11-27T09:00:00Z, not {_brief(when)}")
    if type(bulk) is not bool:
        raise _invalid(where, f"{name}: 'bulk' must be true or false, not {_brief(bulk)}")
    key, rid = item["key_sha256"], item["id"]
    if key != shown_.key:
        raise _invalid(where, f"{name}: its fields are not what 'key_sha256' certifies (was the quote, the source or the context edited by hand?)")
    if rid != shown_.id:
        raise _invalid(where, f"{name}: 'id' is not the first 12 digits of 'key_sha256'")
    return Review(shown_, who, when, bulk)


def _is_time(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        dt.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return False
    return True


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _invalid(where: str, problem: str) -> InputError:
    return InputError(f"{where}: invalid review file: {problem}")


def _shown(path: Path, root: Path) -> str:
    try:
        return shown(path.relative_to(root).as_posix())
    except ValueError:
        return shown(str(path))


def render_reviews(reviews: Reviews) -> str:
    """The review file's text: records sorted (stable diffs), one field per line."""
    items = sorted(reviews.records.values(), key=lambda r: (r.shown.document, r.shown.evidence, r.shown.quote, r.shown.occurrence, r.id))
    return json.dumps({"version": FORMAT_VERSION, "reviews": [r.to_data() for r in items]}, indent=1, ensure_ascii=False) + "\n"


def save_reviews(reviews: Reviews) -> None:
    """Write the review file atomically."""
    text = render_reviews(reviews)
    import tempfile  # here only: a check reads reviews, never writes them

    reviews.path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".reviews-", suffix=".tmp", dir=reviews.path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, reviews.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class OldReview:
    """A version 1 record: what it was keyed by and who accepted it."""

    quote_sha256: str
    source_sha256: str
    document: str
    accepted_by: str
    accepted_at: str
    bulk: bool


def load_version_1(root: Path, config: Config) -> list[OldReview]:
    """The records of a version 1 review file, for ``review --migrate``; InputError for anything else."""
    path = review_path(root, config)
    where = _shown(path, root)
    try:
        if os.path.islink(path) or not path.is_file():
            raise InputError(f"{where}: not a regular file")
        text = read_regular(path).decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot read the review file ({exc})") from None
    data = _json(text, where)
    if not isinstance(data, dict) or type(data.get("version")) is not int or data.get("version") != 1 or not isinstance(data.get("reviews"), list):
        raise InputError(f"{where}: not a version 1 review file; nothing to migrate")
    out = []
    for n, item in enumerate(data["reviews"], 1):
        keys = ("quote_sha256", "source_sha256", "document", "accepted_by", "accepted_at")
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item[k] for k in keys) or type(item.get("bulk", False)) is not bool:
            raise _invalid(where, f"record {n} is not a version 1 record")
        if not _is_time(item["accepted_at"]):
            raise _invalid(where, f"record {n}: 'accepted_at' is not a UTC time")
        out.append(OldReview(item["quote_sha256"], item["source_sha256"], item["document"], item["accepted_by"], item["accepted_at"], item.get("bulk", False)))
    return out


def reviewer(root: Path) -> str:
    """Who accepts: the git author of the repository at ``root`` (name and mail), else the user name."""
    import subprocess  # here only: a check never asks who reviews

    try:
        out = subprocess.run(
            ["git", "-C", str(root), "var", "GIT_AUTHOR_IDENT"], capture_output=True, text=True, timeout=10, check=False
        )
        ident = out.stdout.strip()
        if out.returncode == 0 and ">" in ident:
            return ident[: ident.rindex(">") + 1]
    except (OSError, subprocess.SubprocessError):
        pass
    return os.environ.get("USER") or os.environ.get("USERNAME") or "unknown"
