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
    "deliver": {"core", "check", "deliver"},
    # adopt converts evidence and relocks it with repair's lock.
    "adopt": {"core", "check", "repair", "adopt"},
    "refresh": {"core", "check", "refresh"},
    "cli": {"core", "check", "repair", "deliver", "refresh", "adopt", "cli"},
}
THIRD_PARTY_ONLY_IN = {"click": {"cli"}, "requests": {"refresh"}, "trafilatura": {"refresh"}}


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    if rel == ("__main__.py",):
        return "cli"  # ``python -m skillcite`` is the command line
    return rel[0] if len(rel) > 1 else "core"


def _imports(path: Path, package_dir: Path = PACKAGE) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every import in ``path``, including ones inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ["skillcite", *path.relative_to(package_dir).parent.parts]
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
    fake = tmp_path / "skillcite" / "deliver" / "probe.py"  # never written into the package: other tests hash its files
    fake.parent.mkdir(parents=True)
    fake.write_text("from ..cli.app import fail\nimport click\nfrom . import bundle\n", encoding="utf-8")
    found = _imports(fake, package_dir=tmp_path / "skillcite")
    assert found == [(1, "skillcite.cli.app"), (2, "click"), (3, "skillcite.deliver.bundle")]


def _module_name(path: Path, package_dir: Path = PACKAGE) -> str:
    parts = ["skillcite", *path.relative_to(package_dir).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(package_dir: Path = PACKAGE) -> dict[str, set[str]]:
    """``module -> the package's modules it imports``, at module level or inside functions."""
    modules = {_module_name(p, package_dir): p for p in sorted(package_dir.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for _, module in _imports(path, package_dir):
            while module and module not in modules:  # ``from .x import name``: the module is x
                module = module.rpartition(".")[0]
            if module and module != name:
                targets.add(module)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycles() -> None:
    """Each layer's modules form a tree: no module imports one that imports it back, even inside a function."""
    assert _cycles(_import_graph()) == []


def test_the_cycle_test_sees_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "skillcite"
    (pkg / "check").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "check" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "check" / "a.py").write_text("from .b import x\n", encoding="utf-8")
    (pkg / "check" / "b.py").write_text("def f():\n    from . import c\n", encoding="utf-8")
    (pkg / "check" / "c.py").write_text("from .a import y\n", encoding="utf-8")
    (pkg / "check" / "d.py").write_text("from . import a\n", encoding="utf-8")
    assert _cycles(_import_graph(pkg)) == [["skillcite.check.a", "skillcite.check.b", "skillcite.check.c"]]


def test_no_module_is_hidden_by_an_ignore_rule() -> None:
    """A module git ignores is silently left out of every commit (``dist/`` once hid a subpackage)."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a checkout")
    paths = [p.relative_to(ROOT).as_posix() for p in _sources()]
    out = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(paths), cwd=ROOT, capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    assert out.stdout.split() == []


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


# The stages of a check, in order (docs/maintaining.md, "The stages of a check"). A module
# of a stage imports core, earlier stages and its own stage only; the modules directly in
# check/ (run, resultcache, reviewing, stats) compose the stages and may import any.
STAGES = ("parsing", "quotes", "matching", "judging", "rules", "reporting")
# Matching takes a quote and its loaded evidence and returns an outcome: it never finds,
# reads or caches files itself.
MATCHING_NEVER_IMPORTS = {"skillcite.check.parsing.workspace", "skillcite.check.parsing.cache", "os", "pathlib", "io", "shutil"}
MODULE_LINES = 550  # "no module over ~500 lines": the longest, parsing/builder.py, is one class walking the tokens


def _stage(path: Path, package_dir: Path = PACKAGE) -> str | None:
    rel = path.relative_to(package_dir).parts
    return rel[1] if len(rel) > 2 and rel[0] == "check" else None


def _stage_violations(path: Path, package_dir: Path = PACKAGE) -> list[str]:
    """The imports of a stage's module that reach a later stage (or, from matching, the file system)."""
    stage = _stage(path, package_dir)
    assert stage in STAGES, path
    allowed = set(STAGES[: STAGES.index(stage) + 1])
    wrong = []
    for line, module in _imports(path, package_dir):
        parts = module.split(".")
        if parts[:2] == ["skillcite", "check"]:
            target = parts[2] if len(parts) > 2 else "check"
            if target not in allowed:
                wrong.append(f"line {line}: {stage} imports {module}")
        if stage == "matching" and any(module == m or module.startswith(m + ".") for m in MATCHING_NEVER_IMPORTS):
            wrong.append(f"line {line}: matching imports {module}")
    return wrong


def test_check_is_split_into_the_stages() -> None:
    found = {p.relative_to(PACKAGE / "check").parts[0] for p in (PACKAGE / "check").glob("*/__init__.py")}
    assert found == set(STAGES)
    loose = sorted(p.name for p in (PACKAGE / "check").glob("*.py"))
    assert loose == ["__init__.py", "resultcache.py", "reviewing.py", "run.py", "stats.py"]


@pytest.mark.parametrize("path", [p for p in _sources() if _stage(p)], ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_stage_imports_only_earlier_stages(path: Path) -> None:
    assert _stage_violations(path) == []


def test_the_stage_test_sees_a_later_stage_and_the_file_system(tmp_path: Path) -> None:
    fake = tmp_path / "skillcite" / "check" / "matching" / "probe.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from ..judging.verdicts import quote_outcomes\nfrom ..parsing.evidence import Evidence\nimport pathlib\nfrom .. import run\n", encoding="utf-8")
    assert _stage_violations(fake, tmp_path / "skillcite") == [
        "line 1: matching imports skillcite.check.judging.verdicts",
        "line 3: matching imports pathlib",
        "line 4: matching imports skillcite.check.run",
    ]


def test_no_module_is_long() -> None:
    long = {p.relative_to(PACKAGE).as_posix(): n for p in _sources() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert long == {}
