"""Regressions found by attacking ``check`` and ``fix``: each test names the defect."""

from __future__ import annotations

import os
import random
import re
import unicodedata
from pathlib import Path

from click.testing import CliRunner
from conftest import Package, evidence_text
from skillcite.check import check
from skillcite.check.parsing.anchors import Range
from skillcite.cli.app import main
from skillcite.check.parsing.evidence import Evidence
from skillcite.repair.fix import plan_fixes
from skillcite.check.matching.locate import locate
from skillcite.check.parsing.normalize import _FOLDED, _LETTERS, normalize_text

SRC = "docs/evidence/src.md"
HEAD = "---\nname: pkg\ndescription: A test skill.\n---\n# Pkg\n\n"


def ev(tmp_path: Path, body: str) -> Evidence:
    """An evidence file whose body starts at line 11 (after the front matter)."""
    path = tmp_path / "e.md"
    path.write_bytes(evidence_text(body).encode())
    return Evidence.load(path, "e.md")


def status(e: Evidence, quote: str, *anchors: list[Range]) -> str:
    cited = list(anchors) or [[Range(11, e.line_count)]]
    return locate(quote, e, cited).status


def package(pkg: Package, body: str, content: str, anchors: str) -> Package:
    pkg.write(SRC, evidence_text(body))
    pkg.write("SKILL.md", HEAD + content + f"\n\n[^s]: A, \"P\" (2020) — https://example.org/post ([cache]({SRC}): {anchors})\n")
    return pkg


def codes(root: Path) -> list[str]:
    return [d.code for d in check(root).diagnostics]


# -- false passes --------------------------------------------------------------
def test_token_names_in_angle_brackets_are_text_not_html(tmp_path: Path) -> None:
    # `<eos>` is a token, not an HTML tag: dropping it let `<bos>` (or nothing) pass.
    e = ev(tmp_path, "an Axolotl quirk that appends an <eos> that is always unmasked in the loss\n")
    assert status(e, "appends an <eos> that is always unmasked") == "verified"
    assert status(e, "appends an <bos> that is always unmasked") != "verified"
    assert status(e, "appends an that is always unmasked") != "verified"
    # Real markup is still stripped, with or without attributes.
    e = ev(tmp_path, 'This <a href="https://x.org">paper</a> proposes a <b>new</b> idea.<br/>\n')
    assert status(e, "This paper proposes a new idea.") == "verified"
    # A line break separates words; inline markup does not.
    e = ev(tmp_path, "Assume you have<br>a bug, it is <b>un</b>done.\n")
    assert status(e, "Assume you have a bug, it is undone.") == "verified"


def test_raw_token_in_a_quote_is_kept(pkg: Package) -> None:
    # Written raw in the skill, markdown-it makes `<eos>` an HTML token; the quote keeps it.
    package(pkg, "it appends an <eos> that is always unmasked\n", '"appends an <eos> that is always unmasked"[^s]', "L11")
    assert codes(pkg.root) == []
    package(pkg, "it appends an <eos> that is always unmasked\n", '"appends an <bos> that is always unmasked"[^s]', "L11")
    assert codes(pkg.root) == ["SC302"]


def test_quote_edges_must_fall_on_word_boundaries(tmp_path: Path) -> None:
    e = ev(tmp_path, "Assume you cannot skip it. The loss is 0.15 at start. It is impossible to debug.\n")
    assert status(e, "Assume you can") != "verified"
    assert status(e, "the loss is 0.1") != "verified"
    assert status(e, "possible to debug") != "verified"
    assert status(e, "Assume you [...] to bug") != "verified"  # a segment inside a word
    assert status(e, "Assume you cannot") == "verified"
    assert status(e, "the loss is 0.15") == "verified"
    # The elision would drop "cannot" from the first sentence (SC311).
    assert status(e, "Assume you [...] impossible to debug.") == "marks"
    assert status(e, "Assume you cannot [...] impossible to debug.") == "verified"
    # Reported as altered, with the whole source word in the diff (not "score 100").
    cut = locate("Assume you can", e, [[Range(11, 11)]])
    assert cut.status == "altered" and cut.score < 100 and "[-can-] {+cannot+}" in cut.diff
    e = ev(tmp_path, "A latency of 2.5 ms and a cost of 1,000,000 units, or 3.\n")
    assert status(e, "5 ms and a cost") != "verified"
    assert status(e, "a cost of 1,000") != "verified"
    assert status(e, "a cost of 1,000,000 units, or 3") == "verified"


