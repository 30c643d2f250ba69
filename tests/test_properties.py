"""Property tests: a changed word always fails, arbitrary Markdown never crashes."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import evidence_text, line_of
from skillcite.check import check
from skillcite.check.parsing.builder import parse_document
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


# Characters and Markdown constructs, not just text: references, quotes,
# lead-ins, HTML and code blocks, lists, nesting, front matter, and the
# private-use characters that once stood for references in flattened text.
_markdown = st.lists(
    st.sampled_from(
        list('abc "“”[]^:()>*_`#-\n\r\t\\!|~&;<>/.,\ue000\ue001')
        + ["[^a]", "[^b]", "[^a]: x", "[^b]: y ([cache](e.md): L1)", "```", "~~~", "    ", "> ", "> > ", "- ", "1. ", "\n\n"]
        + ["[cache](e.md): L1", '"a b c"', '"a b[^a]"', "x[^a]:\n\n> ", "<p>", "</p>", "<details>", "<summary>", "<!--", "-->"]
        + ["---\n", "k: v\n", "k: [\n", "d: 2026-02-30\n", "[x](y.md)", "**", "\ue000[^a]", "\u201c\ue000\u201d"]
    ),
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


_private = st.sampled_from(["\ue000", "\ue001", "\ue000\ue001"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(min_value=0, max_value=len(WORDS) - 1), char=_private, inside=st.booleans())
def test_private_use_characters_in_a_quote_are_text(tmp_path_factory, index: int, char: str, inside: bool) -> None:
    # They once stood for footnote references in the flattened text: inside a
    # quote they made it skipped, near one they raised IndexError.
    root = tmp_path_factory.mktemp("pua")
    words = list(WORDS)
    words[index] = words[index][:1] + char + words[index][1:] if inside else char + " " + words[index]
    build(root, " ".join(words))
    codes = [d.code for d in check(root).diagnostics]
    assert codes in (["SC302"], ["SC303"]), codes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.text(alphabet="ab \ue000\ue001.[]^", max_size=12))
def test_private_use_characters_near_an_inline_quote_never_raise(tmp_path_factory, prefix: str) -> None:
    # A prefix spelling a footnote reference ("[^a]") is a real SC101, not this property's business.
    assume("[^" not in prefix)
    root = tmp_path_factory.mktemp("pua")
    build(root, PASSAGE)
    skill = (root / "SKILL.md").read_text()
    n = skill.split("L")[-1].rstrip(")\n")
    (root / "SKILL.md").write_text(skill + f'\n{prefix} "{PASSAGE}"[^t] {prefix}\n\n[^t]: A. ([cache](docs/evidence/src.md): L{n})\n')
    assert [d.format() for d in check(root).diagnostics] == []
