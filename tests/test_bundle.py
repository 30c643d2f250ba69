"""``skillcite bundle``: one self-contained Markdown file for a system prompt.

Skill trees are built in ``tmp_path`` (never a committed SKILL.md under
tests/); one test bundles the real repository.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Package, evidence_text, line_of
from skillcite.deliver.bundle import build_bundle, find_inline_links, verify_bundle
from skillcite.cli.app import main
from skillcite.check.parsing.document import local_target
from skillcite.check.parsing.builder import parse_document
from skillcite.core.textio import TextFile, line_starts

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = evidence_text()
BUG, SILENT = line_of(EVIDENCE, "Assume you have a bug"), line_of(EVIDENCE, "neural nets fail silently")

SKILL = f"""---
name: pkg
description: A test skill for the bundler.
---
# Pkg

Sub-skills: [rl/SKILL.md](rl/SKILL.md) and [the PINN one](pinn/SKILL.md#usage). Long form: [PLAYBOOK.md](PLAYBOOK.md). Notes: [the notes](notes.md). Section: [usage](#usage).

## Usage

> Assume you have a bug.[^src]

Read the [post](docs/evidence/src.md) and `[code](notes.md)`.

[^src]: A. Author, "A Post" (2020) — https://example.org/post ([cache](docs/evidence/src.md): bug L{BUG})
"""

RL = f"""---
name: rl
description: The RL sub-skill.
---
# RL

See [the main skill](../SKILL.md) and [its usage](../SKILL.md#usage), and [ours](#usage).

## Usage

As the post says, "neural nets fail silently"[^src].

[^src]: The same post, no URL here ([cache](../docs/evidence/src.md): silent L{SILENT}; a note)
"""

PINN = f"""---
name: pinn
description: The PINN sub-skill.
---
# PINN

## Usage

Back to [the playbook](../PLAYBOOK.md#loop).

```text
[not a link](../SKILL.md)
```

"Assume you have a bug."[^src]

[^src]: A. Author, "A Post" (2020) — https://example.org/post ([cache](../docs/evidence/src.md): bug L{BUG}; checked twice)
"""

EXPECTED = """<!-- pkg, bundled by skillcite 0.5.0 from SKILL.md, pinn/SKILL.md, rl/SKILL.md; about 235 tokens (characters/4). -->

**pkg**: A test skill for the bundler.

# Pkg

Sub-skills: [rl/SKILL.md](#rl) and [the PINN one](#usage-1). Long form: `PLAYBOOK.md`. Notes: the notes (`notes.md`). Section: [usage](#usage).

## Usage

> Assume you have a bug.[^main-src]

Read the [post](https://example.org/post) and `[code](notes.md)`.

[^main-src]: A. Author, "A Post" (2020) — https://example.org/post

---

# PINN

## Usage

Back to the playbook (`PLAYBOOK.md`).

```text
[not a link](../SKILL.md)
```

"Assume you have a bug."[^pinn-src]

[^pinn-src]: A. Author, "A Post" (2020) — https://example.org/post (checked twice)

---

# RL

See [the main skill](#pkg) and [its usage](#usage), and [ours](#usage-2).

## Usage

As the post says, "neural nets fail silently"[^rl-src].

[^rl-src]: The same post, no URL here (<https://example.org/post>; a note)
"""
SUBS = ("--include", "rl,pinn")


@pytest.fixture
def tree(tmp_path: Path) -> Package:
    """A package with a main skill, two sub-skills, a playbook, a note and one evidence file."""
    p = Package(tmp_path / "pkg")
    p.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\n')
    p.write("docs/evidence/src.md", EVIDENCE)
    p.write("SKILL.md", SKILL)
    p.write("rl/SKILL.md", RL)
    p.write("pinn/SKILL.md", PINN)
    p.write("PLAYBOOK.md", "# Playbook\n\n## Loop\n\nBack to [the skill](SKILL.md) and [its usage](SKILL.md#usage).\n")
    p.write("notes.md", "# Notes\n\nPlain text.\n")
    return p


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def estimate_line(text: str, files: int) -> str:
    return f"bundle: {files} files, {len(text)} characters, about {len(text) // 4} tokens (characters/4)"


def assert_self_contained(text: str) -> None:
    """Every footnote reference has one definition; every link is a URL or resolves in the bundle."""
    name = Path("bundle.md")
    doc = parse_document(name, "bundle.md", TextFile(name, text, False, line_starts(text)), lambda _t, _u: False)
    labels = [d.label for d in doc.definitions]
    assert not doc.undefined
    assert doc.references and {r.value for r in doc.references} <= set(labels)
    assert len(labels) == len(set(labels))
    for link in doc.links:
        local = local_target(link.value)
        if local is not None:
            path, fragment = local
            assert path == "", link
            assert fragment in doc.slugs, link


NO_REPOSITORY = "became plain paths: no repository URL"


def progress(stderr: str) -> list[str]:
    """The lines of ``stderr`` other than the warning that no repository URL is known (asserted on its own)."""
    return [line for line in stderr.splitlines() if NO_REPOSITORY not in line]


def test_bundle_exact_output_and_estimate(tree: Package) -> None:
    r = run("bundle", str(tree.root), *SUBS)
    assert r.exit_code == 0, r.output
    assert r.stdout == EXPECTED
    # No repository URL anywhere (settings, project.urls, git remote): the left-out files became paths, and it says so.
    assert r.stderr.splitlines() == [
        "skillcite: warning: 2 links to files left out of the bundle became plain paths: no repository URL "
        "(set [tool.skillcite] repository, project.urls, or a git remote named origin)",
        estimate_line(EXPECTED, 3),
    ]
    assert_self_contained(r.stdout)


def test_include_makes_links_in_bundle_in_a_fixed_order(tree: Package) -> None:
    tree.write("refs/b.md", "# B\n\nSee [a](a.md).\n")
    tree.write("refs/a.md", "# A\n\nSee [b](b.md#b) and [the playbook](../PLAYBOOK.md#loop).\n")
    r = run("bundle", str(tree.root), "--include", "refs/*.md,SKILL.md", "--include", "rl,PLAYBOOK.md,pinn")
    assert r.exit_code == 0, r.output
    text = r.stdout
    files = "SKILL.md, PLAYBOOK.md, refs/a.md, refs/b.md, pinn/SKILL.md, rl/SKILL.md"
    assert text.startswith(f"<!-- pkg, bundled by skillcite 0.5.0 from {files}; about {len(text) // 4} tokens (characters/4). -->\n")
    assert "Long form: [PLAYBOOK.md](#playbook)." in text
    assert "Back to [the playbook](#loop)." in text
    assert "Back to [the skill](#pkg) and [its usage](#usage)." in text
    assert "See [b](#b) and [the playbook](#loop)." in text
    assert "See [a](#a)." in text
    assert [line for line in text.splitlines() if line.startswith("# ")] == ["# Pkg", "# Playbook", "# A", "# B", "# PINN", "# RL"]
    assert progress(r.stderr) == [estimate_line(text, 6)]
    assert_self_contained(text)
    # Names and paths, in any order, select the same bytes.
    for args in (["--include", "all"], ["--include", "pinn", "--include", "refs,rl,playbook"], ["--include", "ALL,SKILL.md"]):
        again = run("bundle", str(tree.root), *args)
        assert again.exit_code == 0 and again.stdout == text, args


def test_same_input_same_bytes_and_only_skill_md_by_default(tree: Package) -> None:
    first, second = run("bundle", str(tree.root)), run("bundle", str(tree.root))
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert first.stdout.startswith(f"<!-- pkg, bundled by skillcite 0.5.0 from SKILL.md; about {len(first.stdout) // 4} tokens")
    assert "# RL" not in first.stdout and "# PINN" not in first.stdout
    # Links to files left out stay readable as paths when no repository URL is known.
    assert "Sub-skills: `rl/SKILL.md` and the PINN one (`pinn/SKILL.md`). Long form: `PLAYBOOK.md`." in first.stdout
    assert_self_contained(first.stdout)


def test_links_out_of_the_bundle_go_to_the_repository(tree: Package) -> None:
    tree.write(
        "pyproject.toml",
        '[project]\nname = "pkg"\nversion = "2.1.0"\n\n[project.urls]\nHomepage = "https://pkg.example.org"\n'
        'Repository = "https://github.com/someone/pkg/"\n\n[tool.skillcite]\nevidence = "docs/evidence"\n',
    )
    r = run("bundle", str(tree.root), "--include", "pinn")
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert text.startswith("<!-- pkg 2.1.0, bundled by skillcite 0.5.0 from SKILL.md, pinn/SKILL.md; about ")
    base = "https://github.com/someone/pkg/blob/main"
    assert f"Sub-skills: [rl/SKILL.md]({base}/rl/SKILL.md) and [the PINN one](#usage-1)." in text
    assert f"Long form: [PLAYBOOK.md]({base}/PLAYBOOK.md). Notes: [the notes]({base}/notes.md)." in text
    assert f"Back to [the playbook]({base}/PLAYBOOK.md#loop)." in text  # the fragment survives
    assert "](https://example.org/post)" in text  # evidence still goes to its source, not the repository
    # [tool.skillcite] repository and branch win over project.urls.
    tree.write("pyproject.toml", '[tool.skillcite]\nrepository = "https://gitlab.example/x/pkg"\nbranch = "v2"\n')
    pinned = run("bundle", str(tree.root)).stdout
    assert "[rl/SKILL.md](https://gitlab.example/x/pkg/blob/v2/rl/SKILL.md)" in pinned
    assert_self_contained(pinned)


def test_header_names_the_git_commit_and_uncommitted_changes(tree: Package) -> None:
    git = ["git", "-C", str(tree.root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    try:
        subprocess.run([*git, "init", "-q"], check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    head = subprocess.run([*git, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    clean = run("bundle", str(tree.root)).stdout
    assert clean.startswith(f"<!-- pkg at git {head}, bundled by skillcite 0.5.0 from SKILL.md; ")
    tree.write("notes.md", "# Notes\n\nEdited, but not bundled.\n")
    assert run("bundle", str(tree.root)).stdout == clean  # only the bundled files count
    tree.replace("SKILL.md", "# Pkg", "# Pkg\n\nEdited.")
    assert run("bundle", str(tree.root)).stdout.startswith(f"<!-- pkg at git {head} (with uncommitted changes), bundled by ")


def test_file_without_heading_gets_an_anchor(tree: Package) -> None:
    tree.write("extra.md", "Just a paragraph, no heading.\n")
    tree.replace("SKILL.md", "Notes: [the notes](notes.md).", "Extra: [more](extra.md).")
    bundle = build_bundle(tree.root, ["extra.md"])
    assert "Extra: [more](#bundle-extra)." in bundle.text
    assert '\n---\n\n<a id="bundle-extra"></a>\n\nJust a paragraph, no heading.\n' in bundle.text
    assert_self_contained(bundle.text)


def test_broken_fragment_into_a_bundled_file_warns_and_links_its_start(tree: Package) -> None:
    tree.replace("rl/SKILL.md", "(../SKILL.md#usage)", "(../SKILL.md#nowhere)")
    r = run("bundle", str(tree.root), *SUBS)
    assert r.exit_code == 0
    assert "and [its usage](#pkg)," in r.stdout
    assert r.stderr.splitlines()[0] == "skillcite: warning: SKILL.md has no heading #nowhere; linking to the start of the file"


def test_crlf_sources_give_lf_bundle(tree: Package) -> None:
    tree.write("rl/SKILL.md", RL.replace("\n", "\r\n"))
    r = run("bundle", str(tree.root), *SUBS)
    assert r.exit_code == 0, r.output
    assert "\r" not in r.stdout
    assert r.stdout == EXPECTED


def test_output_file_written_atomically_and_stdout_empty(tree: Package, tmp_path: Path) -> None:
    out = tmp_path / "prompt.md"
    r = run("bundle", str(tree.root), *SUBS, "-o", str(out))
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert progress(r.stderr) == [estimate_line(EXPECTED, 3), f"wrote {out}"]
    assert out.read_text(encoding="utf-8") == EXPECTED
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".prompt.md.")] == []


def test_output_never_overwrites_a_source(tree: Package) -> None:
    r = run("bundle", str(tree.root), *SUBS, "-o", str(tree.root / "SKILL.md"))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == f"skillcite: error: {tree.root / 'SKILL.md'}: refusing to overwrite a bundled source file"
    assert tree.read("SKILL.md") == SKILL


def test_max_tokens_exceeded_writes_nothing(tree: Package, tmp_path: Path) -> None:
    out = tmp_path / "prompt.md"
    tokens = len(EXPECTED) // 4
    r = run("bundle", str(tree.root), *SUBS, "--max-tokens", str(tokens - 1), "-o", str(out))
    assert r.exit_code == 1
    assert r.stdout == ""
    assert progress(r.stderr) == [
        estimate_line(EXPECTED, 3),
        f"skillcite: error: about {tokens} tokens is over --max-tokens {tokens - 1}; nothing written",
    ]
    assert not out.exists()
    ok = run("bundle", str(tree.root), *SUBS, "--max-tokens", str(tokens), "-o", str(out))
    assert ok.exit_code == 0 and out.read_text(encoding="utf-8") == EXPECTED


def test_missing_root_is_a_usage_error(tmp_path: Path) -> None:
    r = run("bundle", str(tmp_path / "nope"))
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: {tmp_path / 'nope'}: no such directory\n"
    empty = run("bundle", str(tmp_path))
    assert empty.exit_code == 2
    assert empty.stderr == f"skillcite: error: {tmp_path}: no SKILL.md here or in the folders below it\n"


def test_include_that_matches_nothing_is_a_usage_error(tree: Package) -> None:
    r = run("bundle", str(tree.root), "--include", "refs")
    assert r.exit_code == 2
    assert r.stderr == f"skillcite: error: --include refs: {tree.root} has no refs/*.md\n"
    glob = run("bundle", str(tree.root), "--include", "docs/*.txt")
    assert glob.exit_code == 2
    assert glob.stderr == (
        f"skillcite: error: --include 'docs/*.txt' matches no Markdown file under {tree.root} (names: playbook, refs, pinn, rl, all; or a path, a folder or a glob)\n"
    )
    tree.write("tool.py", "print()\n")
    bad = run("bundle", str(tree.root), "--include", "tool.py")
    assert bad.exit_code == 2 and "tool.py is not a Markdown file" in bad.stderr


def test_link_that_cannot_be_rewritten_fails_the_self_check(tree: Package, tmp_path: Path) -> None:
    # A reference-style link has no inline target to rewrite: the bundle
    # would point outside itself, so it is refused rather than written.
    tree.replace("SKILL.md", "Section: [usage](#usage).", "Section: [usage][u].\n\n[u]: notes.md")
    out = tmp_path / "prompt.md"
    r = run("bundle", str(tree.root), *SUBS, "-o", str(out))
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        "skillcite: error: the bundle would not stand alone:",
        "  line 7: link to 'notes.md' points outside the bundle",
    ]
    assert not out.exists()


def test_verify_bundle_reports_dangling_fragment_and_footnote() -> None:
    text = "# A\n\n[x](#b) and a claim.[^n]\n"
    assert verify_bundle(text) == ["line 3: footnote [^n] has no definition", "line 3: no heading #b in the bundle"]
    assert verify_bundle("# A\n\n[x](#a) and a claim.[^n]\n\n[^n]: Source.\n") == []


def test_find_inline_links_agrees_with_the_parser() -> None:
    text = (
        "A [plain](a.md) link, `[code](b.md)`, \\[escaped](c.md), ![img](d.png \"title\"),\n"
        "[angle](<e f.md>), [parens](g(1).md), [ref][r] and [nested `]`](h.md#x).\n"
        "\n"
        "| [i](i.md) | [j](j.md) |\n"
        "|---|---|\n"
        "| [k](k.md) | x |\n"
        "\n"
        "    [indented](code.md)\n"
        "\n"
        "[r]: ref.md\n"
    )
    links = find_inline_links(TextFile(Path("x.md"), text, False, line_starts(text)))
    assert [(link.target, link.image) for link in links] == [
        ("a.md", False),
        ("d.png", True),
        ("e f.md", False),
        ("g(1).md", False),
        ("h.md#x", False),
        ("i.md", False),
        ("j.md", False),
        ("k.md", False),
    ]
    for link in links:
        assert text[link.target_span[0] : link.target_span[1]] == link.target
        assert text[link.start : link.end].endswith(")")
    assert text[links[1].start : links[1].end] == '![img](d.png "title")'


def test_find_inline_links_scans_each_table_row_once() -> None:
    # Cells of one row share its lines; a rescan would find the first cell's
    # link twice and lose the real third link.
    text = "| [x](x.md) | [x](x.md) |\n|---|---|\n\nAnd [x](x.md) again.\n"
    links = find_inline_links(TextFile(Path("x.md"), text, False, line_starts(text)))
    assert [link.start for link in links] == [2, 14, text.index("[x](x.md) again")]


def test_help_has_an_example() -> None:
    r = run("bundle", "--help")
    assert r.exit_code == 0
    assert "skillcite bundle > prompt.md" in r.output


def test_importing_the_new_commands_skips_requests_and_trafilatura() -> None:
    code = (
        "import sys, skillcite.deliver.bundle, skillcite.deliver.install, skillcite.cli.bundle, skillcite.cli.install\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('requests', 'trafilatura'))\n"
        "assert not bad, bad\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(("include", "prefixes"), [(None, {"main"}), ("rl,pinn", {"main", "rl", "pinn"}), ("all", {"main", "playbook", "rl", "pinn", "folklore"})])
def test_real_repository_bundles_without_dangling_footnotes(include: str | None, prefixes: set[str]) -> None:
    r = run("bundle", str(ROOT), *(["--include", include] if include else []))
    assert r.exit_code == 0, r.stderr
    text = r.stdout
    assert_self_contained(text)
    assert len(progress(r.stderr)) == 1
    assert re.fullmatch(r"bundle: \d+ files?, \d+ characters, about \d+ tokens \(characters/4\)", progress(r.stderr)[0])
    assert f"{len(text)} characters, about {len(text) // 4} tokens" in r.stderr
    assert re.match(rf"<!-- ml-debug \d+\.\d+\.\d+\S*( at git [0-9a-f]{{12}}( \(with uncommitted changes\))?)?, bundled by .*; about {len(text) // 4} tokens", text)
    assert not text.startswith("---") and "\nname: ml-debug\n" not in text
    assert "](docs/evidence/" not in text and "](../docs/evidence/" not in text
    name = Path("b.md")
    doc = parse_document(name, "b.md", TextFile(name, text, False, line_starts(text)), lambda _t, _u: False)
    assert {d.label.split("-", 1)[0] for d in doc.definitions} >= prefixes


def _documented_bundle_examples() -> list[tuple[list[str], int | None]]:
    """The bundle commands of README.md's block and of ``bundle --help``, each with the token count its comment states."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    help_text = CliRunner().invoke(main, ["bundle", "--help"]).output
    out = []
    for line in readme.splitlines() + help_text.splitlines():
        command, _, comment = line.strip().partition("#")
        if not command.startswith("skillcite bundle"):
            continue
        words = shlex.split(command.split(">")[0])  # "> prompt.md": stdout, written to a file below as -o
        stated = re.search(r"about ([0-9,]+)", comment)
        out.append((words[2:], int(stated.group(1).replace(",", "")) if stated else None))
    return out


def test_documented_bundle_examples_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = _documented_bundle_examples()
    assert len(examples) >= 6  # three in the README, three in --help
    monkeypatch.chdir(ROOT / "rl")  # from a sub-folder, as any folder of the skill works
    for args, stated in examples:
        args = [str(tmp_path / "prompt.md") if a == "prompt.md" else a for a in args]
        if "-o" not in args:
            args += ["-o", str(tmp_path / "prompt.md")]
        result = CliRunner().invoke(main, ["bundle", *args])
        assert result.exit_code == 0, (args, result.output)
        tokens = int(re.search(r"about (\d+) tokens", result.output).group(1))
        if stated is not None:
            assert abs(tokens - stated) <= stated * 0.05, (args, tokens, stated)
