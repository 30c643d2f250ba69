"""A finding's identity: what it is about, independent of its message and of line numbers."""

from __future__ import annotations

from collections import Counter

import pytest
from test_codes import CASES

from conftest import Package
from skillcite import CODES
from skillcite.check import check
from skillcite.core.diagnostics import Diagnostic


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_finding_names_its_subject(pkg: Package, code: str) -> None:
    CASES[code][0](pkg)
    fired = [d for d in check(pkg.root).diagnostics if d.code == code]
    assert fired
    assert all(d.subject.strip() for d in fired), [(d.format(), d.subject) for d in fired]


def _findings(pkg: Package) -> list[Diagnostic]:
    return check(pkg.root).diagnostics


def test_identity_survives_lines_moving(pkg: Package) -> None:
    text = pkg.read("SKILL.md")
    text = text.replace("> Assume you have a bug.[^src]", "> Assume you have a bag.[^src]")  # SC302
    text += '\nAn invented "claim that nobody ever wrote down"[^src].\n'  # SC303
    text += "\nSee [gone](missing.md) and [here](#nowhere).[^undefined]\n"  # SC601, SC602, SC101
    text += "\n[^unused]: A note.\n"  # SC102
    pkg.write("SKILL.md", text)
    before = _findings(pkg)
    assert {d.code for d in before} == {"SC101", "SC102", "SC302", "SC303", "SC601", "SC602"}

    head, _, body = text.partition("# Pkg\n")
    pkg.write("SKILL.md", head + "# Pkg\n\nA new paragraph.\n\nAnd another one.\n" + body)
    after = _findings(pkg)
    assert [d.line for d in after] != [d.line for d in before]
    assert Counter(d.identity for d in after) == Counter(d.identity for d in before)
    assert sorted(d.key for d in after) == sorted(d.key for d in before)


def test_identity_ignores_the_message_but_not_the_subject() -> None:
    a = Diagnostic.make("SC302", "SKILL.md", 3, 1, "differs (score 91.0)", subject="Assume you have a bag.")
    b = Diagnostic.make("SC302", "SKILL.md", 9, 4, "differs (score 92.5)", subject="Assume you have a bag.")
    c = Diagnostic.make("SC302", "SKILL.md", 3, 1, "differs (score 91.0)", subject="Another quote.")
    assert a.identity == b.identity == ("SC302", "SKILL.md", "Assume you have a bag.")
    assert a.key == b.key and len(a.key) == 16
    assert a.identity != c.identity and a.key != c.key


def test_subject_of_a_quote_collapses_whitespace(pkg: Package) -> None:
    pkg.write("SKILL.md", pkg.read("SKILL.md").replace("> Assume you have a bug.[^src]", "> Assume you\n> have a bag.[^src]"))
    [d] = _findings(pkg)
    assert (d.code, d.subject) == ("SC302", "Assume you have a bag.")
