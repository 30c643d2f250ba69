"""Locating quotes: each outcome, elisions, insertions, case, ranges, line maps."""

from __future__ import annotations

from pathlib import Path

from skillcite.check.parsing.anchors import Range
from skillcite.check.parsing.evidence import Evidence
from skillcite.check.matching.locate import locate
from skillcite.check.matching.diff import word_diff

TEXT = """---
source: https://example.org
---
Line four holds the first sentence. It goes on here.
Line five has [brackets] and dots... of its own.

The Quick fox jumps over the lazy dog, then sleeps.
A longer passage spans
two physical lines of the file.
"""


def ev(tmp_path: Path, text: str = TEXT, newline: str = "\n") -> Evidence:
    path = tmp_path / "e.md"
    path.write_bytes(text.replace("\n", newline).encode())
    return Evidence.load(path, "e.md")


def at(*ranges: tuple[int, int]) -> list[list[Range]]:
    return [[Range(a, b)] for a, b in ranges]


def test_verified_in_range(tmp_path: Path) -> None:
    assert locate("the first sentence", ev(tmp_path), at((4, 4))).status == "verified"


def test_quote_across_lines(tmp_path: Path) -> None:
    assert locate("A longer passage spans two physical lines", ev(tmp_path), at((8, 9))).status == "verified"


def test_moved_reports_the_lines_where_it_is(tmp_path: Path) -> None:
    m = locate("A longer passage spans two physical lines", ev(tmp_path), at((4, 4)))
    assert (m.status, m.lines) == ("moved", (8, 9))


def test_first_letter_case_is_free(tmp_path: Path) -> None:
    assert locate("The first sentence", ev(tmp_path), at((4, 4))).status == "verified"
    assert locate("the Quick fox", ev(tmp_path), at((7, 7))).status == "verified"


def test_other_case_changes_are_differences(tmp_path: Path) -> None:
    assert locate("the Quick Fox jumps", ev(tmp_path), at((7, 7))).status == "altered"


def test_elision_segments_in_order(tmp_path: Path) -> None:
    e = ev(tmp_path)
    assert locate("Quick fox [...] then sleeps", e, at((7, 7))).status == "verified"
    assert locate("then sleeps [...] Quick fox", e, at((7, 7))).status != "verified"


def test_insertion_stands_for_a_short_span(tmp_path: Path) -> None:
    assert locate("[the animal] jumps over the lazy dog", ev(tmp_path), at((7, 7))).status == "verified"
    assert locate("The Quick [animal] jumps over", ev(tmp_path), at((7, 7))).status == "verified"


def test_literal_brackets_and_ellipsis_match_first(tmp_path: Path) -> None:
    assert locate("has [brackets] and dots... of its own", ev(tmp_path), at((5, 5))).status == "verified"


def test_plus_joined_ranges(tmp_path: Path) -> None:
    e = ev(tmp_path)
    anchors = [[Range(4, 4), Range(7, 7)]]
    assert locate("It goes on here. [...] The Quick fox", e, anchors).status == "verified"


def test_union_of_anchors(tmp_path: Path) -> None:
    assert locate("of its own. The Quick fox", ev(tmp_path), at((5, 5), (6, 7))).status == "verified"


def test_altered_has_score_lines_and_diff(tmp_path: Path) -> None:
    m = locate("The Quick fox leaps over the lazy dog, then sleeps", ev(tmp_path), at((7, 7)))
    assert m.status == "altered" and m.lines == (7, 7)
    assert 80 <= m.score < 100
    assert "[-leaps-]" in m.diff and "{+jumps+}" in m.diff


def test_not_found(tmp_path: Path) -> None:
    assert locate("Completely unrelated words about gradient noise", ev(tmp_path), at((4, 9))).status == "notfound"


def test_crlf_lines_as_github_shows(tmp_path: Path) -> None:
    e = ev(tmp_path, newline="\r\n")
    assert locate("A longer passage spans two physical lines", e, at((8, 9))).status == "verified"
    m = locate("A longer passage spans two physical lines", e, at((4, 4)))
    assert m.lines == (8, 9)


def test_bom_does_not_shift_lines(tmp_path: Path) -> None:
    path = tmp_path / "e.md"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    e = Evidence.load(path, "e.md")
    assert locate("The Quick fox jumps", e, at((7, 7))).status == "verified"


def test_word_diff_marks_changes() -> None:
    assert word_diff("a b c", "a x c") == "a [-b-] {+x+} c"


