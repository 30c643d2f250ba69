"""Configuration from ``[tool.skillcite]`` in the root's ``pyproject.toml``."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeGuard

from .globs import covers_folder, glob_match
from .shown import shown
from .textio import InputError

# Hidden folders at any depth (.git, .venv, an agent install such as
# .claude/skills inside the tree), dependencies and build output.
DEFAULT_EXCLUDE = (".*/**", "**/.*/**", "**/node_modules/**", "venv/**", "build/**", "dist/**")


@dataclass(slots=True)
class Config:
    """Settings from ``[tool.skillcite]``; the defaults assume nothing about the repository.

    * ``evidence``: the folder of excerpt caches, or a list of folders,
      relative to the root. Left unset, ``docs/evidence`` and each
      sub-skill's own ``<sub-skill>/docs/evidence`` that exists.
    * ``include`` / ``exclude``: globs (relative to the root, ``/``-separated,
      gitignore-style: ``*`` stays within a folder, ``**`` crosses folders;
      :mod:`.globs`) choosing the Markdown files to check; evidence folders are never parsed as
      documents, hidden folders never walked.
    * ``content``: globs of files held to the quote rules (a blockquote
      needs a source); other files (README, docs) may quote freely. By
      default every ``SKILL.md`` and every Markdown file in a skill's
      ``references/`` folder (the Agent Skills layout).
    * ``skill_max_lines`` / ``skill_max_tokens``: the budget of each
      ``SKILL.md`` (tokens estimated as characters / 4).
    * ``toc`` / ``toc_min_lines``: reference files that must open with a
      table of contents once they are longer than this many lines.
    * ``repository``: the package's web address (``https://github.com/OWNER/REPO``),
      for links ``bundle`` cannot keep relative; defaults to ``project.urls``.
    * ``branch``: the branch those links point at.
    * ``select`` / ``ignore`` / ``strict`` / ``baseline``: what ``check``
      reports, as the command-line options of the same names (the command
      line wins); ``per_file_ignores`` maps a glob to codes ignored there.
    * ``reviews``: the review file of quotes that depart from verbatim
      (default: ``reviews.json`` in the first evidence folder).
    * ``bulk_reviews_until``: a date (``YYYY-MM-DD``); a bulk acceptance
      (``review --accept-all``) recorded after that day covers nothing, so
      quotes added later must be reviewed one by one ("" for no limit).
    """

    evidence: str | list[str] = "docs/evidence"
    include: list[str] = field(default_factory=lambda: ["**/*.md"])
    exclude: list[str] = field(default_factory=list)
    content: list[str] = field(default_factory=lambda: ["**/SKILL.md", "**/references/**"])
    skill_max_lines: int = 500
    skill_max_tokens: int = 5000
    toc: list[str] = field(default_factory=list)
    toc_min_lines: int = 100
    repository: str = ""
    branch: str = "main"
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    strict: bool = False
    baseline: str = ""
    reviews: str = ""
    bulk_reviews_until: str = ""
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    # Not a setting: ``install`` sets it to check a copy. Each copied file's path
    # in the package, so that reviews (keyed by package paths) cover the copy.
    package_paths: dict[str, str] = field(default_factory=dict, metadata={"setting": False})

    @property
    def evidence_folders(self) -> list[str]:
        """The evidence folders, as a list (``evidence`` may name one or several)."""
        return [self.evidence] if isinstance(self.evidence, str) else list(self.evidence)

    def ignored_here(self, rel: str) -> list[str]:
        """Codes (or prefixes) that ``per_file_ignores`` switches off for ``rel``."""
        return [code for glob, codes in self.per_file_ignores.items() if glob_match(rel, glob) for code in codes]

    def is_excluded(self, rel: str) -> bool:
        """True when ``rel`` matches a default or configured exclusion."""
        return any(glob_match(rel, g) for g in (*DEFAULT_EXCLUDE, *self.exclude))

    def excludes_folder(self, rel: str) -> bool:
        """True when an exclusion covers every path under the folder ``rel``, so a walk need not enter it."""
        return any(covers_folder(rel, g) for g in (*DEFAULT_EXCLUDE, *self.exclude))

    def is_included(self, rel: str) -> bool:
        """True when ``rel`` matches an include glob."""
        return any(glob_match(rel, g) for g in self.include)

    def is_document(self, rel: str) -> bool:
        """True when ``rel`` is a Markdown document to check.

        Files named ``.md``, ``.MD``, ``.markdown`` or ``.mdx`` (any case) are
        Markdown: each is matched against the globs both as named and as if it
        ended in ``.md``, so ``**/*.md`` takes ``NOTES.MD`` too and an
        exclusion of ``notes.md`` leaves out ``notes.markdown`` as well.
        """
        names = [rel]
        alias = markdown_alias(rel)
        if alias is not None:
            names.append(alias)
        return any(self.is_included(n) for n in names) and not any(self.is_excluded(n) for n in names)

    def is_content(self, rel: str) -> bool:
        """True when ``rel`` is held to the quote rules."""
        return any(glob_match(rel, g) for g in self.content)


MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


def is_markdown_name(name: str) -> bool:
    """True for a file name with a Markdown suffix, in any case (``a.md``, ``B.MD``, ``c.markdown``, ``d.mdx``)."""
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def markdown_alias(rel: str) -> str | None:
    """``rel`` with its Markdown suffix spelled ``.md``; None when it has none."""
    lower = rel.lower()
    for suffix in MARKDOWN_SUFFIXES:
        if lower.endswith(suffix):
            return rel[: len(rel) - len(suffix)] + ".md"
    return None


def sub_skill_folders(root: Path, config: Config) -> list[str]:
    """The sub-skills of the package at ``root``: top-level folders holding a ``SKILL.md``, sorted.

    Hidden folders and folders whose ``SKILL.md`` the configuration
    excludes are not sub-skills. ``install`` installs each as a skill of its
    own; ``bundle --include`` offers each by its folder name.
    """
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and (p / "SKILL.md").is_file())
    except OSError as exc:
        raise InputError(f"{shown(str(root))}: cannot list ({exc.strerror or exc})") from None
    return [p.name for p in folders if not p.name.startswith(".") and not config.is_excluded(f"{p.name}/SKILL.md")]


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


def _pyproject(root: Path) -> dict[str, Any]:
    """The parsed ``root/pyproject.toml``; empty when there is none."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{shown(str(path))}: invalid TOML: {exc}") from None


def load_project(root: Path) -> Project:
    """Name, version and URLs from ``[project]``; fields that are missing or mistyped stay empty."""
    data = _pyproject(root)
    table = data.get("project")
    if not isinstance(table, dict):
        return Project()
    name, version, urls = table.get("name"), table.get("version"), table.get("urls")
    if version is None and "version" in (table.get("dynamic") or []):
        version = _dynamic_version(root, data)
    return Project(
        name if isinstance(name, str) else None,
        version if isinstance(version, str) else None,
        {k: v for k, v in urls.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(urls, dict) else {},
    )


def _dynamic_version(root: Path, data: dict[str, Any]) -> str | None:
    """A version setuptools reads from a module (``[tool.setuptools.dynamic] version = {attr = "pkg.__version__"}``).

    Read the way setuptools first tries it, without importing: the module
    file is found through ``package-dir`` and its assignment of a string
    literal to the attribute is read. None when any of that is missing.
    """
    tool = data.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    if not isinstance(setuptools, dict):
        return None
    dynamic = setuptools.get("dynamic")
    spec = dynamic.get("version") if isinstance(dynamic, dict) else None
    attr = spec.get("attr") if isinstance(spec, dict) else None
    if not isinstance(attr, str) or "." not in attr:
        return None
    module, _, name = attr.rpartition(".")
    dirs = setuptools.get("package-dir")
    dirs = dirs if isinstance(dirs, dict) else {}
    base = root / str(dirs.get("", "."))
    parts = module.split(".")
    candidates = [base.joinpath(*parts, "__init__.py"), base.joinpath(*parts[:-1], parts[-1] + ".py")]
    import ast  # here only: most projects name their version without a module to read

    for path in candidates:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(target, ast.Name) and target.id == name for target in node.targets)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                return node.value.value
    return None


def load_config(root: Path) -> Config:
    """Read ``[tool.skillcite]`` from ``root/pyproject.toml`` if present."""
    path = root / "pyproject.toml"
    data = _pyproject(root)
    if not data:
        return _with_sub_skill_evidence(root, Config())
    tool = data.get("tool", {})
    table = tool.get("skillcite", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise InputError(f"{shown(str(path))}: [tool.skillcite] must be a table")
    known = {f.name for f in fields(Config) if f.metadata.get("setting", True)}
    cfg = Config()
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in known:
            raise InputError(f"{shown(str(path))}: [tool.skillcite] has unknown key {key!r} (known: {', '.join(sorted(known))})")
        problem = _type_problem(name, value, getattr(cfg, name))
        if problem:
            raise InputError(f"{shown(str(path))}: [tool.skillcite] {key} must be {problem}")
        setattr(cfg, name, value)
    for folder in cfg.evidence_folders:
        problem = _outside_root(root, folder)
        if problem:
            raise InputError(f"{shown(str(path))}: [tool.skillcite] evidence {folder!r} {problem}; name a folder inside the package")
    if "evidence" not in table:
        cfg = _with_sub_skill_evidence(root, cfg)
    return cfg


def _with_sub_skill_evidence(root: Path, cfg: Config) -> Config:
    """``cfg`` with each sub-skill's own ``docs/evidence`` added to the default evidence folder.

    A sub-skill (``rl/SKILL.md``) that keeps its sources beside it, in
    ``rl/docs/evidence``, is laid out as the package is: without this its
    excerpts would be checked as documents and its cache links reported as
    leading outside the evidence folder. Only when ``evidence`` is not set:
    a configured list is taken as written.
    """
    try:
        subs = [f"{name}/docs/evidence" for name in sub_skill_folders(root, cfg)]
    except InputError:
        return cfg  # an unlistable root: discovery reports it
    found = [f for f in subs if (root / f).is_dir() and _outside_root(root, f) is None]
    if found:
        cfg.evidence = [*cfg.evidence_folders, *found]
    return cfg


def _outside_root(root: Path, folder: str) -> str | None:
    """Why the configured ``folder`` leaves ``root`` (absolute, ``..``, or a symlink out), or None.

    ``check`` reads every file of an evidence folder and ``install`` copies
    it: ``evidence = "/"`` would read the whole file system.
    """
    from .paths import is_absolute_target, outside_target
    from .textio import resolve

    if is_absolute_target(folder):
        return "is an absolute path"
    if ".." in folder.replace("\\", "/").split("/"):
        return "points outside the package root"
    real = outside_target(root / folder, resolve(root))
    return None if real is None else f"leads outside the package root (to {real})"


def _is_day(value: str) -> bool:
    """True for a date written ``YYYY-MM-DD`` that exists."""
    import datetime as dt
    import re

    if not re.fullmatch(r"\d{4}-\d\d-\d\d", value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _type_problem(name: str, value: object, default: object) -> str | None:
    """What ``value`` should have been for the key ``name``, or None when it fits."""
    if name == "evidence":
        ok = (isinstance(value, str) and value != "") or (_is_strings(value) and bool(value) and all(value))
        return None if ok else "a folder or a non-empty list of folders"
    if name == "bulk_reviews_until":
        ok = isinstance(value, str) and (value == "" or _is_day(value))
        return None if ok else "a date written YYYY-MM-DD"
    if name == "per_file_ignores":
        ok = isinstance(value, dict) and all(isinstance(k, str) and _is_strings(v) for k, v in value.items())
        return None if ok else 'a table of glob = ["CODE", ...]'
    if isinstance(default, list):
        return None if _is_strings(value) else "a list of strings"
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else "a whole number >= 0"
    return None if isinstance(value, type(default)) else f"a {type(default).__name__}"


def find_root(start: Path) -> tuple[Path, str]:
    """The package root for a command run in ``start``, and why it was chosen.

    The nearest folder at or above ``start`` whose ``pyproject.toml`` has a
    ``[tool.skillcite]`` table; else the top of the git work tree that holds
    ``start``; else ``start`` itself. Running ``check`` from a sub-folder or
    an unrelated parent then checks the package, not a slice of it. (The
    search itself is :func:`skillcite.core.rootfind.find_root`, which a warm
    check calls without importing this module.)
    """
    from .rootfind import find_root as find

    found, why = find(os.fspath(start))
    return Path(found), why


def gitignore_globs(root: Path) -> list[str]:
    """The patterns of ``root/.gitignore`` as globs of this module (negations and comments left out).

    ``venv1/`` becomes ``venv1/**`` and ``**/venv1/**``; ``/build`` only
    ``build/**`` (anchored); ``*.log`` matches at any depth. Enough to keep a
    check out of what the repository itself declares is not its content.
    """
    try:
        text = (root / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        anchored = line.startswith("/") or "/" in line.rstrip("/")
        pattern = line.strip("/")
        if not pattern:
            continue
        out.append(pattern)
        out.append(f"{pattern}/**")
        if not anchored:
            out.extend((f"**/{pattern}", f"**/{pattern}/**"))
    return out
