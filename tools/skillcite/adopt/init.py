"""``skillcite init``: a ``[tool.skillcite]`` table fitted to the repository it finds.

It looks, it does not guess: the skill files are the ``SKILL.md`` files
found; the evidence folders are the folders that footnote definitions link
to with line anchors (or with a link labelled ``cache``); the content files,
held to the quote rules, are the skill files and the Markdown files they link
to. Folders of test fixtures that hold a ``SKILL.md``, and files written by
``skillcite bundle``, are excluded. Every decision is returned as a sentence,
so the command can print what it decided and why.
"""

from __future__ import annotations

import os
import posixpath
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from ..check.parsing.workspace import BUNDLE_MARK
from ..core.errors import UsageError
from ..core.globs import glob_match
from ..core.textio import atomic_write
from .provenance import EVIDENCE_FOLDER_NAMES, evidence_reason

# Folders never walked: hidden ones (installs such as .claude/skills live
# there), dependencies and build output.
_SKIP_DIRS = {"node_modules", "venv", "build", "dist", "__pycache__", "site-packages"}
_FIXTURE_DIRS = {"tests", "test", "fixtures", "testdata", "examples"}
_DEFINITION = re.compile(r"^\[\^[^\]\s]+\]:(?P<rest>.*)$", re.MULTILINE)
_LINK = re.compile(r"\[(?P<text>[^\]\n]*)\]\((?P<target>[^()\s#]+\.(?:md|markdown|txt))(?P<fragment>#L\d+[^)\s]*)?\)")
_ANCHOR_AFTER = re.compile(r"\s*:\s*[^;()\n]*\bL\d")
_MD_LINK = re.compile(r"\]\((?P<target>[^()\s#]+\.md)(?:#[^)\s]*)?\)")


@dataclass(slots=True)
class InitPlan:
    """The settings ``init`` chose for one repository, with its reasons."""

    root: Path
    skills: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    content: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)

    def table(self) -> str:
        """The ``[tool.skillcite]`` TOML table for these settings."""
        lines = ["[tool.skillcite]"]
        if len(self.evidence) == 1:
            lines.append(f"evidence = {_toml_str(self.evidence[0])}")
        else:
            lines.append(f"evidence = {_toml_list(self.evidence)}")
        lines.append(f"content = {_toml_list(self.content)}")
        if self.exclude:
            lines.append(f"exclude = {_toml_list(self.exclude)}")
        return "\n".join(lines) + "\n"


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(_toml_str(v) for v in values) + "]"


