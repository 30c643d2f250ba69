"""Anchor lists and cache links inside footnote definitions."""

from __future__ import annotations

from skillcite.check.parsing.anchors import MAX_DIGITS, Range, find_cache_links, is_line_fragment, parse_anchor_list, parse_fragment, split_target


def always(text: str, target: str) -> bool:
    return text == "cache"


def test_labels_ranges_and_plus() -> None:
    anchors, errors = parse_anchor_list(" assume-bug L176-180, L182, inspect L26+L32-34", 0)
    assert errors == []
    assert [a.label for a in anchors] == ["assume-bug", "", "inspect"]
    assert anchors[0].ranges == [Range(176, 180)]
    assert anchors[2].ranges == [Range(26, 26), Range(32, 34)]


def test_github_style_end_is_accepted() -> None:
    anchors, errors = parse_anchor_list("L12-L20", 0)
    assert errors == [] and anchors[0].ranges == [Range(12, 20)]


def test_spans_point_at_the_range_text() -> None:
    text = "x ([cache](e.md): lab L5-7, L9)"
    [link] = find_cache_links(text, 0, len(text), always)
    spans = [text[a.span[0] : a.span[1]] for a in link.anchors]
    assert spans == ["L5-7", "L9"]


def test_free_note_after_semicolon() -> None:
    text = "([cache](e.md): a L1-2; see also the intro)"
    [link] = find_cache_links(text, 0, len(text), always)
    assert [a.ranges for a in link.anchors] == [[Range(1, 2)]] and link.errors == []


def test_fragment_form() -> None:
    assert parse_fragment("L12-L20") == [Range(12, 20)]
    assert parse_fragment("L7") == [Range(7, 7)]
    assert parse_fragment("intro") is None
    text = "([cache](e.md#L3-L4))"
    [link] = find_cache_links(text, 0, len(text), always)
    assert link.anchors[0].ranges == [Range(3, 4)] and link.anchors[0].span is None


def test_several_cache_links_in_one_definition() -> None:
    text = "([cache](a.md): L1, [cache](b.md): L2-3)"
    links = find_cache_links(text, 0, len(text), always)
    assert [(link.target, [a.ranges for a in link.anchors]) for link in links] == [
        ("a.md", [[Range(1, 1)]]),
        ("b.md", [[Range(2, 3)]]),
    ]


def test_unparseable_items_are_errors() -> None:
    anchors, errors = parse_anchor_list("lines 3 to 4, L5", 10)
    assert [a.ranges for a in anchors] == [[Range(5, 5)]]
    assert len(errors) == 1 and errors[0][0] == 10


def test_empty_list_is_an_error() -> None:
    assert parse_anchor_list("  ", 0)[1]


def test_non_cache_links_are_ignored() -> None:
    text = "[site](https://x.org) ([cache](e.md): L1)"
    [link] = find_cache_links(text, 0, len(text), always)
    assert link.target == "e.md"


def test_label_ending_in_a_range_is_an_error_only_at_its_end() -> None:
    assert parse_anchor_list("see L11 L12", 0) == ([], [(0, "anchor 'see L11 L12' has ranges without ',' or '+' between them")])
    anchors, errors = parse_anchor_list("L3 foo L5", 0)
    assert errors == []
    assert [(a.label, a.ranges, a.span, a.offset) for a in anchors] == [("L3 foo", [Range(5, 5)], (7, 9), 0)]


def test_offsets_of_later_items() -> None:
    anchors, errors = parse_anchor_list(" x L4-6+L8, L9", 50)
    assert errors == []
    assert [(a.span, a.offset) for a in anchors] == [((53, 60), 50), ((62, 64), 61)]


def test_line_fragment_shape_and_targets() -> None:
    assert [is_line_fragment(f) for f in ("L12", "L12-L20", "L12-20", "intro", "L")] == [True, True, True, False, False]
    assert split_target("<x.md>") == ("x.md", "")
    assert split_target("<x.md") == ("<x.md", "")  # half a bracket pair is part of the path
    assert split_target("x.md>") == ("x.md>", "")


def test_max_digits_is_nine() -> None:
    assert MAX_DIGITS == 9
    assert parse_fragment("L123456789") == [Range(123456789, 123456789)]
    assert parse_fragment("L1234567890") is None


def test_a_heading_fragment_is_an_error_not_an_anchor() -> None:
    text = "([cache](e.md#intro): L2)"
    [link] = find_cache_links(text, 0, len(text), always)
    assert (link.target, link.fragment, link.offset, link.end) == ("e.md", "intro", 1, 20)
    assert [(a.ranges, a.span, a.offset) for a in link.anchors] == [([Range(2, 2)], (22, 24), 21)]
    assert link.errors == [(9, "fragment #intro is not a line anchor (#L12 or #L12-L20)")]


def test_error_offsets_of_later_items() -> None:
    anchors, errors = parse_anchor_list("a L1, see L11 L12", 10)
    assert [(a.ranges, a.span, a.offset) for a in anchors] == [([Range(1, 1)], (12, 14), 10)]
    assert errors == [(15, "anchor 'see L11 L12' has ranges without ',' or '+' between them")]
