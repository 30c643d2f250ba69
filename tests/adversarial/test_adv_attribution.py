"""Issue 28 §5: a footnote's URL and author must be those of the evidence it cites (SC314, SC315)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import evidence_text
from skillcite.check import check
from skillcite.check.rules.attribution import named_authors, url_key

HEAD = "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"


def _package(root: Path, footnote: str, front: dict[str, str]) -> list[str]:
    """A package whose one quote cites evidence with ``front`` (source, author) through ``footnote``; the codes of its check."""
    text = evidence_text("Assume you have a bug.\n")
    for key, value in front.items():
        old = next(line for line in text.splitlines() if line.startswith(f"{key}:"))
        text = text.replace(old + "\n", f"{key}: {value}\n")
    from conftest import locked

    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(locked(text), encoding="utf-8")
    (root / "SKILL.md").write_text(HEAD + f"> Assume you have a bug.[^s]\n\n[^s]: {footnote} ([cache](docs/evidence/src.md): L11)\n", encoding="utf-8")
    return sorted(d.code for d in check(root).diagnostics)


SAME_URL = [
    ("https://example.org/post", "http://example.org/post"),
    ("https://www.example.org/post/", "https://example.org/post"),
    ("https://example.org/post#section-2", "https://example.org/post"),
    ("https://EXAMPLE.org/post", "https://example.org/post"),
    ("https://arxiv.org/pdf/1709.06560", "https://arxiv.org/abs/1709.06560"),
    ("https://arxiv.org/pdf/1709.06560v3.pdf", "https://arxiv.org/abs/1709.06560v3"),
    ("http://export.arxiv.org/abs/1709.06560", "https://arxiv.org/abs/1709.06560"),
    ("https://arxiv.org/html/2412.19437", "https://arxiv.org/abs/2412.19437"),  # both seen in wassname/ml-debug's footnotes and caches
    ("https://raw.githubusercontent.com/o/r/main/src/x.py", "https://github.com/o/r/blob/main/src/x.py"),
]
OTHER_URL = [
    ("https://example.org/post", "https://example.org/posts"),
    ("https://example.org/post?id=1", "https://example.org/post?id=2"),
    ("https://arxiv.org/abs/1709.06560", "https://arxiv.org/abs/1709.06561"),
    ("https://example.org/post", "https://example.com/post"),
    ("https://blog.example.org/post", "https://example.org/post"),
]


@pytest.mark.parametrize(("a", "b"), SAME_URL)
def test_same_page_urls(a: str, b: str) -> None:
    assert url_key(a) == url_key(b)


@pytest.mark.parametrize(("a", "b"), OTHER_URL)
def test_other_page_urls(a: str, b: str) -> None:
    assert url_key(a) != url_key(b)


AUTHORS = [
    ('Andy Jones, "Debugging RL" (2021) \u2014 https://x.org', ["Andy Jones"]),
    ('Peter Henderson et al., "Deep RL That Matters" (2018) \u2014 https://x.org', ["Peter Henderson"]),
    ('Godbole, Dahl, Gilmer, Shallue, Nado, "Tuning Playbook" \u2014 https://x.org', ["Godbole", "Dahl", "Gilmer", "Shallue", "Nado"]),
    ('Hugging Face, LLM Course ch. 8.4 "Debugging" \u2014 https://x.org', ["Hugging Face"]),
    ("Josh Tobin, Full Stack Deep Learning (2019) \u2014 https://x.org", ["Josh Tobin"]),
    ('Josh Tobin (notes by J. Le, V. Rachakonda), "Troubleshooting" \u2014 https://x.org', ["Josh Tobin"]),
    ('Daniel & Michael Han-Chen (Unsloth), "Docs" \u2014 https://x.org', ["Daniel", "Michael Han-Chen"]),
    ("PyTorch docs: autograd mechanics \u2014 https://x.org", ["PyTorch docs"]),
    ("https://x.org only a link", []),
]


@pytest.mark.parametrize(("definition", "names"), AUTHORS, ids=[a[:30] for a, _ in AUTHORS])
def test_named_authors(definition: str, names: list[str]) -> None:
    assert named_authors(definition) == names


# (footnote, evidence front matter, codes)
MUST_FAIL = [
    ('B. Someone, "A Post" (2020) \u2014 https://example.org/post', {}, ["SC315"]),
    ('A. Author, "A Post" (2020) \u2014 https://example.org/other', {}, ["SC314"]),
    ('Jane Roe, "A Post" (2020) \u2014 https://example.com/post', {}, ["SC314", "SC315"]),
    ('Ann Smith, Bob Jones, "A Paper" \u2014 https://example.org/post', {"author": "Ann Smith, Carl Doe"}, ["SC315"]),
    ('OpenAI, "A Post" \u2014 https://example.org/post', {"author": "Hugging Face"}, ["SC315"]),
    ("TensorFlow docs: autograd \u2014 https://example.org/post", {"author": "PyTorch contributors"}, ["SC315"]),
    ('Qwen Team, "Qwen3" \u2014 https://example.org/post', {"author": "Llama Team"}, ["SC315"]),
    ('Andy Smith, "A Post" \u2014 https://example.org/post', {"author": "Andy Jones"}, ["SC315"]),
    ('A. Author, "A Paper" \u2014 https://arxiv.org/abs/2001.00002', {"source": "https://arxiv.org/abs/2001.00001"}, ["SC314"]),
    # An author evidence adopt could not tell is reported once for the file (SC402), never as a mismatch per footnote.
    ('B. Someone, "A Post" (2020) \u2014 https://example.org/post', {"author": "TODO"}, ["SC402"]),
    ('A. Author, "A Post" (2020) \u2014 https://example.org/post', {"source": "TODO"}, ["SC402"]),
    # A site or folder holds the cached page; a sibling path or a page below the cached one does not.
    ('A. Author, "A Book" \u2014 https://example.org/book', {"source": "https://example.org/bookshelf/ch11.html"}, ["SC314"]),
    ('A. Author, "A Post, part 2" \u2014 https://example.org/post/part-2', {}, ["SC314"]),
]
MUST_PASS = [
    ('A. Author, "A Post" (2020) \u2014 https://example.org/post', {}),
    ('Author et al., "A Post" \u2014 http://www.example.org/post/', {}),
    ('Ann Smith, Carl Doe, "A Paper" \u2014 https://example.org/post', {"author": "Ann Smith, Carl Doe, Eve Roe"}),
    ('Ann Smith et al., "A Paper" \u2014 https://example.org/post', {"author": "Ann Smith, Carl Doe, Eve Roe"}),
    ('A. Smith, "A Paper" \u2014 https://example.org/post', {"author": "Ann Smith"}),
    ('Jos\u00e9 Mu\u00f1oz, "A Post" \u2014 https://example.org/post', {"author": "Jose Munoz"}),
    ('Hugging Face, "Docs" \u2014 https://example.org/post', {"author": "Hugging Face"}),
    # Documentation sites: the evidence names the project's contributors, the footnote the docs.
    ("PyTorch docs: autograd mechanics \u2014 https://example.org/post", {"author": "PyTorch contributors"}),
    ('PyTorch documentation, "Autograd mechanics" \u2014 https://example.org/post', {"author": "PyTorch contributors"}),
    ('The Qwen Team, "Qwen3" \u2014 https://example.org/post', {"author": "Qwen Team"}),
    ('A. Author, "A Paper" \u2014 https://arxiv.org/pdf/2001.00001v2.pdf', {"source": "https://arxiv.org/abs/2001.00001v2"}),
    ('A. Author, "A Post"', {}),  # no URL: nothing to compare
    # The footnote cites the work where readers find it, the cache one page or file of it (wassname/ml-debug's book and repository footnotes).
    ('A. Author, "A Book" \u2014 https://www.example.org/', {"source": "https://example.org/contents/guidelines.html"}),
    ('A. Author, "A Book" \u2014 https://github.com/o/book', {"source": "https://github.com/o/book/blob/master/full%20book/book.pdf"}),
]


@pytest.mark.parametrize(("footnote", "front", "expected"), MUST_FAIL, ids=[f[:30] for f, _, _ in MUST_FAIL])
def test_misattribution_fails(tmp_path: Path, footnote: str, front: dict[str, str], expected: list[str]) -> None:
    assert _package(tmp_path, footnote, front) == expected


@pytest.mark.parametrize(("footnote", "front"), MUST_PASS, ids=[f[:30] for f, _ in MUST_PASS])
def test_right_attribution_passes(tmp_path: Path, footnote: str, front: dict[str, str]) -> None:
    assert _package(tmp_path, footnote, front) == []


def _lead_in(root: Path, lead: str, author: str = "A. Author") -> list[str]:
    """A package whose blockquote is led in by ``lead`` (ending with its footnote and a colon); the codes of its check."""
    from conftest import locked

    text = evidence_text("Assume you have a bug.\n").replace("author: A. Author\n", f"author: {author}\n")
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/src.md").write_text(locked(text), encoding="utf-8")
    footnote = 'A. Author, "A Post" (2020) \u2014 https://example.org/post'
    (root / "SKILL.md").write_text(
        HEAD + f"{lead}[^s]:\n\n> Assume you have a bug.\n\n[^s]: {footnote} ([cache](docs/evidence/src.md): L11)\n", encoding="utf-8"
    )
    return sorted(d.code for d in check(root).diagnostics)


LEAD_FAIL = ["Smith writes", "As Jane Smith puts it", "From the audit by Smith et al.", "In the talk, Smith warned"]
LEAD_PASS = ["Author writes", "As A. Author puts it", "From the post by Author et al.", "The docs say", "NCCL's guide says it plainly"]


@pytest.mark.parametrize("lead", LEAD_FAIL)
def test_lead_in_naming_another_author_fails(tmp_path: Path, lead: str) -> None:
    assert _lead_in(tmp_path, lead) == ["SC315"]


@pytest.mark.parametrize("lead", LEAD_PASS)
def test_lead_in_naming_the_author_passes(tmp_path: Path, lead: str) -> None:
    assert _lead_in(tmp_path, lead) == []
