"""The documented adoption path, on a foreign skill repository built in tmp_path.

The repository has what the issue found in a real one: header-line evidence
without locks in two evidence folders (one inside a sub-skill), lead-in
citations, quotes of ``-`` and numbered lists, PDF hyphenation in the
evidence, an agent install folder nested in the tree, a bundle written into
it, and real problems (an altered quote, a source without a licence). The
test follows docs/adopting.md: ``init``, ``evidence adopt``, ``check``; the
real problems stay reported until fixed, and the baseline path fails only on
a newly introduced error.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from skillcite.check import check
from skillcite.cli import main

KARPATHY = """Source: Andrej Karpathy, blog
URL: https://example.org/recipe
Title: A Recipe for Training Neural Networks
Author: Andrej Karpathy
Date: 2019-04-25
License: quoted under fair use

The first step to training a neural net is to not touch any neural net code at all and instead begin by thoroughly inspecting your data.

Some tips:
- fix random seed
- simplify
- add significant digits to your eval
1. visualize the loss
2. verify the init

Neural nets fail silently. This makes the mis-
takes hard to see and the dis-
tributions hard to compare.
"""

SLIDES = """Title: Nuts and bolts
URL: https://example.org/slides
Author: J. Schulman

Always normalize your observations and rewards.

Use a large batch when the gradient is noisy.
"""

SKILL = """---
name: demo
description: Debugging advice with verified quotes.
---
# Demo

From the recipe[^k]:

> The first step to training a neural net is to not touch any neural net code at all and instead begin by thoroughly inspecting your data.

Its tips, as a list:

> - fix random seed
> - simplify
> - add significant digits to your eval[^k2]

> 1. visualize the loss
> 2. verify the init[^k3]

As it says, "Neural nets fail silently."[^k4] The text goes on: "This makes the mistakes hard to see and the distributions hard to compare."[^k4]

The sub-skill: [rl](rl/SKILL.md).

[^k]: Karpathy (2019) ([cache](../evidence/karpathy.md): first-step L8)
[^k2]: Karpathy (2019) ([cache](../evidence/karpathy.md): tips L11-13)
[^k3]: Karpathy (2019) ([cache](../evidence/karpathy.md): steps L14-15)
[^k4]: Karpathy (2019) ([cache](../evidence/karpathy.md): silent L17-19)
"""

RL = """---
name: rl
description: RL debugging with verified quotes.
---
# RL

> Always normalize your observations and your rewards.[^s]

[^s]: Schulman (2017) ([cache](evidence/slides.md): normalize L5)
"""


def git(root: Path, *args: str) -> None:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": "2024-03-05T10:00:00", "GIT_COMMITTER_DATE": "2024-03-05T10:00:00"}
    subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)


def build(tmp_path: Path) -> Path:
    root = tmp_path / "skills-repo"
    for rel, text in {
        "evidence/karpathy.md": KARPATHY,
        "skills/demo/SKILL.md": SKILL,
        "skills/demo/rl/SKILL.md": RL,
        "skills/demo/rl/evidence/slides.md": SLIDES,
        "README.md": "# Skills\n\n> A README may quote freely.\n",
        # An agent install inside the tree, and a bundle written into it: never checked.
        ".claude/skills/demo/SKILL.md": "---\nname: demo\ndescription: installed copy\n---\n> unsourced\n",
        "prompt.md": "<!-- bundled by skillcite 0.1.0 from SKILL.md; about 10 tokens (characters/4). -->\n\n> [^k]: broken\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    # The sub-skill's evidence lives beside it; its cache links are relative to the SKILL.md.
    (root / "skills/demo/SKILL.md").write_text(SKILL.replace("../evidence/", "../../evidence/"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "skills")
    return root


DOCS = Path(__file__).resolve().parents[1] / "docs/adopting.md"


def walkthrough_commands() -> list[tuple[list[str], int]]:
    """The commands of docs/adopting.md's walkthrough block, each with its documented exit status."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Walkthrough", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        command, _, comment = line.partition("#")
        words = shlex.split(command)
        if words and words[0] == "skillcite":
            status = re.search(r"exit (\d)", comment)
            commands.append((words[1:], int(status.group(1)) if status else 0))
    return commands


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def codes(root: Path) -> list[tuple[str, str]]:
    return [(d.code, d.path) for d in check(root).diagnostics]


