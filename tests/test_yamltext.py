"""skillcite's own bound on YAML nesting (check/parsing/yamltext.py), independent of PyYAML's version."""

from __future__ import annotations

import random

import pytest
import yaml

from skillcite.check.parsing.yamltext import MAX_YAML_DEPTH, TOO_DEEP, _Scan, nesting_excess, parse_yaml


def _event_depth(text: str) -> int:
    """The deepest collection nesting PyYAML's parser reports for ``text``."""
    depth = deepest = 0
    for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    return deepest


def _scan_depth(text: str) -> int:
    """The smallest limit the scan lets ``text`` through at."""
    return next(limit for limit in range(200) if _Scan(limit).run(text) is None)


# Scalars chosen to look like YAML syntax: quotes inside plain text, brackets,
# comment marks, block-scalar indicators, entry markers, line breaks.
_WORDS = ["a", "it's", "x: y", "[b", "{c}", "#h", "|", "> q", "- d", '"q: [', "e'f", "two\nlines", "- ", "? z", "a #b", "'", '"']


def _random_value(rng: random.Random, depth: int) -> object:
    roll = rng.random()
    if depth > 8 or roll < 0.3:
        return rng.choice([*_WORDS, 1, 2.5, None, True])
    if roll < 0.65:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(_WORDS): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def test_the_scan_never_counts_fewer_levels_than_yaml_and_at_most_one_more() -> None:
    rng = random.Random(20261127)
    seen = set()
    for _ in range(400):
        value = {"k": _random_value(rng, 0)}
        for flow in (False, None, True):
            text = yaml.safe_dump(value, default_flow_style=flow, width=rng.choice([20, 80, 1000]), indent=rng.choice([2, 4]))
            excess = _scan_depth(text) - _event_depth(text)
            assert excess in (0, 1), text
            seen.add(excess)
    assert seen == {0, 1}  # both cases occur: the bound is tight, not trivially high


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("x: " + "[" * 25_000, 0),  # PyYAML 6.0.4 stops here with a message of its own
        ("a: 1\nx: " + "{a: " * (MAX_YAML_DEPTH + 1) + "1" + "}" * (MAX_YAML_DEPTH + 1), 1),
        ("".join("  " * i + "-\n" for i in range(2000)), MAX_YAML_DEPTH),  # block nesting, one level per line
        ("- " * 500 + "y\n", 0),  # compact sequences on one line
    ],
    ids=["flow 25000", "flow 65", "block 2000", "compact 500"],
)
def test_deep_nesting_is_refused_with_skillcite_s_own_message(text: str, line: int) -> None:
    result = parse_yaml(text)
    assert (result.error, result.error_line, result.data) == (TOO_DEEP, line, None)


@pytest.mark.parametrize(
    "text",
    [
        "x: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1),  # 64 levels with the mapping
        "title: a " + "[" * 200 + " in a plain scalar\n",  # brackets inside a plain scalar open nothing
        "title: '" + "[" * 200 + "'\n",
        'title: "' + "{" * 200 + '"\n',
        "# " + "[" * 200 + "\nx: 1\n",
        "text: |\n  " + "[" * 200 + "\nx: 1\n",
        "note: it's [" + "[" * 100 + "\n",
    ],
    ids=["64 levels", "plain", "single-quoted", "double-quoted", "comment", "block scalar", "apostrophe"],
)
def test_text_within_the_limit_is_loaded(text: str) -> None:
    assert nesting_excess(text) is None
    assert parse_yaml(text).error is None


def test_fewer_nesting_characters_than_the_limit_need_no_scan() -> None:
    assert nesting_excess("a: b\n" * 10, limit=64) is None
    assert nesting_excess("[[[", limit=2) == 0
