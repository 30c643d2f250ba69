"""The narrow path reads evidence as the whole-file path does (issue 23).

A quote is looked for first in a stretch of whole blocks around its cited
lines (:meth:`skillcite.check.parsing.evidence.Evidence.narrow`). These tests hold
the three claims that make that safe:

* every line :func:`~skillcite.check.parsing.markup.plain_starts` takes for a block
  start is one the parser starts a top-level block on;
* from a top-level block start, a stretch parses with the same markup and
  normalizes to the same text and offsets as inside the whole file;
* a check finds the same things with the narrow path as without it, on this
  repository, on a corpus shaped like a real skill repository and on
  generated Markdown full of constructs that cross blank lines.

``conftest.py`` also compares every stretch any test builds with the whole
file's normalization, so the adversarial suite and every other test of
matching run through the same comparison.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from skillcite.check.parsing import evidence as evidence_module
from skillcite.check.parsing.anchors import Range
from skillcite.check.parsing.evidence import Evidence
from skillcite.check.parsing.markup import copy_env, markup_offsets, plain_starts, top_blocks
from skillcite.check.matching.locate import locate
from skillcite.check.run import check
from skillcite.core.config import load_config

REPO = Path(__file__).resolve().parent.parent

_WORDS = ["loss", "grad", "*step*", "`lr`", "batch", "[seed](http://x.org)", "_warm_", "up", "norm", "\\*raw\\*", "2*10", "a_b", "<b>bold</b>", "&amp;", "e.g.", "Fig.", "3"]


def _line(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 9)))


# Constructs after which the scan gives up on a file (definitions, HTML,
# fences inside containers, comments): half the generated files leave them
# out, so that the scan's own cuts are tested as often as the parser's.
_UNSCANNED_KINDS = (8, 9, 10, 12, 13, 18)


def _block(rng: random.Random, scannable: bool) -> list[str]:
    """One construct, chosen among those that open, continue or close containers."""
    kind = rng.randrange(22)
    while scannable and kind in _UNSCANNED_KINDS:
        kind = rng.randrange(22)
    if kind == 0:
        return [f"- {_line(rng)}", f"  {_line(rng)}", "", f"  {_line(rng)}"]
    if kind == 1:
        return [f"{rng.randint(1, 12)}. {_line(rng)}", f"{rng.randint(1, 12)}) {_line(rng)}"]
    if kind == 2:
        return [f"> {_line(rng)}", _line(rng), ">", f"> - {_line(rng)}"]
    if kind == 3:
        fence = rng.choice(["```", "~~~", "````", "```py", "``` x`y"])
        body = [_line(rng), "", rng.choice(["```", "~~~", "", "x"]), _line(rng)]
        return [fence, *body, *([fence[:3]] if rng.random() < 0.8 else [])]
    if kind == 4:
        return ["| a | b |", "|---|---|", f"| {_line(rng)} | c |"]
    if kind == 5:
        return [f"# {_line(rng)}"]
    if kind == 6:
        return [_line(rng), rng.choice(["===", "---"])]
    if kind == 7:
        return [rng.choice(["---", "***", "___", "* * *"])]
    if kind == 8:
        return [rng.choice(["<div>", "<details>", "<pre>", "<b>x</b>", "<!-- c", "-->", "<?x", "<![CDATA[", "]]>"]), _line(rng)]
    if kind == 9:
        return [f"[ref{rng.randint(0, 3)}]: http://example.org/{rng.randint(0, 9)}"]
    if kind == 10:
        return [f"[^{rng.randint(0, 3)}]: {_line(rng)}", f"    {_line(rng)}"]
    if kind == 11:
        return [f"See [ref{rng.randint(0, 3)}] and [x][ref{rng.randint(0, 3)}] and a note[^{rng.randint(0, 3)}]."]
    if kind == 12:
        return ["  ```", _line(rng), "", _line(rng), "  ```"]
    if kind == 13:
        return [f"- {_line(rng)}", "", "  ```", f"  {_line(rng)}", "", _line(rng), "  ```"]
    if kind == 14:
        return [f"\t{_line(rng)}", f"    {_line(rng)}"]
    if kind == 15:
        return [f"{_line(rng)}  ", f"*{_line(rng)}", f"{_line(rng)}*"]
    if kind == 16:
        return [f"`{_line(rng)}", "", f"{_line(rng)}`"]
    if kind == 17:
        return ["- a", f"- {_line(rng)}", f"+ {_line(rng)}", "", f"- {_line(rng)}"]
    if kind == 18:
        return [f"{_line(rng)} <!-- inline", "", f"comment --> {_line(rng)}"]
    if kind == 19:
        return [f"{_line(rng)}-", f"{_line(rng)}"]
    return [_line(rng) for _ in range(rng.randint(1, 3))]


def generated(seed: int) -> str:
    """Markdown of a few dozen blocks, blank lines of every kind between them, CR LF sometimes."""
    rng = random.Random(seed)
    lines: list[str] = []
    for _ in range(rng.randint(3, 30)):
        lines += _block(rng, scannable=seed % 2 == 1)
        lines += rng.choice([[""], [""], ["   "], ["", ""], [" \t"], []])
    text = "\n".join(lines) + rng.choice(["\n", ""])
    return text.replace("\n", "\r\n") if seed % 7 == 0 else text


def _repo_evidence() -> list[Path]:
    return sorted((REPO / "docs" / "evidence").glob("*.md"))


SEEDS = range(400)


# Seeds in chunks: one test per chunk keeps the suite's per-test overhead
# small; a failure names its seed.
CHUNKS = [SEEDS[k : k + 100] for k in range(0, len(SEEDS), 100)]


@pytest.mark.parametrize("chunk", CHUNKS[:2], ids=lambda c: f"seeds{c.start}-{c.stop - 1}")
def test_scanned_starts_are_top_level_block_starts(chunk: range) -> None:
    scanned_files = 0
    for seed in chunk:
        text = generated(seed)
        scanned = plain_starts(text)
        if scanned is not None:
            scanned_files += 1
            assert set(scanned) <= set(top_blocks(text)[0]), f"seed {seed}"
    assert scanned_files >= 25  # the generator gives the scan files it can place (29 to 42 of each 100)


def test_the_scan_places_most_files_of_this_repository() -> None:
    # The scan is the fast path: it must not give up on ordinary excerpts.
    texts = [p.read_text(encoding="utf-8") for p in _repo_evidence()]
    placed = [t for t in texts if plain_starts(t) is not None]
    assert len(placed) >= len(texts) - 5
    for text in placed:
        assert set(plain_starts(text) or []) <= set(top_blocks(text)[0])


def _stretch_markup_agrees(text: str) -> int:
    """Compare the markup of every stretch between two block starts with the whole file's; return stretches compared."""
    whole = markup_offsets(text)
    starts, env = top_blocks(text)
    lines = [0]
    for k, ch in enumerate(text):
        if ch == "\n":
            lines.append(k + 1)
    bounds = [lines[s] for s in starts] + [len(text)]
    compared = 0
    for i in range(len(starts)):
        for j in (i + 1, min(i + 3, len(starts))):
            a, b = bounds[i], bounds[j]
            piece = markup_offsets(text[a:b], copy_env(env), front=a == 0)
            assert [a + o for o in piece] == [o for o in whole if a <= o < b], (a, b)
            compared += 1
    return compared


