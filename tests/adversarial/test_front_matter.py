"""Front matter is not evidence, is covered by the lock, and never crashes (issue 15 §1.6, §1.7, §4).

Evidence front matter (``FRONT`` in conftest): ``---`` on line 1, then
source 2, title 3, author 4, published 5, retrieved 6, kind 7, license 8,
sha256 9, ``---`` 10; the body starts on line 11.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Package, evidence_text
from skillcite.check import check
from skillcite.cli.app import main

SRC = "docs/evidence/src.md"
TOOLS = str(Path(__file__).resolve().parents[2] / "tools")
DEEP = "[" * 25_000


def found(pkg: Package) -> list[tuple[str, str, int]]:
    return [(d.code, d.path, d.line) for d in check(pkg.root).diagnostics]


def hand_locked(text: str) -> str:
    """``text`` with every ``sha256`` line set to its lock, as someone might by hand.

    ``skillcite lock`` refuses a file with a repeated key; this does not, so
    a test shows the repeat is caught even when the lock matches.
    """
    import re

    from skillcite.check.parsing.evidence import lock_sha256, split_front_matter
    from skillcite.core.textio import TextFile, line_starts

    tf = TextFile(Path(SRC), text, False, line_starts(text))
    digest = lock_sha256(tf, split_front_matter(tf))
    return re.sub(r"(?m)^sha256: .*$", f"sha256: {digest}", text)


def evidence_edit(old: str, new: str, relock: bool = True) -> Callable[[Package], None]:
    def edit(p: Package) -> None:
        text = p.read(SRC)
        assert old in text
        text = text.replace(old, new, 1)
        p.write(SRC, hand_locked(text) if relock else text)

    return edit


def quote_front_matter(p: Package) -> None:
    """A quote whose words stand only in the evidence's front matter, cited at that line."""
    evidence_edit("license: CC BY 4.0\n", "license: bugs are always in the optimizer, never in the data\n")(p)
    p.write("SKILL.md", p.read("SKILL.md").replace("# Pkg\n", '# Pkg\n\nThey write that "bugs are always in the optimizer"[^fm].\n', 1))
    p.write("SKILL.md", p.read("SKILL.md") + "[^fm]: A. Author ([cache](docs/evidence/src.md): L8)\n")


def skill_front(extra: str) -> Callable[[Package], None]:
    return lambda p: p.replace("SKILL.md", "description: A test skill for the checker.\n", "description: A test skill for the checker.\n" + extra)


MUST_FAIL: dict[str, tuple[Callable[[Package], None], list[tuple[str, str, int]]]] = {
    # §1.6: the front matter held text a quote could match, and the lock did not cover it.
    "quote found only in the front matter": (quote_front_matter, [("SC303", "SKILL.md", 7)]),
    "kind changed after the lock": (evidence_edit("kind: excerpt", "kind: transcript", relock=False), [("SC403", SRC, 9)]),
    # Issue 28 §5: the footnote now also disagrees with the evidence's source (SC314).
    "source changed after the lock": (
        evidence_edit("https://example.org/post", "https://example.org/other", relock=False),
        [("SC314", "SKILL.md", 13), ("SC403", SRC, 9)],
    ),
    "author changed after the lock": (evidence_edit("author: A. Author", "author: B. Author", relock=False), [("SC403", SRC, 9)]),
    "comment added after the lock": (evidence_edit("license: CC BY 4.0", "license: CC BY 4.0  # see the site", relock=False), [("SC403", SRC, 9)]),
    "closing fence changed after the lock": (evidence_edit("\n---\nThe first", "\n---  \nThe first", relock=False), [("SC403", SRC, 9)]),
    # §1.7: a repeated key was silently the last one.
    "kind notes, then kind excerpt": (evidence_edit("published: 2020\n", "kind: notes\n"), [("SC402", SRC, 7)]),
    "two sha256 lines": (evidence_edit("published: 2020\n", "sha256: " + "0" * 64 + "\n"), [("SC402", SRC, 9)]),
    "a key repeated in a nested mapping": (evidence_edit("license: CC BY 4.0\n", "license: {name: CC BY, name: CC0}\n"), [("SC402", SRC, 8)]),
    # §4: dates that do not exist, and nesting that crashed the C loader.
    "retrieved on February 30": (evidence_edit("retrieved: 2026-11-21", "retrieved: 2026-02-30"), [("SC402", SRC, 6)]),
    "retrieved at 25 o'clock": (evidence_edit("retrieved: 2026-11-21", "retrieved: 2026-11-21T25:00:00"), [("SC402", SRC, 6)]),
    "published in month 13": (evidence_edit("published: 2020", "published: 2020-13-01"), [("SC402", SRC, 5)]),
    "SKILL.md date out of range": (skill_front("metadata:\n  when: 2026-02-30\n"), [("SC003", "SKILL.md", 5)]),
    "SKILL.md description twice": (skill_front("description: Another.\n"), [("SC003", "SKILL.md", 4)]),
    "other document date out of range": (lambda p: p.write("notes.md", "---\nwhen: 2026-02-30\n---\n# Notes\n"), [("SC003", "notes.md", 2)]),
    "other document time out of range": (lambda p: p.write("notes.md", "---\nwhen: 2026-01-30T25:00:00\n---\n# Notes\n"), [("SC003", "notes.md", 2)]),
    "other document key twice": (lambda p: p.write("notes.md", "---\na: 1\nb: 2\na: 3\n---\n# Notes\n"), [("SC003", "notes.md", 4)]),
    "deep nesting in SKILL.md": (skill_front("x: " + "[" * 100 + "]" * 100 + "\n"), [("SC003", "SKILL.md", 4)]),
    "deep nesting in evidence": (evidence_edit("published: 2020", "published: " + "{a: " * 80 + "1" + "}" * 80), [("SC402", SRC, 5)]),
}

