"""The on-disk parse cache: what its key covers, what it stores, how it is pruned."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Package, line_of
from skillcite.check.parsing import cache
from skillcite.check import check

PACKAGE = Path(cache.__file__).resolve().parents[2]  # tools/skillcite

_FINGERPRINT = "import sys; from skillcite.check.parsing.cache import code_fingerprint; print(code_fingerprint().hex())"


def _fingerprint(*path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in path)}
    return subprocess.run([sys.executable, "-c", _FINGERPRINT], capture_output=True, text=True, check=True, env=env).stdout.strip()


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A copy of the skillcite package that the test may edit (the fingerprint reads sources)."""
    tools = tmp_path / "tools"
    shutil.copytree(PACKAGE, tools / "skillcite", ignore=shutil.ignore_patterns("__pycache__"))
    return tools


def test_fingerprint_covers_every_module_of_the_package(package_copy: Path) -> None:
    before = _fingerprint(package_copy)
    assert _fingerprint(package_copy) == before  # stable
    # The rule that tells cache links from other links lives outside the
    # parsing modules; a change to it must still miss every cached parse.
    rule = package_copy / "skillcite" / "check" / "parsing" / "workspace.py"
    rule.write_text(rule.read_text() + "\n# changed\n")
    assert _fingerprint(package_copy) != before


def test_fingerprint_covers_the_parsing_libraries_versions(package_copy: Path, tmp_path: Path) -> None:
    before = _fingerprint(package_copy)
    # A distribution's metadata found first on sys.path is the one that counts:
    # a fake, later version of markdown-it-py stands in for an upgrade.
    fake = tmp_path / "fake-site"
    dist = fake / "markdown_it_py-999.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: markdown-it-py\nVersion: 999.0\n")
    assert _fingerprint(fake, package_copy) != before


def test_entries_are_json_and_round_trip_the_parse(pkg: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(tmp_path / "c"))
    pkg.replace("SKILL.md", "(notes.md)", "(gone.md)")
    # One quote cited a line off: it is found elsewhere in the file, which is
    # then normalized whole (the other is found in a narrow stretch, not stored).
    bug = line_of(pkg.read("docs/evidence/src.md"), "Assume you have a bug")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 1}")
    cold = check(pkg.root, cache=True)
    assert {o.match.status for o in cold.outcomes if o.match} == {"verified", "moved"}
    entries = sorted((tmp_path / "c").rglob("*.json"))
    assert len(entries) == 3  # SKILL.md and notes.md parsed, the evidence body normalized
    for entry in entries:
        json.loads(entry.read_bytes())  # plain JSON, nothing that runs on load
    warm = check(pkg.root, cache=True)
    assert [d.format() for d in warm.diagnostics] == [d.format() for d in cold.diagnostics]
    assert [(o.quote, o.match) for o in warm.outcomes] == [(o.quote, o.match) for o in cold.outcomes]
    assert [d.definitions for d in warm.documents] == [d.definitions for d in cold.documents]


class _Plant:
    """Unpickling this writes a marker file: what a poisoned pickle cache could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (Path.write_text, (self.marker, "ran"))


def test_a_planted_pickle_never_runs(pkg: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(tmp_path / "c"))
    first = check(pkg.root, cache=True)
    marker = tmp_path / "marker"
    entries = sorted((tmp_path / "c").rglob("*.json"))
    assert entries
    for entry in entries:
        entry.write_bytes(pickle.dumps(_Plant(marker)))
    again = check(pkg.root, cache=True)
    assert not marker.exists()
    assert [d.format() for d in again.diagnostics] == [d.format() for d in first.diagnostics] == []
    assert again.quotes_verified == first.quotes_verified == 2


def test_an_entry_naming_another_class_is_a_miss() -> None:
    assert cache.decode({"__tuple__": [1, "a"]}) == (1, "a")
    with pytest.raises(ValueError):
        cache.decode({"__class__": "Popen", "fields": {"args": ["true"]}})
    with pytest.raises(TypeError):
        cache.encode(object())


def test_prune_drops_other_fingerprints_pickles_and_the_oldest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "c"
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(base))
    stale = base / "check" / "0123456789abcdef" / "ab"
    stale.mkdir(parents=True)
    (stale / "old.json").write_text("{}")
    legacy = base / "3f"
    legacy.mkdir()
    (legacy / ("3f" + "0" * 62)).write_bytes(b"pickle")
    http = base / "http"
    http.mkdir()
    (http / "page.json").write_text("{}")  # refresh's HTTP cache shares the folder: kept
    for n in range(6):
        name = f"{n:02x}" + "0" * 62
        cache.store(name, [n])
        path = next((base / "check").rglob(f"{name}.json"))
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
    cache.prune(max_entries=3, max_age_days=10**6)
    left = sorted(p.name for p in (base / "check").rglob("*.json"))
    assert left == [f"{n:02x}" + "0" * 62 + ".json" for n in (3, 4, 5)]
    assert not stale.exists() and not legacy.exists()
    assert (http / "page.json").exists()
    cache.prune(max_entries=100, max_age_days=1)  # every entry is decades old
    assert list((base / "check").rglob("*.json")) == []


def test_a_parse_is_reused_for_the_same_text_elsewhere_and_findings_follow_the_place(pkg: Package, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 23: parses are keyed by text alone, so the copy `install` checks and a second
    # clone reuse them; what a link means still depends on where the document is.
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(tmp_path / "c"))
    pkg.write("guides/SKILL.md", pkg.read("SKILL.md"))  # the same text one folder down: its links break
    check(pkg.root, cache=True)
    entries = len(list((tmp_path / "c").rglob("*.json")))
    assert entries == 2  # one parse for both copies of SKILL.md, notes.md (quotes found in narrow stretches, not stored)
    warm = check(pkg.root, cache=True)
    cold = check(pkg.root, cache=False)
    assert [d.format() for d in warm.diagnostics] == [d.format() for d in cold.diagnostics]
    assert any(d.path == "guides/SKILL.md" for d in cold.diagnostics)
