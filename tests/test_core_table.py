"""Table-driven tests: the exact outcome on each side of every constant and boundary of the core.

normalize.py, anchors.py and matching.py each hold a few numbers and rules
that decide a verdict (the altered threshold, the elision and insertion
spans, the fuzzy pass's reach and caps, token boundaries, markup rules).
Each gets a case just inside and just outside, with the exact status, so a
change of one unit shows (bench/mutation.py measures how many such changes
the suite catches).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "adversarial"))

from adversarial_cases import FIRST_BODY_LINE, evidence, match  # noqa: E402
from skillcite.check.matching import diff, marks, nearest, pattern  # noqa: E402
from skillcite.check.parsing.anchors import MAX_DIGITS, Range, find_cache_links, parse_anchor_list, parse_fragment, split_target  # noqa: E402
from skillcite.check.parsing.evidence import normalize_markdown  # noqa: E402
from skillcite.check.matching.nearest import ALTERED_THRESHOLD, FUZZY_CAP, FUZZY_FULL
from skillcite.check.matching.pattern import ELISION_SPAN, INSERTION_SPAN, MAX_MARKS, _inside, compile_quote
from skillcite.check.matching.locate import NEAR_LINES, locate
from skillcite.check.matching.diff import word_diff
from skillcite.check.parsing.normalize import normalize, normalize_text  # noqa: E402


def _x_out(phrase: str, count: int) -> str:
    """``phrase`` with ``count`` letters replaced by X (every fourth from the third)."""
    chars = list(phrase)
    for j in range(count):
        chars[2 + 4 * j] = "X"
    return "".join(chars)


# -- matching: the altered / not-found threshold -----------------------------------
def test_threshold_is_80() -> None:
    assert ALTERED_THRESHOLD == 80.0


@pytest.mark.parametrize(
    ("phrase", "changed", "status", "score"),
    [
        ("gradient clipping keeps a few updates bounded", 9, "altered", 80.0),  # 1 - 9/45: exactly the threshold
        ("gradient clipping keeps all updates bounded", 8, "altered", 81.4),
        ("gradient clipping keeps all updates bounded", 9, "notfound", 1.0),  # 1 - 9/43 = 79.07: just under
    ],
)
def test_altered_threshold(tmp_path: Path, phrase: str, changed: int, status: str, score: float) -> None:
    body = f"Some unrelated opening words here.\nWe find that {phrase} in practice.\nMore text.\n"
    m = match(tmp_path, body, _x_out(phrase, changed))
    assert (m.status, m.score) == (status, score)


# -- matching: the nearby fuzzy pass and the whole-file fallback -------------------
def _two_candidates(gap_lines: int) -> tuple[str, int, int]:
    """Evidence with the same sentence early (line 4) and ``gap_lines`` after the cited line."""
    sentence = "warmup hides a learning rate that is far too high"
    lines = [sentence] + [f"filler line number {k} about nothing" for k in range(200)]
    cited = 150
    lines[cited - FIRST_BODY_LINE + gap_lines] = sentence
    return "\n".join(lines), cited, cited + gap_lines


@pytest.mark.parametrize(("gap", "near"), [(NEAR_LINES, True), (NEAR_LINES + 1, False)])
def test_nearby_pass_prefers_a_candidate_within_near_lines(tmp_path: Path, gap: int, near: bool) -> None:
    body, cited, second = _two_candidates(gap)
    ev = evidence(tmp_path, body)
    m = locate("warmup hides a learning rate that is far too hig", ev, [[Range(cited, cited)]])
    assert m.status == "altered"
    assert m.lines == ((second, second) if near else (FIRST_BODY_LINE, FIRST_BODY_LINE))


def test_whole_file_fallback_beats_a_weaker_nearby_candidate(tmp_path: Path) -> None:
    body, cited, second = _two_candidates(10)
    lines = body.split("\n")
    lines[second - FIRST_BODY_LINE] = "warmup hides a rate that is much too high"  # near, weaker
    ev = evidence(tmp_path, "\n".join(lines))
    m = locate("warmup hides a learning rate that is far too hig", ev, [[Range(cited, cited)]])
    assert (m.status, m.lines) == ("altered", (FIRST_BODY_LINE, FIRST_BODY_LINE))


# -- matching: elision and insertion spans ------------------------------------------
def _gap_body(chars: int) -> str:
    """"Alpha beta", then a stretch such that ``chars`` characters separate it from "gamma delta"."""
    filler = ("lorem " * (chars // 6 + 2))[: chars - 2].rstrip()
    filler = filler + "m" * (chars - 2 - len(filler))
    return f"Alpha beta {filler} gamma delta.\n"


@pytest.mark.parametrize(("chars", "status"), [(ELISION_SPAN, "verified"), (ELISION_SPAN + 1, "notfound")])
def test_elision_span(tmp_path: Path, chars: int, status: str) -> None:
    assert ELISION_SPAN == 20_000
    assert match(tmp_path, _gap_body(chars), "Alpha beta [...] gamma delta").status == status


@pytest.mark.parametrize(("chars", "status"), [(INSERTION_SPAN, "verified"), (INSERTION_SPAN + 1, "notfound")])
def test_insertion_span(tmp_path: Path, chars: int, status: str) -> None:
    assert INSERTION_SPAN == 80
    assert match(tmp_path, _gap_body(chars), "Alpha beta [lorem] gamma delta").status == status


@pytest.mark.parametrize(("size", "status"), [(60, "verified"), (61, "notfound")])
def test_an_insertion_holds_at_most_60_characters(tmp_path: Path, size: int, status: str) -> None:
    inserted = ("word " * 20)[: size - 1] + "s"
    assert match(tmp_path, "Alpha beta lorem gamma delta.", f"Alpha beta [{inserted}] gamma delta").status == status


@pytest.mark.parametrize(("marks", "status"), [(MAX_MARKS, "verified"), (MAX_MARKS + 1, "notfound")])
def test_more_than_max_marks_is_matched_literally(tmp_path: Path, marks: int, status: str) -> None:
    words = [f"w{k}" for k in range(marks + 1)]
    body = " filler ".join(words) + "\n"
    assert match(tmp_path, body, " [...] ".join(words)).status == status


# -- matching: the fuzzy pass's caps -------------------------------------------------
def _word_soup(size: int) -> tuple[str, str]:
    """Evidence words, and a quote of exactly ``size`` characters with every word one letter longer."""
    vocab = ["gradient", "clipping", "learning", "schedule", "momentum", "variance", "training", "baseline"]
    words: list[str] = []
    quote = ""
    k = 0
    while len(quote) < size:
        words.append(vocab[k % len(vocab)] + str(k))
        quote = " ".join(w + "q" for w in words)
        k += 1
    extra = len(quote) - size
    last = words[-1]
    words[-1] = last[: len(last) - extra] if extra < len(last) else last
    quote = " ".join(w + "q" for w in words)
    return " ".join(words), quote


@pytest.mark.parametrize(("size", "status"), [(FUZZY_FULL, "altered"), (FUZZY_FULL + 1, "notfound")])
def test_fuzzy_full_cap(tmp_path: Path, size: int, status: str) -> None:
    # No word of the quote is in the file, so only the whole-region alignment
    # (quotes of at most FUZZY_FULL characters) can see how close it is.
    body, quote = _word_soup(size)
    assert len(compile_quote(quote).fuzzy_text) == size
    assert match(tmp_path, body + "\n", quote).status == status


@pytest.mark.parametrize(("size", "status"), [(FUZZY_CAP, "altered"), (FUZZY_CAP + 1, "notfound")])
def test_fuzzy_cap(tmp_path: Path, size: int, status: str) -> None:
    vocab = "the model learns a signal from noisy labels when the rate is low".split()
    words = [f"{vocab[k % len(vocab)]}{k}" for k in range(size // 4)]
    passage = " ".join(words)[:size].rstrip()
    passage = passage + "z" * (size - len(passage))
    quote = passage.replace(words[10], "CHANGED", 1)
    quote = quote + "z" * (size - len(quote)) if len(quote) < size else quote[:size]
    assert len(compile_quote(quote).fuzzy_text) == size
    assert match(tmp_path, passage + "\n", quote).status == status


# -- matching: token boundaries ------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "i", "inside"),
    [
        ("abc", 0, False),  # the start of the text is a boundary
        ("abc", 3, False),  # so is the end
        ("abc", 1, True),
        ("a b", 1, False),
        ("can't", 3, True),
        ("can't", 4, True),
        ("non-convex", 3, True),
        ("non-convex", 4, True),
        ("a - b", 2, False),
        ("3e-4", 1, True),
        ("1/10", 1, True),
        ("1/10", 2, True),
        ("x -3", 3, True),
        ("x-3", 2, True),
        ("(-3", 2, True),
        ("0.15", 3, True),
        ("0.15", 1, True),
        ("3. Next", 2, False),
        ("1,000", 1, True),
        ("1,000", 2, True),
        ("a, b", 1, False),
        ("bug\u00b9", 3, False),  # a footnote mark after a letter
        ("10\u2076", 2, True),  # a superscript after a digit
        ("\u2076a", 1, False),
        ("\u03c3\u00b2", 1, True),  # after a lone letter: an exponent
        ("x\u2081", 1, True),
        ("ab\u2081", 2, False),
        ("x_1", 1, True),
        ("resnet50", 6, True),
        ("\u6a21\u578b", 1, False),  # CJK: any boundary
        ("\u4e0d\u597d", 1, True),  # but not right after a negation
        ("\u4f7f\u3048\u306a\u3044", 2, True),  # nor right before ない
        ("\uc548\uc88b\ub2e4", 1, True),  # Hangul is spaced: inside a word
        ("dis\u2e17 tributions", 3, True),  # a line-break hyphen joins its word
        ("dis\u2e17 tributions", 5, True),
    ],
)
def test_token_boundaries(text: str, i: int, inside: bool) -> None:
    assert _inside(text, i) is inside


def test_a_region_start_is_not_a_word_boundary_inside_a_broken_word(tmp_path: Path) -> None:
    ev = evidence(tmp_path, "Heavy-tailed dis-\ntributions are common.")
    assert locate("tributions are common", ev, [[Range(5, 5)]]).status == "altered"
    assert locate("distributions are common", ev, [[Range(4, 5)]]).status == "verified"


@pytest.mark.parametrize(
    ("quote", "status"),
    [
        (", the first sentence.", "verified"),  # edge punctuation of a quote is ignored
        ("; the first sentence:", "verified"),
        ("the first sentence", "verified"),
        ("the first sentence!", "altered"),  # but not any punctuation
        ("The first sentence", "verified"),  # the first letter's case is free
        ("the First sentence", "altered"),
    ],
)
def test_edges_and_case(tmp_path: Path, quote: str, status: str) -> None:
    assert match(tmp_path, "Here is the first sentence. And more.", quote).status == status


def test_elision_edges_are_word_boundaries(tmp_path: Path) -> None:
    body = "A latency of 2.5 ms and a cost of 1,000,000 units."
    assert match(tmp_path, body, "A latency of 2 [...] a cost").status == "altered"
    assert match(tmp_path, body, "A latency of 2.5 ms [...] a cost").status == "verified"
    assert match(tmp_path, body, "A latency of[...]ms and").status == "verified"  # spaces around [...] are optional
    assert match(tmp_path, body, "A latency of 2.[...]5 ms").status == "altered"  # but it never glues inside a token


def test_word_diff_context_and_case() -> None:
    assert word_diff("a b c", "a x c") == "a [-b-] {+x+} c"
    assert word_diff("one two three four five six seven eight", "one two three four five six seven nine") == (
        "... five six seven [-eight-] {+nine+}"
    )
    assert word_diff("Use it", "we use it now", trim=True) == "Use it"
    assert word_diff("use it", "use it.") == "use it"
    long_a = " ".join(f"w{k}" for k in range(diff.DIFF_WORDS + 5))
    long_b = long_a.replace("w7 ", "v7 ")
    assert word_diff(long_a, long_b) == "... w4 w5 w6 [-w7-] {+v7+} w8 w9 w10 ..."


# -- normalize: each rule at its edge ------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("a--b", "a - b"),
        ("-\u0301-", "-"),  # a dropped mark joins a dash run: one more pass reads it
        ("a-b", "a-b"),
        ("a\u2013b", "a-b"),  # en dash joins like a hyphen
        ("a\u2014b", "a - b"),  # em dash separates
        ("a\u2212b", "a-b"),  # minus sign
        ("a &mdash; b", "a - b"),
        ("a&#8212;b", "a - b"),
        ("a&#x2014;b", "a - b"),
        ("a&ndash;b", "a-b"),
        ("a&#8211;b", "a-b"),
        ("e&#769;t&eacute;", "\u00e9t\u00e9"),  # a decoded combining mark composes in the next pass
        ("x<sup>2</sup>", "x\u00b2"),
        ("x<SUP>2</SUP>", "x\u00b2"),
        ('x<sup class="a">-1</sup>', "x\u207b\u00b9"),
        ("x<sub>i</sub>", "x\u1d62"),
        ("x<sup>" + "1" * 41 + "</sup>", "x" + "1" * 41),  # too long to be an exponent: tags dropped only
        ("x<sup>th</sup>", "xth"),
        ("10\u2076", "10\u2076"),
        ("a <!-- b", "a <! - b"),  # an unclosed comment is text
        ("a <!-- b --> c", "a [...] c"),
        ("a <!-- b --> c <!-- d", "a [...] c <! - d"),
        ("a <!-- b --> c <!-- d --> e", "a [...] c [...] e"),
        ("x\n> y", "x y"),
        ("x\n>y", "x >y"),
        ("x\n>> y", "x y"),
        ("x\n> > y", "x y"),
        ("x\n>\ny", "x y"),
        ("dis-\ntributions", "dis\u2e17 tributions"),
        ("dis-  \n  tributions", "dis\u2e17 tributions"),
        ("dis- tributions", "dis- tributions"),
        ("3-\n4", "3- 4"),
        ("a -\nb", "a - b"),
        ("<b>x</b>", "x"),
        ("<br>x", "x"),
        ("a<br/>b", "a b"),
        ("a<b>b</b>", "ab"),
        ("<details open>x", "x"),
        ("<b and c>", "<b and c>"),
        ("<y is='x'>z", "z"),
        ("<y is small>", "<y is small>"),
        ("<eos>", "<eos>"),
        ("</think>", "</think>"),
        ("<abbr\ntitle='x'>", "<abbr title='x'>"),
        ("  a \t b  ", "a b"),
        ("\u201cq\u201d", "'q'"),
        ("a\u2026", "a..."),
        ("so\u00adft", "soft"),
        ("z\u200bw", "zw"),
        ("\uff11\uff12", "12"),
        ("\u00b4", "'"),
        ("a\u00a8", "a"),  # a spacing mark alone carries no text
    ],
)
def test_normalize_rules(raw: str, normalized: str) -> None:
    assert normalize_text(raw) == normalized


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("*a* b", "a b"),
        ("**a** b", "a b"),
        ("_a_ b", "a b"),
        ("x_1 and y_2", "x_1 and y_2"),
        ("2*3", "2*3"),
        ("2\\*3", "2*3"),
        ("`a*b*` c", "a*b* c"),
        ("``a`b`` c", "a`b c"),
        ("[t](http://x) c", "t c"),
        ("![alt](i.png) c", "alt c"),
        ("<http://x.org> c", "http://x.org c"),
        ("a[^1] b\n\n[^1]: n", "a b [^1]: n"),  # issue 28 §6: a definition's label keeps its note apart
        ("a[^9] b", "a[^9] b"),  # not a reference without a definition
        ("- a\n- b", "a b"),
        ("1. a\n2. b", "a b"),
        ("10) a", "a"),
        ("# T", "T"),
        ("### T", "T"),
        ("    - a *b*", "a b"),  # indented: text of a list, not a code block
        ("```\n*a*\n```", "``` *a* ```"),
        ("| *a* | b |\n|---|---|\n| c | *d* |", "| a | b | | - | - | | c | d |"),
    ],
)
def test_evidence_markup_from_the_parser(raw: str, normalized: str) -> None:
    assert normalize_markdown(raw).text == normalized


def test_offsets_of_dropped_markup_map_back() -> None:
    src = "x *yy* z"
    n = normalize(src, drop=[2, 5])
    assert n.text == "x yy z"
    assert [n.to_source(i) for i in range(len(n.text))] == [0, 1, 3, 4, 6, 7]


# -- anchors ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "ranges", "error"),
    [
        ("L1", [[Range(1, 1)]], None),
        ("L" + "9" * MAX_DIGITS, [[Range(int("9" * MAX_DIGITS), int("9" * MAX_DIGITS))]], None),
        ("L" + "9" * (MAX_DIGITS + 1), [], f"a line number has more than {MAX_DIGITS} digits"),
        ("L1-" + "9" * (MAX_DIGITS + 1), [], f"a line number has more than {MAX_DIGITS} digits"),
        ("L" + "9" * 5000, [], f"a line number has more than {MAX_DIGITS} digits"),
        ("L\u0661\u0663", [], "write line numbers with the digits 0-9"),
        ("L1\u0663", [], "write line numbers with the digits 0-9"),
        ("L\uff11", [], "write line numbers with the digits 0-9"),
        ("L12-L20", [[Range(12, 20)]], None),
        ("L3+L5", [[Range(3, 3), Range(5, 5)]], None),
        ("lab L3", [[Range(3, 3)]], None),
        ("L11 L12", [], "has ranges without ',' or '+' between them"),
        ("x,", [], "cannot parse anchor"),
    ],
)
def test_anchor_lists(text: str, ranges: list[list[Range]], error: str | None) -> None:
    anchors, errors = parse_anchor_list(text, 0)
    assert [a.ranges for a in anchors] == ranges
    if error is None:
        assert errors == []
    else:
        assert error in errors[0][1]


@pytest.mark.parametrize(
    ("fragment", "ranges"),
    [
        ("L7", [Range(7, 7)]),
        ("L12-L20", [Range(12, 20)]),
        ("L12-20", [Range(12, 20)]),
        ("L" + "1" * MAX_DIGITS, [Range(int("1" * MAX_DIGITS), int("1" * MAX_DIGITS))]),
        ("L" + "1" * (MAX_DIGITS + 1), None),
        ("L\u0661", None),
        ("intro", None),
    ],
)
def test_fragments(fragment: str, ranges: list[Range] | None) -> None:
    assert parse_fragment(fragment) == ranges


def test_bracketed_cache_link_target() -> None:
    text = "([cache](<docs/evidence/a b.md>): L1-2)"
    [link] = find_cache_links(text, 0, len(text), lambda t, p: t == "cache")
    assert (link.target, [a.ranges for a in link.anchors]) == ("docs/evidence/a b.md", [[Range(1, 2)]])
    assert split_target("<x.md#L3>") == ("x.md", "L3")
    assert split_target("x.md") == ("x.md", "")


# -- offset maps and entity-decoded characters (what mutation testing found untested) --
def test_offset_maps_in_both_directions() -> None:
    src = "ab *c* d\u00e9f"
    n = normalize(src, base=10, drop=[3, 5])
    assert n.text == "ab c d\u00e9f"
    assert [n.to_source(i) for i in range(len(n.text) + 1)] == [10, 11, 12, 14, 16, 17, 18, 19, 20]
    assert [n.from_source(10 + o) for o in range(len(src) + 1)] == [0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8]
    assert n.source_span(3, 3) == (14, 14)
    assert n.source_span(3, 4) == (14, 15)
    assert n.source_span(0, 8) == (10, 20)


def test_offsets_survive_a_second_pass() -> None:
    src = "ab e&#769; cd"
    n = normalize(src)
    assert n.text == "ab \u00e9 cd"
    assert [n.to_source(i) for i in range(len(n.text))] == [0, 1, 2, 3, 10, 11, 12]
    assert n.source_span(5, 7) == (11, 13)
    assert n.from_source(11) == 5


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("x&sup2;", "x\u00b2"),  # an entity decoding to a superscript keeps it
        ("&#xfb01;ne", "fine"),  # one decoding to a ligature folds it
        ("&#xff11;&#xff12;", "12"),
        ("a <y hidden> b", "a <y hidden> b"),  # an unknown name with a bare attribute is text
        ("a <b hidden> b", "a b"),
        ("a <span hidden>b</span>", "a [...]"),  # issue 28 §6: hidden text is a gap
    ],
)
def test_entities_and_bare_attributes(raw: str, normalized: str) -> None:
    assert normalize_text(raw) == normalized


def test_anchor_errors_point_at_their_item() -> None:
    assert parse_anchor_list("  ", 7) == ([], [(7, "empty anchor list after ':'")])
    anchors, errors = parse_anchor_list(" a L1, , L\u0661, L" + "9" * 50 + ", lines 3", 100)
    assert [a.ranges for a in anchors] == [[Range(1, 1)]]
    assert (anchors[0].span, anchors[0].offset) == ((103, 105), 100)
    assert errors == [
        (106, "empty anchor (a stray ',')"),
        (108, "anchor 'L\u0661': write line numbers with the digits 0-9"),
        (112, "anchor 'L999999999999999999999999999999999999999': a line number has more than 9 digits"),
        (
            165,
            "cannot parse anchor 'lines 3' (expected [label ]L<start>[-<end>][+L...]; free notes go after a ';')",
        ),
    ]
    anchors, errors = parse_anchor_list("x L4-6+L8, L9", 50)
    assert [(a.label, a.ranges, a.span, a.offset) for a in anchors] == [
        ("x", [Range(4, 6), Range(8, 8)], (52, 59), 50),
        ("", [Range(9, 9)], (61, 63), 60),
    ]
    assert errors == []


def test_range_render() -> None:
    assert [Range(3, 3).render(), Range(3, 5).render()] == ["L3", "L3-5"]


# -- exact offset maps, pass composition and helper edges (mutation survivors) -----
@pytest.mark.parametrize(
    ("raw", "drop", "text", "to_source"),
    [
        # Zero-width characters found by the text pass itself (no drop list).
        ("a\u200bb\u200bc", (), "abc", [0, 2, 4, 5]),
        # An entity that decodes to two characters is one non-linear piece.
        ("x&#xfb01;y", (), "xfiy", [0, 1, 1, 9, 10]),
        # A second pass (a decoded combining mark) reads no entity again, and
        # its map is composed back onto the first pass's.
        ("&amp;lt;b&amp;gt; e&#769;", (), "&lt;b&gt; \u00e9", [0, 5, 6, 7, 8, 9, 14, 15, 16, 17, 18, 25]),
        ("e&#769; ab&#x2026;cd e&#769;", (), "\u00e9 ab...cd \u00e9", [0, 7, 8, 9, 10, 10, 10, 18, 19, 20, 21, 28]),
        ("ab e&#769;cd ef", (), "ab \u00e9cd ef", [0, 1, 2, 3, 10, 11, 12, 13, 14, 15]),
        ("e&#769;abc de", (), "\u00e9abc de", [0, 7, 8, 9, 10, 11, 12, 13]),
        ("x &#x2026;&#769; y", (), "x ...\u0301 y", [0, 1, 2, 2, 2, 10, 16, 17, 18]),
        # The second pass composes a non-linear two-character cluster (".\u0301") and
        # splits a linear run at the first pass's pieces ("x", "fi", "yz ").
        ("e&#769; .&#769; z", (), "\u00e9 .\u0301 z", [0, 7, 8, 8, 15, 16, 17]),
        ("x&#xfb01;yz e&#769;", (), "xfiyz \u00e9", [0, 1, 1, 9, 10, 11, 12, 19]),
        ("ab&#xfb01; cd e&#769;", (), "abfi cd \u00e9", [0, 1, 2, 2, 10, 11, 12, 13, 14, 21]),
        # Drop offsets outside the source are ignored.
        ("abc", (-1,), "abc", [0, 1, 2, 3]),
        ("abc", (5, 1), "ac", [0, 2, 3]),
        # Comments: "-->" must start after "<!--" ("<!--->" is not closed).
        ("a <!---> b", (), "a <! - > b", [0, 1, 2, 3, 4, 4, 4, 7, 8, 9, 10]),
        ("a--><!-- b", (), "a - ><! - b", [0, 1, 1, 1, 3, 4, 5, 6, 6, 6, 9, 10]),
        # A dash at the very start has no letter before it: not a line-break hyphen.
        ("-\nword", (), "- word", [0, 1, 2, 3, 4, 5, 6]),
    ],
)
def test_exact_offset_maps(raw: str, drop: tuple[int, ...], text: str, to_source: list[int]) -> None:
    n = normalize(raw, drop=drop)
    assert n.text == text
    assert [n.to_source(i) for i in range(len(n.text) + 1)] == to_source


@pytest.mark.parametrize(
    ("raw", "pieces"),
    [
        ("e&#769; .&#769; z", ([0, 1, 2, 4, 5], [0, 7, 8, 15, 16], [0, 0, 0, 0, 1])),
        ("x&#xfb01;yz e&#769;", ([0, 1, 3, 6], [0, 1, 9, 12], [1, 0, 1, 0])),
        ("ab&#xfb01; cd e&#769;", ([0, 2, 4, 5, 8], [0, 2, 10, 11, 14], [1, 0, 0, 1, 0])),
    ],
)
def test_composed_pieces_exactly(raw: str, pieces: tuple[list[int], list[int], list[int]]) -> None:
    n = normalize(raw)
    assert (list(n.norm_starts), list(n.orig_starts), list(n.linear)) == pieces


def test_exact_from_source_after_two_passes() -> None:
    n = normalize("e&#769; ab&#x2026;cd e&#769;")
    assert [n.from_source(o) for o in range(29)] == [
        0, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 7, 7, 7, 7, 7, 7, 7, 7, 8, 9, 10, 11, 11, 11, 11, 11, 11, 11,
    ]


@pytest.mark.parametrize(
    ("text", "literals"),
    [
        ("(the x", ("(The x", "(the x")),  # the first letter, not the first character
        ("3 the", ("3 the",)),  # a number first: nothing to recase
        ("'x", ("'X", "'x")),
    ],
)
def test_first_letter_literals(text: str, literals: tuple[str, ...]) -> None:
    assert pattern._first_letter_literals(text) == literals


def test_compiled_segments_exactly() -> None:
    qp = compile_quote("alpha [...] model[s] now")
    assert qp is not None
    assert qp.segmented == (
        pattern.Segment(("Alpha", "alpha"), 0, True, False, False, None, "alpha"),
        pattern.Segment(("Model", "model"), ELISION_SPAN, True, False, True, pattern.Mark(True, ""), "model"),
        pattern.Segment(("Now", "now"), INSERTION_SPAN, False, False, False, pattern.Mark(False, "s"), "now"),
    )
    assert (qp.lead, qp.tail, qp.fuzzy_text) == (None, None, "alpha model now")
    qp = compile_quote("[T]he cat [sat]")
    assert qp is not None
    assert qp.segmented == (pattern.Segment(("He cat", "he cat"), 0, True, True, False, None, "he cat"),)
    assert (qp.lead, qp.tail) == (pattern.Mark(False, "T"), pattern.Mark(False, "sat"))


def test_clip_width() -> None:
    assert marks._clip("x" * 60) == repr("x" * 60)
    assert marks._clip("x" * 61) == repr("x" * 57 + "...")


@pytest.mark.parametrize(
    ("text", "start", "end", "quote", "bounds"),
    [
        ("xx abc def", 1, 10, "zz def", (3, 10)),  # a stray word tail shrinks to the next word
        ("xx abc def", 1, 10, "x abc def", (0, 10)),  # the quote's own first word widens
        ("abc def ghi", 0, 7, "abc dex", (0, 7)),  # ends on a boundary: kept
        ("abc def ghi", 0, 6, "abc dex", (0, 3)),  # ends inside "def", not the quote's word
        ("abc def ghi", 0, 6, "abc de", (0, 7)),  # ends inside the quote's last word: widened
        ("abc def  ", 0, 9, "abc def", (0, 7)),  # trailing spaces dropped
        ("xxabc", 1, 5, "zz", (1, 5)),  # no next word to shrink to: kept
    ],
)
def test_word_bounds_exact(text: str, start: int, end: int, quote: str, bounds: tuple[int, int]) -> None:
    assert nearest._word_bounds(text, start, end, quote) == bounds


@pytest.mark.parametrize(
    ("start", "end", "words", "around"),
    [
        (10, 10, 2, "bb cc dd ee ff"),  # a span inside "dd": two whole words more each side
        (10, 10, 0, "dd"),
        (1, 1, 2, "aa bb cc"),  # the text's start and end bound it
        (19, 19, 1, "ff gg"),
    ],
)
def test_context_exact(start: int, end: int, words: int, around: str) -> None:
    assert nearest._context("aa bb cc dd ee ff gg", start, end, words) == around


# -- passages of several ranges, broken marks at the cited lines ---------------------
_PASSAGE_BODY = "alpha beta gamma here.\nmore words on this line.\nfinal line of text.\n\nafter a blank line."


@pytest.mark.parametrize(
    ("quote", "anchors", "status", "lines"),
    [
        ("gamma here. more words", [[Range(4, 4), Range(5, 5)]], "verified", None),  # adjacent ranges: one passage
        ("line of text. after a blank", [[Range(6, 6), Range(8, 8)]], "verified", None),  # only a blank line between
        ("here. more words", [[Range(4, 4), Range(6, 6)]], "moved", (4, 5)),  # line 5 between: not adjacent
        ("final line of text", [[Range(4, 4)], [Range(5, 5)]], "moved", (6, 6)),  # in neither anchor nor their union
    ],
)
def test_passages_of_ranges(tmp_path: Path, quote: str, anchors: list[list[Range]], status: str, lines: tuple[int, int] | None) -> None:
    m = locate(quote, evidence(tmp_path, _PASSAGE_BODY), anchors)
    assert (m.status, m.lines, m.code) == (status, lines, None)


def test_a_broken_mark_at_the_cited_lines_beats_a_clean_match_elsewhere(tmp_path: Path) -> None:
    ev = evidence(tmp_path, "alpha beta gamma\nfiller\nalpha not beta gamma")
    m = locate("alpha [...] gamma", ev, [[Range(6, 6)]])
    assert (m.status, m.lines, m.code, m.detail) == (
        "marks", (6, 6), "SC311", "[...] drops 'not' from 'alpha not beta gamma': it removes a negation"
    )


@pytest.mark.parametrize(
    ("body", "quote", "code", "detail"),
    [
        # A trailing insertion glued to the last segment (not the first) replaces nothing.
        ("alpha beta model 5 more", "alpha [...] model[s]", "SC310", "insertion [s] replaces nothing in the source after 'alpha beta model'"),
        # An insertion glued to a one-character token changes that token.
        ("alpha 5 b", "alpha 5[0] b", "SC312", "insertion [0] turns '5' into '50': it changes a number"),
        ("5 b", "5[0] b", "SC312", "insertion [0] turns '5' into '50': it changes a number"),
    ],
)
def test_glued_insertions_exact(tmp_path: Path, body: str, quote: str, code: str, detail: str) -> None:
    m = match(tmp_path, body, quote)
    assert (m.status, m.lines, m.code, m.detail) == ("marks", (FIRST_BODY_LINE, FIRST_BODY_LINE), code, detail)


@pytest.mark.parametrize(
    ("body", "quote", "status", "code"),
    [
        # Segments may not overlap: "b c" ends after "c d" starts.
        ("a b c d", "a [...] b c [...] c d", "altered", None),
        # An elision past a sentence end: the quoted text before it ended its sentence, so the
        # dropped sentence is not part of the quote's; otherwise the dropped stretch up to it is.
        ("We tried it. It did not work. Then it did.", "We tried it. [...] Then it did.", "verified", None),
        ("We tried it and it did not work. Then it did.", "We tried it [...] Then it did.", "marks", "SC311"),
    ],
)
def test_elision_chains_and_sentences(tmp_path: Path, body: str, quote: str, status: str, code: str | None) -> None:
    m = match(tmp_path, body, quote)
    assert (m.status, m.code) == (status, code)


def test_line_break_hyphen_after_a_one_letter_word() -> None:
    assert normalize_text("a-\nword") == "a\u2e17 word"


def test_an_edge_after_an_elision_is_not_glued() -> None:
    qp = compile_quote("a [...]c d")
    assert qp is not None
    assert [(s.glued_start, s.glued_end) for s in qp.segmented or ()] == [(False, False), (False, False)]
