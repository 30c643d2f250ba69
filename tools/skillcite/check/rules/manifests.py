"""SC701-SC705: Claude Code plugin manifests: ``.claude-plugin/plugin.json`` and ``marketplace.json``.

``/plugin marketplace add OWNER/REPO`` reads the marketplace, then each
plugin's manifest; a typo in either fails only when a user tries to install.
This module checks what can be checked offline: the JSON parses, required
fields are there with the right types, names are kebab-case, every path is
relative (``./``), stays inside the plugin and exists, skill paths hold a
``SKILL.md``, and the versions agree with each other and with
``pyproject.toml``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.config import load_project
from ...core.diagnostics import Diagnostic
from ..parsing.workspace import Workspace
from .base import Rule
from .skills import KEBAB

PLUGIN = ".claude-plugin/plugin.json"
MARKETPLACE = ".claude-plugin/marketplace.json"
PATH_FIELDS = ("skills", "commands", "agents", "hooks", "mcpServers", "outputStyles")

Finding = tuple[str, str, int, int, str, str]  # code, file, line, column, message, subject


@dataclass(slots=True)
class Manifest:
    """One parsed manifest and its text, for positions."""

    rel: str
    text: str
    data: dict[str, Any]

    def at(self, needle: Any, after: str | None = None, nth: int = 1) -> tuple[int, int]:
        """Line and column of ``needle`` written as JSON (``"name"``, ``"./rl"``); 1:1 if absent.

        ``after`` starts the search at that key (``"plugins"``); ``nth`` picks
        a later occurrence, for a value that repeats.
        """
        offset = self.text.find(json.dumps(after)) if after else 0
        for _ in range(nth):
            offset = self.text.find(json.dumps(needle, ensure_ascii=False), max(offset, 0) + (1 if _ else 0))
        if offset < 0:
            return 1, 1
        return self.text.count("\n", 0, offset) + 1, offset - (self.text.rfind("\n", 0, offset) + 1) + 1


def load(root: Path, rel: str) -> tuple[Manifest | None, list[Finding]]:
    """Parse one manifest; SC701 when it is not a JSON object."""
    path = root / rel
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [("SC701", rel, 1, 1, f"cannot read the manifest: {exc}", "manifest")]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [("SC701", rel, exc.lineno, exc.colno, f"invalid JSON: {exc.msg}", "manifest")]
    if not isinstance(data, dict):
        return None, [("SC701", rel, 1, 1, "the manifest must be a JSON object", "manifest")]
    return Manifest(rel, text, data), []


def _name(m: Manifest, value: Any, what: str, near: str = "name") -> Iterator[Finding]:
    """A required kebab-case name; a missing one is reported at the key ``near``."""
    if not isinstance(value, str) or not value:
        yield ("SC702", m.rel, *m.at(near), f"{what} is required and must be a non-empty string", what)
    elif not KEBAB.fullmatch(value):
        yield ("SC702", m.rel, *m.at(value), f"{what} {value!r} must be kebab-case (a-z, 0-9, single hyphens)", what)


def _paths(value: Any) -> list[str] | None:
    """The path strings of a component field; None when it has the wrong type."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def check_path(m: Manifest, base: Path, root: Path, value: str, what: str, skills: bool = False) -> Iterator[Finding]:
    """A plugin-relative path: starts with ./, stays inside ``base``, exists (and holds skills)."""
    pos = m.at(value)
    if not value.startswith("./"):
        yield ("SC703", m.rel, *pos, f"{what} {value!r} must be relative to the plugin and start with ./", f"{what} {value}")
        return
    target = (base / value).resolve()
    if target != base.resolve() and base.resolve() not in target.parents:
        yield ("SC703", m.rel, *pos, f"{what} {value!r} leaves the plugin folder", f"{what} {value}")
        return
    shown = target.relative_to(root.resolve()).as_posix() if root.resolve() in [target, *target.parents] else str(target)
    if not target.exists():
        yield ("SC704", m.rel, *pos, f"{what} {value!r}: {shown or '.'} does not exist", f"{what} {value}")
    elif skills and not ((target / "SKILL.md").is_file() or any(target.glob("*/SKILL.md"))):
        yield ("SC704", m.rel, *pos, f"{what} {value!r}: no SKILL.md in {shown or '.'} or its subfolders", f"{what} {value}")


def check_components(m: Manifest, entry: dict[str, Any], base: Path, root: Path, where: str) -> Iterator[Finding]:
    """The component path fields (skills, commands, agents, ...) of a plugin or marketplace entry."""
    for key in PATH_FIELDS:
        if key not in entry:
            continue
        value = entry[key]
        if key in ("hooks", "mcpServers") and isinstance(value, dict):
            continue  # inline configuration, not a path
        paths = _paths(value)
        if paths is None:
            yield ("SC702", m.rel, *m.at(key), f"{where}{key} must be a path or a list of paths", f"{where}{key}")
            continue
        for path in paths:
            yield from check_path(m, base, root, path, f"{where}{key} path", skills=key == "skills")