@pytest.mark.parametrize("chunk", CHUNKS[:2], ids=lambda c: f"seeds{c.start}-{c.stop - 1}")
def test_a_stretch_from_a_block_start_has_the_whole_files_markup(chunk: range) -> None:
    for seed in chunk:
        assert _stretch_markup_agrees(generated(seed)) > 0, f"seed {seed}"


def test_stretches_of_this_repositorys_evidence_have_the_whole_files_markup() -> None:
    assert sum(_stretch_markup_agrees(p.read_text(encoding="utf-8")) for p in _repo_evidence()[:40]) > 100


def _evidence(tmp_path: Path, text: str, name: str = "e.md") -> Evidence:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return Evidence.load(path, name)


@pytest.mark.parametrize("chunk", CHUNKS, ids=lambda c: f"seeds{c.start}-{c.stop - 1}")
def test_narrow_stretches_of_generated_markdown_read_as_the_whole_file(tmp_path: Path, chunk: range, monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in chunk:
        _narrow_reads_as_whole(tmp_path, seed, monkeypatch)


def _narrow_reads_as_whole(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # conftest's audit compares each stretch with the whole normalization;
    # here lines all over the file are cited, and a quote taken from the
    # whole file at those lines is found the same way through the narrow path.
    text = generated(seed)
    ev = _evidence(tmp_path, text)
    whole = _evidence(tmp_path, text, "w.md").whole()
    rng = random.Random(seed)
    cases = []
    assert ev.file is not None
    for first in range(1, ev.line_count + 1, 2):
        last = min(ev.line_count, first + rng.randint(0, 3))
        a, b = ev.file.line_span(first, last)
        words = whole.text[whole.from_source(a) : whole.from_source(b)].split()
        if len(words) >= 2:
            start = rng.randrange(len(words) - 1)
            cases.append((" ".join(words[start : start + rng.randint(2, 8)]), [[Range(first, last)]]))
    narrow = [locate(quote, ev, anchors) for quote, anchors in cases]
    with monkeypatch.context() as m:
        m.setattr(evidence_module.Evidence, "narrow", lambda self, first, last: None)
        plain = _evidence(tmp_path, text, "x.md")
        assert narrow == [locate(quote, plain, anchors) for quote, anchors in cases], f"seed {seed}"


def _outcomes(root: Path) -> tuple[list[str], list[tuple[object, ...]]]:
    report = check(root, load_config(root), cache=False)
    findings = sorted(repr(d) for d in report.diagnostics)
    outcomes = [(o.doc.rel, o.quote.text, o.match, o.review, o.stale, o.shown) for o in report.outcomes]
    return findings, outcomes


def _same_with_and_without_narrowing(root: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    narrow = _outcomes(root)
    with monkeypatch.context() as m:
        m.setattr(evidence_module.Evidence, "narrow", lambda self, first, last: None)
        whole = _outcomes(root)
    assert narrow == whole
    return len(narrow[1])


def test_this_repository_checks_the_same_with_and_without_narrowing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _same_with_and_without_narrowing(REPO, monkeypatch) > 400


def test_a_real_shaped_corpus_checks_the_same_with_and_without_narrowing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from check_speed import real_shaped

    real_shaped(tmp_path, seed=3, sources=24)
    assert _same_with_and_without_narrowing(tmp_path, monkeypatch) > 40


def test_quotes_that_fail_check_the_same_with_and_without_narrowing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Moved, altered and missing quotes leave the narrow path for the whole
    # file: their findings (lines, scores, closest stretches) must not change.
    sys.path.insert(0, str(REPO / "bench"))
    from check_speed import real_shaped

    real_shaped(tmp_path, seed=5, sources=12)
    rng = random.Random(5)
    for doc in sorted(tmp_path.rglob("r*.md")):
        text = doc.read_text(encoding="utf-8")
        # Shift some anchors, change some words: moved, altered, not found.
        text = text.replace(": L1", ": L2", 1).replace("loss", "lost", 1)
        if rng.random() < 0.5:
            text = text.replace("gradient", "gradients", 2)
        doc.write_text(text, encoding="utf-8")
    findings, _ = _outcomes(tmp_path)
    assert any("SC30" in f for f in findings)
    _same_with_and_without_narrowing(tmp_path, monkeypatch)


def test_a_comment_that_may_cross_blocks_keeps_the_file_whole(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {k} of the source, with words." for k in range(60))
    ev = _evidence(tmp_path, text)
    assert ev.narrow(50, 50) is not None
    for opener in ("<!--", "<\\!--", "<!`--`"):
        ev = _evidence(tmp_path, text.replace("Paragraph 3 ", f"Paragraph 3 {opener} "))
        assert ev.narrow(50, 50) is None, opener


def test_a_stretch_is_a_small_part_of_a_large_file(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {k} of the source, with *some* words." for k in range(5000))
    ev = _evidence(tmp_path, text)
    stretch = ev.narrow(5001, 5001)
    assert stretch is not None
    assert len(stretch.text) < 2_000 < len(text) // 100


def test_a_file_quoted_all_over_is_normalized_whole_at_once(tmp_path: Path) -> None:
    # Announced spans whose stretches would be longer than the file: no stretch is built.
    text = "\n\n".join(f"Paragraph {k} of a short excerpt, quoted often, with the words a stretch reads past it." for k in range(12))
    ev = _evidence(tmp_path, text)
    for line in range(1, 24, 2):
        ev.expect(line, line)
    assert ev.narrow(5, 5) is None
    assert ev._stretches == {}
    # Its twin, quoted twice: stretches, never the whole file.
    ev = _evidence(tmp_path, text, "twice.md")
    ev.expect(5, 5)
    ev.expect(17, 17)
    assert ev.narrow(5, 5) is not None and ev.narrow(17, 17) is not None
    assert ev._whole is None and len(ev._stretches) == 2


def test_the_check_announces_every_cited_span_before_looking(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from check_speed import real_shaped

    real_shaped(tmp_path, seed=4, sources=6)
    report = check(tmp_path, load_config(tmp_path), cache=False)
    announced = sorted(span for ev in report.evidence.values() for span in ev._expected)
    cited = sorted(
        (min(r.start for a in o.link.anchors for r in a.ranges), max(r.end for a in o.link.anchors for r in a.ranges))
        for o in report.outcomes
        if o.link is not None
    )
    assert announced == cited and len(cited) > 5
