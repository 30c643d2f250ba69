"""Findings about the package's own policy: a suppression that suppresses nothing (SC005), a stale baseline entry (SC006)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import Package
from skillcite.check import check
from skillcite.cli import main

UNSOURCED = "\n> An unsourced saying.\n"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def lines(pkg: Package) -> list[str]:
    return [d.format() for d in check(pkg.root).diagnostics]


def test_suppression_of_the_next_block_that_suppresses_nothing(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + "\n<!-- skillcite: ignore SC304, SC6 -->\nOur own words.\n")
    at = pkg.read("SKILL.md").splitlines().index("<!-- skillcite: ignore SC304, SC6 -->") + 1
    assert lines(pkg) == [f"SKILL.md:{at}:1: SC005 suppression comment ignores SC304, SC6 but no such finding is on lines {at + 1}-{at + 1}: remove it"]
    pkg.replace("SKILL.md", "Our own words.", "> An unsourced saying.")  # now it suppresses an SC304
    assert lines(pkg) == []


def test_file_suppression_that_suppresses_nothing(pkg: Package) -> None:
    pkg.write("notes.md", "<!-- skillcite: ignore-file SC601 -->\n# Notes\n\n[ok](SKILL.md)\n")
    assert lines(pkg) == ["notes.md:1:1: SC005 suppression comment ignores SC601 but no such finding is in this file: remove it"]
    pkg.write("notes.md", "<!-- skillcite: ignore-file SC601 -->\n# Notes\n\n[gone](nope.md)\n")
    assert lines(pkg) == []


def _with_baseline(pkg: Package, where: str) -> None:
    pkg.write("pyproject.toml", f'[tool.skillcite]\nevidence = "docs/evidence"\nbaseline = "{where}"\n')


def test_stale_baseline_entry_is_a_warning_then_gone_once_rewritten(pkg: Package) -> None:
    _with_baseline(pkg, ".skillcite-baseline.json")
    pkg.write("SKILL.md", pkg.read("SKILL.md") + UNSOURCED)
    assert run("check", str(pkg.root), "--write-baseline", str(pkg.root / ".skillcite-baseline.json"))[0] == 0
    status, out = run("check", str(pkg.root), "--strict")
    assert status == 0 and "SC006" not in out, out  # the entry matches the finding it accepts
    pkg.replace("SKILL.md", UNSOURCED, "\n")  # fixed: the entry is stale
    text = pkg.read(".skillcite-baseline.json")
    line = text[: text.index('"An unsourced saying."')].count("\n") + 1
    status, out = run("check", str(pkg.root))
    assert status == 0
    assert out.splitlines()[0] == (
        f".skillcite-baseline.json:{line}:1: SC006 baseline entry SC304 in SKILL.md matches no finding (fixed, or suppressed since): "
        "rewrite the baseline with --write-baseline"
    )
    assert run("check", str(pkg.root), "--strict")[0] == 1
    assert run("check", str(pkg.root), "--write-baseline", str(pkg.root / ".skillcite-baseline.json"))[0] == 0
    assert json.loads(pkg.read(".skillcite-baseline.json"))["findings"] == []
    assert run("check", str(pkg.root), "--strict") == (0, run("check", str(pkg.root), "--strict")[1])
    assert "SC006" not in run("check", str(pkg.root), "--strict")[1]


def test_stale_entries_of_a_baseline_not_in_use_are_not_reported(pkg: Package) -> None:
    _with_baseline(pkg, "base.json")
    pkg.write("base.json", json.dumps({"skillcite_baseline": 1, "findings": [{"code": "SC304", "path": "SKILL.md", "subject": "Gone."}]}))
    pkg.write("other.json", json.dumps({"skillcite_baseline": 1, "findings": []}))
    assert "SC006" in run("check", str(pkg.root))[1]
    status, out = run("check", str(pkg.root), "--baseline", str(pkg.root / "other.json"), "--strict")
    assert status == 0 and "SC006" not in out, out


@pytest.mark.parametrize("where", [".skillcite-baseline.json", ".ci/baseline.json"])
def test_the_result_cache_sees_a_baseline_edit(pkg: Package, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline is an input of the stored result, also in a hidden folder the snapshot leaves out."""
    monkeypatch.delenv("SKILLCITE_NO_CACHE", raising=False)
    _with_baseline(pkg, where)
    pkg.write(where, json.dumps({"skillcite_baseline": 1, "findings": []}))
    assert run("check", str(pkg.root), "--strict") == run("check", str(pkg.root), "--strict")
    assert run("check", str(pkg.root), "--strict")[0] == 0
    pkg.write(where, json.dumps({"skillcite_baseline": 1, "findings": [{"code": "SC304", "path": "SKILL.md", "subject": "Gone."}]}))
    status, out = run("check", str(pkg.root), "--strict")
    assert status == 1 and f"{where}:1:1: SC006" in out, out