def test_word_boundary_allows_footnote_digits_and_unspaced_scripts(tmp_path: Path) -> None:
    e = ev(tmp_path, "Assume you have a bug¹ and fix it.\n深度学习模型的训练很难调试。\n")
    assert status(e, "Assume you have a bug") == "verified"
    assert status(e, "模型的训练") == "verified"


def test_insertion_does_not_bridge_an_omission(tmp_path: Path) -> None:
    e = ev(tmp_path, "First passage ends here.\n\n[...]\n\nSecond passage starts here.\n")
    assert status(e, "First passage ends here [and] second passage starts here.") != "verified"
    assert status(e, "First passage ends here [...] second passage starts here.") == "verified"
    # A leading insertion replaces words before the quote; there are none here (SC310).
    assert status(e, "[The] first passage ends here.") == "marks"


def test_ranges_that_are_not_adjacent_need_an_elision(tmp_path: Path) -> None:
    e = ev(tmp_path, "First passage ends here.\n\nUnrelated middle text.\n\nThird passage starts here.\n")
    plus = [Range(11, 11), Range(15, 15)]
    for cited in ([plus], [[Range(11, 11)], [Range(15, 15)]]):
        assert locate("First passage ends here. Third passage starts here.", e, cited).status != "verified"
        assert locate("First passage ends here [...] third passage starts here.", e, cited).status == "verified"
    # Ranges separated only by blank lines are one passage.
    e = ev(tmp_path, "First paragraph ends here.\n\nSecond paragraph starts here.\n")
    assert locate("First paragraph ends here. Second paragraph starts here.", e, [[Range(11, 11), Range(13, 13)]]).status == "verified"


def test_escaped_markup_normalizes_like_the_rendered_quote(pkg: Package) -> None:
    # `[\^1]` renders as "[^1]", which the quote side then drops as a footnote
    # reference; the evidence kept it, and normalization was not idempotent.
    assert normalize_text(normalize_text("[\\^0]")) == normalize_text("[\\^0]")
    package(pkg, "see [\\^1] and \\<b> here, said the author\n", '"see [\\^1] and \\<b> here, said the author"[^s]', "L11")
    assert codes(pkg.root) == []


def test_escaped_footnote_reference_is_not_an_undefined_one(pkg: Package) -> None:
    package(pkg, "Assume you have a bug.\n", 'Write `[^id]` or [\\^id] for a reference; "Assume you have a bug"[^s].', "L11")
    assert codes(pkg.root) == []
    package(pkg, "Assume you have a bug.\n", 'A typo [^sx]; "Assume you have a bug"[^s].', "L11")
    assert codes(pkg.root) == ["SC101"]


def test_glued_insertions_may_change_part_of_a_word(tmp_path: Path) -> None:
    # "[T]he" and "model[s]" are editorial changes inside a word.
    e = ev(tmp_path, "and the loss is 0.15 at the start of training for the model.\n")
    assert status(e, "[T]he loss is 0.15") == "verified"
    assert status(e, "the loss is 0.15 at the start of train[ed]") == "verified"
    assert status(e, "[T]he loss is 0.1") != "verified"


