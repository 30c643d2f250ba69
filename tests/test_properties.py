"""Property tests: a changed word always fails, arbitrary Markdown never crashes."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import evidence_text, line_of
from skillcite.check import check
from skillcite.check.document import parse_document
from skillcite.core.textio import TextFile, line_starts

PASSAGE = (
    "Before touching the model, spend hours reading the raw examples, "
    "checking label balance and looking for duplicates across the split boundary."
)
WORDS = PASSAGE.split()


def build(root: Path, quote: str) -> None:
    body = "Intro line.\n\n" + PASSAGE + "\n"
    ev = evidence_text(body)
    n = line_of(ev, "Before touching")
    (root / "docs/evidence").mkdir(parents=True, exist_ok=True)
    (root / "docs/evidence/src.md").write_text(ev)
    (root / "SKILL.md").write_text(
        "---\nname: pkg\ndescription: Test.\n---\n# Pkg\n\n"
        f"> {quote}[^s]\n\n[^s]: A. ([cache](docs/evidence/src.md): L{n})\n"
    )


_word = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(min_value=0, max_value=len(WORDS) - 1), replacement=_word)
def test_changing_any_word_fails_the_check(tmp_path_factory, index: int, replacement: str) -> None:
    original = re.sub(r"\W", "", WORDS[index])
    if replacement == original or (index == 0 and replacement.lower() == original.lower()):
        return  # not a change (the first letter's case is free)
    root = tmp_path_factory.mktemp("prop")
    words = list(WORDS)
    trailing = re.search(r"\W*$", words[index]).group()
    words[index] = replacement + trailing
    build(root, " ".join(words))
    codes = {d.code for d in check(root).diagnostics}
    assert codes & {"SC302", "SC303"}, codes


def test_the_unchanged_passage_verifies(tmp_path: Path) -> None:
    build(tmp_path, PASSAGE)
    assert check(tmp_path).diagnostics == []


_markdown = st.lists(
    st.sampled_from(list('abc "“”[]^:()>*_`#-\n\r\t\\!|~&;<>/.,') + ["[^a]", "[^a]: x", "```", "> ", "\n\n", "[cache](e.md): L1"]),
    max_size=80,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_markdown)
def test_parser_never_raises_on_arbitrary_markdown(text: str) -> None:
    tf = TextFile(Path("d.md"), text, False, line_starts(text))
    parse_document(Path("d.md"), "d.md", tf, lambda t, p: t == "cache")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_markdown)
def test_check_never_raises_on_arbitrary_markdown(tmp_path_factory, text: str) -> None:
    root = tmp_path_factory.mktemp("md")
    (root / "notes.md").write_text(text, newline="")
    check(root)
