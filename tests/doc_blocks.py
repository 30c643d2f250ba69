"""The fenced code blocks of the skill's Markdown, and a runner for its Python blocks.

The rule (CONTRIBUTING.md, "Code blocks"): every Python or shell block a reader would paste
runs in CI, or carries a visible reason why it cannot, as an HTML comment on the line right
before the fence::

    <!-- not run: needs two processes (torchrun) -->
    ```python
    ...

A ``text`` block that follows a Python block, with nothing between them but blank lines or
one paragraph ending in a colon ("Output (PyTorch 2.13, CPU):"), is that block's printed
output, and the runner compares it with what the block prints, line by line.

Which files: the skill's content as ``[tool.skillcite] content`` in pyproject.toml lists it.
Who runs what: the Python blocks of refs/diagnostics.md and PLAYBOOK.md are run by their own
tests (DELEGATED), the shell blocks of refs/static_analysis.md by tests/static_patterns.py;
this module runs every other Python block, one file at a time, in a subprocess (so a block's
global changes, such as a warnings filter, stay there), all blocks of a file in order in one
namespace, as a reader pasting them one after the other would.

Usage:  python tests/doc_blocks.py              # list every block with its status
        python tests/doc_blocks.py refs/x.md    # run that file's blocks, report per block
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tomllib
import traceback
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
PYTHON = frozenset({"python", "py", "python3"})
SHELL = frozenset({"bash", "sh", "shell", "console", "zsh"})
OUTPUT = frozenset({"text"})
# Python blocks these files hold are run by other tests (reused, not run twice)
DELEGATED = {
    "refs/diagnostics.md": "tests/test_bugzoo.py and tests/test_diagnostics_behaviour.py (via zoo_harness)",
    "PLAYBOOK.md": "tests/test_playbook.py",
}
# shell blocks these files hold are run by other tests
SHELL_DELEGATED = {"refs/static_analysis.md": "tests/test_static_patterns.py (via static_patterns)"}
TIMEOUT_S = 180  # per file; the slowest file takes a few seconds on 2 cores

HELPERS_MARK = "the first block of diagnostics.md"  # as tests/zoo_harness.py
_HELPERS = re.compile(r"## How to use these.*?```python\n(.*?)```", re.DOTALL)
_MARKER = re.compile(r"^<!--\s*not run:(.*?)-->\s*$")
_MARKER_START = re.compile(r"^<!--\s*not run\b", re.IGNORECASE)


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file."""

    path: str  # relative to the repository root, with forward slashes
    line: int  # 1-based line of the opening fence
    lang: str  # first word of the info string, lower-cased ("" if none)
    source: str
    skip: str | None = None  # the reason given by a "not run" marker, if any
    output: str | None = None  # the expected printout (a following text block), if any
    output_line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def is_python(self) -> bool:
        return self.lang in PYTHON

    @property
    def is_shell(self) -> bool:
        return self.lang in SHELL


class MarkerError(ValueError):
    """A "not run" marker that is malformed, has no reason, or stands before no fence."""


def skill_documents(root: Path = ROOT) -> list[Path]:
    """The Markdown files of the skill: the patterns of [tool.skillcite] content, .md only."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    found: set[Path] = set()
    for pattern in config["tool"]["skillcite"]["content"]:
        pattern = pattern + "/*.md" if pattern.endswith("**") else pattern
        found.update(p for p in root.glob(pattern) if p.is_file() and p.suffix == ".md")
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def parse(path: Path, root: Path = ROOT) -> list[Block]:
    """Every fenced block of `path`, with its marker and expected output. Raises MarkerError."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:  # a file outside the repository (a test's tmp_path): name it as given
        rel = path.as_posix()
    tokens = MarkdownIt("commonmark").parse(text)
    fences = [i for i, t in enumerate(tokens) if t.type == "fence"]
    marked_lines: set[int] = set()
    blocks: list[Block] = []
    for n, i in enumerate(fences):
        tok = tokens[i]
        start = tok.map[0]  # 0-based line of the opening fence
        skip = None
        above = lines[start - 1].strip() if start > 0 else ""
        if _MARKER_START.match(above):
            m = _MARKER.match(above)
            if not m or not m.group(1).strip():
                raise MarkerError(f"{rel}:{start}: a 'not run' marker needs a reason on one line: "
                                  "<!-- not run: REASON -->")
            skip = m.group(1).strip()
            marked_lines.add(start)  # 1-based line of the marker
        blocks.append(Block(rel, start + 1, (tok.info.split() or [""])[0].lower(), tok.content, skip))
    for number, line in enumerate(lines, 1):
        if _MARKER_START.match(line.strip()) and number not in marked_lines:
            raise MarkerError(f"{rel}:{number}: a 'not run' marker must stand on the line right before a fence")
    # pair output blocks with the Python block before them
    for n in range(1, len(fences)):
        prev, cur = tokens[fences[n - 1]], tokens[fences[n]]
        if (cur.info.split() or [""])[0].lower() not in OUTPUT or (prev.info.split() or [""])[0].lower() not in PYTHON:
            continue
        between = tokens[fences[n - 1] + 1:fences[n]]
        types = [t.type for t in between]
        if types and not (types == ["paragraph_open", "inline", "paragraph_close"]
                          and between[1].content.rstrip().endswith(":")):
            continue
        b = blocks[n - 1]
        blocks[n - 1] = Block(b.path, b.line, b.lang, b.source, b.skip, cur.content, cur.map[0] + 1)
    return blocks


