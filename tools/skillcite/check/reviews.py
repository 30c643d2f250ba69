"""Recorded reviews of quotes that depart from verbatim (docs/citations.md, "Verified").

A quote whose words are the author's, verbatim at the cited lines, is
verified by the check alone. A quote with a departure (an elision, an
insertion, an editor's note, a changed first letter, or a cut next to a
word that changes the sentence's force) is verified only once a person has
reviewed it: ``skillcite review --accept ID`` records that in the review
file, keyed by the SHA-256 of the quote's text and of the source sentence(s)
it stands for. Any change to either side is a new key, so the old review no
longer applies.

The file is JSON, committed with the package (default: ``reviews.json`` in
the first evidence folder; ``reviews`` in ``[tool.skillcite]`` names
another path)::

    {"version": 1, "reviews": [
      {"id": "3f2a9c1e07b4", "quote_sha256": "...", "source_sha256": "...",
       "document": "SKILL.md", "evidence": "docs/evidence/x.md",
       "quote": "...", "accepted_by": "Name <mail>", "accepted_at": "2026-11-27T09:00:00Z",
       "bulk": false}]}
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.config import Config
from ..core.shown import shown
from ..core.textio import InputError

FORMAT_VERSION = 1
FILE_NAME = "reviews.json"


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


def review_id(quote_sha: str, source_sha: str) -> str:
    """The short identifier ``review`` prints and ``--accept`` takes."""
    return hashlib.sha256(f"{quote_sha}:{source_sha}".encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Review:
    """One recorded acceptance."""

    quote_sha256: str
    source_sha256: str
    document: str
    evidence: str
    quote: str
    accepted_by: str
    accepted_at: str
    bulk: bool

    @property
    def id(self) -> str:
        return review_id(self.quote_sha256, self.source_sha256)

    def to_data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "quote_sha256": self.quote_sha256,
            "source_sha256": self.source_sha256,
            "document": self.document,
            "evidence": self.evidence,
            "quote": self.quote,
            "accepted_by": self.accepted_by,
            "accepted_at": self.accepted_at,
            "bulk": self.bulk,
        }


@dataclass(slots=True)
class Reviews:
    """The review file's records, by (quote hash, source hash)."""

    path: Path
    records: dict[tuple[str, str], Review]

    def has(self, quote_sha: str, source_sha: str) -> bool:
        return (quote_sha, source_sha) in self.records

    def stale_reason(self, quote_sha: str, source_sha: str, document: str) -> str | None:
        """Why an earlier review of this quote no longer applies, or None when there was none."""
        for (q, s), r in self.records.items():
            if q == quote_sha and s != source_sha:
                return "the source changed since its review"
            if s == source_sha and q != quote_sha and r.document == document:
                return "the quote changed since its review"
        return None


def load_reviews(root: Path, config: Config) -> Reviews:
    """The review file of the package (empty when there is none); InputError when it cannot be read."""
    path = review_path(root, config)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Reviews(path, {})
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{_shown(path, root)}: cannot read the review file ({exc})") from exc
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION or not isinstance(data.get("reviews"), list):
            raise ValueError(f"not a version {FORMAT_VERSION} review file")
        records = {}
        for item in data["reviews"]:
            r = Review(
                _text(item, "quote_sha256"), _text(item, "source_sha256"), _text(item, "document"), _text(item, "evidence"),
                _text(item, "quote"), _text(item, "accepted_by"), _text(item, "accepted_at"), bool(item.get("bulk", False)),
            )
            records[(r.quote_sha256, r.source_sha256)] = r
    except (ValueError, TypeError, AttributeError) as exc:
        raise InputError(f"{_shown(path, root)}: invalid review file: {exc}") from exc
    return Reviews(path, records)


def _text(item: Any, key: str) -> str:
    value = item[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is not text")
    return value


def _shown(path: Path, root: Path) -> str:
    try:
        return shown(path.relative_to(root).as_posix())
    except ValueError:
        return shown(str(path))


def save_reviews(reviews: Reviews) -> None:
    """Write the review file atomically, records sorted (stable diffs)."""
    items = sorted(reviews.records.values(), key=lambda r: (r.document, r.evidence, r.quote, r.id))
    text = json.dumps({"version": FORMAT_VERSION, "reviews": [r.to_data() for r in items]}, indent=1, ensure_ascii=False) + "\n"
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