def test_two_ranges_without_a_separator_are_not_a_label(pkg: Package) -> None:
    # "L11 L12" parsed as the label "L11" on range L12: no SC204, and fix
    # would then write "L11 L11".
    package(pkg, "Assume you have a bug.\nMore.\n", '"Assume you have a bug"[^s]', "L11 L12")
    found = [d for d in check(pkg.root).diagnostics if d.code == "SC204"]
    assert len(found) == 1 and "without ',' or '+'" in found[0].message
    package(pkg, "Assume you have a bug.\nMore.\n", '"Assume you have a bug"[^s]', "a L11, b L12,")
    assert [d.message for d in check(pkg.root).diagnostics] == ["empty anchor (a stray ',')"]


def test_a_repeated_quote_is_reported_where_it_is(pkg: Package) -> None:
    # Both were reported at the first one's column.
    package(pkg, "Assume you have a bug.\n", 'First "assume you have a big"[^s], then "assume you have a big"[^s].', "L11")
    assert [(d.code, d.line, d.column) for d in check(pkg.root).diagnostics] == [("SC302", 7, 7), ("SC302", 7, 41)]


def test_normalization_is_idempotent_and_keeps_line_spans(tmp_path: Path) -> None:
    # Dropping a construct could join its neighbours into a new one: one more
    # pass changed the text (found by the property test in test_normalize.py).
    for text in ("~¸~", "[^—]", "~*~", "~<b>~", "[\\^0]"):
        once = normalize_text(text)
        assert normalize_text(once) == once, text
    e = ev(tmp_path, "x ~¸~ y ~*~ z\nAssume you have a bug.\nThird line.\n")
    assert status(e, "Assume you have a bug", [Range(12, 12)]) == "verified"
    # ``~`` and ``*`` are text (no strike-through in CommonMark, no pair of ``*``).
    assert status(e, "x ~~ y ~*~ z Assume", [Range(12, 12)]) == "moved"
    assert locate("x ~~ y ~*~ z Assume", e, [[Range(13, 13)]]).lines == (11, 12)


# -- performance ---------------------------------------------------------------
def test_many_elisions_in_a_large_file_stay_fast(tmp_path: Path) -> None:
    # Lazy `.{0,N}?` gaps between common segments backtracked polynomially:
    # three elisions took 21 s on 1 MB, thirty never finished.
    rng = random.Random(1)
    words = ["the", "model", "loss", "gradient", "learning", "rate", "batch", "norm", "layer", "weight", "decay", "step", "bug", "data"]
    body = "\n\n".join(" ".join(rng.choice(words) for _ in range(60)) for _ in range(2500)) + "\n"
    e = ev(tmp_path, body)
    # Finishing at all is the test; the time is measured by bench/check_speed.py.
    assert status(e, " [...] ".join(["the model"] * 30 + ["zebra"]), [Range(11, 20)]) != "verified"
    assert status(e, " [x] ".join(["the"] * 30 + ["zebra"]), [Range(11, 20)]) != "verified"


def test_fast_letter_runs_are_left_alone_by_folding() -> None:
    # Runs of these letters skip per-character work, so NFKC and folding must not change them.
    for a, b in re.findall(r"(.)(?:-(.))?", _LETTERS):
        for cp in range(ord(a), ord(b or a) + 1):
            ch = chr(cp)
            assert unicodedata.normalize("NFKC", ch) == ch and not unicodedata.combining(ch) and ch not in _FOLDED, hex(cp)


def test_large_cjk_evidence_normalizes_fast() -> None:
    text = "深度学习模型的训练很难调试。" * 200_000  # 2.8 M characters (timed in bench/check_speed.py)
    assert normalize_text(text) == text


def test_a_paragraph_of_many_quotes_stays_linear(pkg: Package) -> None:
    # Each quote searched for its sentence end from scratch: 8000 quotes in one
    # paragraph (128 KB) took 4.8 s.
    content = " ".join('"one two three"' for _ in range(8000)) + " end[^s]"
    package(pkg, "one two three\n", content, "L11")
    report = check(pkg.root)  # timed in bench/check_speed.py
    assert len(report.outcomes) == 8000 and report.quotes_verified == 8000


