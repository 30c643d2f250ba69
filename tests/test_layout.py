"""The package's layers, its rule registry, and where docs/codes.md says each code lives."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from skillcite import CODES
from skillcite.check.rules import all_rules, rule_of

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tools" / "skillcite"

# Which subpackages each layer may import (besides itself). The top-level
# ``skillcite`` module (version, re-exports of core) counts as core.
ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "check": {"core", "check"},
    "repair": {"core", "check", "repair"},
    "dist": {"core", "check", "dist"},
    # adopt converts evidence and relocks it with repair's lock.
    "adopt": {"core", "check", "repair", "adopt"},
    "refresh": {"core", "check", "refresh"},
    "cli": {"core", "check", "repair", "dist", "refresh", "adopt", "cli"},
}
THIRD_PARTY_ONLY_IN = {"click": {"cli"}, "requests": {"refresh"}, "trafilatura": {"refresh"}}


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    if rel == ("__main__.py",):
        return "cli"  # ``python -m skillcite`` is the command line
    return rel[0] if len(rel) > 1 else "core"


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every import in ``path``, including ones inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ["skillcite", *path.relative_to(PACKAGE).parent.parts]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # ``from . import x``: each name may be a module
                    out.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
                    continue
            else:
                module = node.module or ""
            out.append((node.lineno, module))
    return out


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_known_layer() -> None:
    assert {_layer(p) for p in _sources()} <= set(ALLOWED)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_imports_follow_the_layers(path: Path) -> None:
    layer = _layer(path)
    wrong = []
    for line, module in _imports(path):
        parts = module.split(".")
        if parts[0] == "skillcite":
            target = parts[1] if len(parts) > 1 and parts[1] in ALLOWED else "core"
            if target not in ALLOWED[layer]:
                wrong.append(f"line {line}: {layer} imports {module}")
        elif parts[0] in THIRD_PARTY_ONLY_IN and layer not in THIRD_PARTY_ONLY_IN[parts[0]]:
            wrong.append(f"line {line}: {layer} imports {parts[0]}")
    assert wrong == []


def test_the_layer_test_sees_a_violation(tmp_path: Path) -> None:
    """The parser above resolves relative imports: a library module importing the CLI is caught."""
    fake = PACKAGE / "dist" / "__layer_probe__.py"
    fake.write_text("from ..cli.app import fail\nimport click\n", encoding="utf-8")
    try:
        found = _imports(fake)
    finally:
        fake.unlink()
    assert found == [(1, "skillcite.cli.app"), (2, "click")]


def test_every_code_is_emitted_by_exactly_one_rule() -> None:
    owners: dict[str, list[str]] = {}
    for rule in all_rules():
        for code in rule.codes:
            owners.setdefault(code, []).append(rule.name)
    assert owners == {code: [rule_of(code).name] for code in CODES}


def test_codes_md_names_the_module_of_each_code() -> None:
    page = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    for code in CODES:
        row = re.search(rf"^\| \[{code}\]\(#{code.lower()}\) \|.*$", page, re.MULTILINE)
        assert row, code
        module = f"check/rules/{rule_of(code).name}.py"
        assert f"`{module}`" in row.group(), (code, row.group())
        assert (PACKAGE / module).is_file()
