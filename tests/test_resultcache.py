"""The whole-run result cache: a warm check is served only when nothing it depends on changed.

Every scenario runs the real command line in a subprocess on real files in
``tmp_path``: a check fills the cache, an edit follows, and the next check
must print exactly what a ``--no-cache`` check prints. "Served" is observed
through :func:`skillcite.cli.fast.try_cached_check`, the entry point's warm
path, which answers only from a stored result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Package, clean_package

from skillcite.check.parsing.statmemo import content_digest

TOOLS = str(Path(__file__).resolve().parents[1] / "tools")
HEAVY = ("markdown_it", "mdit_py_plugins", "yaml", "rapidfuzz", "click")

_PROBE = f"HEAVY = {HEAVY!r}\n" + """
import json, sys
from skillcite.cli.fast import try_cached_check
import io, contextlib
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = try_cached_check(sys.argv[1:])
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
print(json.dumps({"status": status, "out": out.getvalue(), "heavy": heavy}))
"""


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def pkg(tmp_path: Path) -> Package:
    return clean_package(tmp_path / "pkg")


def _env(cache_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SKILLCITE_NO_CACHE"}
    env.update({"PYTHONPATH": TOOLS, "SKILLCITE_CACHE_DIR": str(cache_dir), **extra})
    return env


def check(root: Path, cache_dir: Path, *args: str, **env: str) -> tuple[int, str, str]:
    """``skillcite check ROOT ARGS`` as a user runs it: exit status, stdout, stderr."""
    r = subprocess.run(
        [sys.executable, "-m", "skillcite", "check", str(root), *args],
        capture_output=True, text=True, env=_env(cache_dir, **env), check=False,
    )
    return r.returncode, r.stdout, r.stderr


def fresh(root: Path, cache_dir: Path, *args: str) -> tuple[int, str, str]:
    """The same check with every cache off."""
    return check(root, cache_dir, *args, "--no-cache")


def served(root: Path, cache_dir: Path, *args: str) -> dict:
    """What the warm path does for this command line (status None: not served)."""
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, "check", str(root), *args],
        capture_output=True, text=True, env=_env(cache_dir), check=True,
    )
    return json.loads(r.stdout)


def _same_size_edit(p: Package) -> None:
    """One byte of SKILL.md changed, size and times kept (what a fast editor or a copy tool can leave)."""
    path = p.root / "SKILL.md"
    st = path.stat()
    p.replace("SKILL.md", "Assume you have a bug", "Assume you have a bog")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _dependency_of_link(p: Package) -> None:
    (p.root / "scripts" / "run.py").unlink()


EDITS: dict[str, Callable[[Package], None]] = {
    "a document's byte": lambda p: p.replace("SKILL.md", "Assume you have a bug", "Assume you have a bog"),
    "a document's byte, size and mtime kept": _same_size_edit,
    "an evidence file's byte": lambda p: p.replace("docs/evidence/src.md", "Everything else follows", "Everything else followz"),
    "pyproject.toml": lambda p: p.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nexclude = ["notes.md"]\n'),
    "a document added": lambda p: p.write("extra.md", "# Extra\n\nSee [the missing page](missing.md).\n"),
    "a document removed": lambda p: (p.root / "notes.md").unlink(),
    "an evidence file added": lambda p: p.write("docs/evidence/other.md", "# Not a source\n"),
    "a linked script removed": _dependency_of_link,
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_any_change_to_an_input_gives_the_fresh_result(pkg: Package, cache_dir: Path, edit: str) -> None:
    pkg.write("scripts/run.py", "print('hi')\n")
    pkg.replace("SKILL.md", "[the notes](notes.md).", "[the notes](notes.md) and [the script](scripts/run.py).")
    before = check(pkg.root, cache_dir)
    assert before == fresh(pkg.root, cache_dir)
    assert before[0] == 0
    assert served(pkg.root, cache_dir)["status"] == 0  # stored, and served while nothing changes

    EDITS[edit](pkg)
    after = check(pkg.root, cache_dir)
    assert after == fresh(pkg.root, cache_dir)
    assert after != before  # the edit matters to the check, so a stale answer would show
    probe = served(pkg.root, cache_dir)
    assert (probe["status"], probe["out"]) == (after[0], after[1])  # the new result is the one stored


def test_a_warm_check_imports_no_parser_yaml_matcher_or_click(pkg: Package, cache_dir: Path) -> None:
    cold = check(pkg.root, cache_dir)
    probe = served(pkg.root, cache_dir)
    assert probe == {"status": 0, "out": cold[1], "heavy": []}


@pytest.mark.parametrize(
    "args",
    [(), ("--format", "json"), ("--format=github",), ("--strict",), ("--select", "SC1"), ("--ignore=SC3,SC404",)],
    ids=["text", "json", "github", "strict", "select", "ignore"],
)
def test_every_output_format_and_option_prints_what_a_fresh_check_prints(pkg: Package, cache_dir: Path, args: tuple[str, ...]) -> None:
    # Findings of both severities, so strict, select and ignore change the output.
    pkg.write("extra.md", "# Extra\n\nA ref[^gone] and [a link](missing.md).\n\n[^unused]: never cited\n")
    check(pkg.root, cache_dir)
    probe = served(pkg.root, cache_dir, *args)
    status, out, _ = fresh(pkg.root, cache_dir, *args)
    assert (probe["status"], probe["out"]) == (status, out)
    assert check(pkg.root, cache_dir, *args)[:2] == (status, out)


def test_a_baseline_applies_to_a_served_result(pkg: Package, cache_dir: Path) -> None:
    pkg.write("extra.md", "# Extra\n\n[a link](missing.md).\n")
    baseline = pkg.root / "accepted.json"
    assert check(pkg.root, cache_dir, "--write-baseline", str(baseline))[0] == 0
    check(pkg.root, cache_dir)  # the baseline file is new in the tree: one miss stores the result again
    probe = served(pkg.root, cache_dir, "--baseline", str(baseline))
    status, out, _ = fresh(pkg.root, cache_dir, "--baseline", str(baseline))
    assert (probe["status"], probe["out"]) == (status, out) == (0, out)
    assert "1 accepted by the baseline" in out


def test_a_dependency_upgrade_changes_the_key(pkg: Package, cache_dir: Path, tmp_path: Path) -> None:
    fake = tmp_path / "site"
    (fake / "rapidfuzz-999.0.dist-info").mkdir(parents=True)
    code = (
        "import sys; from pathlib import Path\n"
        "from skillcite.core.config import load_config\n"
        "from skillcite.check.resultcache import lookup_name\n"
        "root = Path(sys.argv[1]); print(lookup_name(root, load_config(root)))\n"
    )

    def name(*path: str) -> str:
        env = _env(cache_dir, PYTHONPATH=os.pathsep.join([*path, TOOLS]))
        return subprocess.run([sys.executable, "-c", code, str(pkg.root)], capture_output=True, text=True, env=env, check=True).stdout

    assert name() == name()
    assert name(str(fake)) != name()


def test_a_damaged_entry_is_a_miss(pkg: Package, cache_dir: Path) -> None:
    pkg.write("extra.md", "# Extra\n\n[a link](missing.md).\n")
    expected = check(pkg.root, cache_dir)
    entries = list(cache_dir.rglob("*.json"))
    assert entries
    for entry in entries:
        entry.write_text('{"__dict__": {"counts": [1, 2, 3], "diagnostics": []}}')
    assert served(pkg.root, cache_dir)["status"] is None
    assert check(pkg.root, cache_dir) == expected


@pytest.mark.parametrize("how", ["--no-cache", "SKILLCITE_NO_CACHE"])
def test_no_cache_reads_and_writes_nothing(pkg: Package, cache_dir: Path, how: str) -> None:
    if how == "--no-cache":
        check(pkg.root, cache_dir, "--no-cache")
    else:
        check(pkg.root, cache_dir, SKILLCITE_NO_CACHE="1")
    assert not cache_dir.exists()
    check(pkg.root, cache_dir)
    assert served(pkg.root, cache_dir)["status"] == 0
    pkg.replace("SKILL.md", "Assume you have a bug", "Assume you have a bog")
    if how == "--no-cache":
        status, out, _ = check(pkg.root, cache_dir, "--no-cache")
    else:
        status, out, _ = check(pkg.root, cache_dir, SKILLCITE_NO_CACHE="1")
    assert (status, out) == fresh(pkg.root, cache_dir)[:2]
    assert status == 1


def test_a_linked_folder_is_never_cached(pkg: Package, cache_dir: Path, tmp_path: Path) -> None:
    elsewhere = pkg.root / "elsewhere"  # inside: a link out of the package is SC603 and never read
    elsewhere.mkdir()
    (elsewhere / "page.md").write_text("# Page\n")
    (pkg.root / "linked").symlink_to(elsewhere, target_is_directory=True)
    pkg.replace("SKILL.md", "[the notes](notes.md).", "[the notes](notes.md) and [a page](linked/page.md#page).")
    assert check(pkg.root, cache_dir)[0] == 0
    assert served(pkg.root, cache_dir)["status"] is None
    (elsewhere / "page.md").write_text("# Other\n")
    status, out, _ = check(pkg.root, cache_dir)
    assert (status, out) == fresh(pkg.root, cache_dir)[:2]
    assert "SC602" in out


def test_a_link_leaving_the_root_is_never_read_so_caching_cannot_go_stale(pkg: Package, cache_dir: Path) -> None:
    # Issue 15: a link out of the package is SC603 and its target is never
    # read, so the result cannot depend on it, cached or not.
    outside = pkg.root.parent / "outside.md"
    outside.write_text("# Outside\n")
    pkg.replace("SKILL.md", "[the notes](notes.md).", "[the notes](notes.md) and [a page](../outside.md).")
    before = check(pkg.root, cache_dir)
    assert before[0] == 1 and "SC603 link target '../outside.md' resolves outside the package" in before[1]
    outside.unlink()
    status, out, _ = check(pkg.root, cache_dir)
    assert (status, out) == fresh(pkg.root, cache_dir)[:2] == before[:2]


def test_an_evidence_folder_outside_the_root_is_refused_and_never_served(tmp_path: Path, cache_dir: Path) -> None:
    # Issue 15 section 2.3: `evidence = "../shared"` is a configuration error now.
    pkg = clean_package(tmp_path / "pkg")
    (tmp_path / "shared").mkdir()
    (pkg.root / "docs/evidence/src.md").rename(tmp_path / "shared/src.md")
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "../shared"\n')
    pkg.replace("SKILL.md", "docs/evidence/src.md", "../shared/src.md")
    for _ in range(2):  # a second run is no cached success either
        status, out, err = check(pkg.root, cache_dir)
        assert (status, out) == (2, "")
        assert err == f"skillcite: error: {pkg.root / 'pyproject.toml'}: [tool.skillcite] evidence '../shared' points outside the package root; name a folder inside the package\n"
    assert served(pkg.root, cache_dir)["status"] is None


def test_python_m_skillcite_check_when_warm_imports_nothing_heavy(pkg: Package, cache_dir: Path) -> None:
    # The real command, with Python listing every module it imports.
    first = check(pkg.root, cache_dir)
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "skillcite", "check", str(pkg.root)],
        capture_output=True, text=True, env=_env(cache_dir), check=False,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert (r.returncode, r.stdout) == first[:2]
    assert "skillcite.check.resultcache" in imported
    assert sorted(m for m in imported if m.split(".")[0] in HEAVY) == []


def test_a_baseline_outside_the_tree_is_read_again_when_it_changes(pkg: Package, cache_dir: Path, tmp_path: Path) -> None:
    pkg.write("extra.md", "# Extra\n\n[a link](missing.md).\n")
    baseline = tmp_path / "accepted.json"  # outside the root: not in the snapshot, in the output's key
    assert check(pkg.root, cache_dir, "--write-baseline", str(baseline))[0] == 0
    accepted = check(pkg.root, cache_dir, "--baseline", str(baseline))
    assert accepted[0] == 0 and "1 accepted by the baseline" in accepted[1]
    assert served(pkg.root, cache_dir, "--baseline", str(baseline))["status"] == 0
    baseline.write_text(baseline.read_text().replace("SC601", "SC602"))
    after = check(pkg.root, cache_dir, "--baseline", str(baseline))
    assert after == fresh(pkg.root, cache_dir, "--baseline", str(baseline))
    assert after[0] == 1 and "accepted" not in after[1]


def test_a_setting_in_pyproject_changes_the_printed_result(pkg: Package, cache_dir: Path) -> None:
    pkg.write("extra.md", "# Extra\n\n[a link](missing.md).\n\n[^unused]: never cited\n")
    before = check(pkg.root, cache_dir)
    assert served(pkg.root, cache_dir)["status"] == 1
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nignore = ["SC6"]\n')
    after = check(pkg.root, cache_dir)
    assert after == fresh(pkg.root, cache_dir) and after != before
    assert "SC601" not in after[1] and "SC102" in after[1]


def test_the_key_does_not_depend_on_the_moment_of_the_lookup(pkg: Package, cache_dir: Path) -> None:
    """The race behind a flaky test: a file written just before a check was hashed into the key while
    "racy" and not a few seconds later, so the stored result was never found again."""
    import time

    from skillcite.check import resultcache
    from skillcite.core.config import load_config

    pkg.write("scripts/run.sh", "echo hi\n")  # linked, never read: keyed by size, verified by content while racy
    config = load_config(pkg.root)
    now = time.time()
    early = resultcache.snapshot(pkg.root, config, now)
    late = resultcache.snapshot(pkg.root, config, now + resultcache.RACY_SECONDS + 1)
    assert early.digest == late.digest
    assert [os.path.basename(path) for path, _ in early.racy] == ["run.sh"]  # verified by content on a hit
    assert late.racy == ()


def test_a_racy_file_is_verified_by_content_before_an_entry_is_served(pkg: Package) -> None:
    from skillcite.check import resultcache

    path = pkg.root / "scripts" / "run.py"
    pkg.write("scripts/run.py", "print('hi')\n")
    recorded = resultcache.Tree("digest", ((str(path), content_digest(str(path)).hex()),)).racy_data()
    assert resultcache.still_same(recorded) is True
    pkg.write("scripts/run.py", "print('ho')\n")  # same size: times alone may not tell on a coarse clock
    assert resultcache.still_same(recorded) is False
    assert resultcache.still_same("not a list") is False
    assert resultcache.still_same([]) is True


# -- issue 23: what the snapshot leaves out, and a cold check without click ---------------
def test_an_in_tree_venv_with_a_linked_folder_leaves_the_result_cacheable(pkg: Package, cache_dir: Path) -> None:
    # A virtual environment inside the package has lib64 -> lib: walking it made every warm check a miss.
    lib = pkg.root / ".venv" / "lib"
    lib.mkdir(parents=True)
    (lib / "site.json").write_text("{}\n")
    (pkg.root / ".venv" / "lib64").symlink_to(lib, target_is_directory=True)
    pkg.write("tools/m.py", "X = 1\n")
    first = check(pkg.root, cache_dir)
    assert first == fresh(pkg.root, cache_dir)
    assert served(pkg.root, cache_dir)["status"] == 0
    (lib / "site.json").write_text('{"changed": 1}\n')  # never read by the check
    (pkg.root / "tools" / "__pycache__").mkdir()  # bytecode an in-tree install writes
    (pkg.root / "tools" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    assert served(pkg.root, cache_dir)["status"] == 0


def test_a_link_into_a_folder_left_out_is_verified_before_a_result_is_served(pkg: Package, cache_dir: Path) -> None:
    # .github is hidden (never a document), but a link into it is probed and a Markdown target read.
    pkg.write(".github/guide.md", "# Guide\n\n## Setup\n")
    pkg.replace("SKILL.md", "[the notes](notes.md).", "[the notes](notes.md) and [setup](.github/guide.md#setup).")
    assert check(pkg.root, cache_dir)[0] == 0
    assert served(pkg.root, cache_dir)["status"] == 0
    pkg.write(".github/guide.md", "# Guide\n\n## Install\n")  # the anchor is gone
    assert served(pkg.root, cache_dir)["status"] is None
    after = check(pkg.root, cache_dir)
    assert after == fresh(pkg.root, cache_dir) and after[0] == 1
    (pkg.root / ".github/guide.md").unlink()
    assert served(pkg.root, cache_dir)["status"] is None
    assert check(pkg.root, cache_dir) == fresh(pkg.root, cache_dir)


def test_a_fresh_clone_with_the_cache_restored_is_served(pkg: Package, cache_dir: Path, tmp_path: Path) -> None:
    # CI: the same commit checked out again (new inodes and times), the cache folder restored.
    import shutil

    first = check(pkg.root, cache_dir)
    clone = tmp_path / "clone"
    shutil.copytree(pkg.root, clone)  # new inodes, new times
    shutil.rmtree(pkg.root)
    clone.rename(pkg.root)
    probe = served(pkg.root, cache_dir)
    assert (probe["status"], probe["out"]) == (first[0], first[1])


def test_a_cold_plain_check_runs_without_click_and_prints_what_click_prints(pkg: Package, cache_dir: Path) -> None:
    pkg.write("extra.md", "# Extra\n\nA ref[^gone] and [a link](missing.md).\n\n[^unused]: never cited\n")
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "skillcite", "check", str(pkg.root), "--strict"],
        capture_output=True, text=True, env=_env(cache_dir), check=False,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert "markdown_it" in imported and "click" not in imported  # a full check, and no click
    assert (r.returncode, r.stdout) == fresh(pkg.root, cache_dir, "--strict")[:2]  # --no-cache goes through click
    assert r.returncode == 1


@pytest.mark.parametrize("edit", ["a document's byte", "an evidence file's byte", "a document added", "pyproject.toml"])
def test_a_restored_cache_after_edits_gives_the_findings_of_a_cold_run(pkg: Package, cache_dir: Path, tmp_path: Path, edit: str) -> None:
    # The documented CI workflow: the cache of an earlier run (restore-keys) restored on a
    # fresh runner, the tree a later commit's. Parses of unchanged files are reused; the
    # findings must be those of a check with no cache at all.
    import shutil

    pkg.write("extra.md", "# Extra\n\nA ref[^gone].\n")
    check(pkg.root, cache_dir)
    restored = tmp_path / "restored"
    shutil.copytree(cache_dir, restored)
    clone = tmp_path / "clone"
    shutil.copytree(pkg.root, clone)
    edited = Package(clone)
    EDITS[edit](edited)
    cold = fresh(clone, tmp_path / "unused")
    assert check(clone, restored) == cold
    assert check(clone, restored) == cold  # and served from the entry the first run stored
    assert served(clone, restored)["status"] == cold[0]


def test_a_folder_a_plugin_manifest_names_is_walked_even_when_hidden(pkg: Package, cache_dir: Path) -> None:
    # The manifest's components may lie in a folder discovery excludes: the snapshot walks it.
    pkg.write(".claude-plugin/plugin.json", '{"name": "pkg", "skills": ["./", "./.extra/a"]}\n')
    pkg.write(".extra/a/SKILL.md", "---\nname: a\ndescription: A hidden component.\n---\n")
    pkg.write(".venv/lib/x.json", "{}\n")
    first = check(pkg.root, cache_dir)
    assert first == fresh(pkg.root, cache_dir)
    assert served(pkg.root, cache_dir)["status"] == first[0]
    (pkg.root / ".extra/a/SKILL.md").rename(pkg.root / ".extra/a/README.md")
    assert served(pkg.root, cache_dir)["status"] is None
    after = check(pkg.root, cache_dir)
    assert after == fresh(pkg.root, cache_dir) and after != first
    assert "SC704" in after[1]


def test_a_same_size_edit_of_a_file_the_check_reads_changes_the_key(pkg: Package) -> None:
    """The key holds no times: a file the check may read (here the module a dynamic version comes from)
    is keyed by content, so an edit that keeps its size is still a different key."""
    import time

    from skillcite.check import resultcache
    from skillcite.core.config import load_config

    pkg.write("tools/pkg/__init__.py", '__version__ = "1.0.0"\n')
    config = load_config(pkg.root)
    later = time.time() + 100  # nothing counts as racy: only the key can tell
    before = resultcache.snapshot(pkg.root, config, later)
    pkg.write("tools/pkg/__init__.py", '__version__ = "2.0.0"\n')
    assert resultcache.snapshot(pkg.root, config, later).digest != before.digest


def test_a_fresh_runner_takes_no_snapshot_to_look_for_a_stored_result(pkg: Package, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 23: with no entry of this code stored, a lookup cannot hit; the
    # tree is not walked and hashed for it (a cold check took three snapshots).
    from skillcite.check import resultcache
    from skillcite.core.config import load_config

    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(cache_dir))
    walked: list[Path] = []
    real = resultcache.lookup_tree
    monkeypatch.setattr(resultcache, "lookup_tree", lambda root, config, now=None: walked.append(root) or real(root, config, now))
    config = load_config(pkg.root)
    assert resultcache.cached_summary(pkg.root, config) is None
    assert walked == []
    # Once a check stored its result, the lookup walks the tree and is served.
    summary, tree = resultcache.check_summary(pkg.root, config, use_cache=True)
    walked.clear()
    found = resultcache.cached_summary(pkg.root, config)
    assert walked == [pkg.root] and found is not None and found[0] == summary
