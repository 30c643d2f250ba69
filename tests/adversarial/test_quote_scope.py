"""False certifications of quote scope (issue 15 §1.5, issue 14 §1.2, issue 13 §4).

Every case of ``MUST_FAIL`` passed ``check --strict`` before: text a reader
sees as part of a quotation was never compared with the evidence, or a quote
was skipped. Each now yields exactly the findings listed. Every case of
``MUST_PASS`` is a near twin that must stay clean.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import Package, evidence_text
from skillcite.check import check

BLOCK = "> Assume you have a bug.[^src]\n"  # SKILL.md line 7
INLINE = 'As the post says, "neural nets fail silently"[^src].\n'  # SKILL.md line 9


def found(pkg: Package) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.path, d.line, d.column) for d in check(pkg.root).diagnostics]


def block(new: str) -> Callable[[Package], None]:
    return lambda p: p.replace("SKILL.md", BLOCK, new)


def inline(new: str) -> Callable[[Package], None]:
    return lambda p: p.replace("SKILL.md", INLINE, new)


def second_source(p: Package, body: str = "Gradient descent is a harsh mistress, and it keeps no secrets.\n") -> None:
    """A second evidence file ``two.md`` cited as [^two] (its passage on line 11)."""
    p.write("docs/evidence/two.md", evidence_text(body))
    p.write("SKILL.md", p.read("SKILL.md") + "[^two]: B. Author ([cache](docs/evidence/two.md): L11)\n")


def with_second(edit: Callable[[Package], None]) -> Callable[[Package], None]:
    return lambda p: (second_source(p), edit(p))


MUST_FAIL: dict[str, tuple[Callable[[Package], None], list[tuple[str, str, int, int]]]] = {
    # Adjacent references: each source must hold the piece; two.md does not (issue 19 §3).
    "adjacent references, one source lacks the piece": (
        with_second(block("> Assume you have a bug.[^src][^two] Gradient descent is a harsh mistress.[^two]\n")),
        [("SC303", "SKILL.md", 7, 1)],
    ),
    # Blocks a reader sees inside a sourced blockquote, never compared before.
    "html paragraph": (block(BLOCK + ">\n> <p>Nothing else can go wrong.</p>\n"), [("SC307", "SKILL.md", 9, 3)]),
    "html paragraph, no space after >": (block(BLOCK + ">\n><p>Nothing else can go wrong.</p>\n"), [("SC307", "SKILL.md", 9, 2)]),
    "details and summary": (
        block(BLOCK + ">\n> <details><summary>Never check your data.</summary>\n>\n> Trust the model.\n> </details>\n"),
        # The paragraph between the tags is quote text, checked (and not found).
        [("SC303", "SKILL.md", 7, 1), ("SC307", "SKILL.md", 9, 3), ("SC307", "SKILL.md", 12, 3)],
    ),
    "div with an invented sentence": (block(BLOCK + "> <div>\n> Bugs are rare.\n> </div>\n"), [("SC307", "SKILL.md", 8, 3)]),
    "fenced code": (block(BLOCK + ">\n> ```\n> rm -rf checkpoints\n> ```\n"), [("SC307", "SKILL.md", 9, 3)]),
    "tilde fence": (block(BLOCK + ">\n> ~~~text\n> Bugs are rare.\n> ~~~\n"), [("SC307", "SKILL.md", 9, 3)]),
    "indented code": (block(BLOCK + ">\n>     Bugs are rare.\n"), [("SC307", "SKILL.md", 9, 7)]),
    "html before the reference": (
        block("> <p>Bugs are rare.</p>\n>\n> Assume you have a bug.[^src]\n"),
        [("SC307", "SKILL.md", 7, 3)],
    ),
    "html block only, in a content file": (block("> <p>Bugs are rare.</p>\n"), [("SC304", "SKILL.md", 7, 1)]),
    "code block only, in a content file": (block("> ```\n> Bugs are rare.\n> ```\n"), [("SC304", "SKILL.md", 7, 1)]),
    "html in a nested blockquote": (block(BLOCK + ">\n> > <p>Bugs are rare.</p>\n"), [("SC307", "SKILL.md", 9, 5)]),
    "html in a list inside the quote": (block(BLOCK + ">\n> - <p>Bugs are rare.</p>\n"), [("SC307", "SKILL.md", 9, 5)]),
    # HTML quotation elements show a quotation no footnote inside can source.
    "html blockquote element": (block("<blockquote>Bugs are rare.[^src]</blockquote>\n"), [("SC304", "SKILL.md", 7, 1)]),
    "html blockquote element with attributes": (block('<BLOCKQUOTE cite="x">\nBugs are rare.\n</BLOCKQUOTE>\n'), [("SC304", "SKILL.md", 7, 1)]),
    "html q element": (block("As they say, <q>bugs are rare</q>.\n"), [("SC304", "SKILL.md", 7, 14)]),
    # Inline quotes with the reference inside the quotation marks were skipped.
    "reference inside the marks": (inline('As the post says, "neural nets never fail[^src]".\n'), [("SC303", "SKILL.md", 9, 19)]),
    "reference inside, after a stop": (inline('As the post says, "neural nets never fail.[^src]"\n'), [("SC303", "SKILL.md", 9, 19)]),
    "reference inside curly marks": (inline("As the post says, \u201cneural nets never fail[^src]\u201d.\n"), [("SC303", "SKILL.md", 9, 19)]),
    "reference inside, altered by a word": (
        inline('As the post says, "neural nets fail silently and you will always notice[^src]".\n'),
        [("SC302", "SKILL.md", 9, 19)],
    ),
    # A private-use character once stood for a reference: inside a quote it
    # made the quote skipped.
    "U+E000 inside a quote": (inline('As the post says, "neural nets \ue000 never fail"[^src].\n'), [("SC303", "SKILL.md", 9, 19)]),
    "U+E000 at a quote's end": (inline('As the post says, "neural nets never fail\ue000"[^src].\n'), [("SC303", "SKILL.md", 9, 19)]),
    "U+E001 inside a quote": (inline('As the post says, "neural nets \ue001 never fail"[^src].\n'), [("SC303", "SKILL.md", 9, 19)]),
    # A lead-in cites the blockquote after it: that blockquote is now checked.
    "lead-in, altered blockquote": (
        block("From the post[^src]:\n\n> Assume nothing is wrong with your code.\n"),
        [("SC303", "SKILL.md", 9, 1)],
    ),
    "lead-in with the colon first, altered": (
        block("From the post:[^src]\n\n> Assume nothing is wrong with your code.\n"),
        [("SC303", "SKILL.md", 9, 1)],
    ),
    "lead-in not directly before the blockquote": (
        block("From the post[^src]:\n\nAn aside.\n\n> Assume you have a bug.\n"),
        [("SC304", "SKILL.md", 11, 1)],
    ),
    "lead-in without a colon": (block("From the post[^src].\n\n> Assume you have a bug.\n"), [("SC304", "SKILL.md", 9, 1)]),
    # Pieces of a blockquote with different footnotes, each checked alone.
    "second piece altered": (
        with_second(block("> Assume you have a bug.[^src] Gradient descent is a gentle mistress.[^two]\n")),
        [("SC302", "SKILL.md", 7, 32)],
    ),
    "first piece altered": (
        with_second(block("> Assume you have no bug.[^src] Gradient descent is a harsh mistress.[^two]\n")),
        [("SC302", "SKILL.md", 7, 1)],
    ),
    "second paragraph altered": (
        with_second(block("> Assume you have a bug.[^src]\n>\n> Gradient descent is a gentle mistress.[^two]\n")),
        [("SC302", "SKILL.md", 9, 3)],
    ),
    "text after the last reference joins the last piece": (
        with_second(block("> Assume you have a bug.[^src] Gradient descent is a harsh mistress.[^two] And kind.\n")),
        [("SC302", "SKILL.md", 7, 32)],
    ),
    "pieces swapped between sources": (
        with_second(block("> Gradient descent is a harsh mistress.[^src] Assume you have a bug.[^two]\n")),
        [("SC303", "SKILL.md", 7, 1), ("SC303", "SKILL.md", 7, 47)],
    ),
}

MUST_PASS: dict[str, Callable[[Package], None]] = {
    "html comment in a sourced blockquote": block(BLOCK + ">\n> <!-- reviewed 2026-11 -->\n"),
    "inline html kept as text": block("> Assume you have a <em>bug</em>.[^src]\n"),
    "code block outside the blockquote": block(BLOCK + "\n```\nrm -rf checkpoints\n```\n"),
    "alert with code is not a quote": block(BLOCK + "\n> [!NOTE]\n> ```\n> x = 1\n> ```\n"),
    "html blockquote in a file without quote rules": lambda p: p.write("notes.md", "# Notes\n\n<blockquote>A saying.</blockquote>\n"),
    "html blockquote only in a comment": block(BLOCK + "\n<!-- <blockquote>draft</blockquote> -->\n"),
    "tags that only start with q": block(BLOCK + "\nSee <qa-note>x</qa-note> and <quote>y</quote>.\n"),
    "reference inside the marks": inline('As the post says, "neural nets fail silently[^src]".\n'),
    "reference inside, after a comma": inline('As the post says, "neural nets fail silently,[^src]" and more.\n'),
    "U+E000 near a quote": inline('As \ue000 the post says, "neural nets fail silently"[^src].\n'),
    "U+E001 near a quote": inline('As \ue001 the post says, "neural nets fail silently"[^src] \ue000.\n'),
    "lead-in": block("From the post[^src]:\n\n> Assume you have a bug.\n"),
    "lead-in with the colon first": block("From the post:[^src]\n\n> Assume you have a bug.\n"),
    "lead-in in a list item": block("- From the post[^src]:\n\n  > Assume you have a bug.\n"),
    "two sources, one blockquote": with_second(block("> Assume you have a bug.[^src] Gradient descent is a harsh mistress.[^two]\n")),
    "two sources, two paragraphs": with_second(block("> Assume you have a bug.[^src]\n>\n> Gradient descent is a harsh mistress.[^two]\n")),
    "one source cited twice stays one quote": block("> Assume you have a bug.[^src]\n> Everything else follows from this.[^src]\n"),
    # Adjacent references cite one piece, and each of their sources must hold it (issue 19 §3).
    "adjacent references cite one piece": lambda p: (
        second_source(p, "Assume you have a bug. Gradient descent is a harsh mistress.\n"),
        block("> Assume you have a bug.[^src][^two] Gradient descent is a harsh mistress.[^two]\n")(p),
    ),
}


@pytest.mark.parametrize("name", sorted(MUST_FAIL))
def test_false_certification_is_caught(pkg: Package, name: str) -> None:
    edit, expected = MUST_FAIL[name]
    edit(pkg)
    assert found(pkg) == expected


@pytest.mark.parametrize("name", sorted(MUST_PASS))
def test_near_twin_stays_clean(pkg: Package, name: str) -> None:
    MUST_PASS[name](pkg)
    assert [d.format() for d in check(pkg.root).diagnostics] == []


def test_quote_with_reference_inside_is_counted(pkg: Package) -> None:
    inline('As the post says, "neural nets fail silently[^src]".\n')(pkg)
    report = check(pkg.root)
    assert [(o.quote.text, o.match.status) for o in report.outcomes if not o.quote.block] == [("neural nets fail silently", "verified")]
