"""Issue 19 §3: text presented as a quotation is verified, or reported with its own code.

Each form below was never checked before. Every case has a must-fail twin
(the words altered: the check must report it) and a must-pass twin (the
author's words: clean). Whole checks of a package built in ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_adv_skill_side import findings, package

from conftest import evidence_text

BODY = "Assume you have a bug.\n\nUse a < b here.\n"

# (form, quote block, codes): the block cites [^s], whose evidence is BODY.
CASES = [
    ("single marks", "They wrote 'Assume you never have a bug'[^s].", ["SC302"]),
    ("single marks", "They wrote 'Assume you have a bug'[^s].", []),
    ("curly single marks", "They wrote \u2018Assume you never have a bug\u2019[^s].", ["SC302"]),
    ("curly single marks", "They wrote \u2018Assume you have a bug\u2019[^s].", []),
    ("guillemets", "They wrote \u00abAssume you never have a bug\u00bb[^s].", ["SC302"]),
    ("guillemets", "They wrote \u00abAssume you have a bug\u00bb[^s].", []),
    ("low-high marks", "They wrote \u201eAssume you never have a bug\u201c[^s].", ["SC302"]),
    ("low-high marks", "They wrote \u201eAssume you have a bug\u201c[^s].", []),
    ("corner brackets", "They wrote \u300cAssume you never have a bug\u300d[^s].", ["SC302"]),
    ("corner brackets", "They wrote \u300cAssume you have a bug\u300d[^s].", []),
    ("mixed marks", 'They wrote "Assume you never have a bug\u201d[^s].', ["SC302"]),
    ("mixed marks", 'They wrote "Assume you have a bug\u201d[^s].', []),
    ("footnote before the quote", 'As the post[^s] puts it, "Assume you never have a bug".', ["SC302"]),
    ("footnote before the quote", 'As the post[^s] puts it, "Assume you have a bug".', []),
    # a reference closing the sentence before cites nothing in the next one (an error message in quotes)
    ("footnote closing the sentence before", 'They wrote "Assume you have a bug."[^s] Then look for "unspecified launch failure" in the log.', []),
    ("footnote closing the sentence before", 'They wrote "Assume you have a bug".[^s] Then look for "unspecified launch failure" in the log.', []),
    ("footnote closing the sentence before", 'They wrote "Assume you never have a bug."[^s] Then look for "unspecified launch failure" in the log.', ["SC302"]),
    ("parenthetical before the footnote", '"Assume you never have a bug" (p. 3).[^s]', ["SC302"]),
    ("parenthetical before the footnote", '"Assume you have a bug" (p. 3).[^s]', []),
    ("et al. before the footnote", '"Assume you never have a bug", as in Smith et al. 2019.[^s]', ["SC302"]),
    ("et al. before the footnote", '"Assume you have a bug", as in Smith et al. 2019.[^s]', []),
    ("two-word quote", 'The post says "you lack" in passing.[^s]', ["SC303"]),
    ("two-word quote", 'The post says "you have" in passing.[^s]', []),
    ("entities decoded once", '"Use a &amp;lt; b here"[^s]', ["SC302"]),
    ("entities decoded once", '"Use a &lt; b here"[^s]', []),
    ("lone carriage return", "As they wrote:\r> Assume you never have a bug.[^s]", ["SC308"]),
    ("lone carriage return", "As they wrote:\r\n\r\n> Assume you have a bug.[^s]", []),
]


@pytest.mark.parametrize(("form", "block", "codes"), CASES, ids=[f"{c[0]}: {c[1][:30]!r}" for c in CASES])
def test_every_quotation_is_seen(tmp_path: Path, form: str, block: str, codes: list[str]) -> None:
    assert [f[0] for f in findings(package(tmp_path, BODY, block))] == codes


def test_each_cited_source_must_hold_the_quote(tmp_path: Path) -> None:
    # "..."[^s][^t] says both sources say it: one that does not is reported.
    p = package(tmp_path / "a", BODY, 'They wrote "Assume you have a bug"[^s][^t].')
    p.write("docs/evidence/t.md", evidence_text("Something else entirely.\n"))
    p.write("SKILL.md", p.read("SKILL.md") + "[^t]: B. Author ([cache](docs/evidence/t.md): L11)\n")
    assert [f[0] for f in findings(p)] == ["SC303"]
    p.write("docs/evidence/t.md", evidence_text("Assume you have a bug.\n"))
    assert findings(p) == []
