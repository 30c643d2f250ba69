"""The line scan of plain documents (check/parsing/prescan.py) builds the model the full parse builds, or declines."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from skillcite.check.parsing import builder
from skillcite.check.parsing.builder import parse_document
from skillcite.check.parsing.prescan import Fence, Scan, plain_document, scan
from skillcite.core.textio import TextFile, line_starts

ROOT = Path(__file__).resolve().parents[1]


def _file(text: str) -> TextFile:
    return TextFile(Path("d.md"), text, False, line_starts(text))


def _full(text: str, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(builder, "plain_document", lambda path, rel, file: None)
        return parse_document(Path("d.md"), "d.md", _file(text))


def _agree(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many of ``texts`` the scan read; each of those is asserted equal to the full parse."""
    read = 0
    for text in texts:
        fast = plain_document(Path("d.md"), "d.md", _file(text))
        if fast is not None:
            read += 1
            assert fast == _full(text, monkeypatch), text[:300]
    return read


def test_a_plain_document_is_read_by_lines() -> None:
    text = "---\nname: x\n---\n# Title\n\nSome text, it's plain.\n\n## Title\n\n- a list\n  1. nested\n\n```python\n# not a heading\n```\n\n~~~\nopen\n"
    assert scan(text) == Scan(3, ("Title", "Title"), Fence(17, "~~~", 1))
    doc = plain_document(Path("d.md"), "d.md", _file(text))
    assert doc is not None
    assert (doc.front_matter, doc.slugs, [(f.value, f.line, f.column) for f in doc.unclosed_fences]) == ({"name": "x"}, {"title", "title-1"}, [("~~~", 17, 1)])


@pytest.mark.parametrize(
    "text",
    [
        "A paragraph [^a].\n",  # a footnote reference
        "> a blockquote\n",
        "<q>html</q>\n",
        "Title\n=====\n",  # setext
        "text\n---\n",  # setext or break
        "- # heading in a list item\n",
        "- item\n\n  ```\n  code\n  ```\n",  # a fence inside a list item
        "    # indented four\n",
        "# A *styled* heading\n",
        "# closing hashes #\n",
        "col\tumns\n",
        "line\rbreak\n",
        "--- not front matter\n",
        "---\nname: x\n",  # front matter never closed
        "``` a`b\n",  # backticks in a backtick fence's info: no fence
        "* * *\n",
    ],
)
def test_the_scan_declines_what_only_the_full_parse_can_tell(text: str) -> None:
    assert scan(text) is None


def test_every_markdown_file_of_the_repository_reads_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = []
    for path in sorted(ROOT.rglob("*.md")):
        if ".git" in path.parts or "node_modules" in path.parts:
            continue
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    assert len(texts) > 100
    assert _agree(texts, monkeypatch) >= 1


def test_every_text_the_tests_write_reads_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' fixtures: every string of several lines in tests/ (most are Markdown documents)."""
    texts = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.count("\n") >= 2:
                texts.add(node.value)
    assert len(texts) > 500
    assert _agree(sorted(texts), monkeypatch) >= 50


_WORDS = "the model loss it's a \"quoted\" word 'single' x_y snake *star* under_score 3.5 & amp #tag ` tick ~ tilde = equals - dash + plus |pipe|".split()


def _line(rng: random.Random) -> str:
    kind = rng.random()
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 6)))
    if kind < 0.12:
        return " " * rng.choice([0, 0, 1, 3, 4]) + "#" * rng.randint(1, 7) + rng.choice(["", " ", "  "]) + rng.choice([words, "Plain heading", "Plain", ""]) + rng.choice(["", " ", " #", " ##"])
    if kind < 0.22:
        return " " * rng.choice([0, 0, 2, 4]) + rng.choice(["```", "````", "~~~", "~~~~"]) + rng.choice(["", "python", " x`y", " "])
    if kind < 0.35:
        return " " * rng.choice([0, 2, 3, 4, 6, 13]) + rng.choice(["-", "*", "+", "1.", "2)", "10."]) + rng.choice([" ", "  ", ""]) + words
    if kind < 0.42:
        return rng.choice(["---", "===", "- - -", "***", "___", "--", "=", "----"]) + rng.choice(["", " "])
    if kind < 0.55:
        return ""
    if kind < 0.6:
        return "| a | b |" if rng.random() < 0.5 else "|---|---|"
    return " " * rng.choice([0, 0, 0, 1, 4]) + words


def _document(rng: random.Random) -> str:
    lines = [_line(rng) for _ in range(rng.randint(1, 14))]
    if rng.random() < 0.3:
        lines = ["---", rng.choice(["name: x", "a: [1", "k: 1\nk: 2", "", "- list"]), "---", *lines]
    return "\n".join(lines) + rng.choice(["", "\n"])


def test_generated_documents_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(30)
    texts = [_document(rng) for _ in range(3000)]
    assert _agree(texts, monkeypatch) >= 600  # the scan reads a fair share, so the comparison means something
