"""Issue 29: a quoted title before a footnote is the work's name, not a quotation.

Two forms were findings on a real repository: a title whose footnote has no
cache (a book: SC305), and a title that the cache's front matter holds with
more after it, as pages and ``evidence adopt`` write it, while the body's
heading holds it alone (SC301, "outside the lines cited"). Each has a twin
that must still fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Package, locked
from skillcite.check import check

SKILL_HEAD = "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"


def findings(root: Path) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in check(root).diagnostics]


@pytest.mark.parametrize("named", ['"Deep Learning"', "*Deep Learning*", "_Deep Learning_", "\u201cDeep Learning: Methods and Applications\u201d"])
def test_a_title_the_footnote_names_needs_no_cache(tmp_path: Path, named: str) -> None:
    pkg = Package(tmp_path)
    pkg.write("SKILL.md", SKILL_HEAD + 'The textbook "Deep Learning"[^book] covers it.\n\n'
              f"[^book]: I. Goodfellow, Y. Bengio and A. Courville, {named} (MIT Press, 2016)\n")
    assert findings(tmp_path) == []


@pytest.mark.parametrize("quote", ['"Deep learning is a form of machine learning"', '"Deep Learning Book"', '"Deep Learning, Second Edition"'])
def test_words_the_footnote_does_not_name_as_a_title_are_still_sc305(tmp_path: Path, quote: str) -> None:
    pkg = Package(tmp_path)
    pkg.write("SKILL.md", SKILL_HEAD + f"The textbook says {quote}[^book].\n\n"
              '[^book]: I. Goodfellow, Y. Bengio and A. Courville, "Deep Learning" (MIT Press, 2016)\n')
    assert findings(tmp_path) == [("SC305", 7)]


def _recipe(tmp_path: Path, quote: str) -> Package:
    pkg = Package(tmp_path)
    ev = locked(
        "---\nsource: https://example.org/recipe\ntitle: A Recipe for Training Neural Networks - A. Karpathy blog\n"
        "author: A. Karpathy\nretrieved: 2026-11-21\nkind: excerpt\nlicense: quoted under fair use\nsha256: " + "0" * 64 + "\n---\n"
        "# A Recipe for Training Neural Networks\n\n"
        "Neural net training is a leaky abstraction.\n"
    )
    pkg.write("docs/evidence/recipe.md", ev)
    pkg.write("SKILL.md", SKILL_HEAD + f"In {quote}[^k], the first point: \"Neural net training is a leaky abstraction\"[^k].\n\n"
              "[^k]: A. Karpathy ([cache](docs/evidence/recipe.md): leaky L12)\n")
    return pkg


def test_a_title_the_front_matter_holds_with_a_site_name_after_it_is_a_title(tmp_path: Path) -> None:
    _recipe(tmp_path, '"A Recipe for Training Neural Networks"')
    assert findings(tmp_path) == []


def test_the_first_words_of_a_title_are_no_title(tmp_path: Path) -> None:
    _recipe(tmp_path, '"A Recipe for Training"')
    assert findings(tmp_path) == [("SC301", 7)]
