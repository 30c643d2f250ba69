"""Diagnostics: the finding record and the registry of stable codes.

Codes never change meaning once released; ``docs/codes.md`` documents each
one with an example, and a test keeps that page and :data:`CODES` in step.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field

from .shown import one_line, shown


class Severity(enum.StrEnum):
    """How bad a finding is. ``--strict`` turns warnings into errors."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Code:
    """A stable diagnostic code with its default severity and one-line title."""

    code: str
    severity: Severity
    title: str


_E, _W = Severity.ERROR, Severity.WARNING

_ALL = [
        # Markdown structure
        Code("SC001", _E, "unclosed code fence"),
        Code("SC002", _E, "Markdown nested too deep to parse"),
        Code("SC003", _E, "document front matter cannot be read or repeats a key"),
        Code("SC004", _E, "folder cannot be read"),
        Code("SC005", _W, "inline suppression comment suppresses nothing"),
        Code("SC006", _W, "baseline entry matches no finding"),
        Code("SC009", _E, "inline suppression comment names no known code or no block"),
        # Footnotes
        Code("SC101", _E, "footnote reference without a definition"),
        Code("SC102", _W, "footnote defined but never referenced"),
        Code("SC103", _E, "footnote defined more than once"),
        # Cache links and anchors
        Code("SC201", _E, "cache link to a missing file"),
        Code("SC202", _E, "cache link outside the evidence folder"),
        Code("SC203", _E, "cache link to a file that is not UTF-8 text"),
        Code("SC204", _E, "anchor list cannot be parsed"),
        Code("SC205", _E, "anchor starts at line 0"),
        Code("SC206", _E, "anchor range is reversed"),
        Code("SC207", _E, "anchor runs past the end of the evidence file"),
        Code("SC208", _E, "anchor covers only blank lines"),
        Code("SC209", _W, "cache link without line anchors"),
        Code("SC210", _W, "anchor of a footnote no quote cites holds none of its label's words"),
        # Quotes
        Code("SC301", _E, "quote found elsewhere in its evidence file (moved)"),
        Code("SC302", _E, "quote differs from its source (altered)"),
        Code("SC303", _E, "quote not found in its evidence file"),
        Code("SC304", _E, "blockquote without a source"),
        Code("SC305", _E, "quote cites a footnote that has no cache link"),
        Code("SC306", _E, "quote from an evidence file of kind notes"),
        Code("SC307", _E, "quote holds text that cannot be verified"),
        Code("SC308", _E, "lone carriage return hides text from the check"),
        # Editorial marks (matching.py, _check_marks)
        Code("SC310", _W, "editorial insertion replaces nothing or sits inside a word"),
        Code("SC311", _W, "editorial mark adds or removes a negation"),
        Code("SC312", _W, "editorial mark changes a number"),
        Code("SC313", _W, "quote departs from verbatim and is not reviewed"),
        # Attribution (rules/attribution.py)
        Code("SC314", _E, "footnote URL is not its evidence's source"),
        Code("SC315", _E, "footnote names an author its evidence does not list"),
        # Evidence files
        Code("SC401", _E, "evidence file has no front matter"),
        Code("SC402", _E, "evidence front matter is invalid"),
        Code("SC403", _E, "evidence file changed since its lock"),
        Code("SC404", _W, "evidence file cited by nothing"),
        # Agent Skills front matter and budgets
        Code("SC501", _E, "SKILL.md front matter missing or not a mapping"),
        Code("SC502", _E, "SKILL.md name is invalid"),
        Code("SC503", _E, "SKILL.md name differs from its folder"),
        Code("SC504", _E, "SKILL.md description is invalid"),
        Code("SC505", _E, "SKILL.md front matter has an unknown or invalid key"),
        Code("SC506", _W, "SKILL.md over its line or token budget"),
        Code("SC507", _W, "long reference file without a table of contents"),
        # Local links
        Code("SC601", _E, "local link to a missing file"),
        Code("SC602", _E, "link to a missing #fragment"),
        Code("SC603", _E, "link or path leads outside the package"),
        Code("SC604", _E, "FIFO, device or socket where a file should be"),
        # Claude Code plugin manifests
        Code("SC701", _E, "plugin manifest is not a JSON object"),
        Code("SC702", _E, "plugin manifest field missing or invalid"),
        Code("SC703", _E, "manifest path not relative to the plugin"),
        Code("SC704", _E, "manifest path does not exist"),
        Code("SC705", _W, "plugin versions disagree"),
]

CODES: dict[str, Code] = {c.code: c for c in _ALL}
# Two families may not claim one code (a merge can add the same number twice).
if len(CODES) != len(_ALL):  # pragma: no cover - fails at import, loudly
    _dup = sorted({c.code for c in _ALL if sum(d.code == c.code for d in _ALL) > 1})
    raise RuntimeError(f"diagnostic codes defined twice: {', '.join(_dup)}")


@dataclass(frozen=True, slots=True)
class Fix:
    """A machine-applicable edit: replace ``old`` by ``new`` on ``line``."""

    line: int
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding, printed as ``path:line:col: CODE message``.

    ``path`` is relative to the checked root and uses forward slashes; lines
    and columns are 1-based.

    ``subject`` names what the finding is about, in words that survive edits
    elsewhere in the file: the quote's text, the footnote label, the link
    target, the anchor, the front-matter key. Together with ``code`` and
    ``path`` it makes the finding's :attr:`identity`, which never contains
    the message or a line number (see docs/codes.md, "Finding identity").
    """

    code: str
    path: str
    line: int
    column: int
    message: str
    severity: Severity = field(default=Severity.ERROR)
    fix: Fix | None = None
    subject: str = ""

    @classmethod
    def make(
        cls,
        code: str,
        path: str,
        line: int,
        column: int,
        message: str,
        fix: Fix | None = None,
        *,
        subject: str = "",
    ) -> Diagnostic:
        """Build a diagnostic with the default severity of ``code``."""
        return cls(code, path, max(line, 1), max(column, 1), message, CODES[code].severity, fix, subject)

    @property
    def identity(self) -> tuple[str, str, str]:
        """``(code, path, subject)``: what the finding is about, not where or how it is worded.

        Identities need not be unique (one quote may be altered twice in a
        file): compare collections of findings as multisets.
        """
        return (self.code, self.path, self.subject)

    @property
    def key(self) -> str:
        """A short stable hash of :attr:`identity` (16 hex digits), for baseline files."""
        data = "\x1f".join(self.identity).encode("utf-8", "surrogatepass")
        return hashlib.sha256(data).hexdigest()[:16]

    def sort_key(self) -> tuple[str, int, int, str]:
        """Order by file, then position, then code."""
        return (self.path, self.line, self.column, self.code)

    def format(self) -> str:
        """Return the ``path:line:col: CODE message`` line.

        A path with a newline, a control or a format character is printed
        quoted and escaped, and such characters in the message escaped: the
        line stays one line (in GitHub Actions, a line of its own could be a
        workflow command).
        """
        return f"{shown(self.path)}:{self.line}:{self.column}: {self.code} {one_line(self.message)}"


def subject_text(text: str) -> str:
    """A subject made from prose (a quote): whitespace runs become one space."""
    return " ".join(text.split())


def matches_prefix(code: str, prefixes: tuple[str, ...]) -> bool:
    """True when ``code`` starts with any of ``prefixes`` (flake8 style)."""
    return any(code.startswith(p) for p in prefixes)
