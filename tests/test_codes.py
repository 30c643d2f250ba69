"""Every diagnostic code: a case that makes it fire and a near twin that stays clean."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from conftest import Package, evidence_text, line_of, locked
from skillcite import CODES
from skillcite.check import check

SRC = "docs/evidence/src.md"


def codes(pkg: Package) -> list[str]:
    return [d.code for d in check(pkg.root).diagnostics]


def test_clean_package_has_no_findings(pkg: Package) -> None:
    report = check(pkg.root)
    assert report.diagnostics == []
    assert report.quotes_verified == 2
    assert report.sources == 1


def _def_line(pkg: Package) -> str:
    return next(line for line in pkg.read("SKILL.md").splitlines() if line.startswith("[^src]:"))


def _set_anchors(pkg: Package, anchors: str) -> None:
    line = _def_line(pkg)
    head = line[: line.index("): ") + 3]
    pkg.replace("SKILL.md", line, head + anchors + ")")


def _bug() -> int:
    return line_of(evidence_text(), "Assume you have a bug")


def _silent() -> int:
    return line_of(evidence_text(), "neural nets fail silently")


def _toc(p: Package) -> None:
    """Hold ``refs/**`` to the table-of-contents rule (it is off by default)."""
    p.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\ntoc = ["refs/**"]\n')


def _append(pkg: Package, text: str) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md") + text)


def _reviewed(pkg: Package, old: str, new: str) -> None:
    """Replace ``old`` with ``new`` in SKILL.md, then record a review of every departure from verbatim."""
    from skillcite.check.reviewing import accept, departures

    pkg.replace("SKILL.md", old, new)
    ws, found = departures(pkg.root)
    assert found, "the twin must depart from verbatim"
    accept(ws, found, "A Reviewer <r@example.org>", bulk=False)


def _baseline(pkg: Package, findings: list[dict[str, str]]) -> None:
    """The settings name a baseline file holding ``findings``."""
    import json

    pkg.write(".skillcite-baseline.json", json.dumps({"skillcite_baseline": 1, "findings": findings}, indent=1) + "\n")
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nbaseline = ".skillcite-baseline.json"\n')


Mutation = Callable[[Package], None]


def _unlistable_folder(pkg: Package, top: str) -> None:
    """A folder nobody can list, even root: its path is longer than PATH_MAX.

    Each level is created relative to its parent's descriptor (``dir_fd``),
    so no single path handed to the kernel is too long; the walk, which
    joins the whole path, then fails to list the deepest level.
    """
    fd = os.open(pkg.root, os.O_RDONLY)
    try:
        for name in [top, *["d" * 250] * 20]:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def _plugin(pkg: Package, body: str = '"name": "pkg", "version": "1.0.0", "skills": ["./"]', version: str = "1.0.0") -> None:
    """A plugin manifest and a marketplace listing it, the plugin's fields given as JSON text."""
    pkg.write(".claude-plugin/plugin.json", "{" + body + "}\n")
    entry = f'{{"name": "pkg", "source": "./", "version": "{version}"}}'
    pkg.write(".claude-plugin/marketplace.json", f'{{"name": "pkg-market", "owner": {{"name": "Us"}}, "plugins": [{entry}]}}\n')

CASES: dict[str, tuple[Mutation, Mutation]] = {
    "SC001": (
        lambda p: _append(p, "\n```python\nx = 1\n"),
        lambda p: _append(p, "\n```python\nx = 1\n```\n"),
    ),
    "SC002": (
        lambda p: p.write("deep.md", "# Deep\n\n" + "> " * 21 + "Invented words, never parsed.\n"),
        lambda p: p.write("deep.md", "# Deep\n\n" + "> " * 19 + "Words at the deepest level still parsed.\n"),
    ),
    "SC003": (
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\nname: sub\n---\n"),
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\n---\n"),
    ),
    "SC004": (
        lambda p: _unlistable_folder(p, "notes"),
        lambda p: _unlistable_folder(p, ".hidden"),  # hidden folders are never walked, so never listed
    ),
    "SC005": (
        lambda p: _append(p, "\n<!-- skillcite: ignore SC304 -->\n\nA paragraph of our own.\n"),
        lambda p: _append(p, "\n<!-- skillcite: ignore SC304 -->\n\n> An unsourced saying.\n"),
    ),
    "SC006": (
        lambda p: _baseline(p, [{"code": "SC304", "path": "SKILL.md", "subject": "A saying fixed since.", "message": ""}]),
        lambda p: _baseline(p, []),
    ),
    "SC009": (
        lambda p: _append(p, "\n<!-- skillcite: ignore SC30 SC999 -->\n\n> An unsourced saying.\n"),
        lambda p: _append(p, "\n<!-- skillcite: ignore SC304 -->\n\n> An unsourced saying.\n"),
    ),
    "SC101": (
        lambda p: p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^missing]\n"),
        lambda p: p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^src]\n"),
    ),
    "SC102": (
        lambda p: _append(p, "[^unused]: A note nobody cites.\n"),
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^used]\n"), _append(p, "[^used]: A note.\n")),
    ),
    "SC103": (
        lambda p: _append(p, _def_line(p).replace("bug L", "again L") + "\n"),
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^src2]\n"), _append(p, _def_line(p).replace("[^src]", "[^src2]") + "\n")),
    ),
    "SC201": (
        lambda p: p.replace("SKILL.md", "docs/evidence/src.md", "docs/evidence/nope.md"),
        lambda p: (p.write("docs/evidence/other.md", p.read(SRC)), p.replace("SKILL.md", "docs/evidence/src.md", "docs/evidence/other.md"), os.remove(p.root / SRC)),
    ),
    "SC202": (
        lambda p: (p.write("outside.md", p.read(SRC)), p.replace("SKILL.md", "docs/evidence/src.md", "docs/evidence/../../outside.md")),
        lambda p: p.replace("SKILL.md", "docs/evidence/src.md", "docs/evidence/../evidence/src.md"),
    ),
    "SC203": (
        lambda p: p.write(SRC, p.read(SRC).encode("utf-8") + b"\xff\xfe bad bytes\n"),
        lambda p: p.write(SRC, p.read(SRC).replace("sha256:", "sha256:", 1)),
    ),
    "SC204": (
        lambda p: _set_anchors(p, f"bug lines {_bug()}, silent L{_silent()}"),
        lambda p: _set_anchors(p, f"bug L{_bug()}-L{_bug() + 1}, silent L{_silent()}"),
    ),
    "SC205": (
        lambda p: _set_anchors(p, f"bug L{_bug()}, silent L{_silent()}, zero L0"),
        lambda p: _set_anchors(p, f"bug L{_bug()}, silent L{_silent()}, one L1"),
    ),
    "SC206": (
        lambda p: _set_anchors(p, f"bug L{_bug() + 1}-{_bug()}, silent L{_silent()}"),
        lambda p: _set_anchors(p, f"bug L{_bug()}-{_bug() + 1}, silent L{_silent()}"),
    ),
    "SC207": (
        lambda p: _set_anchors(p, f"bug L{_bug()}, silent L{_silent()}, far L{_bug()}-999"),
        lambda p: _set_anchors(p, f"bug L{_bug()}, silent L{_silent()}, near L{_bug()}-{evidence_text().count(chr(10))}"),
    ),
    "SC208": (
        lambda p: _set_anchors(p, f"bug L{_bug()}, silent L{_silent()}, blank L{_silent() + 1}"),
        lambda p: _set_anchors(p, f"bug L{_bug()}, silent L{_silent()}, blank L{_silent()}-{_silent() + 1}"),
    ),
    "SC209": (
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^bare]\n"), _append(p, "[^bare]: A. Author ([cache](docs/evidence/src.md))\n")),
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^bare]\n"), _append(p, f"[^bare]: A. Author ([cache](docs/evidence/src.md#L{_bug()}))\n")),
    ),
    "SC210": (
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^para]\n"), _append(p, f"[^para]: A. Author ([cache](docs/evidence/src.md): cheap-assumption L{_bug()})\n")),
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA claim.[^para]\n"), _append(p, f"[^para]: A. Author ([cache](docs/evidence/src.md): cheap-assumption L{_bug() + 1})\n")),
    ),
    "SC301": (
        lambda p: _set_anchors(p, f"bug L{_silent()}, silent L{_silent()}"),
        lambda p: _set_anchors(p, f"bug L{_bug()}-{_bug() + 1}, silent L{_silent()}"),
    ),
    "SC302": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "> Assume that you have a bug."),
        lambda p: _reviewed(p, "> Assume you have a bug.", "> Assume you have [...] bug."),
    ),
    "SC303": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "> Gradient descent is a harsh mistress."),
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "Gradient descent is a harsh mistress."),
    ),
    "SC304": (
        lambda p: _append(p, "\n> An unsourced saying.\n"),
        lambda p: _append(p, "\n> [!NOTE]\n> An aside, not a quote.\n"),
    ),
    "SC305": (
        lambda p: (p.replace("SKILL.md", "# Pkg\n", '# Pkg\n\nThey wrote "nothing cached here"[^plain].\n'), _append(p, "[^plain]: A. Author, a talk (2020).\n")),
        lambda p: (p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nThey said nothing is cached here.[^plain]\n"), _append(p, "[^plain]: A. Author, a talk (2020).\n")),
    ),
    "SC306": (
        lambda p: p.write(SRC, evidence_text(kind="notes")),
        lambda p: p.write(SRC, evidence_text(kind="transcript")),
    ),
    "SC307": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.[^src]\n", "> Assume you have a bug.[^src]\n>\n> <p>Nothing else can go wrong.</p>\n"),
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.[^src]\n", "> Assume you have a bug.[^src]\n>\n> <!-- a reviewer's note, never shown -->\n"),
    ),
    "SC308": (
        lambda p: p.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nAs they wrote:\r> Assume you never have a bug.\n"),
        lambda p: p.replace("SKILL.md", "# Pkg\n", "# Pkg\r\n\r\nAs they wrote, you should check.\r\n"),
    ),
    "SC310": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "> Assume you [surely] have a bug."),
        lambda p: _reviewed(p, "> Assume you have a bug.", "> Assume [one has] a bug."),
    ),
    "SC311": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "> Assume you [do not] have a bug."),
        lambda p: _reviewed(p, "> Assume you have a bug.", "> Assume [we] have a bug."),
    ),
    "SC312": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "> Assume you have [2] bug."),
        lambda p: _reviewed(p, "> Assume you have a bug.", "> Assume you have [one] bug."),
    ),
    "SC313": (
        lambda p: p.replace("SKILL.md", "> Assume you have a bug.", "> Assume [...] a bug."),
        lambda p: _reviewed(p, "> Assume you have a bug.", "> Assume [...] a bug."),
    ),
    "SC314": (
        lambda p: p.replace("SKILL.md", "— https://example.org/post (", "— https://example.org/another-post ("),
        lambda p: p.replace("SKILL.md", "— https://example.org/post (", "— http://www.example.org/post/#top ("),
    ),
    "SC315": (
        lambda p: p.replace("SKILL.md", "[^src]: A. Author,", "[^src]: B. Someone,"),
        lambda p: p.replace("SKILL.md", "[^src]: A. Author,", "[^src]: Author et al.,"),
    ),
    "SC401": (
        lambda p: p.write(SRC, p.read(SRC).split("---\n", 2)[2]),
        lambda p: p.write(SRC, p.read(SRC)),
    ),
    "SC402": (
        lambda p: p.write(SRC, p.read(SRC).replace("license: CC BY 4.0\n", "")),
        lambda p: p.write(SRC, locked(p.read(SRC).replace("license: CC BY 4.0\n", "license: CC BY-SA 4.0\n"))),
    ),
    "SC403": (
        lambda p: p.write(SRC, p.read(SRC) + "An edit after the lock.\n"),
        lambda p: p.write(SRC, evidence_text(evidence_text().split("---\n", 2)[2] + "An edit, then a new lock.\n")),
    ),
    "SC404": (
        lambda p: p.write("docs/evidence/orphan.md", evidence_text()),
        lambda p: p.write("docs/evidence/README.md", "# About this folder\n"),
    ),
    "SC501": (
        lambda p: p.write("sub/SKILL.md", "# No front matter\n"),
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\n---\n# Sub\n"),
    ),
    "SC502": (
        lambda p: p.write("sub/SKILL.md", "---\nname: Sub--Skill\ndescription: A sub-skill.\n---\n"),
        lambda p: p.write("sub-skill/SKILL.md", "---\nname: sub-skill\ndescription: A sub-skill.\n---\n"),
    ),
    "SC503": (
        lambda p: p.write("sub/SKILL.md", "---\nname: other\ndescription: A sub-skill.\n---\n"),
        lambda p: p.write("other/SKILL.md", "---\nname: other\ndescription: A sub-skill.\n---\n"),
    ),
    "SC504": (
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: Use for <html> pages.\n---\n"),
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: Use for HTML pages.\n---\n"),
    ),
    "SC505": (
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\ntags: [a]\n---\n"),
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\nmetadata:\n  owner: us\n---\n"),
    ),
    "SC506": (
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\n---\n" + "line\n" * 500),
        lambda p: p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\n---\n" + "line\n" * 490),
    ),
    "SC507": (
        lambda p: (_toc(p), p.write("refs/long.md", "# Long\n\n" + "text\n" * 120)),
        lambda p: _toc(p) or p.write("refs/long.md", "# Long\n\n- [A](#a)\n- [B](#b)\n- [C](#c)\n\n## A\n\n## B\n\n## C\n\n" + "text\n" * 120),
    ),
    "SC601": (
        lambda p: p.replace("SKILL.md", "(notes.md)", "(note.md)"),
        lambda p: p.replace("SKILL.md", "(notes.md)", "(docs/evidence/)"),
    ),
    "SC602": (
        lambda p: p.replace("SKILL.md", "(#pkg)", "(notes.md#missing)"),
        lambda p: p.replace("SKILL.md", "(#pkg)", "(notes.md#notes)"),
    ),
    "SC603": (
        lambda p: p.replace("SKILL.md", "(notes.md)", "(/etc/hostname)"),
        lambda p: p.replace("SKILL.md", "(notes.md)", "(./docs/../notes.md)"),
    ),
    "SC604": (
        lambda p: (os.mkfifo(p.root / "pipe"), p.replace("SKILL.md", "(notes.md)", "(pipe)")),
        lambda p: (p.write("pipe", "a file\n"), p.replace("SKILL.md", "(notes.md)", "(pipe)")),
    ),
    "SC701": (
        lambda p: _plugin(p, '"name": "pkg", "version": "1.0.0",'),
        lambda p: _plugin(p, '"name": "pkg", "version": "1.0.0"'),
    ),
    "SC702": (
        lambda p: _plugin(p, '"name": "My Pkg", "version": "1.0.0"'),
        lambda p: _plugin(p, '"name": "my-pkg", "version": "1.0.0"'),
    ),
    "SC703": (
        lambda p: (p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\n---\n"), _plugin(p, '"name": "pkg", "skills": ["sub"]')),
        lambda p: (p.write("sub/SKILL.md", "---\nname: sub\ndescription: A sub-skill.\n---\n"), _plugin(p, '"name": "pkg", "skills": ["./sub"]')),
    ),
    "SC704": (
        lambda p: _plugin(p, '"name": "pkg", "skills": ["./", "./docs"]'),
        lambda p: _plugin(p, '"name": "pkg", "skills": ["./"], "commands": "./docs"'),
    ),
    "SC705": (
        lambda p: _plugin(p, version="1.0.1"),
        lambda p: _plugin(p, version="1.0.0"),
    ),
}


def test_every_code_has_a_case() -> None:
    assert set(CASES) == set(CODES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_code_fires(pkg: Package, code: str) -> None:
    CASES[code][0](pkg)
    found = codes(pkg)
    assert code in found, found


@pytest.mark.parametrize("code", sorted(CASES))
def test_code_twin_is_clean(pkg: Package, code: str) -> None:
    CASES[code][1](pkg)
    assert [d.format() for d in check(pkg.root).diagnostics] == []


def test_symlink_escaping_the_evidence_folder(pkg: Package, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "src.md"
    outside.write_text(pkg.read(SRC))
    os.remove(pkg.root / SRC)
    os.symlink(outside, pkg.root / SRC)
    assert "SC202" in codes(pkg)


def test_moved_quote_reports_the_new_range(pkg: Package) -> None:
    _set_anchors(pkg, f"bug L{_silent()}, silent L{_silent()}")
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC301"
    assert f"docs/evidence/src.md L{_bug()}," in d.message
    assert d.fix is not None and d.fix.new == f"L{_bug()}"


def test_altered_quote_has_score_lines_and_word_diff(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", "> Assume that you have a bug.")
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC302"
    assert f"L{_bug()}-{_bug()}" in d.message
    assert "[-that-]" in d.message
    assert "score" in d.message


@pytest.mark.skipif(os.geteuid() == 0, reason="permission bits do not bind root (the PATH_MAX case above covers root)")
def test_folder_without_permission_is_a_finding(pkg: Package) -> None:
    folder = pkg.root / "private"
    folder.mkdir()
    (folder / "x.md").write_text('"An invented quote that nobody wrote"[^src]\n')
    folder.chmod(0)
    try:
        found = [(d.code, d.path, d.subject) for d in check(pkg.root).diagnostics]
    finally:
        folder.chmod(0o755)
    assert found == [("SC004", "private", "private")]


def test_unlistable_folder_is_reported_once_with_its_path(pkg: Package) -> None:
    _unlistable_folder(pkg, "notes")
    found = [d for d in check(pkg.root).diagnostics]
    assert [d.code for d in found] == ["SC004"]
    limit = os.pathconf("/", "PC_PATH_MAX")  # counts the final NUL
    parts = ["notes", *["d" * 250] * 20]
    first_too_long = next(k for k in range(1, len(parts) + 1) if len(str(pkg.root.joinpath(*parts[:k]))) >= limit)
    assert found[0].path == "/".join(parts[:first_too_long])
    assert "(File name too long)" in found[0].message


def test_messages_name_the_cause(pkg: Package) -> None:
    # SC404 for an evidence file linked with a plain link says so, not "cited by nothing".
    pkg.write("docs/evidence/orphan.md", evidence_text())
    pkg.write("notes.md", pkg.read("notes.md") + "\nSee [the orphan](docs/evidence/orphan.md).\n")
    found = {d.code: d.message for d in check(pkg.root).diagnostics}
    assert found["SC404"].startswith("evidence file is cited by no footnote cache link; notes.md:")
    assert "links to it with a plain link, which cites no lines" in found["SC404"]
    # SC301 for a footnote whose cache link cites no lines says that, not "outside the lines it cites".
    line = next(l for l in pkg.read("SKILL.md").splitlines() if l.startswith("[^src]:"))
    pkg.replace("SKILL.md", line, line[: line.index("): ") + 1] + ")")
    sc301 = [d.message for d in check(pkg.root).diagnostics if d.code == "SC301"]
    assert sc301 and all("and [^src] cites no lines of it (run: skillcite fix)" in m for m in sc301)


def test_sc304_names_a_reference_above_that_does_not_lead_in(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", "As the post says[^src].\n\n> Assume you have a bug.")
    msgs = [d.message for d in check(pkg.root).diagnostics if d.code == "SC304"]
    assert msgs == [
        "blockquote has no footnote reference; the [^src] on line 7 does not lead into it (a blank line separates them): "
        "end the lead-in with the reference and a colon, directly above the blockquote, or cite inside the blockquote"
    ]


def test_sc202_and_sc305_say_the_evidence_folder_setting_is_wrong(pkg: Package) -> None:
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "cache"\n')
    msgs = {d.message for d in check(pkg.root).diagnostics if d.code == "SC202"}
    assert msgs == {"cache link 'docs/evidence/src.md' points outside the evidence folder cache/; cache/ does not exist: is [tool.skillcite] evidence right?"}
    pkg.replace("SKILL.md", "([cache](docs/evidence/src.md)", "([excerpt](docs/evidence/src.md)")
    msgs = {d.message for d in check(pkg.root).diagnostics if d.code == "SC305"}
    assert msgs and all(
        m.endswith("(docs/evidence/src.md is outside the evidence folder cache; the evidence folder cache does not exist: "
                   "if it holds the source, set [tool.skillcite] evidence to its folder)")
        for m in msgs
    ), msgs


@pytest.mark.parametrize(
    ("blockquote", "cause"),
    [
        ("> Assume you have a bug.\nA passage with [brackets] of its own.[^src]",
         "line 8 has no '>' but continues the blockquote (a lazy continuation line)"),
        ("> Assume you have a bug. Everything else follows from this.\n>\n> A passage with some brackets of its own and an ellipsis in the source.[^src]",
         "its 2 paragraphs are joined into one quote"),
    ],
)
def test_sc303_names_the_blockquote_s_likely_cause(pkg: Package, blockquote: str, cause: str) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", blockquote)
    msgs = [d.message for d in check(pkg.root).diagnostics if d.code in ("SC302", "SC303")]
    assert len(msgs) == 1 and cause in msgs[0], msgs


@pytest.mark.parametrize(
    "blockquote",
    ["> Assume you have a bug.\n>\n> — A. Author[^src]", "> Assume you have a bug.\n> -- A. Author, A Post[^src]", "> Assume you have a bug.[^src]\n>\n> — A. Author"],
)
def test_a_closing_attribution_line_is_not_quoted(pkg: Package, blockquote: str) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", blockquote)
    report = check(pkg.root)
    assert [d.code for d in report.diagnostics] == [] and report.quotes_verified == 2


def test_an_attribution_does_not_excuse_altered_words(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", "> Assume you have no bug.\n>\n> — A. Author[^src]")
    found = [(d.code, d.message) for d in check(pkg.root).diagnostics]
    assert len(found) == 1 and found[0][0] == "SC302" and "[-no-] {+a+}" in found[0][1] and "joined" not in found[0][1]


def test_sc302_shows_the_quote_as_written(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", '> Assume you have a "bug". Everything else follows from this.[^src]')
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC302" and '[-"bug".-] {+bug.+}' in d.message and "'bug" not in d.message


def test_a_wrapped_altered_blockquote_is_not_blamed_on_its_quotation_marks(pkg: Package) -> None:
    # Quotation marks around a whole blockquote are allowed; the altered word is the finding.
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", '> "Assume you have no bug. Everything else follows from this."[^src]')
    [d] = check(pkg.root).diagnostics
    assert d.code == "SC302" and "[-no-] {+a+}" in d.message and "quotation marks" not in d.message


@pytest.mark.parametrize(
    ("target", "write", "cause"),
    [
        # Issue 29: a link to the skill's own reference page was told to make refs/ an evidence folder.
        ("refs/notes.md", "# Notes\n\nOur own summary.\n",
         "(refs/notes.md is part of the skill, not a cache of the source: cite the evidence file that holds the passage, or add it to one in docs/evidence)"),
        ("drafts/notes.md", "# Notes\n\nSome notes.\n",
         "(drafts/notes.md has no front matter naming a source, so it is no evidence file: add the passage to an evidence file in docs/evidence)"),
        ("cache/post.md", "---\nsource: https://example.org/post\ntitle: A Post\n---\nAssume you have a bug.\n",
         "(cache/post.md is outside the evidence folder docs/evidence: if it holds the source, set [tool.skillcite] evidence to its folder)"),
        ("gone/post.md", None, "(gone/post.md does not exist; no link in it names a file in the evidence folder docs/evidence)"),
    ],
)
def test_sc305_hint_fits_what_the_linked_file_is(pkg: Package, target: str, write: str | None, cause: str) -> None:
    if write is not None:
        pkg.write(target, write)
    pkg.write("pyproject.toml", '[tool.skillcite]\ncontent = ["SKILL.md", "refs/**"]\n')
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", "> Assume you have a bug.[^own]")
    pkg.write("SKILL.md", pkg.read("SKILL.md") + f"[^own]: A. Author ([the notes]({target}))\n")
    msgs = [d.message for d in check(pkg.root).diagnostics if d.code == "SC305"]
    assert msgs == ["blockquote cites [^own], which has no cache link to evidence " + cause]


def _paraphrase(pkg: Package, label: str, line: int) -> None:
    pkg.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA paraphrase of the post.[^para]\n")
    pkg.write("SKILL.md", pkg.read("SKILL.md") + f"[^para]: A. Author ([cache](docs/evidence/src.md): {label} L{line})\n")


def test_sc210_a_paraphrase_anchor_whose_lines_lost_its_labels_words(pkg: Package) -> None:
    # Issue 29: after an evidence edit, a stale anchor in a footnote no quote cites was reported only by fix --from.
    ev = pkg.read("docs/evidence/src.md")
    cheap = ev.index("It is a cheap assumption")
    _paraphrase(pkg, "cheap-assumption", line_of(ev, "It is a cheap assumption"))
    assert [d.code for d in check(pkg.root).diagnostics] == []
    pkg.write("docs/evidence/src.md", locked(ev[:cheap] + "A new line the edit added.\n" + ev[cheap:]))
    [d] = [d for d in check(pkg.root).diagnostics]
    moved = line_of(pkg.read("docs/evidence/src.md"), "It is a cheap assumption")
    assert (d.code, d.line, d.subject) == ("SC210", line_of(pkg.read("SKILL.md"), "[^para]:"), "docs/evidence/src.md cheap-assumption")
    assert d.message == (
        f"anchor 'cheap-assumption L{moved - 1}' of docs/evidence/src.md: its lines hold none of the label's words (cheap, assumption), "
        f"which are at L{moved}: stale after an edit of the evidence? Point it at its passage (skillcite fix --from REV carries it through git history)"
    )


@pytest.mark.parametrize(
    ("label", "needle"),
    [
        ("cheap-assumption", "It is a cheap assumption"),  # the lines hold the label's words
        ("silently-everything", "A passage with [brackets]"),  # the lines hold none, but no line holds them all together
        ("cheap", "Assume you have a bug"),  # one word tells nothing
        ("first-paragraph", "Assume you have a bug"),  # a quote cites the footnote: the quote checks it (below)
    ],
)
def test_sc210_stays_quiet_where_a_label_tells_nothing(pkg: Package, label: str, needle: str) -> None:
    ev = pkg.read("docs/evidence/src.md")
    if label == "first-paragraph":
        # [^src] is cited by quotes: an extra labelled anchor on other lines is not this rule's to judge.
        pkg.replace("SKILL.md", "silent L", f"{label} L{line_of(ev, needle)}, silent L")
    else:
        _paraphrase(pkg, label, line_of(ev, needle))
    assert [d.code for d in check(pkg.root).diagnostics] == []
