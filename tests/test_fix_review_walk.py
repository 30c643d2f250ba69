"""Issue 29, item 3: ``fix`` and ``review`` never block each other on the walkthrough.

Before, ``fix`` refused to give a quote its anchor when the quote departs
from verbatim (an elision, a changed first letter): the anchor would add an
unreviewed departure (SC313). ``review`` lists a quote only once it has its
anchor, so such quotes stayed "outside the cited lines" (SC301) for good;
on wassname/ml-debug the walkthrough of docs/adopting.md left 7 of them.

The repository here is a real git repository with the shapes that caused
it: a root skill and a reference file quoting three sources, headers that
``evidence adopt`` converts, quotes with elisions and changed first letters
(some at their cited lines, some whose cache was rewritten in a later
commit), a verbatim quote that moved, a two-footnote line, and one altered
quote, the only thing the walkthrough leaves. Findings after each command
of the walkthrough, in order (asserted below):

| step | exit | findings |
|---|---|---|
| `init --dry-run`, `init` | 0, 0 | 3 SC401, 5 SC313, 4 SC301, 3 SC207, 1 SC302 |
| `evidence adopt` | 0 | 5 SC313, 4 SC301, 3 SC207, 1 SC302 |
| `fix` | 1 (the altered quote) | 8 SC313 (3 of them placed by fix), 1 SC302 |
| `review --accept-all` | 1 (2 left) | 2 SC313, 1 SC302 |
| `check` | 1 | 2 SC313, 1 SC302 |

``review --accept-all`` takes the 6 quotes that depart only by their own
marks and leaves the 2 whose context departs (a cut that leaves out
"only", one that leaves out "not by hand") for a person to read one by
one; before, it took all 8 (changed with the rule of issue 29 that a bulk
acceptance covers no context departure unless ``--include-context``).

Before, ``fix`` refused the three placements (exit 1, the changes of 2
footnotes refused), left 4 SC301 and 3 SC207 (a verbatim quote shares its
footnote with two stuck ones), ``review --accept-all`` recorded only the 5
in place, and ``check`` ended with 8 findings instead of 1.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillcite.check import check
from skillcite.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs/adopting.md"


def git(root: Path, *args: str) -> None:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": "2025-06-01T10:00:00", "GIT_COMMITTER_DATE": "2025-06-01T10:00:00"}
    subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)


def header(title: str, url: str, who: str) -> str:
    return f"Source: {url}\nTitle: {title}\nAuthor: {who}\nLicense: CC BY 4.0\n\n"


RECIPE = header("A recipe for training", "https://example.org/recipe", "A. Karp") + (
    "Neural net training is a leaky abstraction, and it fails silently most of the time.\n\n"
    "[...]\n\n"
    "Become one with the data before you touch any code at all.\n"
    "Spend hours scanning thousands of examples and their labels.\n\n"
    "Overfit one batch first, then regularize only once the loss goes to zero.\n"
)
OLD_RL = header("Debugging reinforcement learning", "https://example.org/rl", "J. Ones") + "".join(f"Intro line {k} of an older page.\n" for k in range(9)) + (
    "\nAssume you have a bug, and that it is in your own code rather than in the library.\n\n"
    + "".join(f"Filler {k}.\n" for k in range(6))
    + "\nStandardize the observations first, and only then look at the rewards.\n\n"
    "Write tests for the environment before you write the agent.\n"
)
NEW_RL = header("Debugging reinforcement learning", "https://example.org/rl", "J. Ones") + (
    "Assume you have a bug, and that it is in your own code rather than in the library.\n\n"
    "Filler 0.\n\n"
    "Standardize the observations first, and only then look at the rewards.\n\n"
    "A new paragraph added by the rewrite.\n\n"
    "Write tests for the environment before you write the agent.\n"
)
PINN = header("Training physics-informed networks", "https://example.org/pinn", "P. Inn") + (
    "The residual loss and the boundary loss pull in different directions during training.\n\n"
    "Balance the loss terms by their gradient norms, not by hand.\n"
)


def at(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def build(tmp_path: Path) -> Path:
    root = tmp_path / "foreign-skill"
    (root / "docs/evidence").mkdir(parents=True)
    (root / "refs").mkdir()
    (root / "docs/evidence/recipe.md").write_text(RECIPE)
    (root / "docs/evidence/rl.md").write_text(OLD_RL)
    (root / "docs/evidence/pinn.md").write_text(PINN)
    r, o, p = RECIPE, OLD_RL, PINN
    skill = (
        "---\nname: foreign\ndescription: Debugging advice whose quotes are checked.\n---\n# Foreign\n\n"
        "> Neural net training is a leaky abstraction [...] most of the time.[^recipe]\n\n"  # elision, in place
        "> become one with the data before you touch any code at all.[^recipe]\n\n"  # changed first letter, in place
        '"Overfit one batch first"[^recipe] is the first step.\n\n'  # verbatim, in place
        "> Assume you have a bug [...] in your own code rather than in the library.[^rl]\n\n"  # elision, cache rewritten
        "> standardize the observations first, and only then look at the rewards.[^rl]\n\n"  # first letter, cache rewritten
        "> Write tests for the environment before you write the agent.[^rl]\n\n"  # verbatim, cache rewritten
        "More in [the notes](refs/notes.md).\n\n"
        f"[^recipe]: A. Karp, \"A recipe for training\" ([cache](docs/evidence/recipe.md): leaky L{at(r, 'leaky')}, data L{at(r, 'Become')}, overfit L{at(r, 'Overfit')})\n"
        f"[^rl]: J. Ones ([cache](docs/evidence/rl.md): bug L{at(o, 'Assume')}, standardize L{at(o, 'Standardize')}, tests L{at(o, 'Write tests')})\n"
    )
    notes = (
        "# Notes\n\n"
        "> The residual loss and the boundary loss pull [...] during training.[^pinn]\n\n"  # elision, anchor one line off
        '"Balance the loss terms by their gradient norms"[^pinn] and "spend hours scanning thousands of examples"[^rec2].\n\n'
        "> Spend hours scanning thousands of examples and their labels, always.[^rec2]\n\n"  # altered: left to a person
        f"[^pinn]: P. Inn ([cache](../docs/evidence/pinn.md): residual L{at(p, 'Balance')}, balance L{at(p, 'Balance')})\n"
        f"[^rec2]: A. Karp ([cache](../docs/evidence/recipe.md): scanning L{at(r, 'Spend hours')})\n"
    )
    (root / "SKILL.md").write_text(skill)
    (root / "refs/notes.md").write_text(notes)
    (root / "pyproject.toml").write_text('[project]\nname = "foreign-skill"\nversion = "1.0.0"\n')
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a skill and its sources")
    (root / "docs/evidence/rl.md").write_text(NEW_RL)  # the cache rewrite: every anchor into it goes stale
    git(root, "commit", "-qam", "refresh the RL source")
    return root


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def findings(root: Path) -> Counter[str]:
    return Counter(d.code for d in check(root).diagnostics)


def test_one_pass_of_the_walkthrough_places_every_quote_and_review_clears_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(tmp_path)
    monkeypatch.chdir(root)
    walkthrough = DOCS.read_text(encoding="utf-8").split("## Walkthrough", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].split()[1:] for line in walkthrough.splitlines() if line.startswith("skillcite ")]
    assert commands == [["init", "--dry-run"], ["init"], ["evidence", "adopt"], ["fix"], ["review", "--accept-all"], ["check"]]
    outputs = {}
    seen = []
    for command in commands:
        status, outputs[command[0]] = run(*command)
        seen.append((" ".join(command), status, findings(root)))
    assert seen == [
        ("init --dry-run", 0, Counter({"SC313": 5, "SC301": 4, "SC207": 3, "SC401": 3, "SC302": 1})),
        ("init", 0, Counter({"SC313": 5, "SC301": 4, "SC207": 3, "SC401": 3, "SC302": 1})),
        ("evidence adopt", 0, Counter({"SC313": 5, "SC301": 4, "SC207": 3, "SC302": 1})),
        ("fix", 1, Counter({"SC313": 8, "SC302": 1})),
        ("review --accept-all", 1, Counter({"SC313": 2, "SC302": 1})),
        ("check", 1, Counter({"SC313": 2, "SC302": 1})),
    ]
    out = outputs["fix"]
    assert "refused" not in out.replace("0 refused", "")
    assert [line.split(": SC313 ")[0] for line in out.splitlines() if line.startswith("to review: ")] == [
        "to review: SKILL.md:13:1", "to review: SKILL.md:15:1", "to review: refs/notes.md:3:1"]
    assert out.splitlines()[-1] == (
        "2 files changed (4 for moved quotes, 0 carried, 0 refused); 3 placed quotes to review (run: skillcite review); "
        "exit 1: 1 not fixed (listed above)")
    listed = outputs["review"].strip().splitlines()  # review --accept-all lists each acceptance, then says what it recorded
    assert [line.split(" ", 1)[0] for line in listed[:-1]] == ["accepted"] * 6 + ["left"] * 2
    assert [line.split()[2] for line in listed[-3:-1]] == ["SKILL.md:11:1:", "refs/notes.md:5:1:"]
    assert listed[-1].startswith("recorded 6 bulk acceptances by ")
    assert listed[-1].endswith("; 2 whose context departs left to review one by one")
    status, _ = run("review", *[x for line in listed[-3:-1] for x in ("--accept", line.split()[1])])
    assert (status, findings(root)) == (0, Counter({"SC302": 1}))  # read one by one: only the altered quote is left
    new = (root / "docs/evidence/rl.md").read_text()
    skill = (root / "SKILL.md").read_text()
    # Each stale anchor replaced where it was (labels name the quotes), none appended.
    assert f"bug L{at(new, 'Assume')}, standardize L{at(new, 'Standardize')}, tests L{at(new, 'Write tests')})" in skill


def test_fix_check_says_why_it_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``fix --check`` with nothing to write but a quote to fix by hand: the last line names it."""
    root = build(tmp_path)
    monkeypatch.chdir(root)
    for command in (["init"], ["evidence", "adopt"]):
        run(*command)
    status, out = run("fix", "--check")
    assert (status, out.splitlines()[-1]) == (1, "2 files would change (4 for moved quotes, 0 carried, 0 refused); 3 placed quotes to review "
                                                 "(run: skillcite review); exit 1: anchors drifted, 1 not fixed (listed above)")
    run("fix")
    status, out = run("fix", "--check")
    assert (status, out.splitlines()[-1]) == (1, "0 files would change (0 for moved quotes, 0 carried, 0 refused); exit 1: 1 not fixed (listed above)")
    (root / "refs/notes.md").write_text((root / "refs/notes.md").read_text().replace(" and their labels, always.", " and their labels."))
    status, out = run("fix", "--check")
    assert (status, out) == (0, "0 files would change (0 for moved quotes, 0 carried, 0 refused)\n")