MUST_PASS: dict[str, Callable[[Package], None]] = {
    "front matter edited, then relocked": evidence_edit("kind: excerpt", "kind: transcript"),
    "refresh's old checked record edited": lambda p: (
        evidence_edit("published: 2020\n", "checked: 2026-11-01\n")(p),
        p.write(SRC, p.read(SRC).replace("checked: 2026-11-01", "checked: 2026-11-30")),
    ),
    "refresh's old upstream_sha256 edited": lambda p: (
        evidence_edit("published: 2020\n", "upstream_sha256: " + "a" * 64 + "\n")(p),
        p.write(SRC, p.read(SRC).replace("a" * 64, "b" * 64)),
    ),
    "quoted words also in the title": evidence_edit('title: "A Post"', 'title: "Assume you have a bug"'),
    "a real date with a time": evidence_edit("retrieved: 2026-11-21", "retrieved: 2026-11-21T10:00:00"),
    "February 29 of a leap year": evidence_edit("retrieved: 2026-11-21", "retrieved: 2028-02-29"),
    "same key in two mappings": evidence_edit("published: 2020\n", "published: {published: 2020}\n"),
    "moderate nesting": skill_front("metadata:\n  deep: '" + "[" * 100 + "'\n"),
    "YAML merge keys are not repeats": lambda p: p.write("notes.md", "---\nbase: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n---\n# Notes\n"),
}


@pytest.mark.parametrize("name", sorted(MUST_FAIL))
def test_false_certification_is_caught(pkg: Package, name: str) -> None:
    edit, expected = MUST_FAIL[name]
    edit(pkg)
    assert found(pkg) == expected


@pytest.mark.parametrize("name", sorted(MUST_PASS))
def test_near_twin_stays_clean(pkg: Package, name: str) -> None:
    MUST_PASS[name](pkg)
    assert [d.format() for d in check(pkg.root).diagnostics] == []


def test_body_only_lock_has_its_own_message(pkg: Package) -> None:
    import hashlib

    body = pkg.read(SRC).split("---\n", 2)[2]
    pkg.write(SRC, evidence_text(body, sha=hashlib.sha256(body.encode()).hexdigest()))
    [d] = check(pkg.root).diagnostics
    assert (d.code, d.line) == ("SC403", 9)
    assert d.message == f"locked by an older skillcite that covered only the body; review the front matter, then run: skillcite lock {SRC}"


def test_lock_and_check_agree_on_two_sha256_lines(pkg: Package) -> None:
    text = pkg.read(SRC)
    pkg.write(SRC, text.replace("license: CC BY 4.0\n", "license: CC BY 4.0\nsha256: " + "0" * 64 + "\n"))
    assert ("SC402", SRC, 10) in found(pkg)
    result = CliRunner().invoke(main, ["lock", "--check", str(pkg.root / SRC)])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"skillcite: error: {pkg.root / SRC}: key 'sha256' is given twice (first at line 9); remove one, then lock"


def test_lock_then_check_is_clean_after_a_front_matter_edit(pkg: Package) -> None:
    pkg.write(SRC, pkg.read(SRC).replace("kind: excerpt", "kind: transcript"))
    assert found(pkg) == [("SC403", SRC, 9)]
    result = CliRunner().invoke(main, ["lock", str(pkg.root / SRC)])
    assert result.exit_code == 0, result.output
    assert found(pkg) == []


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": TOOLS, "HOME": str(root.parent / "home"), "SKILLCITE_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-m", "skillcite", *args], capture_output=True, text=True, env=env, timeout=300, check=False)


@pytest.mark.parametrize("where", ["SKILL.md", SRC])
def test_25000_nested_brackets_are_a_finding_not_a_crash(pkg: Package, where: str) -> None:
    # In a subprocess: the C loader died with SIGSEGV, which no in-process test survives.
    if where == SRC:
        evidence_edit("published: 2020", "published: " + DEEP)(pkg)
        expected = f"{SRC}:5:1: SC402 invalid YAML (line 5): nesting deeper than 64 levels"
    else:
        skill_front("x: " + DEEP + "\n")(pkg)
        expected = "SKILL.md:4:1: SC003 front matter cannot be read: nesting deeper than 64 levels"
    r = _cli(pkg.root, "check", str(pkg.root))
    assert r.returncode == 1, r.stderr
    assert expected in r.stdout.splitlines()
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("extra", ["metadata:\n  when: 2026-02-30\n", "x: " + DEEP + "\n"], ids=["date", "nesting"])
def test_bundle_install_and_stats_never_crash_on_front_matter(pkg: Package, extra: str) -> None:
    skill_front(extra)(pkg)
    line = 5 if "when" in extra else 4
    stats = _cli(pkg.root, "stats", str(pkg.root))
    assert stats.returncode == 0 and "Traceback" not in stats.stderr, stats.stderr
    bundle = _cli(pkg.root, "bundle", str(pkg.root))
    assert bundle.returncode == 2 and "Traceback" not in bundle.stderr
    assert bundle.stderr.strip().startswith(f"skillcite: error: {pkg.root / 'SKILL.md'}:{line}: front matter cannot be read: ")
    install = _cli(pkg.root, "install", "--dest", str(pkg.root.parent / "skills"), str(pkg.root))
    assert install.returncode == 2 and "Traceback" not in install.stderr
    assert install.stderr.strip().startswith(f"skillcite: error: {pkg.root / 'SKILL.md'}: front matter cannot be read: invalid YAML (line {line}): ")