def _walk_markdown(root: Path) -> list[Path]:
    """Markdown files below ``root``, outside hidden and dependency folders."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        found.extend(Path(dirpath) / f for f in sorted(filenames) if f.lower().endswith(".md"))
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def plan_init(root: Path) -> InitPlan:
    """Look at ``root`` and decide the settings (nothing is written)."""
    root = root.resolve()
    plan = InitPlan(root)
    files = _walk_markdown(root)
    rel = {p: p.relative_to(root).as_posix() for p in files}
    texts = {p: _read(p) for p in files}

    bundles = sorted(rel[p] for p in files if BUNDLE_MARK.match(texts[p]))
    for b in bundles:
        plan.exclude.append(b)
        plan.decisions.append(f"exclude {b}: written by skillcite bundle")

    fixture_dirs: set[str] = set()
    for p in files:
        if p.name != "SKILL.md" or rel[p] in bundles:
            continue
        parts = rel[p].split("/")
        fixture = next((i for i, part in enumerate(parts[:-1]) if part.lower() in _FIXTURE_DIRS), None)
        if fixture is not None:
            fixture_dirs.add("/".join(parts[: fixture + 1]))
            continue
        plan.skills.append(rel[p])
    for d in sorted(fixture_dirs):
        plan.exclude.append(f"{d}/**")
        plan.decisions.append(f"exclude {d}/**: SKILL.md files there look like test fixtures or examples")
    if plan.skills:
        plan.decisions.append(f"skill files: {', '.join(plan.skills)}")
    else:
        plan.decisions.append("no SKILL.md found: content falls back to every Markdown file")

    # Evidence: folders that footnote definitions cite with line anchors ...
    cited: Counter[str] = Counter()
    for p in files:
        for definition in _DEFINITION.finditer(texts[p]):
            rest = definition.group("rest")
            for m in _LINK.finditer(rest):
                anchored = m.group("fragment") or _ANCHOR_AFTER.match(rest, m.end()) or m.group("text").strip().lower() == "cache"
                if not anchored or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", m.group("target")):
                    continue
                target = (p.parent / unquote(m.group("target"))).resolve()
                if root in target.parents and target.is_file():
                    cited[target.parent.relative_to(root).as_posix()] += 1
    excluded = tuple(e.removesuffix("**") for e in plan.exclude if e.endswith("/**"))
    # ... and folders that are evidence by what their files are.
    by_content = _evidence_by_content(files, texts, rel, excluded, set(cited), plan)
    chosen: dict[str, str] = {}
    for d in sorted(cited):
        if not d.startswith(excluded):
            chosen[d] = f"{cited[d]} anchored citation(s) point into it"
    for d, reason in by_content.items():
        chosen.setdefault(d, reason)
    # A folder inside another evidence folder is read with it (evidence is walked at any depth).
    for d in sorted(chosen):
        outer = next((o for o in chosen if o != d and d.startswith(o + "/")), None)
        if outer is not None:
            plan.decisions.append(f"evidence folder {d}: inside {outer}, which is read at any depth ({chosen[d]})")
    plan.evidence = sorted(d for d in chosen if not any(o != d and d.startswith(o + "/") for o in chosen))
    for d in plan.evidence:
        plan.decisions.append(f"evidence folder {d}: {chosen[d]}")
    if not plan.evidence:
        plan.evidence = ["docs/evidence"]
        plan.decisions.append("no anchored citations and no folder of cached sources found: evidence folder left at docs/evidence (create it, or edit the setting)")

    # Content: the skill folders and the Markdown files they link to, as globs, so
    # that a file added later is held to the quote rules without init --force.
    content: set[str] = set()
    linked: set[str] = set()
    folders = sorted({posixpath.dirname(skill) for skill in plan.skills})
    for skill in plan.skills:
        folder = posixpath.dirname(skill)
        content.add(f"{folder}/**" if folder else skill)
        skill_path = root / skill
        for m in _MD_LINK.finditer(texts.get(skill_path, "")):
            target = (skill_path.parent / unquote(m.group("target"))).resolve()
            if root in target.parents and target.is_file():
                t = target.relative_to(root).as_posix()
                if any(t.startswith(e.rstrip("/") + "/") for e in plan.evidence):
                    continue
                linked.add(t)
                if any(f and t.startswith(f + "/") for f in folders):
                    continue  # inside a skill folder: its glob holds it
                where = posixpath.dirname(t)
                content.add(f"{where}/*.md" if where else t)
    plan.content = sorted(content) if content else ["**/*.md"]
    if plan.skills and not chosen:
        # Nothing here cites or caches a source: a blockquote is a callout, an
        # example or a message to say, never a quotation to source, so no file is
        # held to the quote rules until sources are cached.
        plan.content = []
        plan.decisions.append(
            "content (quote rules apply): none: no cited or cached sources found, so a blockquote needs no source here;"
            " once you cache sources, run skillcite init --force to hold the skills and the files they link to to the quote rules"
        )
        return plan
    if plan.skills:
        plan.decisions.append(
            f"content (quote rules apply): {', '.join(plan.content)}: the {len(plan.skills)} skill(s) and the {len(linked)} Markdown file(s) they link to, "
            "as globs, so files added later are covered too"
        )
    inside = [d for d in plan.evidence if any(glob_match(d + "/x.md", g) for g in plan.content)]
    if inside:
        plan.decisions.append(f"evidence is never content: {', '.join(inside)} stay(s) evidence although a content glob covers it")
    return plan


def _evidence_by_content(
    files: list[Path], texts: dict[Path, str], rel: dict[Path, str], excluded: tuple[str, ...], cited: set[str], plan: InitPlan
) -> dict[str, str]:
    """Folders that hold cached sources by what their files are: folder -> reason.

    A folder named ``evidence``, ``sources``, ``references`` or ``cache`` (a
    leading ``_`` allowed) whose Markdown files, at any depth, are mostly
    cached sources is evidence. Every other folder holding such files, and
    every such name holding too few, is left out with its reason in
    ``plan.decisions``, so a folder is never dropped in silence.
    """
    per_folder: dict[str, list[tuple[str, str | None]]] = {}
    for p in files:
        if p.name in ("README.md", "SKILL.md") or rel[p].startswith(excluded):
            continue
        reason = evidence_reason(texts[p])
        per_folder.setdefault(posixpath.dirname(rel[p]), []).append((rel[p], reason))
    chosen: dict[str, str] = {}
    # Every folder and its parents: a named folder may hold its files only in sub-folders (_sources/<site>/...).
    ancestors = {"/".join(d.split("/")[: k + 1]) for d in per_folder if d for k in range(d.count("/") + 1)}
    named = sorted(d for d in ancestors if _is_named(d))
    # A named folder counts its whole subtree (a cache of pages kept in sub-folders).
    for d in named:
        if any(d.startswith(o + "/") for o in chosen) or any(d == c or d.startswith(c + "/") for c in cited):
            continue
        found = [item for f, items in per_folder.items() if f == d or f.startswith(d + "/") for item in items]
        sources = [reason for _f, reason in found if reason]
        if found and 2 * len(sources) >= len(found):
            kinds = Counter(sources).most_common(2)
            chosen[d] = f"named {posixpath.basename(d)}/ and {len(sources)} of its {len(found)} Markdown file(s) are cached sources ({'; '.join(k for k, _ in kinds)})"
        else:
            plan.decisions.append(
                f"left out {d}: named like an evidence folder, but only {len(sources)} of its {len(found)} Markdown file(s) are cached sources"
                " (front matter with source, or a Source:/URL Source: header); it stays content where a content glob covers it"
            )
    for d, items in sorted(per_folder.items()):
        sources = [f for f, reason in items if reason]
        covered = (*chosen, *named, *cited)
        if not sources or any(d == o or d.startswith(o + "/") for o in covered):
            continue
        plan.decisions.append(
            f"left out {d or '.'}: {len(sources)} of its {len(items)} Markdown file(s) look like cached sources ({sources[0]}...), but the folder is not"
            " named evidence, sources, references or cache and no footnote cites it with line anchors; add it to evidence if it is one"
        )
    return chosen


def _is_named(folder: str) -> bool:
    return posixpath.basename(folder).lower().lstrip("_") in EVIDENCE_FOLDER_NAMES


def write_table(plan: InitPlan, force: bool = False) -> Path:
    """Add the table to ``pyproject.toml`` (created if missing); return its path.

    An existing ``[tool.skillcite]`` table is kept unless ``force`` is given,
    in which case it is replaced; every other byte of the file stays.
    """
    path = plan.root / "pyproject.toml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    if "skillcite" in data.get("tool", {}):
        if not force:
            raise UsageError(f"{path}: already has [tool.skillcite]; use --force to replace it")
        text = _drop_table(text)
    if text and not text.endswith("\n"):
        text += "\n"
    text += ("\n" if text else "") + plan.table()
    atomic_write(path, text.encode("utf-8"))
    return path


def _drop_table(text: str) -> str:
    """``text`` without the ``[tool.skillcite]`` table (up to the next table header)."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    skipping = False
    for line in lines:
        header = re.match(r"\s*\[\[?([^\]]+)\]", line)
        if header:
            skipping = header.group(1).strip() in ("tool.skillcite",) or header.group(1).strip().startswith("tool.skillcite.")
        if not skipping:
            out.append(line)
    return "".join(out).rstrip("\n") + "\n"
