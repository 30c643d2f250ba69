"""``skillcite init`` and ``skillcite evidence adopt`` on foreign layouts built in tmp_path."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from click.testing import CliRunner
from skillcite.adopt.headers import read_header, render_front_matter
from skillcite.adopt.init import plan_init
from skillcite.check import check
from skillcite.cli import main

HEADER_EVIDENCE = """Source: A blog
URL: https://example.org/post
Title: Debugging nets
Author: A. Author
Date: 2020-01-02

Neural nets fail silently and you will not notice.

Assume you have a bug. Everything else follows from this.
"""

SKILL = """---
name: demo
description: A demo skill.
---
# Demo

> Assume you have a bug.[^p]

See [the reference](references/more.md).

[^p]: A. Author, "Debugging nets" (2020) ([cache](../../evidence/post.md): bug L9)
"""

MORE = """# More

As the post says, "Neural nets fail silently"[^p].

[^p]: A. Author ([cache](../../../evidence/post.md#L7))
"""


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with no global configuration."""
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": "2024-03-05T10:00:00", "GIT_COMMITTER_DATE": "2024-03-05T10:00:00"}
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True).stdout


def foreign(tmp_path: Path) -> Path:
    """A skill repository in another layout: evidence at the top, header-line provenance."""
    root = tmp_path / "repo"
    (root / "skills/demo/references").mkdir(parents=True)
    (root / "evidence").mkdir()
    (root / "tests/fixtures/x").mkdir(parents=True)
    (root / "evidence/post.md").write_text(HEADER_EVIDENCE)
    (root / "skills/demo/SKILL.md").write_text(SKILL)
    (root / "skills/demo/references/more.md").write_text(MORE)
    (root / "tests/fixtures/x/SKILL.md").write_text("---\nname: x\ndescription: fixture\n---\n> unsourced\n")
    (root / "prompt.md").write_text("<!-- bundled by skillcite 0.1.0 from SKILL.md; about 10 tokens (characters/4). -->\n\n> x\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def test_read_header_maps_keys_and_counts_the_blank_line() -> None:
    header = read_header(HEADER_EVIDENCE)
    assert header is not None
    assert header.fields == {
        "source": "https://example.org/post",
        "title": "Debugging nets",
        "author": "A. Author",
        "published": "2020-01-02",
    }
    assert header.lines == 6  # five header lines and the blank line after them


def test_read_header_needs_two_key_lines() -> None:
    assert read_header("Note: one line\n\nbody\n") is None
    assert read_header("# A heading\nSource: https://x.org\n") is None


def test_front_matter_quotes_what_yaml_would_misread() -> None:
    text = render_front_matter({"title": "Yes: no", "published": "2020-01-02", "source": "https://x.org"})
    assert text == "---\nsource: https://x.org\ntitle: 'Yes: no'\npublished: '2020-01-02'\n---\n"


def test_init_finds_skills_evidence_content_and_exclusions(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    plan = plan_init(root)
    assert plan.skills == ["skills/demo/SKILL.md"]
    assert plan.evidence == ["evidence"]
    assert plan.content == ["skills/demo/SKILL.md", "skills/demo/references/more.md"]
    assert plan.exclude == ["prompt.md", "tests/**"]
    table = tomllib.loads(plan.table())["tool"]["skillcite"]
    assert table == {
        "evidence": "evidence",
        "content": ["skills/demo/SKILL.md", "skills/demo/references/more.md"],
        "exclude": ["prompt.md", "tests/**"],
    }


def test_init_writes_once_and_refuses_to_overwrite(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    result = CliRunner().invoke(main, ["init", str(root)])
    assert result.exit_code == 0, result.output
    text = (root / "pyproject.toml").read_text()
    assert text.startswith('[project]\nname = "x"\n\n[tool.skillcite]\n')
    again = CliRunner().invoke(main, ["init", str(root)])
    assert again.exit_code == 2
    assert "already has [tool.skillcite]; use --force to replace it" in again.output
    assert (root / "pyproject.toml").read_text() == text
    forced = CliRunner().invoke(main, ["init", str(root), "--force"])
    assert forced.exit_code == 0
    assert (root / "pyproject.toml").read_text().count("[tool.skillcite]") == 1


def test_init_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    result = CliRunner().invoke(main, ["init", str(root), "--dry-run"])
    assert result.exit_code == 0
    assert "evidence folder evidence: 2 anchored citation(s) point into it" in result.output
    assert not (root / "pyproject.toml").exists()


def test_adopt_converts_locks_and_moves_every_anchor(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    assert CliRunner().invoke(main, ["init", str(root)]).exit_code == 0
    before = check(root)
    assert [d.code for d in before.diagnostics] == ["SC401"]
    assert before.quotes_verified == 2
    result = CliRunner().invoke(main, ["evidence", "adopt", "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert "evidence/post.md: front matter from 6 header line(s) -> 9 front-matter line(s); +3 lines; 2 anchor(s) moved" in result.output
    assert "inferred retrieved: date of the commit that added the file" in result.output
    assert "missing license" in result.output
    evidence = (root / "evidence/post.md").read_text()
    assert evidence.startswith("---\nsource: https://example.org/post\ntitle: Debugging nets\n")
    assert "retrieved: '2024-03-05'\n" in evidence
    assert "bug L12)" in (root / "skills/demo/SKILL.md").read_text()
    assert "post.md#L10)" in (root / "skills/demo/references/more.md").read_text()
    after = check(root)
    assert after.quotes_verified == 2
    assert [(d.code, d.message) for d in after.diagnostics] == [("SC402", "front matter lacks license")]


def test_adopt_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    CliRunner().invoke(main, ["init", str(root)])
    snapshot = {p: p.read_bytes() for p in root.rglob("*.md")}
    result = CliRunner().invoke(main, ["evidence", "adopt", "--root", str(root), "--dry-run"])
    assert result.exit_code == 0
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == snapshot


def test_adopt_reports_anchors_into_the_old_header(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    CliRunner().invoke(main, ["init", str(root)])
    skill = root / "skills/demo/SKILL.md"
    skill.write_text(SKILL.replace("bug L9)", "bug L9, title L3)"))
    result = CliRunner().invoke(main, ["evidence", "adopt", "--root", str(root)])
    assert result.exit_code == 1
    assert "not moved: skills/demo/SKILL.md:11: title L3 points into the old header lines" in result.output
    assert "bug L12, title L3)" in skill.read_text()


def test_adopt_skips_files_with_front_matter(tmp_path: Path) -> None:
    root = foreign(tmp_path)
    CliRunner().invoke(main, ["init", str(root)])
    CliRunner().invoke(main, ["evidence", "adopt", "--root", str(root)])
    converted = (root / "evidence/post.md").read_bytes()
    result = CliRunner().invoke(main, ["evidence", "adopt", "--root", str(root), str(root / "evidence/post.md")])
    assert result.exit_code == 0
    assert "skipped (already has front matter)" in result.output
    assert (root / "evidence/post.md").read_bytes() == converted