# -- crashes -------------------------------------------------------------------
def test_symlink_loops_are_reported_not_raised(pkg: Package) -> None:
    ev_dir = pkg.root / "docs/evidence"
    os.symlink(ev_dir / "a.md", ev_dir / "b.md")
    os.symlink(ev_dir / "b.md", ev_dir / "a.md")
    pkg.replace("SKILL.md", "(docs/evidence/src.md)", "(docs/evidence/a.md)")
    r = CliRunner().invoke(main, ["check", str(pkg.root)])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert "SC201" in r.output
    os.symlink(pkg.root / "l2.md", pkg.root / "l1.md")
    os.symlink(pkg.root / "l1.md", pkg.root / "l2.md")
    r = CliRunner().invoke(main, ["check", str(pkg.root)])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.output
    assert r.output.startswith("skillcite: error: ") and "l1.md" in r.output


def test_tool_that_is_not_a_table_exits_2(pkg: Package) -> None:
    pkg.write("pyproject.toml", "tool = 5\n")
    r = CliRunner().invoke(main, ["check", str(pkg.root)])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.output
    assert "[tool.skillcite] must be a table" in r.output


def test_evidence_folder_outside_the_root_is_refused_by_check_and_fix(tmp_path: Path) -> None:
    # `evidence = "../ev"` used to be allowed (and fix then raised ValueError
    # looking the lock up in git); issue 15 section 2.3 makes any evidence
    # folder outside the root a one-line configuration error instead.
    p = Package(tmp_path / "repo")
    p.write("pyproject.toml", '[tool.skillcite]\nevidence = "../ev"\n')
    p.write("../ev/src.md", evidence_text("Assume you have a bug.\n", sha="ab" * 32))
    p.write("SKILL.md", HEAD + '"Assume you have a bug"[^s]\n\n[^s]: A ([cache](../ev/src.md): L11)\n')
    expected = f"skillcite: error: {p.root / 'pyproject.toml'}: [tool.skillcite] evidence '../ev' points outside the package root; name a folder inside the package\n"
    for command in (["check", str(p.root)], ["fix", str(p.root), "--diff"]):
        r = CliRunner().invoke(main, command)
        assert isinstance(r.exception, SystemExit) and r.exit_code == 2, r.output
        assert r.output == expected


def _deny(monkeypatch, fragment: str) -> None:
    """Make stat() of paths containing ``fragment`` fail as in a folder without x permission."""
    real = Path.stat

    def stat(self, *args, **kwargs):
        if fragment in str(self):
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    def read_bytes(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "stat", stat)
    monkeypatch.setattr(Path, "read_bytes", lambda self, real=Path.read_bytes: read_bytes(self) if fragment in str(self) else real(self))


def test_unsearchable_folders_are_not_a_traceback(pkg: Package, monkeypatch) -> None:
    # Path.is_file() and .exists() raise PermissionError (only "no such file"
    # errors are swallowed): a link or cache link into such a folder crashed.
    pkg.write("SKILL.md", pkg.read("SKILL.md") + "\nSee [it](locked/a.md).\n")
    pkg.replace("SKILL.md", "(docs/evidence/src.md)", "(docs/evidence/locked/src.md)")
    pkg.write("docs/evidence/locked/src.md", pkg.read(SRC))
    _deny(monkeypatch, "locked")
    r = CliRunner().invoke(main, ["check", str(pkg.root)])
    assert isinstance(r.exception, SystemExit) and r.exit_code == 1, r.output
    assert "Permission denied" in r.output


