"""docs/adopting.md's walkthrough, run on a synthetic copy of each layout of the adoption corpus.

bench/adoption_corpus.toml lists real public skill repositories; CI has no
network, so each layout found there is rebuilt here in tmp_path with what
made it hard: a sub-skill's own cache cited by nothing with line anchors, a
page-to-Markdown header naming an arXiv PDF whose text hyphenates in lines,
a ``Source:`` line with words before its URL, a cache tree in a top-level
``_sources/`` folder, a ``references/`` folder of cached pages with front
matter, a collection whose linked files hold callouts and examples but no
quotation. The commands are read from the walkthrough block of
docs/adopting.md, so the page and this test cannot drift apart; after the
route, exactly the real problems each copy was built with are left, and
filling them in as the page says makes the strict check pass.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from skillcite.check import check
from skillcite.cli import main
from test_adoption_e2e import walkthrough_commands

FRONT = "---\nname: {name}\ndescription: A skill of the corpus layouts.\n---\n"


def git(root: Path, *args: str) -> None:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
           "GIT_AUTHOR_DATE": "2024-03-05T10:00:00", "GIT_COMMITTER_DATE": "2024-03-05T10:00:00"}
    subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=True)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "their repository")
    return root


def root_skill_with_sub_skills(root: Path) -> Path:
    """wassname/ml-debug: a root skill, refs/, a sub-skill with its own cache of arXiv PDFs, Source: headers."""
    return write(root, {
        "SKILL.md": FRONT.format(name="debug") + "# Debug\n\n> Assume you have a bug.[^k]\n\nSee [refs](refs/more.md) and [pinn](pinn/SKILL.md).\n\n"
        "[^k]: A. Karp, \"A recipe\" (2019) ([cache](docs/evidence/recipe.md): L5)\n",
        "refs/more.md": "# More\n\n> **Note:** the author's aside, not a quotation.\n\nAs the venue put it, \"clip the value loss\"[^v].\n\n"
        "[^v]: ICLR blog ([cache](../docs/evidence/ppo.md): L4)\n",
        "docs/evidence/recipe.md": "Source: https://example.org/recipe\nTitle: A recipe\nAuthor: A. Karp\n\nAssume you have a bug.\n",
        "docs/evidence/ppo.md": "Source: ICLR Blog Track, 2022-03-25 — https://example.org/ppo\nTitle: PPO details\n\nWe clip the value loss too.\n",
        "pinn/SKILL.md": FRONT.format(name="pinn") + "# PINN\n\n> Heavy-tailed distributions appear early in training.[^w]\n\n"
        "[^w]: W. Wang et al. (2022) ([cache](docs/evidence/wang.md): L7)\n",
        "pinn/docs/evidence/wang.md": "Title: 2203.07404v1.pdf\n\nURL Source: https://arxiv.org/pdf/2203.07404\n\nMarkdown Content:\n# A paper\n"
        "Heavy-tailed dis-tributions appear early in training.\n\n> The paper quotes this line itself.\n",
    })


def collection_with_a_source_tree(root: Path) -> Path:
    """williamhallatt/cogworks: skills/<name>/ and a top-level _sources/ tree of page caches in sub-folders."""
    return write(root, {
        "skills/learn/SKILL.md": FRONT.format(name="learn") + "# Learn\n\nThe spec says \"A skill is a folder\"[^s].\n\n"
        "[^s]: \"Specification\", agentskills.io ([cache](../../_sources/agentskills/spec.md): L4)\n\nSee [patterns](patterns.md).\n",
        "skills/learn/patterns.md": "# Patterns\n\n> **Tip**: keep SKILL.md short.\n",
        "_sources/agentskills/spec.md": "Source: https://agentskills.io/specification\nTitle: Specification\n\nA skill is a folder.\n",
        "_sources/prompting/guide/intro.md": "Title: Prompting\n\nURL Source: https://example.org/guide\n\nMarkdown Content:\nA guide.\n",
    })


def collection_without_sources(root: Path) -> Path:
    """anthropics/skills, obra/superpowers, ahgraber/skills: skills/<name>/ whose linked files hold callouts and examples, no quotation."""
    return write(root, {
        "skills/api/SKILL.md": FRONT.format(name="api") + "# API\n\n> **Start here:** read [migrate](shared/migrate.md).\n",
        "skills/api/shared/migrate.md": "# Migrate\n\nAsk the user:\n\n> Before I start editing, can you confirm the scope?\n",
        "skills/write/SKILL.md": FRONT.format(name="write") + "# Write\n\nSee [exemplars](references/exemplars.md).\n",
        "skills/write/references/exemplars.md": "# Exemplars\n\nA weak draft:\n\n> Reduced ownership leads to drift, and drift compounds.\n",
    })


def references_as_a_cache(root: Path) -> Path:
    """A root skill whose references/ folder holds cached pages with front matter (and a Wikipedia page)."""
    return write(root, {
        "SKILL.md": FRONT.format(name="stats") + "# Stats\n\n> Overfitting is the production of an analysis that corresponds too closely to a particular set of data.[^o]\n\n"
        "[^o]: Wikipedia, \"Overfitting\" ([cache](references/overfitting.md): L6)\n",
        "references/overfitting.md": "Source: https://en.wikipedia.org/wiki/Overfitting\nTitle: Overfitting\nAuthor: Wikipedia contributors\n\n"
        "Overfitting is the production of an analysis that corresponds too closely to a particular set of data.\n",
    })


# layout -> (builder, what init decides, exit status of each walkthrough command, the real problems left: (code, path))
LAYOUTS: dict[str, tuple[Callable[[Path], Path], dict[str, object], list[int], list[tuple[str, str]]]] = {
    "root skill, sub-skills, evidence inside a sub-skill, arXiv PDF text": (
        root_skill_with_sub_skills,
        {"evidence": ["docs/evidence", "pinn/docs/evidence"], "content": ["SKILL.md", "pinn/**", "refs/*.md"]},
        [0, 0, 0, 0, 0, 1],
        [("SC402", "docs/evidence/ppo.md"), ("SC402", "docs/evidence/recipe.md"), ("SC402", "pinn/docs/evidence/wang.md")],
    ),
    "skills/<name>/ collection with a _sources/ tree": (
        collection_with_a_source_tree,
        {"evidence": "_sources", "content": ["skills/learn/**"]},
        [0, 0, 0, 0, 0, 1],
        [("SC402", "_sources/agentskills/spec.md"), ("SC402", "_sources/prompting/guide/intro.md"), ("SC404", "_sources/prompting/guide/intro.md")],
    ),
    "skills/<name>/ collection without sources": (
        collection_without_sources,
        {"evidence": "docs/evidence", "content": []},
        [0, 0, 0, 0, 0, 0],
        [],
    ),
    "root skill with references/ as its cache": (
        references_as_a_cache,
        {"evidence": "references", "content": ["SKILL.md"]},
        [0, 0, 0, 0, 0, 0],
        [],
    ),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_the_walkthrough_on_each_corpus_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    build, table, statuses, real = LAYOUTS[layout]
    root = build(tmp_path / "repo")
    monkeypatch.chdir(root)
    got = []
    for args, _documented in walkthrough_commands():
        result = CliRunner().invoke(main, args)
        got.append(result.exit_code)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    import tomllib

    settings = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["skillcite"]
    assert {k: settings[k] for k in table} == table
    # Only the real problems are left: each TODO once per file, each cache cited by nothing; no false alarm.
    assert sorted((d.code, d.path) for d in check(root).diagnostics) == real
    assert got == statuses
    # Step 5 of the page: fill in each TODO on its line and lock; cite or delete what nothing cites.
    for code, rel in real:
        path = root / rel
        if code == "SC404":
            path.unlink()
            continue
        text = path.read_text()
        text = text.replace("author: TODO\n", "author: A. Writer\n").replace("title: TODO\n", "title: A title\n")
        lines = [("license: quoted under fair use" if line.startswith("license: ") and "TODO" in line else line) for line in text.split("\n")]
        path.write_text("\n".join(lines))
    assert CliRunner().invoke(main, ["lock"]).exit_code == 0
    assert [(d.code, d.path) for d in check(root).diagnostics] == []
    assert CliRunner().invoke(main, ["check", "--strict"]).exit_code == 0
