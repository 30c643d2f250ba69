"""Claude Code plugin manifests: exact findings, positions and the real repository."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Package
from skillcite.check import check

ROOT = Path(__file__).resolve().parent.parent


def findings(pkg: Package) -> list[str]:
    return [d.format() for d in check(pkg.root).diagnostics if d.code.startswith("SC7")]


def write_json(pkg: Package, rel: str, data: object) -> None:
    pkg.write(rel, json.dumps(data, indent=2) + "\n")


def test_invalid_json_points_at_the_error(pkg: Package) -> None:
    pkg.write(".claude-plugin/plugin.json", '{\n  "name": "pkg",\n  "version": 1.0.0\n}\n')
    assert findings(pkg) == [".claude-plugin/plugin.json:3:17: SC701 invalid JSON: Expecting ',' delimiter"]


def test_marketplace_fields_and_paths(pkg: Package) -> None:
    write_json(
        pkg,
        ".claude-plugin/marketplace.json",
        {
            "name": "pkg",
            "plugins": [
                {"name": "pkg", "source": "./nowhere"},
                {"name": "pkg", "source": "../elsewhere"},
                {"name": "remote", "source": {"source": "github", "repo": "someone/remote"}},
                {"name": "loose", "source": "./docs", "strict": False, "skills": ["./"]},
            ],
        },
    )
    assert findings(pkg) == [
        ".claude-plugin/marketplace.json:1:1: SC702 owner is required: an object with a non-empty name",
        ".claude-plugin/marketplace.json:6:17: SC704 plugins[1] source './nowhere': nowhere does not exist",
        ".claude-plugin/marketplace.json:9:15: SC702 plugin 'pkg' is listed twice",
        ".claude-plugin/marketplace.json:10:17: SC703 plugins[2] source '../elsewhere' must be relative to the plugin and start with ./",
        ".claude-plugin/marketplace.json:24:9: SC704 plugins[4] skills path './': no SKILL.md in docs or its subfolders",
    ]


def test_plugin_version_must_match_pyproject(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[project]\nname = "pkg"\nversion = "2.0.0"\n\n[tool.skillcite]\nevidence = "docs/evidence"\n')
    write_json(pkg, ".claude-plugin/plugin.json", {"name": "pkg", "version": "1.9.0"})
    assert findings(pkg) == [".claude-plugin/plugin.json:3:14: SC705 version 1.9.0 differs from pyproject.toml version 2.0.0"]
    write_json(pkg, ".claude-plugin/plugin.json", {"name": "pkg", "version": "2.0.0"})
    assert findings(pkg) == []


def test_path_that_climbs_out_of_the_plugin(pkg: Package) -> None:
    write_json(pkg, ".claude-plugin/plugin.json", {"name": "pkg", "agents": "./docs/../../outside"})
    assert findings(pkg) == [".claude-plugin/plugin.json:3:13: SC703 agents path './docs/../../outside' leaves the plugin folder"]


def test_wrong_types_are_reported_not_raised(pkg: Package) -> None:
    write_json(pkg, ".claude-plugin/plugin.json", {"name": 3, "version": ["1"], "skills": {"a": 1}})
    write_json(pkg, ".claude-plugin/marketplace.json", {"name": "m", "owner": {"name": "Us"}, "plugins": ["pkg", {"source": "./"}]})
    assert [f.split(": ", 1)[1] for f in findings(pkg)] == [
        "SC702 plugins[1] must be an object",
        "SC702 plugins[2] name is required and must be a non-empty string",
        "SC702 plugin name is required and must be a non-empty string",
        "SC702 version must be a string",
        "SC702 skills must be a path or a list of paths",
    ]


def test_real_repository_manifests_are_clean_and_list_every_skill() -> None:
    report = check(ROOT)
    assert [d.format() for d in report.diagnostics if d.code.startswith("SC7")] == []
    plugin = json.loads((ROOT / ".claude-plugin/plugin.json").read_text(encoding="utf-8"))
    listed = {Path(ROOT, p).resolve() for p in plugin["skills"]}
    assert listed == {p.parent.resolve() for p in ROOT.glob("SKILL.md")} | {p.parent.resolve() for p in ROOT.glob("*/SKILL.md")}
