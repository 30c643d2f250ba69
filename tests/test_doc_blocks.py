"""Every Python and shell block of the skill's Markdown runs in CI or says why not (tests/doc_blocks.py).

The Python blocks of each file run in a subprocess, in order, in one namespace; a ``text`` block
right after one is compared with what it prints. refs/diagnostics.md and PLAYBOOK.md are run by
their own tests, the shell searches of refs/static_analysis.md by tests/test_static_patterns.py;
the tests here make sure those runners pick up every block of their files.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import doc_blocks as db
import pytest
import static_patterns as sp

DOCS = db.skill_documents()
RUN_FILES = [d for d in DOCS if db.to_run(db.parse(d))]


def rel(path: Path) -> str:
    return path.relative_to(db.ROOT).as_posix()


# --- the repository's documents ---------------------------------------------------------------

def test_the_skill_documents_are_the_ones_skillcite_checks():
    names = {rel(d) for d in DOCS}
    assert {"SKILL.md", "PLAYBOOK.md", "refs/diagnostics.md", "refs/static_analysis.md", "refs/sweeps.md",
            "rl/SKILL.md", "pinn/SKILL.md"} <= names
    assert not any(n.startswith(("tests/", "docs/")) for n in names)


def test_every_python_and_shell_block_is_run_or_marked():
    """A block nothing runs must carry <!-- not run: REASON --> on the line above its fence."""
    loose = []
    for doc in DOCS:
        blocks = db.parse(doc)  # raises MarkerError on a marker without reason or without fence
        loose += [b.where for b in db.unaccounted(blocks)]
        loose += [b.where for b in blocks if b.is_python and b.skip is None and b.path not in db.DELEGATED
                  and b not in db.to_run(blocks)]
    assert loose == []


def test_every_marker_gives_a_reason_a_reader_can_act_on():
    for doc in DOCS:
        for b in db.parse(doc):
            if b.skip is not None:
                assert len(b.skip.split()) >= 2, f"{b.where}: say why it cannot run here: {b.skip!r}"


def test_playbook_blocks_are_the_ones_test_playbook_runs():
    import test_playbook

    expected = [b.source for b in db.parse(db.ROOT / "PLAYBOOK.md") if b.is_python and b.skip is None]
    assert test_playbook.blocks() == expected
    assert len(expected) >= 5


def test_diagnostics_blocks_are_the_ones_the_zoo_harness_runs():
    pytest.importorskip("torch", reason="zoo_harness imports torch")
    import zoo_harness as zoo

    ran = set(zoo.diagnostic_sources().values()) | {zoo.smoke_test_source(), zoo.adapter_source(),
                                                     zoo.divergence_source()}
    unmarked = [b for b in db.parse(zoo.DIAGNOSTICS_MD) if b.is_python and b.skip is None]
    assert [b.where for b in unmarked if b.source not in ran] == []
    assert len(unmarked) == len(ran)


def test_static_analysis_shell_blocks_are_the_ones_static_patterns_runs():
    shell = [b.source for b in db.parse(sp.DOC) if b.is_shell and b.skip is None]
    assert shell == [body for _, body in sp._blocks(sp.doc_text())]
    assert len(shell) >= 15


def test_blocks_import_only_what_the_test_extras_install():
    """A block may import the standard library, torch (installed apart, .ci/run) and the test extras."""
    config = tomllib.loads((db.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = {req.split(">")[0].split("=")[0].split("[")[0].strip().replace("-", "_").lower()
              for req in config["project"]["optional-dependencies"]["test"]}
    allowed = set(sys.stdlib_module_names) | extras | {"torch"}
    foreign = []
    for doc in DOCS:
        for b in db.parse(doc):
            if b.is_python and b.skip is None:
                for node in ast.walk(ast.parse(b.source)):
                    names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                             else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
                    foreign += [f"{b.where}: {n}" for n in names if n.split(".")[0] not in allowed]
    assert foreign == []


@pytest.mark.parametrize("doc", RUN_FILES, ids=rel)
def test_python_blocks_run_and_print_what_the_text_shows(doc, tmp_path):
    results = db.run_file(doc, tmp_path)
    if results and results[-1].get("missing") == "torch":
        pytest.skip("these blocks need PyTorch (CPU build: pip install torch==2.13.0)")
    failures = [f"{r['where']}: {r['error']}\n{r.get('traceback', '')}" for r in results if not r["ok"]]
    assert failures == []
    assert len(results) == len(db.to_run(db.parse(doc)))


def test_warmup_block_fails_when_the_scheduler_steps_per_micro_batch():
    """refs/transformers.md: moving sched.step() out of the `if` makes its assertion fail, as the text says."""
    pytest.importorskip("torch", reason="the block imports torch")
    block = next(b for b in db.parse(db.ROOT / "refs" / "transformers.md") if "warmup, accum" in b.source)
    moved = block.source.replace("        sched.step()  ", "    sched.step()  ")
    assert moved != block.source
    with pytest.raises(AssertionError, match="lr off schedule"), pytest.warns(UserWarning):
        exec(compile(moved, block.where, "exec"), {})  # noqa: S102
    exec(compile(block.source, block.where, "exec"), {})  # noqa: S102 - the block as printed passes


# --- the mechanism on small documents -----------------------------------------------------------

def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_an_unmarked_shell_block_is_unaccounted_and_a_marked_one_is_not(tmp_path):
    doc = write(tmp_path, """\
        ```bash
        rg -n foo
        ```

        <!-- not run: needs two GPUs and torchrun -->
        ```sh
        torchrun --nproc-per-node 2 train.py
        ```

        ```text
        just output
        ```
        """)
    blocks = db.parse(doc, root=tmp_path)
    assert [(b.line, b.lang, b.skip) for b in blocks] == [
        (1, "bash", None), (6, "sh", "needs two GPUs and torchrun"), (10, "text", None)]
    assert [b.line for b in db.unaccounted(blocks)] == [1]


def test_a_marked_python_block_is_not_run_and_the_others_share_one_namespace(tmp_path):
    doc = write(tmp_path, """\
        ```python
        x = 2
        ```

        <!-- not run: needs a GPU -->
        ```py
        raise SystemExit("must not run")
        ```

        ```python3
        print(x * 21)
        ```
        """)
    blocks = db.to_run(db.parse(doc, root=tmp_path))
    assert [b.line for b in blocks] == [1, 10]
    results = db.exec_blocks(blocks)
    assert [(r["ok"], r["printed"]) for r in results] == [(True, ""), (True, "42\n")]


@pytest.mark.parametrize("marker, problem", [
    ("<!-- not run: -->", "needs a reason"),
    ("<!-- not run -->", "needs a reason"),
    ("<!-- not run: needs a GPU", "right before a fence"),  # unclosed: the comment swallows the fence
])
def test_a_malformed_marker_is_refused(tmp_path, marker, problem):
    doc = write(tmp_path, f"{marker}\n```python\nx = 1\n```\n")
    with pytest.raises(db.MarkerError, match=f"doc.md:1: .*{problem}"):
        db.parse(doc, root=tmp_path)


def test_a_marker_away_from_a_fence_is_refused(tmp_path):
    doc = write(tmp_path, "<!-- not run: needs a GPU -->\n\n```python\nx = 1\n```\n")
    with pytest.raises(db.MarkerError, match="doc.md:1: .*right before a fence"):
        db.parse(doc, root=tmp_path)


def test_a_text_block_after_a_python_block_is_its_expected_output(tmp_path):
    doc = write(tmp_path, """\
        ```python
        print("a  ")
        print("b")
        ```

        Output (CPU):

        ```text
        a
        b
        ```

        ```python
        print("c")
        ```

        Here is something else entirely.

        ```text
        not an output
        ```
        """)
    first, _, second, _ = db.parse(doc, root=tmp_path)
    assert (first.output, first.output_line) == ("a\nb\n", 8)
    assert second.output is None
    assert all(r["ok"] for r in db.exec_blocks([first, second]))


def test_a_printout_that_differs_from_the_text_block_fails_and_the_next_block_still_runs(tmp_path):
    doc = write(tmp_path, """\
        ```python
        print(0.1 + 0.2)
        ```

        ```text
        0.3
        ```

        ```python
        print("next")
        ```
        """)
    results = db.exec_blocks(db.to_run(db.parse(doc, root=tmp_path)))
    assert [r["ok"] for r in results] == [False, True]
    assert results[0]["error"] == "printout differs from the text block at doc.md:5"
    assert results[0]["printed"] == "0.30000000000000004\n"


def test_an_error_names_the_markdown_line_and_stops_the_file(tmp_path):
    doc = write(tmp_path, """\
        Some prose.

        ```python
        a = 1
        b = a / 0
        ```

        ```python
        print("never")
        ```
        """)
    results = db.exec_blocks(db.to_run(db.parse(doc, root=tmp_path)))
    assert len(results) == 1
    assert results[0]["error"] == "ZeroDivisionError: division by zero"
    assert 'File "doc.md", line 5, in <module>' in results[0]["traceback"]


def test_run_file_isolates_the_blocks_and_reports_a_missing_module(tmp_path):
    doc = write(tmp_path, """\
        ```python
        import warnings
        warnings.filterwarnings("error")
        import not_a_module_anywhere
        ```
        """)
    results = db.run_file(doc, tmp_path)
    assert [(r["ok"], r["missing"]) for r in results] == [(False, "not_a_module_anywhere")]
    import warnings
    assert ("error", None, Warning, None, 0) not in warnings.filters


def test_run_file_stops_a_block_that_never_ends(tmp_path):
    doc = write(tmp_path, "```python\nwhile True:\n    pass\n```\n")
    with pytest.raises(subprocess.TimeoutExpired):
        db.run_file(doc, tmp_path, timeout=1)
