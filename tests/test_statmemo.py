"""The stat memo: digests remembered by file metadata, never trusted when they could be stale."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import clean_package

from skillcite.check.parsing import cache, statmemo
from skillcite.check import resultcache
from skillcite.check.parsing.statmemo import StatMemo, content_digest
from skillcite.core.config import load_config

TOOLS = str(Path(__file__).resolve().parent.parent / "tools")


def _digests(folder: Path, cache_dir: Path) -> tuple[dict[str, bytes], int]:
    memo = StatMemo(str(folder), str(cache_dir))
    found = {str(p): memo.digest(str(p), p.stat()) for p in sorted(folder.rglob("*.md"))}
    memo.save()
    return found, memo.hashed


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test count as quiet at once (the racy window is closed)."""
    monkeypatch.setattr(statmemo, "RACY_NS", 0)


def test_an_unchanged_file_is_not_read_again(tmp_path: Path, quiet: None) -> None:
    pkg = clean_package(tmp_path / "pkg")
    first, hashed = _digests(pkg.root, tmp_path / "cache")
    assert hashed == 3
    second, hashed = _digests(pkg.root, tmp_path / "cache")
    assert (second, hashed) == (first, 0)
    assert first == {p: content_digest(p) for p in first}


def test_an_edit_that_keeps_size_and_modification_time_is_seen(tmp_path: Path, quiet: None) -> None:
    pkg = clean_package(tmp_path / "pkg")
    _digests(pkg.root, tmp_path / "cache")
    notes = pkg.root / "notes.md"
    before = notes.stat()
    text = notes.read_bytes()
    notes.write_bytes(text.replace(b"Plain", b"Plane"))  # same size
    os.utime(notes, ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime; the change time moved
    assert notes.stat().st_size == before.st_size and notes.stat().st_mtime_ns == before.st_mtime_ns
    found, hashed = _digests(pkg.root, tmp_path / "cache")
    assert hashed == 1
    assert found[str(notes)] == content_digest(str(notes)) != statmemo.hashlib.sha256(text).digest()


def test_a_file_changed_just_before_hashing_is_read_every_time(tmp_path: Path) -> None:
    pkg = clean_package(tmp_path / "pkg")  # just written: inside the racy window
    _digests(pkg.root, tmp_path / "cache")
    assert _digests(pkg.root, tmp_path / "cache")[1] == 3


@pytest.mark.parametrize("stored", [b"", b"not marshal data", None, (2, {}), (1, {"x": "not an entry"}), (1, [])])
def test_a_damaged_or_foreign_memo_is_an_empty_one(tmp_path: Path, quiet: None, stored: object) -> None:
    import marshal

    pkg = clean_package(tmp_path / "pkg")
    memo = StatMemo(str(pkg.root), str(tmp_path / "cache"))
    assert memo._path is not None
    Path(memo._path).parent.mkdir(parents=True)
    Path(memo._path).write_bytes(stored if isinstance(stored, bytes) else marshal.dumps(stored))
    found, hashed = _digests(pkg.root, tmp_path / "cache")
    assert hashed == 3
    assert found == {p: content_digest(p) for p in found}
    if stored == (1, {"x": "not an entry"}):  # a well-formed memo with a bad entry for a path walked
        memo = StatMemo(str(pkg.root), str(tmp_path / "cache"))
        memo._old[str(pkg.root / "notes.md")] = (1, 2, 3)  # type: ignore[assignment]
        assert memo.digest(str(pkg.root / "notes.md"), (pkg.root / "notes.md").stat()) == content_digest(str(pkg.root / "notes.md"))


def test_the_snapshot_is_the_same_whether_digests_are_remembered_or_read(tmp_path: Path, quiet: None, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = clean_package(tmp_path / "pkg")
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(tmp_path / "cache"))
    config = load_config(pkg.root)
    reads: list[str] = []
    real = statmemo.content_digest
    monkeypatch.setattr(statmemo, "content_digest", lambda p: reads.append(p) or real(p))
    first = resultcache.snapshot(pkg.root, config, now=time.time() + 60)
    assert len(reads) == 4  # SKILL.md, notes.md, the evidence and pyproject.toml
    reads.clear()
    second = resultcache.snapshot(pkg.root, config, now=time.time() + 60)
    assert (second, reads) == (first, [])
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(tmp_path / "other-cache"))  # nothing remembered
    assert resultcache.snapshot(pkg.root, config, now=time.time() + 60) == first
    assert len(reads) == 4


def test_the_code_fingerprint_does_not_depend_on_the_memo(tmp_path: Path, quiet: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(tmp_path / "cache"))
    cache.code_fingerprint.cache_clear()
    try:
        first = cache.code_fingerprint()
        cache.code_fingerprint.cache_clear()
        monkeypatch.setenv("SKILLCITE_NO_CACHE", "1")  # read every module
        assert cache.code_fingerprint() == first
    finally:
        cache.code_fingerprint.cache_clear()


def test_memos_of_folders_not_walked_for_a_month_are_pruned(tmp_path: Path) -> None:
    pkg = clean_package(tmp_path / "pkg")
    _digests(pkg.root, tmp_path / "cache")
    (memo,) = (tmp_path / "cache" / "stat").iterdir()
    assert statmemo.prune(str(tmp_path / "cache")) == 0
    month_ago = time.time() - 31 * 86400
    os.utime(memo, (month_ago, month_ago))
    assert statmemo.prune(str(tmp_path / "cache")) == 1
    assert not memo.exists()


