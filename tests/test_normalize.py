"""Normalization: each rule of docs/citations.md ("Normalization"), the offset map, idempotence."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcite.check.parsing.evidence import normalize_markdown
from skillcite.check.parsing.normalize import normalize, normalize_text


def test_quotes_dashes_ellipsis_and_space() -> None:
    assert normalize_text("\u201cHi\u201d \u2014  it\u2019s  fine\u2026") == "'Hi' - it's fine..."


def test_runs_of_dashes_equal_one_dash() -> None:
    assert normalize_text("a -- b --- c \u2013 d") == "a - b - c - d"


def test_nfkc_and_combining_marks() -> None:
    assert normalize_text("\ufb01ne caf\u0065\u0301") == normalize_text("fine caf\u00e9")


def test_soft_hyphen_and_zero_width_dropped() -> None:
    assert normalize_text("hy\u00adphen\u200b ated") == "hyphen ated"


def test_markdown_inline_syntax_stripped() -> None:
    raw = "Read *the* **docs** at [the site](https://x.org/a_(b)) `now` &amp; <b>then</b>[^1]\n\n[^1]: a note"
    # Issue 28 §6: a footnote definition's label stays, so its note never joins the body text.
    assert normalize_markdown(raw).text == "Read the docs at the site now & then [^1]: a note"
    # Plain text (the quote side, already rendered) keeps every character.
    assert normalize_text("Read *the* [x](y)") == "Read *the* [x](y)"


def test_escapes_and_underscores() -> None:
    assert normalize_markdown(r"snake\_case and \*stars\*").text == normalize_text("snake_case and *stars*")


def test_leading_trailing_whitespace_and_crlf() -> None:
    assert normalize_text("  a\r\n b \n") == "a b"


def test_case_is_kept() -> None:
    assert normalize_text("Assume A Bug") == "Assume A Bug"


def test_offsets_map_back_to_source() -> None:
    src = "zero\n\u201cone\u201d  two \u2014 *three*"
    n = normalize(src, base=100)
    i = n.text.index("two")
    assert src[n.to_source(i) - 100 : n.to_source(i) - 100 + 3] == "two"
    j = n.text.index("three")
    assert src[n.to_source(j) - 100] == "t"
    start, end = n.source_span(j, j + 5)
    assert src[start - 100 : end - 100] == "three"


# Text that holds no markup opener (``<`` of a tag or comment, ``&`` of an
# entity) normalizes to a fixed point, Markdown punctuation included.
_NO_MARKUP = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_characters="<&"),
        st.sampled_from(list("*_`\\[]()^~>#-|!:;.,'\"\u2014\u2013\u00ad\u200b\u2070\u00b9\u2081\ufb01\uff11\u0301\n\t ")),
    )
)


@settings(max_examples=300)
@given(_NO_MARKUP)
def test_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


def test_markup_is_read_once_as_a_renderer_reads_it() -> None:
    # A tag split over lines is text, even though its normalized form (one
    # line) would read as a tag; an entity is decoded once (``&amp;lt;`` is
    # the text ``&lt;``). So normalizing normalized text may change it, and
    # nothing normalizes twice: the quote side is rendered text, normalized once.
    assert normalize_text("Keep <b\nclass='x'> whole.") == "Keep <b class='x'> whole."
    assert normalize_text("&amp;lt;b&amp;gt;") == "&lt;b&gt;"
    assert normalize_text("e&#769;t&eacute;") == "\u00e9t\u00e9"  # a decoded mark still composes


@settings(max_examples=200)
@given(st.text())
def test_map_stays_inside_source(text: str) -> None:
    n = normalize(text)
    for i in range(len(n.text)):
        assert 0 <= n.to_source(i) <= len(text)


def test_blockquote_markers_at_line_starts_dropped() -> None:
    assert normalize_text("> one\n> two\n>> three\r\n> four") == "> one two three four"
    assert normalize_text("a > b") == "a > b"
