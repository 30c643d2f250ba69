"""Mutation testing of the matching core: how many small faults do the tests catch?

Run from the repository root::

    python bench/mutation.py                       # the core modules (normalize, anchors, matching)
    python bench/mutation.py --modules anchors     # one of them
    python bench/mutation.py --jobs 2 --list-survivors

Stdlib only. Each mutant is one small change to one module, made on its
syntax tree: a number moved by one (``80`` to ``79`` and ``81``), a
comparison flipped (``<`` and ``<=``, ``==`` and ``!=``, ``in`` and ``not
in``), ``and`` and ``or`` swapped, a ``not`` removed, ``True`` and ``False``
swapped, ``+`` and ``-`` swapped, an ``if`` condition forced to ``True`` or
``False``. The mutated module is written into a copy of ``tools/`` and the
core tests run against it (``-x``, stop at the first failure); a mutant is
*killed* when they fail or time out. It prints the kill rate per module and
overall, excluding mutants listed in ``EQUIVALENT`` (changes that cannot
alter any result, each with the reason), and asserts nothing: the target
(95 % of non-equivalent mutants killed) and the figure go into the note.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODULES = {
    "normalize": "tools/skillcite/check/parsing/normalize.py",
    "anchors": "tools/skillcite/check/parsing/anchors.py",
    # matching, module by module (check/matching/)
    **{name: f"tools/skillcite/check/matching/{name}.py" for name in ("chars", "pattern", "force", "marks", "diff", "nearest", "variants", "titles", "locate")},
}
# The fast core tests (about 10 s): a mutant that survives these may still
# be killed by the whole suite, so the figure is a lower bound.
TESTS = [
    "tests/test_core_table.py",
    "tests/adversarial/test_adv_editorial_marks.py",
    "tests/adversarial/test_adv_boundaries.py",
    "tests/adversarial/test_adv_collisions.py",
    "tests/adversarial/test_adv_dropped_text.py",
    "tests/test_matching.py",
    "tests/test_anchors.py",
    "tests/test_normalize.py",
]
TIMEOUT = 120  # seconds per mutant; a mutant that loops forever is killed

# Mutants that cannot change any result, by "module:line:description", with why.
EQUIVALENT: dict[str, str] = {
    "normalize:55:4 -> 5": "_MAX_PASSES is a bound: text is stable after two passes, a fifth never runs",
    "normalize:55:4 -> 3": "_MAX_PASSES is a bound: text is stable after two passes, a fourth never runs",
    "normalize:165:0 -> -1": "to_source's k < 0 branch is unreachable: the first piece always starts at 0",
    "normalize:165:if-false": "to_source's k < 0 branch is unreachable: the first piece always starts at 0",
    "normalize:166:0 -> 1": "inside to_source's unreachable k < 0 branch",
    "normalize:202:if-false": "NFKC spells U+2026 as '...' anyway",
    "normalize:248:if-false": "a shortcut: text _UNSTABLE does not match is left as it is by another pass (idempotence)",
    "normalize:352:Sub -> Add": "emit_run of an empty stretch emits nothing",
    "normalize:352:1 -> 0": "emit_run of an empty stretch emits nothing",
    "normalize:363:4 -> 5": "the comment memo is never reused: scanning resumes after the '-->' it found",
    "normalize:388:False -> True": "the linear flag of a one-character piece changes no offset",
    "normalize:390:False -> True": "the linear flag of a one-character piece changes no offset",
    "normalize:406:1 -> 0": "the linear flag of a one-character piece changes no offset",
    "anchors:126:Add -> Sub": "m.start() of a fullmatch is 0 (both Adds resolve to the outer one: same column)",
    "marks:34:Lt -> LtE": "_token is never called with pos == len(text): every caller passes a character's offset",
    "marks:25:0 -> -1": "_inside(text, 0) is False, so the loop stops at 0 either way",
    "normalize:166:0 -> -1": "inside to_source's unreachable k < 0 branch",
    "normalize:343:1 -> 0": "the comment memo is never reused, so its initial value is never read in a way that matters",
    "normalize:343:1 -> 2": "the comment memo is never reused, so its initial value is never read in a way that matters",
    "normalize:378:False -> True": "the linear flag of a one-character piece changes no offset",
    "normalize:384:False -> True": "the linear flag of a one-character piece changes no offset",
    "normalize:396:False -> True": "the linear flag of a one-character piece changes no offset",
    "matching:407:Gt -> GtE": "_inside(text, 0) is False, so the loop stops at 0 either way",
    "matching:409:Lt -> LtE": "_inside(text, len(text)) is False, so the loop stops at the end either way",
    "matching:777:Lt -> LtE": "_inside(text, len(text)) is False, so the loop stops at the end either way",
    "matching:827:Lt -> LtE": "a score is at most 100: the whole-file pass cannot beat a nearby 100",
    "matching:915:if-false": "recompiling an unchanged quote finds what the first search found",
    "matching:912:if-false": "with no hyphenated words the substitution changes nothing and the next test returns None",
}

_FLIP = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    """One change: where, what, and the mutated source."""

    module: str
    line: int
    what: str
    source: str

    @property
    def key(self) -> str:
        return f"{self.module}:{self.line}:{self.what}"


class _Points(ast.NodeVisitor):
    """Every node a mutation applies to, in a fixed order."""

    def __init__(self) -> None:
        self.points: list[tuple[ast.AST, str]] = []
        self._skip: set[int] = set()
        self._depth = 0  # inside a function: every operator; at module level: numbers only

    def visit_Module(self, node: ast.Module) -> None:
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                self.visit(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                value = stmt.value
                if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
                    self.visit_Constant(value)

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstrings
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)  # annotations are not code

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.args.defaults + node.args.kw_defaults:
            if d is not None:
                self.visit(d)
        self._depth += 1
        for stmt in node.body:
            self.visit(stmt)
        self._depth -= 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for stmt in node.body:  # decorators (dataclass options) are not logic
            self.visit(stmt)

    def visit_arg(self, node: ast.arg) -> None:
        return

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, bool):
            self.points.append((node, "bool"))
        elif isinstance(node.value, (int, float)) and id(node) not in self._skip:
            self.points.append((node, "int+1"))
            self.points.append((node, "int-1"))

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.visit(node.value)
        self.visit(node.slice)

    def visit_Compare(self, node: ast.Compare) -> None:
        for k, op in enumerate(node.ops):
            if type(op) in _FLIP:
                self.points.append((node, f"cmp{k}"))
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.points.append((node, "boolop"))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self.points.append((node, "not"))
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, (ast.Add, ast.Sub)) and not _is_string_concat(node):
            self.points.append((node, "addsub"))
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        self.points.append((node, "if-true"))
        self.points.append((node, "if-false"))
        self.generic_visit(node)


def _is_string_concat(node: ast.BinOp) -> bool:
    return any(isinstance(side, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(side, "value", ""), str) for side in (node.left, node.right))


def mutants(name: str, rel: str) -> list[Mutant]:
    """Every mutant of one module."""
    source = (REPO / rel).read_text(encoding="utf-8")
    tree = ast.parse(source)
    finder = _Points()
    finder.visit(tree)
    out: list[Mutant] = []
    for index, (node, kind) in enumerate(finder.points):
        tree = ast.parse(source)
        target = [n for n in ast.walk(tree)]
        # Find the same node in the fresh tree by position and type.
        twin = next(
            (n for n in target if type(n) is type(node) and getattr(n, "lineno", None) == node.lineno and getattr(n, "col_offset", None) == node.col_offset),
            None,
        )
        if twin is None:
            continue
        what = _apply(twin, kind, tree)
        if what is None:
            continue
        try:
            mutated = ast.unparse(tree)
        except (ValueError, RecursionError, AttributeError):  # an unparsable mutant is skipped
            continue
        out.append(Mutant(name, node.lineno, what, mutated))
    return out


def _apply(node: ast.AST, kind: str, tree: ast.AST) -> str | None:
    if kind == "bool" and isinstance(node, ast.Constant):
        node.value = not node.value
        return f"{not node.value} -> {node.value}"
    if kind in ("int+1", "int-1") and isinstance(node, ast.Constant):
        old = node.value
        node.value = old + 1 if kind == "int+1" else old - 1
        return f"{old} -> {node.value}"
    if kind.startswith("cmp") and isinstance(node, ast.Compare):
        k = int(kind[3:])
        old = type(node.ops[k])
        node.ops[k] = _FLIP[old]()
        return f"{old.__name__} -> {_FLIP[old].__name__}"
    if kind == "boolop" and isinstance(node, ast.BoolOp):
        old = type(node.op)
        node.op = ast.Or() if old is ast.And else ast.And()
        return f"{old.__name__} -> {type(node.op).__name__}"
    if kind == "not" and isinstance(node, ast.UnaryOp):
        _replace(tree, node, node.operand)
        return "not removed"
    if kind == "addsub" and isinstance(node, ast.BinOp):
        old = type(node.op)
        node.op = ast.Sub() if old is ast.Add else ast.Add()
        return f"{old.__name__} -> {type(node.op).__name__}"
    if kind in ("if-true", "if-false") and isinstance(node, ast.If):
        node.test = ast.Constant(kind == "if-true")
        return kind
    return None


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new
                        return


def run_one(mutant: Mutant, workdir: Path) -> tuple[Mutant, bool, float]:
    """Run the tests against one mutant in its own copy of ``tools/``; True when killed."""
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tools = Path(tmp) / "tools"
        shutil.copytree(REPO / "tools", tools, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        (tools / Path(MODULES[mutant.module]).relative_to("tools")).write_text(mutant.source, encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(tools), PYTHONDONTWRITEBYTECODE="1", SKILLCITE_CACHE_DIR=str(Path(tmp) / "cache"))
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *TESTS],
                cwd=REPO, env=env, capture_output=True, timeout=TIMEOUT, check=False,
            )
            killed = proc.returncode != 0
        except subprocess.TimeoutExpired:
            killed = True
        return mutant, killed, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", nargs="+", default=list(MODULES), choices=list(MODULES))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--list-survivors", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N mutants of each module (smoke test)")
    ap.add_argument("--keys", type=Path, help="run only the mutants whose keys a file lists (one per line)")
    ap.add_argument("--sample", type=int, default=0, help="run a fixed random sample of N mutants per module")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample")
    args = ap.parse_args()

    todo: list[Mutant] = []
    for name in args.modules:
        found = mutants(name, MODULES[name])
        if args.sample and len(found) > args.sample:
            found = sorted(random.Random(args.seed).sample(found, args.sample), key=lambda m: m.line)
        todo.extend(found[: args.limit] if args.limit else found)
    if args.keys:
        wanted = set(args.keys.read_text(encoding="utf-8").split("\n"))
        todo = [m for m in todo if m.key in wanted]
    print(f"{len(todo)} mutants; tests: {len(TESTS)} files", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="skillcite-mutation-"))
    results: list[tuple[Mutant, bool, float]] = []
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for k, res in enumerate(pool.map(lambda m: run_one(m, workdir), todo), 1):
                results.append(res)
                if k % 25 == 0:
                    print(f"  {k}/{len(todo)} done, {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    total_kill = total = 0
    survivors: list[Mutant] = []
    for name in args.modules:
        mine = [(m, k) for m, k, _ in results if m.module == name]
        equivalent = [m for m, _ in mine if m.key in EQUIVALENT]
        counted = [(m, k) for m, k in mine if m.key not in EQUIVALENT]
        killed = sum(1 for _, k in counted if k)
        survivors.extend(m for m, k in counted if not k)
        total_kill += killed
        total += len(counted)
        rate = 100 * killed / max(len(counted), 1)
        print(f"{name:10} {killed:4}/{len(counted):4} killed ({rate:5.1f} %), {len(equivalent)} equivalent excluded")
    print(f"{'overall':10} {total_kill:4}/{total:4} killed ({100 * total_kill / max(total, 1):5.1f} %) in {time.perf_counter() - started:.0f} s")
    if args.list_survivors:
        for m in survivors:
            print(f"  survived {m.key}")


if __name__ == "__main__":
    main()