def test_write_failures_are_one_line_errors(pkg: Package, monkeypatch) -> None:
    def refuse(path, data):
        raise PermissionError(13, "Permission denied", str(path))

    pkg.replace("SKILL.md", "bug L", "bug L9")  # a moved quote for fix to follow
    monkeypatch.setattr("skillcite.repair.writing.atomic_write", refuse)
    r = CliRunner().invoke(main, ["fix", str(pkg.root)])
    assert isinstance(r.exception, SystemExit) and r.exit_code == 2, r.output
    assert r.output.startswith("skillcite: error: ") and "cannot write (Permission denied)" in r.output
    pkg.replace(SRC, "Assume you", "Assume that you")  # a stale lock
    monkeypatch.setattr("skillcite.repair.lock.atomic_write", refuse)
    r = CliRunner().invoke(main, ["lock", "--root", str(pkg.root)])
    assert isinstance(r.exception, SystemExit) and r.exit_code == 2, r.output
    assert "cannot write (Permission denied)" in r.output


# -- fix -----------------------------------------------------------------------
def test_fix_keeps_an_anchor_a_quote_needs_together_with_another(pkg: Package) -> None:
    # "Gamma delta. Epsilon zeta" is verified only by a L11 and b L12 together;
    # replacing b (the anchor nearest the moved quote) made fix refuse everything.
    body = "Alpha beta gamma delta.\nEpsilon zeta eta theta.\n\nIota kappa lambda mu.\n" + "\nfill\n" * 10
    package(pkg, body, '"Gamma delta. Epsilon zeta"[^s] and "Iota kappa lambda"[^s].', "a L11, b L12, c L30")
    plan = plan_fixes(pkg.root)
    assert plan.refused == []
    assert "a L11, b L12, c L14)" in plan.fixed[(pkg.root / "SKILL.md").resolve()]


def test_fix_does_not_guess_which_anchor_a_quote_left(pkg: Package) -> None:
    # Three lines inserted above, no git history: the quote's anchor and a
    # paraphrase anchor are both stale, and the nearer one is the paraphrase's.
    body = "New intro line.\nAnother.\nAnd another.\nAssume you have a bug.\n\nRaise the threshold slowly.\n"
    content = 'The threshold should go up slowly[^s]. "Assume you have a bug"[^s].'
    # Labels that do not name the quote tell nothing: the lines are added, both candidates named.
    package(pkg, body, content, "first L11, second L13")
    plan = plan_fixes(pkg.root)
    fixed = plan.fixed[(pkg.root / "SKILL.md").resolve()]
    assert "second L13" in fixed  # never rewritten into the quote's lines
    assert "first L11, second L13, L14)" in fixed
    assert any("second L13" in note for note in plan.unresolved)
    # A label that names the quote's words tells which anchor it left, so only one offset puts the
    # quote back (+3, the inserted lines): every anchor moves by it, the paraphrase's onto its own line
    # ("Raise the threshold slowly." is L16 now; L13 is "And another.").
    package(pkg, body, content, "assume-bug L11, raise-threshold L13")
    plan = plan_fixes(pkg.root)
    assert "assume-bug L14, raise-threshold L16)" in plan.fixed[(pkg.root / "SKILL.md").resolve()]
    assert plan.unresolved == []
    # With a single candidate there is nothing to guess: it is rewritten.
    package(pkg, body, '"Assume you have a bug"[^s].', "assume-bug L11")
    plan = plan_fixes(pkg.root)
    assert "assume-bug L14)" in plan.fixed[(pkg.root / "SKILL.md").resolve()]
    assert plan.unresolved == []


def test_a_blockquote_of_an_empty_heading_is_not_a_crash(tmp_path: Path) -> None:
    # "> #" (found by the property test) raised IndexError: exit 3.
    from conftest import clean_package

    p = clean_package(tmp_path / "pkg")
    p.write("notes.md", "# Notes\n\n> #\n\n> ## x\n")
    assert [(d.code, d.line) for d in check(p.root).diagnostics] == []
    p.write("SKILL.md", p.read("SKILL.md") + "\n> #\n> A saying.\n")
    assert [d.code for d in check(p.root).diagnostics] == ["SC304"]
