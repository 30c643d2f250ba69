"""Configuration from ``[tool.skillcite]`` in the root's ``pyproject.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from fnmatch import fnmatch
from pathlib import Path

from .textio import InputError

DEFAULT_EXCLUDE = (".git/**", ".*/**", "**/node_modules/**", "**/.venv/**", "venv/**", "build/**", "dist/**")


@dataclass(slots=True)
class Config:
    """Settings, with defaults that fit the ml-debug repository itself.

    * ``evidence``: the folder of excerpt caches, relative to the root.
    * ``include`` / ``exclude``: globs (relative, ``/``-separated) choosing
      the Markdown files to check; the evidence folder is never parsed as
      documents.
    * ``content``: globs of files held to the quote rules (a blockquote
      needs a source); other files (README, docs) may quote freely.
    * ``skill_max_lines`` / ``skill_max_tokens``: the budget of each
      ``SKILL.md`` (tokens estimated as characters / 4).
    * ``toc`` / ``toc_min_lines``: reference files that must open with a
      table of contents once they are longer than this many lines.
    * ``repository``: the package's web address (``https://github.com/OWNER/REPO``),
      for links ``bundle`` cannot keep relative; defaults to ``project.urls``.
    * ``branch``: the branch those links point at.
    """

    evidence: str = "docs/evidence"
    include: list[str] = field(default_factory=lambda: ["**/*.md"])
    exclude: list[str] = field(default_factory=list)
    content: list[str] = field(default_factory=lambda: ["SKILL.md", "PLAYBOOK.md", "refs/**", "*/SKILL.md", "rl/**", "pinn/**"])
    skill_max_lines: int = 500
    skill_max_tokens: int = 5000
    toc: list[str] = field(default_factory=lambda: ["PLAYBOOK.md", "refs/**"])
    toc_min_lines: int = 100
    repository: str = ""
    branch: str = "main"

    def is_excluded(self, rel: str) -> bool:
        """True when ``rel`` matches a default or configured exclusion."""
        return any(glob_match(rel, g) for g in (*DEFAULT_EXCLUDE, *self.exclude))

    def is_included(self, rel: str) -> bool:
        """True when ``rel`` matches an include glob."""
        return any(glob_match(rel, g) for g in self.include)

    def is_content(self, rel: str) -> bool:
        """True when ``rel`` is held to the quote rules."""
        return any(glob_match(rel, g) for g in self.content)


def glob_match(rel: str, pattern: str) -> bool:
    """Glob match where ``**/`` may also match nothing (``**/*.md`` ~ ``a.md``)."""
    if fnmatch(rel, pattern):
        return True
    while pattern.startswith("**/"):
        pattern = pattern[3:]
        if fnmatch(rel, pattern):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Project:
    """What ``[project]`` in ``pyproject.toml`` says about the package, where it says it."""

    name: str | None = None
    version: str | None = None
    urls: dict[str, str] = field(default_factory=dict)

    def repository(self) -> str | None:
        """The source repository among ``project.urls`` (by the usual key names), else None."""
        by_key = {k.lower().replace("-", " ").replace("_", " "): v for k, v in self.urls.items()}
        for key in ("repository", "source", "source code", "code", "github", "homepage"):
            url = by_key.get(key)
            if url and url.startswith(("https://", "http://")):
                return url.rstrip("/")
        return None


def _pyproject(root: Path) -> dict:
    """The parsed ``root/pyproject.toml``; empty when there is none."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: invalid TOML: {exc}") from None


def load_project(root: Path) -> Project:
    """Name, version and URLs from ``[project]``; fields that are missing or mistyped stay empty."""
    table = _pyproject(root).get("project")
    if not isinstance(table, dict):
        return Project()
    name, version, urls = table.get("name"), table.get("version"), table.get("urls")
    return Project(
        name if isinstance(name, str) else None,
        version if isinstance(version, str) else None,
        {k: v for k, v in urls.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(urls, dict) else {},
    )


def load_config(root: Path) -> Config:
    """Read ``[tool.skillcite]`` from ``root/pyproject.toml`` if present."""
    path = root / "pyproject.toml"
    data = _pyproject(root)
    if not data:
        return Config()
    tool = data.get("tool", {})
    table = tool.get("skillcite", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise InputError(f"{path}: [tool.skillcite] must be a table")
    known = {f.name: f for f in fields(Config)}
    cfg = Config()
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in known:
            raise InputError(f"{path}: [tool.skillcite] has unknown key {key!r} (known: {', '.join(sorted(known))})")
        expected = type(getattr(cfg, name))
        if expected is list and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise InputError(f"{path}: [tool.skillcite] {key} must be a list of strings")
        if expected is not list and not isinstance(value, expected):
            raise InputError(f"{path}: [tool.skillcite] {key} must be a {expected.__name__}")
        setattr(cfg, name, value)
    return cfg
