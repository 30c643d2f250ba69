"""Hyphenation joins in text converted from a PDF (issue 28's open family; issue 29 item 4).

A PDF's typesetter hyphenates words inside lines (``dis-tributions``); the
quote writes them whole. The join is allowed only in text that is a PDF's
(``format: pdf`` in the front matter, or a ``.pdf`` source), and only at the
positions the quote needs: a word the PDF hyphenates somewhere else
(``statis-tically``) stays whole where the quote is. Each family has a
must-pass twin (a real PDF spelling the quote writes whole) and a must-fail
twin (the same words, changed, or the join outside a PDF).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import clean_package, locked
from skillcite.check import check

HEAD = "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"


def front(fmt: str | None, source: str = "https://arxiv.org/abs/2001.04536") -> str:
    lines = ["---", f"source: {source}", "title: A paper", "author: A. Author", "published: 2020", "retrieved: 2026-11-21",
             "kind: excerpt", "license: arXiv.org perpetual, non-exclusive license"]
    if fmt is not None:
        lines.append(f"format: {fmt}")
    return "\n".join([*lines, "sha256: " + "0" * 64, "---", ""])


def codes(tmp_path: Path, body: str, quote: str, fmt: str | None = "pdf", source: str = "https://arxiv.org/abs/2001.04536") -> list[str]:
    p = clean_package(tmp_path)
    head = front(fmt, source)
    text = locked(head + body)
    p.write("docs/evidence/src.md", text)
    first = head.count("\n") + 1
    last = first + body.count("\n") - 1
    p.write("SKILL.md", HEAD + f"> {quote}[^s]\n\n[^s]: A. Author, \"A paper\" (2020) — {source} "
            f"([cache](docs/evidence/src.md): L{first}-{last})\n")
    return [d.code for d in check(p.root).diagnostics]


BODY = (
    "The losses are statistically different across runs.\n"
    "Heavy-tailed dis-tributions of the gradient norm appear early.\n"
    "We test this statis-tically in Section 4.\n"
)

# (body, quote, format, expected codes)
CASES = [
    # must pass: the PDF hyphenates "distributions" where the quote is; "statistically" is whole there.
    (BODY, "Heavy-tailed distributions of the gradient norm appear early.", "pdf", []),
    (BODY, "The losses are statistically different across runs.", "pdf", []),
    # must pass: the case: one word joined where the quote is, another whole there though hyphenated elsewhere.
    (BODY + "Statistically tested dis-tributions differ.\n", "Statistically tested distributions differ.", "pdf", []),
    # must pass: both at once, each as the PDF has it where the quote is.
    ("The losses are statis-tically different, with dis-tributions that differ.\nA whole statistically here.\n",
     "The losses are statistically different, with distributions that differ.", "pdf", []),
    # must pass: the quote may keep the PDF's spelling too.
    (BODY, "Heavy-tailed dis-tributions of the gradient norm appear early.", "pdf", []),
    # must fail: a changed word next to a joined one is still a change.
    (BODY, "Heavy-tailed distributions of the weight norm appear early.", "pdf", ["SC302"]),
    # must fail: no format key and an arXiv abstract source: the join is not made (the text may be a web page).
    (BODY, "Heavy-tailed distributions of the gradient norm appear early.", None, ["SC302"]),
    # must fail: format: html says it is not a PDF's text.
    (BODY, "Heavy-tailed distributions of the gradient norm appear early.", "html", ["SC302"]),
    # must fail: joining is letters only; a hyphen between a word and a number stays.
    ("Use warm-up for 1-2 epochs.\n", "Use warm-up for 12 epochs.", "pdf", ["SC302"]),
]


@pytest.mark.parametrize(("body", "quote", "fmt", "expected"), CASES, ids=[f"{q[:30]}|{f}" for _, q, f, _ in CASES])
def test_pdf_joins(tmp_path: Path, body: str, quote: str, fmt: str | None, expected: list[str]) -> None:
    assert codes(tmp_path, body, quote, fmt) == expected


def test_a_pdf_source_url_needs_no_format_key(tmp_path: Path) -> None:
    assert codes(tmp_path, BODY, "Heavy-tailed distributions of the gradient norm appear early.", None, "https://example.org/paper.pdf") == []


def test_many_hyphenated_words_stay_bounded(tmp_path: Path) -> None:
    # Nine candidate words: past the limit only the all-hyphenated spelling is tried, and it is there.
    words = ["al-pha", "be-ta", "gam-ma", "del-ta", "epsi-lon", "ze-ta", "the-ta", "io-ta", "kap-pa"]
    body = " ".join(words) + ".\n"
    assert codes(tmp_path, body, " ".join(w.replace("-", "") for w in words) + ".", "pdf") == []


def test_a_sourced_callout_is_still_checked_as_a_quote(tmp_path: Path) -> None:
    # The SC304 exemption of hand-written callouts (issue 29 corpus) covers only unsourced ones.
    p = clean_package(tmp_path)
    head = front(None, "https://example.org/post")
    p.write("docs/evidence/src.md", locked(head + "Always normalize your inputs.\n"))
    first = head.count("\n") + 1
    cite = f"\n\n[^s]: A. Author ([cache](docs/evidence/src.md): L{first})\n"
    p.write("SKILL.md", HEAD + "> **Note:** Never normalize your inputs.[^s]" + cite)
    assert [d.code for d in check(p.root).diagnostics] == ["SC302"]
    # The label is shown as part of the quote, so it is compared too: write it outside the blockquote.
    p.write("SKILL.md", HEAD + "> **Note:** Always normalize your inputs.[^s]" + cite)
    assert [d.code for d in check(p.root).diagnostics] == ["SC302"]
    p.write("SKILL.md", HEAD + "**Note:**\n\n> Always normalize your inputs.[^s]" + cite)
    assert [d.code for d in check(p.root).diagnostics] == []
