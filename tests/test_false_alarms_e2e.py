"""Issue 19 §4: nine forms of correct quotes that failed when adopting a real public skill repository.

The repository is built like a foreign one in ``tmp_path``: its own layout
(``skills/demo``, evidence in ``evidence/``), its own ``[tool.skillcite]``.
Every quote below is right; each must pass, or, where it departs from
verbatim (plain ``...`` as an elision), be routed to review (SC313) and
pass once reviewed.
"""

from __future__ import annotations

from pathlib import Path

from conftest import locked
from skillcite.check import check
from skillcite.check.reviewing import accept, departures

FRONT = """---
source: {source}
title: "{title}"
author: A. Author
retrieved: 2026-11-21
kind: excerpt
license: CC BY 4.0
sha256: {sha}
---
"""


def evidence(source: str, title: str, body: str) -> str:
    return locked(FRONT.format(source=source, title=title, sha="0" * 64) + body)


PAPER = """The method learns dis-tributions over tokens.
The re-sign step is separate.

If one part of the model fails, the whole run diverges.

Use a learning rate of 3e-4 for the first run.

The loss spikes when the data is dirty and recovers slowly afterwards.
"""  # lines 10-17 (front matter 9 lines)

SLIDES = """- Check the data first.
- Overfit one batch.

Small models train fast.

Medium models are in between.

Large models need warmup.

Note that warmup is cheap.
"""  # lines 10-19

SKILL = """---
name: demo
description: A demo skill, for the adoption of issue 19.
---
# Demo

## 1. PDF hyphenation inside a line

> The method learns distributions over tokens.[^paper]

## 2. A lead-in with a parenthetical before the colon

From the slides[^slides] (bullet points):

> - Check the data first.
> - Overfit one batch.

## 3. Two paragraphs, each ending with the same footnote

> Small models train fast.[^slides2]
>
> Large models need warmup.[^slides2]

## 4. A blockquote wrapped in quotation marks

> "If one part of the model fails, the whole run diverges."[^paper2]

## 5. A double-quoted title before a footnote reference

As surveyed in Author, "A Survey of Training Failures"[^paper3], runs fail often.

## 6. Plain ... and … as elision marks

> The loss spikes ... and recovers slowly afterwards.[^paper4]

> The loss spikes when the data is dirty … afterwards.[^paper4]

## 7. An attribution line inside a blockquote

> Note that warmup is cheap.
>
> — A. Author[^slides3]

## 8. A cited GitHub alert

> [!NOTE]
> Use a learning rate of 3e-4 for the first run.[^paper5]

## 9. An exponent written in capitals

"Use a learning rate of 3E-4"[^paper6] is the advice.

[^paper]: A. Author, "A Survey of Training Failures" (2024) ([cache](../../evidence/paper.md): L10)
[^paper2]: ([cache](../../evidence/paper.md): L13)
[^paper3]: ([cache](../../evidence/paper.md): L10-17)
[^paper4]: ([cache](../../evidence/paper.md): L17)
[^paper5]: ([cache](../../evidence/paper.md): L15)
[^paper6]: ([cache](../../evidence/paper.md): L15)
[^slides]: B. Author, slides ([cache](../../evidence/slides.md): L10-11)
[^slides2]: ([cache](../../evidence/slides.md): L13-17)
[^slides3]: ([cache](../../evidence/slides.md): L19)
"""


def build(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "skills/demo").mkdir(parents=True)
    (root / "evidence").mkdir()
    (root / "pyproject.toml").write_text('[tool.skillcite]\nevidence = "evidence"\ncontent = ["skills/**/SKILL.md"]\n')
    (root / "skills/demo/SKILL.md").write_text(SKILL)
    (root / "evidence/paper.md").write_text(evidence("https://example.org/paper.pdf", "A Survey of Training Failures", PAPER))
    (root / "evidence/slides.md").write_text(evidence("https://example.org/slides", "Slides", SLIDES))
    return root


def test_nine_false_alarms_pass(tmp_path: Path) -> None:
    root = build(tmp_path)
    report = check(root)
    # Only the plain ellipses depart from verbatim: they need review, nothing fails.
    assert [(d.code, d.line) for d in report.diagnostics] == [("SC313", 34), ("SC313", 36)]
    ws, found = departures(root)
    accept(ws, found, "R <r@example.org>", bulk=False)
    report = check(root)
    assert report.diagnostics == []
    assert (report.quotes, report.quotes_verbatim, report.quotes_reviewed) == (report.quotes_verified, report.quotes_verified - 2, 2)


def test_their_twins_still_fail(tmp_path: Path) -> None:
    root = build(tmp_path)
    skill = root / "skills/demo/SKILL.md"
    text = skill.read_text()
    for old, new in [
        ("The method learns distributions", "The method learns distribution"),  # a word changed
        ('"If one part of the model fails', '"If any part of the model fails'),
        ("Use a learning rate of 3e-4 for the first run.[^paper5]", "Use a learning rate of 3e-5 for the first run.[^paper5]"),
        ('"Use a learning rate of 3E-4"', '"Use a learning rate of 3E-5"'),
        ("> Large models need warmup.[^slides2]", "> Large models need no warmup.[^slides2]"),
    ]:
        assert old in text
        text = text.replace(old, new)
    skill.write_text(text)
    failing = sorted({d.line for d in check(root).diagnostics if d.code in ("SC302", "SC303")})
    assert failing == [9, 22, 26, 46, 51]


def test_in_line_hyphens_join_only_in_a_pdf(tmp_path: Path) -> None:
    root = build(tmp_path)
    (root / "evidence/paper.md").write_text(evidence("https://example.org/paper.html", "A Survey of Training Failures", PAPER))
    assert [(d.code, d.line) for d in check(root).diagnostics if d.code != "SC313"] == [("SC302", 9)]