def to_run(blocks: list[Block]) -> list[Block]:
    """The Python blocks this module runs: unmarked, in a file no other test runs."""
    return [b for b in blocks if b.is_python and b.skip is None and b.path not in DELEGATED]


def unaccounted(blocks: list[Block]) -> list[Block]:
    """Python or shell blocks that nothing runs and no marker excuses."""
    return [b for b in blocks if b.skip is None and b.is_shell and b.path not in SHELL_DELEGATED]


# --- running ----------------------------------------------------------------------------------

def _strip(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def exec_blocks(blocks: list[Block]) -> list[dict]:
    """Run blocks in order in one namespace, in this process; one result per block, stop at an exception.

    Tracebacks name the Markdown file and line: each block is compiled with its own line offset.
    """
    namespace: dict = {"__name__": "__main__"}
    if any(HELPERS_MARK in b.source for b in blocks):
        # a block that uses the input helpers of refs/diagnostics.md says so; run them first, as it asks a reader
        helpers = _HELPERS.search((ROOT / "refs" / "diagnostics.md").read_text(encoding="utf-8")).group(1)
        exec(compile(helpers, "refs/diagnostics.md#how-to-use-these", "exec"), namespace)  # noqa: S102
    results = []
    for b in blocks:
        code = compile("\n" * b.line + b.source, b.path, "exec")
        out = io.StringIO()
        result = {"where": b.where, "ok": True}
        try:
            with contextlib.redirect_stdout(out):
                exec(code, namespace)  # noqa: S102 - the point: run the documented code
        except BaseException as err:  # noqa: BLE001 - report any failure of the block, SystemExit included
            result.update(ok=False, error=f"{type(err).__name__}: {err}",
                          missing=err.name if isinstance(err, ModuleNotFoundError) else None,
                          traceback="".join(traceback.format_exception(err)[-6:]))
        result["printed"] = out.getvalue()
        if result["ok"] and b.output is not None and _strip(out.getvalue()) != _strip(b.output):
            result.update(ok=False, error=f"printout differs from the text block at {b.path}:{b.output_line}")
        results.append(result)
        if "traceback" in result:
            break  # the namespace is incomplete; later blocks would fail for this block's reason
    return results


def run_file(path: Path, cwd: Path, timeout: float = TIMEOUT_S) -> list[dict]:
    """Run the file's blocks (see to_run) in a fresh interpreter with working directory `cwd`.

    Raises subprocess.TimeoutExpired after `timeout` seconds.
    """
    report = cwd / "doc_blocks_report.json"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--json", str(report), str(path)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if not report.exists():
        raise RuntimeError(f"the runner for {path} died (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def _main(argv: list[str]) -> int:
    report = None
    if argv[:1] == ["--json"]:
        report, argv = Path(argv[1]), argv[2:]
    if not argv:  # list
        for doc in skill_documents():
            for b in parse(doc):
                status = ("not run: " + b.skip if b.skip else "delegated" if
                          (b.is_python and b.path in DELEGATED) or (b.is_shell and b.path in SHELL_DELEGATED)
                          else "run" if b.is_python else "UNACCOUNTED" if b.is_shell else "not code")
                print(f"{b.where:32s} {b.lang or '-':8s} {status}")
        return 0
    path = Path(argv[0]).resolve()
    results = exec_blocks(to_run(parse(path)))
    if report:
        report.write_text(json.dumps(results), encoding="utf-8")
    for r in results:
        print(("ok   " if r["ok"] else "FAIL ") + r["where"] + ("" if r["ok"] else "  " + r["error"]), file=sys.stderr)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