def test_word_diff_reports_only_real_differences() -> None:
    # Quotation marks and emphasis around a source word are no difference ([-the-] {+'the+} was shown).
    assert word_diff("the cat sat on a mat", "'the cat sat on *a* mat") == "the cat sat on a mat"
    assert word_diff("the cat sat on a rug", "'the cat sat on *a* mat") == "the cat sat on a [-rug-] {+mat+}"
    # A legitimate [...] stands for the words it leaves out.
    assert word_diff("he said the cat [...] sat on a mat", "he said the cat was asleep and then sat on a mat", trim=True) == (
        "he said the cat [...] sat on a mat"
    )
    # Equal words at the ends of a changed stretch are not part of the change; case still counts.
    assert word_diff("we saw the big dog", "we saw a big cat") == "we saw [-the-] {+a+} big [-dog-] {+cat+}"
    assert word_diff("we saw The dog", "we saw the dog") == "we saw [-The-] {+the+} dog"
    # The quote's words as written are shown when normalization kept them one for one.
    assert word_diff("'we saw' a dog", "we saw the dog", shown='"we saw" a dog') == '[-"we saw" a-] {+we saw the+} dog'


def test_line_one_is_a_valid_anchor(tmp_path: Path) -> None:
    e = ev(tmp_path, "First line holds a fact.\nSecond line.\n")
    first, second = locate("First line holds a fact", e, at((1, 1))), locate("Second line", e, at((2, 2)))
    assert (first.status, first.lines, first.edits) == (second.status, second.lines, second.edits)
    assert locate("First line holds a fact", e, at((1, 1))).status == "verified"
    m = locate("First line holds a fact", e, at((2, 2)))
    assert (m.status, m.lines) == ("moved", (1, 1))


def test_word_diff_marks_no_word_that_is_the_same_in_parentheses() -> None:
    from skillcite.check.matching.diff import word_diff

    shown = word_diff("apparently silent data corruptions (SDC) can", "footnote: apparently silent data corruptions (SDC) can", context=100)
    assert shown == "{+footnote:+} apparently silent data corruptions (SDC) can"
    # a quotation mark the quote adds is still a difference
    assert word_diff('a "bug" here', "a bug here", context=100) == 'a [-"bug"-] {+bug+} here'


def test_the_review_diff_marks_a_first_letter_change_only_where_the_quote_starts() -> None:
    # Issue 29: "The ... the" was marked "[-the-] {+the+}": the first word's case was allowed for every later "the".
    source = "The residual loss and the boundary loss pull in different directions during training."
    quote = "The residual loss and the boundary loss pull [...] during training."
    assert word_diff(quote, source, context=10_000, mark_elisions=True) == (
        "The residual loss and the boundary loss pull [-[...]-] {+in different directions+} during training.")
    lower = "the residual loss and the boundary loss pull in different directions during training."
    assert word_diff(lower, source, context=10_000) == lower


def test_a_changed_repeated_word_is_still_marked() -> None:
    source = "The residual loss and the boundary loss pull in different directions during training."
    assert word_diff("The residual loss and a boundary loss pull in different directions during training.", source, context=10_000) == (
        "The residual loss and [-a-] {+the+} boundary loss pull in different directions during training.")


def test_an_altered_quote_with_an_elision_shows_the_change_not_what_the_elision_cut(tmp_path: Path) -> None:
    e = ev(tmp_path, "---\nsource: https://example.org\n---\nNeural net training is a leaky abstraction, and it fails silently most of the time.\n")
    m = locate("Neural net training is a leaky abstraction [...] most of the tyme.", e, [[Range(4, 4)]])
    assert (m.status, m.diff) == ("altered", "... a leaky abstraction [...] most of the [-tyme-] {+time.+}")
    # The twin: the same change without an elision has nothing cut to show.
    m = locate("Neural net training is a leaky abstraction, and it fails silently most of the tyme.", e, [[Range(4, 4)]])
    assert (m.status, m.diff) == ("altered", "... most of the [-tyme-] {+time.+}")


def test_words_added_after_the_sources_full_stop_are_marked_alone(tmp_path: Path) -> None:
    # Before: "[-always-] {+Overfit+}", the next sentence's first word shown as the change.
    e = ev(tmp_path, "---\nsource: https://example.org\n---\nSpend hours scanning thousands of examples and their labels.\n\nOverfit one batch first.\n")
    m = locate("Spend hours scanning thousands of examples and their labels, always.", e, [[Range(4, 4)]])
    assert (m.status, m.diff) == ("altered", "... and their labels, [-always-]")
    m = locate("Spend hours scanning thousands of examples and their pictures.", e, [[Range(4, 4)]])
    assert (m.status, m.diff) == ("altered", "... examples and their [-pictures-] {+labels.+}")
