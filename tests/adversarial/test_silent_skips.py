"""Text no rule looked at (issue 15 §1.7): nesting past markdown-it's limit, Markdown files by other names.

Each case of ``MUST_FAIL`` passed ``check --strict`` before; each twin in
``MUST_PASS`` stays clean.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from click.testing import CliRunner
from conftest import Package
from skillcite.check import check
from skillcite.cli.app import main

ALTERED = "> Assume nothing is wrong with your code.[^src]\n"
DEF = "[^src]: A. Author ([cache](docs/evidence/src.md): L15)\n"


def found(pkg: Package) -> list[tuple[str, str, int]]:
    return [(d.code, d.path, d.line) for d in check(pkg.root).diagnostics]


def doc(rel: str, text: str) -> Callable[[Package], None]:
    return lambda p: p.write(rel, text)


def nested_quotes(depth: int, inner: str) -> str:
    return "# Deep\n\n" + "> " * depth + inner + "\n\n" + DEF


def nested_lists(depth: int, inner: str) -> str:
    return "# Deep\n\n" + "".join("  " * k + "- level\n" for k in range(depth)) + "  " * depth + "- " + inner + "\n"


MUST_FAIL: dict[str, tuple[Callable[[Package], None], list[tuple[str, str, int]]]] = {
    # Inside the 21st level markdown-it parsed nothing: a quote there was never compared.
    # (Its footnote is then defined but never referenced: the reference was not parsed.)
    "altered quote 21 blockquotes deep": (
        doc("deep.md", nested_quotes(21, "Assume nothing is wrong.[^src]")),
        [("SC002", "deep.md", 3), ("SC102", "deep.md", 5)],
    ),
    "broken link 25 blockquotes deep": (
        doc("deep.md", nested_quotes(25, "See [this](missing.md).[^src]")),
        [("SC002", "deep.md", 3), ("SC102", "deep.md", 5)],
    ),
    "lazy lines after the deep one": (
        doc("deep.md", "# Deep\n\n" + "> " * 21 + "x\nmore text, [a link](missing.md) and an invented \"quote of the post\"[^src].\n\n" + DEF),
        # The one reference to [^src] was in the unparsed text.
        [("SC002", "deep.md", 3), ("SC102", "deep.md", 6)],
    ),
    # Each list is two levels (list, item): the tenth list's item is not parsed.
    "lists nested 11 deep": (doc("deep.md", nested_lists(11, "[a link](missing.md)")), [("SC002", "deep.md", 12)]),
    "lists inside blockquotes": (doc("deep.md", "# Deep\n\n" + "> - " * 11 + "hidden [link](missing.md)\n"), [("SC002", "deep.md", 3)]),
    "deep nesting in SKILL.md itself": (
        lambda p: p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\n" + "> " * 22 + "Invented words.[^src]\n"),
        [("SC002", "SKILL.md", 7)],
    ),
    # Markdown under other names was never read, though install copied it.
    "upper-case .MD": (doc("NOTES.MD", "# Notes\n\n" + ALTERED + "\n" + DEF), [("SC303", "NOTES.MD", 3)]),
    "mixed-case .Md": (doc("notes2.Md", "# Notes\n\n" + ALTERED + "\n" + DEF), [("SC303", "notes2.Md", 3)]),
    ".markdown": (doc("guide.markdown", "# Guide\n\n" + ALTERED + "\n" + DEF), [("SC303", "guide.markdown", 3)]),
    ".mdx": (doc("page.mdx", "# Page\n\n" + ALTERED + "\n" + DEF), [("SC303", "page.mdx", 3)]),
    ".MARKDOWN with a broken link": (doc("sub/GUIDE.MARKDOWN", "# Guide\n\nSee [x](gone.md).\n"), [("SC601", "sub/GUIDE.MARKDOWN", 3)]),
    "undefined footnote in .mdx": (doc("page.mdx", "# Page\n\nA claim.[^nope]\n"), [("SC101", "page.mdx", 3)]),
}

MUST_PASS: dict[str, Callable[[Package], None]] = {
    "19 blockquotes deep": doc("deep.md", nested_quotes(19, "Assume you have a bug.[^src]")),
    "lists nested 9 deep": doc("deep.md", nested_lists(8, "a plain item [a link](notes.md)")),
    "upper-case .MD, quote intact": doc("NOTES.MD", "# Notes\n\n> Assume you have a bug.[^src]\n\n" + DEF),
    ".markdown, quote intact": doc("guide.markdown", "# Guide\n\n> Assume you have a bug.[^src]\n\n" + DEF),
    "a .txt file is not Markdown": doc("notes.txt", ALTERED + "\n" + DEF),
    "a link to a heading of a .MD file": lambda p: (
        p.write("NOTES.MD", "# Notes\n\n## Part two\n"),
        p.replace("SKILL.md", "(notes.md)", "(NOTES.MD#part-two)"),
    ),
}


@pytest.mark.parametrize("name", sorted(MUST_FAIL))
def test_silent_skip_is_a_finding(pkg: Package, name: str) -> None:
    edit, expected = MUST_FAIL[name]
    edit(pkg)
    assert found(pkg) == expected


@pytest.mark.parametrize("name", sorted(MUST_PASS))
def test_near_twin_stays_clean(pkg: Package, name: str) -> None:
    MUST_PASS[name](pkg)
    assert [d.format() for d in check(pkg.root).diagnostics] == []


def test_excluding_notes_md_excludes_its_other_spellings(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nexclude = ["drafts/**", "notes.md"]\n')
    pkg.write("drafts/x.MD", "# Draft\n\nSee [x](gone.md).\n")
    pkg.write("notes.markdown", "# Draft\n\nSee [x](gone.md).\n")
    assert found(pkg) == []


def test_bundle_refuses_a_file_nested_too_deep(pkg: Package) -> None:
    pkg.replace("SKILL.md", "# Pkg\n", "# Pkg\n\n" + "> " * 22 + "Invented words.[^src]\n")
    result = CliRunner().invoke(main, ["bundle", str(pkg.root)])
    assert result.exit_code == 2
    assert result.output.strip() == f"skillcite: error: {pkg.root / 'SKILL.md'}:7: nested more than 20 levels deep; run skillcite check"


def test_install_checks_a_linked_md_file_it_copies(pkg: Package, tmp_path_factory) -> None:
    pkg.write("NOTES.MD", "# Notes\n\n" + ALTERED + "\n" + DEF)
    pkg.replace("SKILL.md", "(notes.md)", "(NOTES.MD)")
    dest = tmp_path_factory.mktemp("skills")
    result = CliRunner().invoke(main, ["install", "--dest", str(dest), str(pkg.root)])
    assert result.exit_code == 1, result.output
    assert "NOTES.MD:3:1: SC303" in result.output
    assert not any(dest.iterdir())


def test_evidence_by_another_markdown_name_is_validated_and_locked(pkg: Package) -> None:
    # Uncited evidence named .MD was never listed: no SC404, no lock check, `lock` skipped it.
    pkg.write("docs/evidence/extra.MD", pkg.read("docs/evidence/src.md") + "An edit after the lock.\n")
    assert found(pkg) == [("SC404", "docs/evidence/extra.MD", 1), ("SC403", "docs/evidence/extra.MD", 9)]
    result = CliRunner().invoke(main, ["lock", "--root", str(pkg.root)])
    assert result.exit_code == 0, result.output
    assert found(pkg) == [("SC404", "docs/evidence/extra.MD", 1)]
