"""Anchor lists and cache links inside footnote definitions."""

from __future__ import annotations

from skillcite.check.anchors import Range, find_cache_links, parse_anchor_list, parse_fragment


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