def test_documented_adoption_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(tmp_path)
    monkeypatch.chdir(root / "skills/demo")  # commands run from a sub-folder find the root

    # Before any setting, the default evidence folder is not theirs: every cache link is outside it.
    assert codes(root) == [("SC202", "skills/demo/SKILL.md")] * 4 + [("SC202", "skills/demo/rl/SKILL.md")]

    commands = walkthrough_commands()
    assert [c[0][0] for c in commands] == ["init", "init", "evidence", "fix", "review", "check"]
    outputs = []
    for args, documented in commands:
        status, out = run(*args)
        assert status == documented, (args, out)
        outputs.append(out)
    assert "evidence folder evidence: 4 anchored citation(s) point into it" in outputs[0]
    assert "evidence folder skills/demo/rl/evidence: 1 anchored citation(s) point into it" in outputs[0]
    after_adopt = check(root)
    # What is left is real: one altered quote, one source without a licence.
    assert sorted((d.code, d.path) for d in after_adopt.diagnostics) == [
        ("SC302", "skills/demo/rl/SKILL.md"),
        ("SC402", "skills/demo/rl/evidence/slides.md"),
    ]
    assert after_adopt.quotes_verified == 5

    assert "skills/demo/rl/SKILL.md" in outputs[-1]

    # The baseline path: accept today's findings, fail only on new ones.
    monkeypatch.chdir(root)
    status, out = run("check", "--write-baseline", ".skillcite-baseline.json")
    assert status == 0, out
    baseline = json.loads((root / ".skillcite-baseline.json").read_text())
    assert [f["code"] for f in baseline["findings"]] == ["SC302", "SC402"]
    with (root / "pyproject.toml").open("a") as fh:
        fh.write('baseline = ".skillcite-baseline.json"\nstrict = true\n')
    status, out = run("check")
    assert status == 0, out
    assert "2 accepted by the baseline" in out

    # Lines moving above an accepted finding do not make it new.
    rl = root / "skills/demo/rl/SKILL.md"
    rl.write_text(rl.read_text().replace("# RL\n", "# RL\n\nSome new prose first.\n"))
    assert run("check")[0] == 0

    # A new error fails, and only it is reported.
    skill = root / "skills/demo/SKILL.md"
    skill.write_text(skill.read_text().replace("- simplify", "- simplify everything"))
    status, out = run("check")
    assert status == 1
    reported = [line for line in out.splitlines() if ": SC" in line]
    assert len(reported) == 1 and "skills/demo/SKILL.md" in reported[0] and "SC302" in reported[0]

    # Fixing the real problems empties the baseline's work.
    skill.write_text(skill.read_text().replace("- simplify everything", "- simplify"))
    rl.write_text(rl.read_text().replace("your observations and your rewards", "your observations and rewards"))
    slides = root / "skills/demo/rl/evidence/slides.md"
    assert "\nlicense: TODO\n" in slides.read_text()  # adopt left the line to fill in, as an explicit TODO
    slides.write_text(slides.read_text().replace("\nlicense: TODO\n", "\nlicense: quoted under fair use\n"))
    # Filling the empty line moved nothing: lock records the edit (it covers the front matter too).
    assert run("lock")[0] == 0
    # The baseline's two entries now match no finding: stale (SC006, a warning; strict is on), until it is rewritten.
    assert codes(root) == [("SC006", ".skillcite-baseline.json")] * 2
    assert run("check")[0] == 1
    assert run("check", "--write-baseline", ".skillcite-baseline.json")[0] == 0
    assert codes(root) == []
    assert run("check")[0] == 0
