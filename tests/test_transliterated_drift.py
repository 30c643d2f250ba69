"""Issue 29: after a cache rewrite, ``fix`` placed one quote but left a second, transliterated one stale.

The rewrite moved both passages and spelled the slide's Greek letters out
(``μ`` -> ``mu``, ``σ`` -> ``sigma``, or the reverse). The verbatim quote
was followed; the other was "altered" (SC302) and left for a hand edit of
its anchor. Now a quote that differs from its source only by spelling a
Greek letter is found, as a departure from verbatim: ``fix`` places it,
it is SC313 until reviewed, and ``review`` shows the respelling. A quote
that differs otherwise stays altered, and its anchor is left alone.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import HERMETIC_GIT, Package, evidence_text, line_of
from skillcite.check import check
from skillcite.cli import main

SRC = "docs/evidence/src.md"
OLD = (
    "Whitening / Standardizing Data\n"
    "- If observations have unknown range, standardize\n"
    "- x' = clip((x − {mu})/{sigma}, −10, 10)\n"
    "- Rescale the rewards, but don't shift mean, as that affects agent's will to live\n"
)
FILLER = "".join(f"Slide {k} of the deck.\n" for k in range(6))


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in HERMETIC_GIT.items():
        monkeypatch.setenv(key, value)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def build(tmp_path: Path, quoted: str, was: tuple[str, str], now: tuple[str, str]) -> Package:
    pkg = Package(tmp_path)
    old = evidence_text(OLD.format(mu=was[0], sigma=was[1]))
    pkg.write(SRC, old)
    pkg.write("SKILL.md", (
        "---\nname: pkg\ndescription: A test skill for the checker.\n---\n# Pkg\n\n"
        "> Rescale the rewards, but don't shift mean, as that affects agent's will to live[^slides]\n\n"
        f"The slide's formula: \"{quoted}\"[^slides].\n\n"
        f"[^slides]: J. S. ([cache]({SRC}): rescale L{line_of(old, 'Rescale')}, whitening L{line_of(old, 'clip(')})\n"
    ))
    git(pkg.root, "init", "-q")
    git(pkg.root, "add", "-A")
    git(pkg.root, "commit", "-qm", "slides")
    # The rewrite: slides above the passages, the formula now below the rescale line, its letters respelled.
    body = FILLER + OLD.format(mu=now[0], sigma=now[1])
    lines = body.splitlines(keepends=True)
    clip = next(k for k, x in enumerate(lines) if "clip(" in x)
    lines.append(lines.pop(clip))
    pkg.write(SRC, evidence_text("".join(lines)))
    git(pkg.root, "commit", "-qam", "rewrite the cache")
    return pkg


def fix(pkg: Package) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["fix", str(pkg.root)])
    return r.exit_code, r.output


@pytest.mark.parametrize(
    ("quoted", "was", "now", "edits"),
    [
        ("x' = clip((x − μ)/σ, −10, 10)", ("μ", "σ"), ("mu", "sigma"), "'μ' written for the source's 'mu'; 'σ' written for the source's 'sigma'"),
        ("x' = clip((x − mu)/sigma, −10, 10)", ("mu", "sigma"), ("μ", "σ"), "'mu' written for the source's 'μ'; 'sigma' written for the source's 'σ'"),
        ("x' = clip((x − µ)/σ, −10, 10)", ("µ", "σ"), ("mu", "σ"), "'μ' written for the source's 'mu'"),  # the micro sign is the letter (NFKC)
    ],
)
def test_a_transliterated_quote_is_placed_and_left_to_review(tmp_path: Path, quoted: str, was: tuple[str, str], now: tuple[str, str], edits: str) -> None:
    pkg = build(tmp_path, quoted, was, now)
    assert sorted(d.code for d in check(pkg.root).diagnostics) == ["SC301", "SC301"]
    status, out = fix(pkg)
    ev = pkg.read(SRC)
    rescale, clip = line_of(ev, "Rescale"), line_of(ev, "clip(")
    assert status == 0, out
    assert f"rescale L{rescale}, whitening L{clip})" in pkg.read("SKILL.md")
    [d] = check(pkg.root).diagnostics
    assert (d.code, d.line) == ("SC313", 9)
    assert d.message == f"quote departs from verbatim at {SRC} L{clip}-{clip} and it is not reviewed: {edits} (run: skillcite review)"
    r = CliRunner().invoke(main, ["review", str(pkg.root)])
    assert "marked ([-quote-]{+source+}): x' = clip((x - [-" in r.output
    assert CliRunner().invoke(main, ["review", str(pkg.root), "--accept-all"]).exit_code == 0
    assert check(pkg.root).diagnostics == []


def test_a_quote_that_differs_by_more_than_a_spelling_stays_altered_and_its_anchor_stays(tmp_path: Path) -> None:
    pkg = build(tmp_path, "x' = clip((x − ν)/σ, −10, 10)", ("ν", "σ"), ("mu", "sigma"))  # nu is no spelling of mu
    old = pkg.read("SKILL.md")
    assert sorted(d.code for d in check(pkg.root).diagnostics) == ["SC301", "SC303"]
    status, out = fix(pkg)
    assert status == 1
    assert "not fixed: SKILL.md:9: quote is not found in docs/evidence/src.md; fix the quote by hand" in out
    assert sorted(d.code for d in check(pkg.root).diagnostics) == ["SC303"]
    ev = pkg.read(SRC)
    # The verbatim quote is followed (its label names it); the whitening anchor is not moved onto a guess.
    assert pkg.read("SKILL.md") == old.replace(f"rescale L{line_of(evidence_text(OLD), 'Rescale')}", f"rescale L{line_of(ev, 'Rescale')}")
