"""Gradual adoption: baselines, inline suppression, per-file ignores, settings, root and scope."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Package
from skillcite.check import check
from skillcite.check.judging.suppress import find_suppressions
from skillcite.cli import main
from skillcite.core.config import find_root

UNSOURCED = "\n> An unsourced saying.\n"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def findings(pkg: Package) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in check(pkg.root).diagnostics]


def settings(pkg: Package, extra: str) -> None:
    base = "" if extra.startswith("evidence") else 'evidence = "docs/evidence"\n'
    pkg.write("pyproject.toml", "[tool.skillcite]\n" + base + extra)


# -- inline suppression ----------------------------------------------------------------


def test_suppression_covers_the_next_block_only(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + "\n<!-- skillcite: ignore SC304 -->\n> First saying.\n> Same block.\n" + UNSOURCED)
    report = check(pkg.root)
    assert [(d.code, d.path) for d in report.diagnostics] == [("SC304", "SKILL.md")]
    assert report.diagnostics[0].line == pkg.read("SKILL.md").count("\n")  # the second blockquote
    assert report.suppressed == 1


def test_suppression_by_prefix_and_file_wide(pkg: Package) -> None:
    text = pkg.read("SKILL.md").replace("# Pkg\n", "# Pkg\n\n<!-- skillcite: ignore-file SC3 -->\n", 1)
    pkg.write("SKILL.md", text + UNSOURCED + UNSOURCED)
    report = check(pkg.root)
    assert report.diagnostics == [] and report.suppressed == 2


def test_suppression_inside_a_list_item_stays_in_the_item() -> None:
    text = "- item\n  <!-- skillcite: ignore SC304 -->\n  > quoted\n\n> outside\n"
    found, problems = find_suppressions(text)
    assert problems == []
    assert [(s.codes, s.first, s.last) for s in found] == [(("SC304",), 3, 3)]


def test_suppression_with_nothing_after_it_is_a_finding() -> None:
    found, problems = find_suppressions("# T\n\n<!-- skillcite: ignore SC304 -->\n")
    assert found == [] and problems == [(3, "suppression comment has no block after it to apply to")]


def test_a_broken_suppression_does_not_suppress(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + "\n<!-- skillcite: ignore SC3O4 -->\n" + UNSOURCED)
    assert sorted(code for code, _ in findings(pkg)) == ["SC009", "SC304"]


# -- per-file ignores and settings --------------------------------------------------------


def test_per_file_ignores(pkg: Package) -> None:
    pkg.write("notes.md", "# Notes\n" + UNSOURCED)
    settings(pkg, 'content = ["*.md"]\n[tool.skillcite.per_file_ignores]\n"notes.md" = ["SC304"]\n')
    report = check(pkg.root)
    assert report.diagnostics == [] and report.suppressed == 1
    pkg.write("SKILL.md", pkg.read("SKILL.md") + UNSOURCED)
    assert [(d.code, d.path) for d in check(pkg.root).diagnostics] == [("SC304", "SKILL.md")]


def test_select_ignore_strict_from_settings_and_the_command_line_wins(pkg: Package) -> None:
    pkg.write("docs/evidence/unused.md", pkg.read("docs/evidence/src.md"))  # SC404, a warning
    assert run("check", str(pkg.root))[0] == 0
    settings(pkg, "strict = true\n")
    status, out = run("check", str(pkg.root))
    assert status == 1 and "SC404" in out
    settings(pkg, 'strict = true\nignore = ["SC404"]\n')
    assert run("check", str(pkg.root))[0] == 0
    status, out = run("check", str(pkg.root), "--ignore", "SC1")  # the option replaces the setting
    assert status == 1 and "SC404" in out
    settings(pkg, 'strict = true\nselect = ["SC3"]\n')
    assert run("check", str(pkg.root))[0] == 0


def test_bad_settings_are_usage_errors(pkg: Package) -> None:
    settings(pkg, 'ignore = ["SC99"]\n')
    status, out = run("check", str(pkg.root))
    assert status == 2
    assert out.strip().endswith("[tool.skillcite] ignore: 'SC99' matches no diagnostic code (see docs/codes.md)")
    settings(pkg, "strict = 1\n")
    status, out = run("check", str(pkg.root))
    assert status == 2 and "[tool.skillcite] strict must be true or false" in out
    settings(pkg, '[tool.skillcite.per_file_ignores]\n"x.md" = "SC304"\n')
    status, out = run("check", str(pkg.root))
    assert status == 2 and 'per_file_ignores must be a table of glob = ["CODE", ...]' in out


# -- baseline ---------------------------------------------------------------------------


def test_baseline_accepts_todays_findings_and_fails_on_new_ones(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + UNSOURCED)
    base = pkg.root / "baseline.json"
    status, out = run("check", str(pkg.root), "--write-baseline", str(base))
    assert status == 0 and "wrote 1 finding to" in out
    data = json.loads(base.read_text())
    assert data["skillcite_baseline"] == 1
    assert [(f["code"], f["path"], f["subject"]) for f in data["findings"]] == [("SC304", "SKILL.md", "An unsourced saying.")]
    status, out = run("check", str(pkg.root), "--baseline", str(base))
    assert status == 0 and out.strip().endswith("0 errors, 0 warnings, 1 accepted by the baseline")
    # Lines moving above the accepted finding do not make it new.
    pkg.write("SKILL.md", pkg.read("SKILL.md").replace("# Pkg\n", "# Pkg\n\nA new paragraph.\n\nAnd another.\n"))
    assert run("check", str(pkg.root), "--baseline", str(base))[0] == 0
    # The same finding twice is one more than the baseline accepts.
    pkg.write("SKILL.md", pkg.read("SKILL.md") + "\nText.\n" + UNSOURCED)
    status, out = run("check", str(pkg.root), "--baseline", str(base))
    assert status == 1
    reported = [line for line in out.splitlines() if ": SC" in line]
    assert len(reported) == 1 and reported[0].startswith("SKILL.md:") and " SC304 " in reported[0]
    assert out.strip().endswith("1 error, 0 warnings, 1 accepted by the baseline")


def test_baseline_from_settings(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + UNSOURCED)
    assert run("check", str(pkg.root), "--write-baseline", str(pkg.root / ".skillcite-baseline.json"))[0] == 0
    settings(pkg, 'baseline = ".skillcite-baseline.json"\n')
    assert run("check", str(pkg.root))[0] == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such baseline file (write one with --write-baseline)"),
        ("{", "baseline is not valid JSON"),
        ('{"findings": []}', "not a skillcite baseline"),
        ('{"skillcite_baseline": 1, "findings": [{"code": "SC304"}]}', "findings[0] needs string code, path and subject"),
    ],
)
def test_bad_baseline_is_one_line_exit_2(pkg: Package, content: str | None, message: str) -> None:
    base = pkg.root / "b.json"
    if content is not None:
        base.write_text(content)
    status, out = run("check", str(pkg.root), "--baseline", str(base))
    assert status == 2
    assert len(out.strip().splitlines()) == 1 and message in out


# -- root and scope -----------------------------------------------------------------------


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True, env={"GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"})


def test_root_is_the_nearest_table_then_git_then_the_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "a/b").mkdir(parents=True)
    assert find_root(repo / "a/b") == ((repo / "a/b").resolve(), "current folder: no [tool.skillcite] or git work tree above it")
    _git_init(repo)
    assert find_root(repo / "a/b") == (repo.resolve(), "top of the git work tree")
    (repo / "a/pyproject.toml").write_text("[tool.skillcite]\n")
    assert find_root(repo / "a/b") == ((repo / "a").resolve(), "nearest pyproject.toml with [tool.skillcite]")
    (repo / "a/b/pyproject.toml").write_text('[project]\nname = "x"\n')  # no table: not a root
    assert find_root(repo / "a/b")[0] == (repo / "a").resolve()


def test_check_from_a_sub_folder_checks_the_package(pkg: Package, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + UNSOURCED)
    monkeypatch.chdir(pkg.root / "docs/evidence")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    assert "SKILL.md:" in result.output and "SC304" in result.output
    assert f"skillcite: root {pkg.root.resolve()} (nearest pyproject.toml with [tool.skillcite])" in result.output


def test_hidden_folders_at_any_depth_and_bundles_are_not_checked(pkg: Package) -> None:
    broken = "---\nname: other\ndescription: installed copy\n---\n" + UNSOURCED
    pkg.write("sub/.claude/skills/other/SKILL.md", broken)
    pkg.write(".agents/skills/other/SKILL.md", broken)
    status, _ = run("bundle", str(pkg.root), "-o", str(pkg.root / "prompt.md"))
    assert status == 0 and (pkg.root / "prompt.md").exists()
    report = check(pkg.root)
    assert report.diagnostics == []
    assert sorted(d.rel for d in report.documents) == ["SKILL.md", "notes.md"]


# -- several evidence folders ---------------------------------------------------------------


def test_several_evidence_folders(pkg: Package) -> None:
    pkg.write("sub/evidence/src.md", pkg.read("docs/evidence/src.md"))
    pkg.write(
        "sub/SKILL.md",
        "---\nname: sub\ndescription: A sub-skill.\n---\n# Sub\n\n> Assume you have a bug.[^s]\n\n"
        "[^s]: A. Author ([cache](evidence/src.md): bug L15)\n",
    )
    first = check(pkg.root)
    assert [(d.code, d.path) for d in first.diagnostics] == [("SC202", "sub/SKILL.md")]
    assert "outside the evidence folder docs/evidence/" in first.diagnostics[0].message
    settings(pkg, 'evidence = ["docs/evidence", "sub/evidence"]\n')
    second = check(pkg.root)
    assert second.diagnostics == [] and second.sources == 2 and second.quotes_verified == 3
    assert sorted(d.rel for d in second.documents) == ["SKILL.md", "notes.md", "sub/SKILL.md"]
    status, out = run("lock", "--root", str(pkg.root), "--check")
    assert status == 0 and out.strip() == "2 evidence files: 0 locked, 0 stale, 2 unchanged"


# -- messages (issue 13: each with its exact text) ------------------------------------------


def test_message_sc204_says_where_notes_go(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md").replace("silent L", "see the appendix, silent L"))
    [d] = check(pkg.root).diagnostics
    assert (d.code, d.message) == (
        "SC204",
        "cannot parse anchor 'see the appendix' (expected [label ]L<start>[-<end>][+L...]; free notes go after a ';')",
    )


def test_message_sc304_fits_a_blockquote(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + UNSOURCED)
    [d] = check(pkg.root).diagnostics
    assert d.message == "blockquote has no footnote reference: cite its source with a footnote, or make it plain text (not a > blockquote)"


def test_message_sc401_lists_the_required_keys(pkg: Package) -> None:
    pkg.write("docs/evidence/src.md", pkg.read("docs/evidence/src.md").split("---\n", 2)[2])
    codes = [(d.code, d.message) for d in check(pkg.root).diagnostics if d.code == "SC401"]
    assert codes == [(
        "SC401",
        "no YAML front matter: open the file with a --- block holding source, title, author, retrieved, kind, license, sha256"
        " (skillcite evidence adopt converts Source:/Title: header lines)",
    )]


def test_check_with_nothing_to_check_fails_and_names_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner
    from skillcite.cli import main

    folder = tmp_path / "wrong-folder"
    folder.mkdir()
    result = CliRunner().invoke(main, ["check", str(folder), "--strict"])
    assert result.exit_code == 1
    assert f"skillcite: error: nothing to check under {folder}: no Markdown file matches include ['**/*.md']" in result.output
    # Outside any repository: the root is named, and a virtual environment or what .gitignore lists is never checked.
    (folder / "venv1/lib/site-packages/pkg").mkdir(parents=True)
    (folder / "venv1/pyvenv.cfg").write_text("home = /usr\n")
    (folder / "venv1/lib/site-packages/pkg/README.md").write_text("> unsourced\n")
    (folder / "scratch").mkdir()
    (folder / "scratch/notes.md").write_text("# Notes\n")
    (folder / ".gitignore").write_text("# local\nscratch/\n")
    (folder / "README.md").write_text("# Top\n")
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 0, result.output
    assert f"skillcite: root {folder.resolve()} (current folder: no [tool.skillcite] or git work tree above it)" in result.output
    assert "checked 1 files" in result.output
# -- issue 23: a sub-skill's own evidence folder --------------------------------------------
def _sub_skill_with_evidence(pkg: Package) -> None:
    from conftest import evidence_text, skill_text

    pkg.write("sub/SKILL.md", skill_text().replace("name: pkg", "name: sub").replace("# Pkg", "# Sub").replace("(#pkg)", "(#sub)").replace("(notes.md)", "(../notes.md)"))
    pkg.write("sub/docs/evidence/src.md", evidence_text())


def test_a_sub_skills_docs_evidence_is_evidence_when_evidence_is_not_configured(pkg: Package) -> None:
    pkg.write("pyproject.toml", "[tool.skillcite]\n")
    _sub_skill_with_evidence(pkg)
    report = check(pkg.root)
    assert [(d.code, d.path) for d in report.diagnostics] == []
    assert sorted(doc.rel for doc in report.documents) == ["SKILL.md", "notes.md", "sub/SKILL.md"]  # the excerpt is no document
    assert sorted(ev.rel for ev in report.evidence.values()) == ["docs/evidence/src.md", "sub/docs/evidence/src.md"]


def test_a_configured_evidence_folder_is_taken_as_written(pkg: Package) -> None:
    _sub_skill_with_evidence(pkg)  # pyproject.toml names docs/evidence only
    codes = {(d.code, d.path) for d in check(pkg.root).diagnostics}
    assert ("SC202", "sub/SKILL.md") in codes
    assert "sub/docs/evidence/src.md" in {doc.rel for doc in check(pkg.root).documents}
