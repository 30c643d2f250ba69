"""What the Markdown model counts as a quote, reference, link and heading."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcite.check.parsing.document import github_slug
from skillcite.check.parsing.builder import parse_document
from skillcite.core.textio import InputError, TextFile, line_starts


def parse(text: str):
    tf = TextFile(Path("doc.md"), text, False, line_starts(text))
    return parse_document(Path("doc.md"), "doc.md", tf, lambda t, p: t == "cache")


DEF = "\n\n[^a]: A. ([cache](e.md): L1)\n"


def quotes(text: str) -> list[tuple[str, list[str]]]:
    return [(q.text, q.labels) for q in parse(text + DEF).quotes]


def test_inline_quote_directly_followed_by_reference() -> None:
    assert quotes('He wrote "fail silently"[^a] once.') == [("fail silently", ["a"])]


def test_closing_punctuation_allowed_between() -> None:
    assert quotes('He wrote "fail silently".[^a]') == [("fail silently", ["a"])]
    assert quotes("He wrote \u201cfail silently,\u201d[^a] once.") == [("fail silently,", ["a"])]


def test_long_quote_in_a_sentence_ending_with_reference() -> None:
    assert quotes('He says "assume a bug" when stuck.[^a]') == [("assume a bug", ["a"])]


def test_short_quote_in_sentence_is_not_checked() -> None:
    assert quotes('The "trick" works, he says.[^a]') == []


def test_quote_in_an_earlier_sentence_is_not_checked() -> None:
    assert quotes('Call it "a silly little name". Then cite.[^a]') == []


def test_quotes_inside_code_are_ignored() -> None:
    assert quotes('Use `x = "a b c"` to start.[^a]') == []


def test_footnote_definitions_are_not_quotes() -> None:
    assert quotes('Intro.[^a]\n\n[^b]: Jones, "A Long Post Title Here" (2021).') == []


def test_blockquote_with_reference_and_emphasis() -> None:
    doc = parse("> Neural nets *fail*\n> silently.[^a]" + DEF)
    [q] = doc.quotes
    assert (q.text, q.block, q.line, q.column) == ("Neural nets fail silently.", True, 1, 1)


def test_blockquote_paragraphs_are_joined() -> None:
    [q] = parse("> One.\n>\n> Two.[^a]" + DEF).quotes
    assert q.text == "One. Two."


def test_unsourced_blockquote_and_alert() -> None:
    doc = parse("> A saying.\n\n> [!TIP]\n> An aside.\n")
    assert [u.value for u in doc.unsourced] == ["A saying."]


def test_undefined_reference_position() -> None:
    doc = parse("Text.\n\nSee this.[^zz]\n")
    [u] = doc.undefined
    assert (u.value, u.line, u.column) == ("zz", 3, 10)


def test_reference_positions() -> None:
    doc = parse("A.[^a] and B.[^a]" + DEF)
    assert [(r.line, r.column) for r in doc.references] == [(1, 3), (1, 14)]


def test_slugs_follow_github() -> None:
    assert github_slug("The Debugging Loop (v2)!") == "the-debugging-loop-v2"
    doc = parse("# Intro\n\n## Intro\n\n## `code` & more\n")
    assert {"intro", "intro-1", "code--more"} <= doc.slugs


def test_invalid_front_matter_is_recorded_not_raised() -> None:
    doc = parse("---\nname: [unclosed\n---\n# x\n")
    assert doc.front_matter is None
    assert doc.front_matter_error is not None and doc.front_matter_error.line == 3


def test_crlf_keeps_line_numbers() -> None:
    doc = parse("# T\r\n\r\n> Quote here.[^a]\r\n\r\n[^a]: A. ([cache](e.md): L1)\r\n")
    [q] = doc.quotes
    assert q.line == 3
    assert doc.definitions[0].line == 5


def test_a_quote_is_placed_at_the_leftmost_opening_mark_as_a_pattern_would() -> None:
    # locate_quote scans instead of compiling a pattern per quote: on random
    # text it must answer what the pattern ``mark [^\w\n]{0,4} first-word`` did.
    import random
    import re

    from skillcite.check.parsing.document import Document
    from skillcite.check.parsing.builder import _Builder

    rng = random.Random(23)
    alphabet = ['"', "'", "\u201c", "\u2018", "\u00ab", " ", " ", "\n", "(", "*", "_", "-", "a", "b", "ab", "x", "1", "é", "."]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        word = rng.choice(["a", "ab", "b", "x1", "é"])
        lo = rng.randint(0, len(text))
        hi = rng.randint(lo, len(text))
        doc = Document(Path("d.md"), "d.md", TextFile(Path("d.md"), text, False, line_starts(text)))
        pattern = re.compile("[\"\u201c\u201d\u201e\u00ab\u300c\u300e\u2018'][^\\w\\n]{0,4}" + re.escape(word))
        m = pattern.search(text, lo, hi)
        assert _Builder(doc).locate_quote(word + " rest", (lo, hi)) == (m.start() if m else -1), (text, word, lo, hi)


def _documents_both_ways(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """Parse each text into a model with the model parser and with the full inline parse; assert they agree."""
    from skillcite.check.parsing import builder, document

    full = document.parser()
    models = [parse_document(Path("d.md"), "d.md", TextFile(Path("d.md"), t, False, line_starts(t))) for t in texts]
    with monkeypatch.context() as m:
        m.setattr(builder, "parser", lambda model=False: full)  # parse_document's own name for it
        for text, model in zip(texts, models, strict=True):
            assert parse_document(Path("d.md"), "d.md", model.file) == model, text[:200]
    return len(texts)


def test_the_model_parser_builds_the_models_a_full_inline_parse_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 23: paragraphs without "[" or "<" are not parsed inline; nothing the model holds may change.
    import random
    import sys

    repo = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(repo / "tests"))
    from test_narrow import generated

    texts = [p.read_text(encoding="utf-8") for p in sorted(repo.rglob("*.md")) if not any(part.startswith(".") for part in p.relative_to(repo).parts)]
    rng = random.Random(7)
    extras = [
        '"A quote," said[^a] someone.\n\n[^a]: A, "T" ([cache](e.md): L3)\n',
        'As the post[^s] puts it:\n\n> "Quoted" words\n> more\n\n[^s]: S\n',
        "> A blockquote without a source\n\n## A `heading` with *marks*\n\n| a | [b](x.md) |\n|---|---|\n| <span id=\"k\">c</span> | d |\n",
        "Text with &lt;b&gt; entities and \\[escaped\\] brackets, 'single' and \u201ccurly\u201d quotes.\n",
    ]
    texts += extras + [generated(seed) + rng.choice(extras) for seed in range(150)]
    assert _documents_both_ways(texts, monkeypatch) > 250
