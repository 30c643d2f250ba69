"""The settings' globs read as gitignore-style globs: ``*`` stays in a folder, ``**`` crosses folders."""

from __future__ import annotations

import pytest
from conftest import Package
from skillcite.check import check
from skillcite.core.config import DEFAULT_EXCLUDE, Config
from skillcite.core.globs import covers_folder, glob_match


@pytest.mark.parametrize(
    ("rel", "pattern", "expected"),
    [
        ("x/a.md", "*.md", False),  # fnmatch took it: `*` crossed the folder
        ("a.md", "*.md", True),
        ("refs/a.md", "refs/*.md", True),
        ("refs/old/a.md", "refs/*.md", False),
        ("refs/old/a.md", "refs/**", True),
        ("SKILL.md", "**/*.md", True),  # `**/` also matches no folder
        ("x/y/z.md", "**/*.md", True),
        ("a/b.md", "a/**/b.md", True),
        ("a/x/y/b.md", "a/**/b.md", True),
        ("rl/SKILL.md", "*/SKILL.md", True),
        ("skills/rl/SKILL.md", "*/SKILL.md", False),
        ("skills/rl/SKILL.md", "**/SKILL.md", True),
        (".git/config", ".*/**", True),
        ("a/.venv/lib/x.md", "**/.*/**", True),
        ("a1.md", "a[0-9].md", True),
        ("ab.md", "a[!b].md", False),
        ("ab.md", "a?.md", True),
        ("a/b", "a?b", False),  # `?` never stands for `/`
        ("a[1].md", "a[1].md", False),  # a class, as in fnmatch
        ("notes.md", "notes.md", True),
        ("x/notes.md", "notes.md", False),  # anchored at the root
    ],
)
def test_glob_match(rel: str, pattern: str, expected: bool) -> None:
    assert glob_match(rel, pattern) is expected


@pytest.mark.parametrize(
    ("folder", "pattern", "expected"),
    [
        ("venv", "venv/**", True),
        ("a/.git", "**/.*/**", True),
        ("drafts", "drafts/*", False),  # drafts/sub/a.md is not matched: the walk must enter
        ("drafts", "drafts/x*", False),
        ("drafts", "drafts/**/*", True),
        ("drafts", "drafts/?/**", False),
    ],
)
def test_covers_folder(folder: str, pattern: str, expected: bool) -> None:
    assert covers_folder(folder, pattern) is expected


def test_this_repositorys_globs_keep_their_meaning() -> None:
    """ml-debug's own settings name what they named under fnmatch (checked against its layout)."""
    files = ["SKILL.md", "PLAYBOOK.md", "rl/SKILL.md", "pinn/SKILL.md", "refs/diagnostics.md", "docs/codes.md", "tests/x.md", "bench/a/b.md"]
    content = ["SKILL.md", "PLAYBOOK.md", "refs/**", "*/SKILL.md", "rl/**", "pinn/**"]
    assert [f for f in files if any(glob_match(f, g) for g in content)] == files[:5]
    cfg = Config(exclude=["tests/**", "bench/**"])
    assert [f for f in files if cfg.is_document(f)] == files[:6]
    assert [g for g in DEFAULT_EXCLUDE if glob_match("node_modules/x.md", g)] == ["**/node_modules/**"]


UNSOURCED = "# Old\n\n> An unsourced saying.\n"


def _codes(pkg: Package) -> list[tuple[str, str]]:
    return sorted((d.code, d.path) for d in check(pkg.root).diagnostics)


def test_content_star_stays_in_its_folder(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ncontent = ["SKILL.md", "refs/*.md"]\n')
    pkg.write("refs/a.md", UNSOURCED)
    pkg.write("refs/old/b.md", UNSOURCED)
    assert _codes(pkg) == [("SC304", "refs/a.md")]


def test_content_double_star_crosses_folders(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ncontent = ["SKILL.md", "refs/**"]\n')
    pkg.write("refs/a.md", UNSOURCED)
    pkg.write("refs/old/b.md", UNSOURCED)
    assert _codes(pkg) == [("SC304", "refs/a.md"), ("SC304", "refs/old/b.md")]


def test_exclude_star_leaves_deeper_files_checked(pkg: Package) -> None:
    """`drafts/*` excludes the drafts' own files, not those of a folder inside (the walk enters it)."""
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ncontent = ["**/*.md"]\nexclude = ["drafts/*", "notes.md"]\n')
    pkg.write("drafts/a.md", UNSOURCED)
    pkg.write("drafts/sub/b.md", UNSOURCED)
    assert _codes(pkg) == [("SC304", "drafts/sub/b.md")]
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ncontent = ["**/*.md"]\nexclude = ["drafts/**", "notes.md"]\n')
    assert _codes(pkg) == []


def test_per_file_ignores_and_toc_read_globs_alike(pkg: Package) -> None:
    long = "# Long\n\n" + "".join(f"Line {i}.\n\n" for i in range(120))
    pkg.write("refs/a.md", long)
    pkg.write("refs/old/b.md", long)
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ntoc = ["refs/*.md"]\n')
    assert [(c, p) for c, p in _codes(pkg) if c.startswith("SC5")] == [("SC507", "refs/a.md")]
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ntoc = ["refs/**"]\n[tool.skillcite.per_file_ignores]\n"refs/*.md" = ["SC507"]\n')
    assert [(c, p) for c, p in _codes(pkg) if c.startswith("SC5")] == [("SC507", "refs/old/b.md")]