def _check(root: Path, cache_dir: Path) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "SKILLCITE_NO_CACHE"}
    env.update({"PYTHONPATH": TOOLS, "SKILLCITE_CACHE_DIR": str(cache_dir)})
    r = subprocess.run([sys.executable, "-c", "from skillcite.cli.fast import run; run()", "check", str(root)], capture_output=True, text=True, env=env, check=False)
    return r.returncode, r.stdout


def test_a_warm_check_sees_an_edit_its_metadata_hide_but_the_change_time(tmp_path: Path) -> None:
    """Through the command, past the racy window: the memo is trusted, and still no stale result is served."""
    pkg = clean_package(tmp_path / "pkg")
    cache_dir = tmp_path / "cache"
    clean = _check(pkg.root, cache_dir)
    assert clean[0] == 0
    time.sleep(3.2)  # every file now older than the racy window: the next walk's digests are trusted after it
    assert _check(pkg.root, cache_dir) == clean
    assert _check(pkg.root, cache_dir) == clean
    skill = pkg.root / "SKILL.md"
    before = skill.stat()
    text = skill.read_text(encoding="utf-8")
    assert "fail silently" in text
    skill.write_text(text.replace("fail silently", "fail sIlently"), encoding="utf-8")
    os.utime(skill, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert skill.stat().st_size == before.st_size
    status, out = _check(pkg.root, cache_dir)
    assert status == 1, out
    assert "SC30" in out


LIGHT_ONLY = ("typing", "pathlib", "dataclasses", "tomllib", "inspect")
_IMPORTS = """
import sys
try:
    if sys.argv[1:] == ["check"]:
        from skillcite.cli.fast import run
        run()
finally:
    sys.stderr.write("MODULES " + " ".join(m for m in %r if m in sys.modules) + "\\n")
""" % (LIGHT_ONLY,)


def _modules(cwd: Path, cache_dir: Path, *argv: str) -> tuple[int, list[str]]:
    env = {k: v for k, v in os.environ.items() if k != "SKILLCITE_NO_CACHE"}
    env.update({"PYTHONPATH": TOOLS, "SKILLCITE_CACHE_DIR": str(cache_dir)})
    r = subprocess.run([sys.executable, "-c", _IMPORTS, *argv], capture_output=True, text=True, env=env, cwd=cwd, check=False)
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("MODULES")]
    return r.returncode, line.split()[1:]


def test_a_warm_check_from_the_package_folder_imports_none_of_the_heavier_standard_modules(tmp_path: Path) -> None:
    pkg = clean_package(tmp_path / "pkg")
    cache_dir = tmp_path / "cache"
    _, at_start = _modules(pkg.root, cache_dir)  # what the interpreter itself loads here (site, .pth files)
    cold = _modules(pkg.root, cache_dir, "check")
    assert cold[0] == 0 and set(cold[1]) - set(at_start)  # a miss parses: it needs them
    warm = _modules(pkg.root, cache_dir, "check")
    assert warm[0] == 0
    assert sorted(set(warm[1]) - set(at_start)) == []


def test_the_root_is_found_alike_with_and_without_the_table_memo(tmp_path: Path) -> None:
    from skillcite.core.rootfind import BY_DEFAULT, BY_GIT, BY_TABLE, TableMemo, find_root

    inner = tmp_path / "repo" / "a" / "b"
    inner.mkdir(parents=True)
    memo_file = tmp_path / "cache" / "tables.memo"
    answers = []
    for pyproject, git in [(None, False), (None, True), ('[tool.skillcite]\nevidence = "e"\n', True), ('[tool."skill\\u0063ite"]\n', False),
                           ("# [tool.skillcite] in a comment only\n", False), ("[tool.skillcite\n", False), (b"\xff[tool.skillcite]\n", False)]:
        for p in (tmp_path / "repo" / "a" / "pyproject.toml", tmp_path / "repo" / ".git"):
            if p.exists():
                p.unlink() if p.is_file() else p.rmdir()
        if git:
            (tmp_path / "repo" / ".git").mkdir()
        if pyproject is not None:
            target = tmp_path / "repo" / "a" / "pyproject.toml"
            target.write_bytes(pyproject if isinstance(pyproject, bytes) else pyproject.encode())
        memo = TableMemo(str(memo_file))
        first = find_root(str(inner), memo)
        memo.save()
        assert find_root(str(inner), TableMemo(str(memo_file))) == first == find_root(str(inner))
        answers.append(first[1])
    assert answers == [BY_DEFAULT, BY_GIT, BY_TABLE, BY_TABLE, BY_DEFAULT, BY_DEFAULT, BY_DEFAULT]


def test_a_damaged_table_memo_is_an_empty_one(tmp_path: Path) -> None:
    from skillcite.core.rootfind import TableMemo

    memo_file = tmp_path / "tables.memo"
    for junk in (b"", b"\x00garbage", __import__("marshal").dumps({b"k": "not a bool", "k": True})):
        memo_file.write_bytes(junk)
        memo = TableMemo(str(memo_file))
        assert memo.has_table(b"[tool.skillcite]\n") is True
        assert memo.has_table(b"[tool]\nother = 1\n") is False
