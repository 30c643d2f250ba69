"""SC505 and the front-matter keys Claude Code documents for skills (issue 29, williamhallatt/cogworks).

cogworks' skills set ``disable-model-invocation: true``, a key Claude Code
documents (https://code.claude.com/docs/en/skills, "Frontmatter
reference") and other agents ignore; the check called it an unknown key. A
documented key of the wrong type, and a key nobody documents, are still
SC505.
"""

from __future__ import annotations

import pytest

from conftest import Package
from skillcite.check import check

SKILL = "---\nname: sub\ndescription: A sub-skill.\n{extra}---\n# Sub\n"


def sc505(pkg: Package, extra: str) -> list[str]:
    pkg.write("sub/SKILL.md", SKILL.format(extra=extra))
    return [d.message for d in check(pkg.root).diagnostics if d.code == "SC505"]


@pytest.mark.parametrize(
    "extra",
    [
        "disable-model-invocation: true\n",
        "user-invocable: false\n",
        "argument-hint: '[issue-number]'\n",
        "model: sonnet\ncontext: fork\nagent: Explore\n",
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n",
    ],
)
def test_a_key_claude_code_documents_is_no_finding(pkg: Package, extra: str) -> None:
    assert sc505(pkg, extra) == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("disable-model-invocation: 'yes'\n", "disable-model-invocation must be true or false (Claude Code's skill front matter)"),
        ("user-invocable: 0\n", "user-invocable must be true or false (Claude Code's skill front matter)"),
        ("hooks: [a]\n", "hooks must be a mapping (Claude Code's skill front matter)"),
        ("model: 4\n", "model must be a string (Claude Code's skill front matter)"),
    ],
)
def test_a_documented_key_of_the_wrong_type_is_sc505(pkg: Package, extra: str, message: str) -> None:
    assert sc505(pkg, extra) == [message]


def test_a_key_nobody_documents_is_still_sc505(pkg: Package) -> None:
    assert sc505(pkg, "disable_model_invocation: true\n") == [
        "unknown key 'disable_model_invocation' (allowed: allowed-tools, compatibility, description, license, metadata, name; "
        "and Claude Code's agent, argument-hint, context, disable-model-invocation, hooks, model, user-invocable)"
    ]