def check_plugin(root: Path, base: Path, rel: str) -> tuple[Manifest | None, list[Finding]]:
    """Validate one ``plugin.json``."""
    m, findings = load(root, rel)
    if m is None:
        return None, findings
    findings += _name(m, m.data.get("name"), "plugin name")
    for key in ("version", "description", "license", "homepage", "repository"):
        if key in m.data and not isinstance(m.data[key], str):
            findings.append(("SC702", m.rel, *m.at(key), f"{key} must be a string", key))
    findings += check_components(m, m.data, base, root, "")
    return m, findings


def check_marketplace(root: Path, plugin: Manifest | None) -> list[Finding]:
    """Validate ``marketplace.json`` and each plugin entry it lists."""
    m, findings = load(root, MARKETPLACE)
    if m is None:
        return findings
    findings += _name(m, m.data.get("name"), "marketplace name")
    owner = m.data.get("owner")
    if not isinstance(owner, dict) or not isinstance(owner.get("name"), str) or not owner["name"]:
        findings.append(("SC702", m.rel, *m.at("owner"), "owner is required: an object with a non-empty name", "owner"))
    plugins = m.data.get("plugins")
    if not isinstance(plugins, list) or not plugins:
        findings.append(("SC702", m.rel, *m.at("plugins"), "plugins is required: a non-empty list", "plugins"))
        return findings
    seen: set[str] = set()
    for n, entry in enumerate(plugins, 1):
        if not isinstance(entry, dict):
            findings.append(("SC702", m.rel, *m.at("plugins"), f"plugins[{n}] must be an object", f"plugins[{n}]"))
            continue
        name = entry.get("name")
        findings += _name(m, name, f"plugins[{n}] name", near="plugins")
        if isinstance(name, str) and name in seen:
            findings.append(("SC702", m.rel, *m.at(name, after="plugins", nth=2), f"plugin {name!r} is listed twice", f"plugin {name}"))
        seen.add(name if isinstance(name, str) else "")
        findings += _entry_source(root, m, entry, n, plugin)
    return findings


def _entry_source(root: Path, m: Manifest, entry: dict[str, Any], n: int, plugin: Manifest | None) -> list[Finding]:
    """A marketplace entry's source folder, its components, and its version against plugin.json."""
    source = entry.get("source")
    if isinstance(source, dict):
        return [] if isinstance(source.get("source"), str) else [("SC702", m.rel, *m.at("source"), f"plugins[{n}] source object needs a source kind", f"plugins[{n}] source")]
    if not isinstance(source, str) or not source:
        return [("SC702", m.rel, *m.at("plugins"), f"plugins[{n}] source is required: a ./path or a source object", f"plugins[{n}] source")]
    findings = list(check_path(m, root, root, source, f"plugins[{n}] source"))
    if findings:
        return findings
    base = (root / source).resolve()
    findings += check_components(m, entry, base, root, f"plugins[{n}] ")
    has_manifest = (base / PLUGIN).is_file()
    if entry.get("strict", True) is not False and not has_manifest and not any(k in entry for k in PATH_FIELDS):
        findings.append(("SC704", m.rel, *m.at(source), f"plugins[{n}] source {source!r} has no {PLUGIN} and the entry lists no components", f"plugins[{n}] source {source}"))
    same = plugin is not None and base == root.resolve()
    ours, theirs = entry.get("version"), plugin.data.get("version") if same and plugin else None
    if isinstance(ours, str) and isinstance(theirs, str) and ours != theirs:
        findings.append(("SC705", m.rel, *m.at(ours), f"plugins[{n}] version {ours} differs from {PLUGIN} version {theirs}", f"plugins[{n}] version"))
    return findings


def check_manifests(root: Path) -> list[Finding]:
    """Every finding in the plugin and marketplace manifests under ``root`` (none when absent).

    ``pyproject.toml`` is read again only when a plugin states a version to
    compare: most repositories have no manifest, and the check stays lean.
    """
    findings: list[Finding] = []
    plugin = None
    if (root / PLUGIN).exists():
        plugin, found = check_plugin(root, root, PLUGIN)
        findings += found
        version = plugin.data.get("version") if plugin else None
        project_version = load_project(root).version if plugin and isinstance(version, str) else None
        if plugin and project_version and version != project_version:
            findings.append(("SC705", PLUGIN, *plugin.at(version), f"version {version} differs from pyproject.toml version {project_version}", "version"))
    if (root / MARKETPLACE).exists():
        findings += check_marketplace(root, plugin)
    return findings


def manifests(ws: Workspace) -> Iterator[Diagnostic]:
    """Every finding in the plugin manifests at the root."""
    for code, rel, line, col, message, subject in check_manifests(ws.root):
        yield Diagnostic.make(code, rel, line, col, message, subject=subject)


RULE = Rule("manifests", ("SC701", "SC702", "SC703", "SC704", "SC705"), manifests)
