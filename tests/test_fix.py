"""skillcite fix: carried and followed anchors, byte preservation, safety."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import BODY, Package, evidence_text, line_of
from skillcite.check import check
from skillcite.cli.app import main
from skillcite.repair.fix import ChangedOnDisk, plan_fixes, write

SRC = "docs/evidence/src.md"


GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",  # no signing, hooks or aliases from the user's configuration
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


@pytest.fixture(autouse=True)
def _hermetic_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """git behaves the same whatever the machine's global configuration says (fix runs git too)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def commit_all(root: Path) -> None:
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "snapshot")


def insert_at_top(pkg: Package, lines: str) -> None:
    """Insert ``lines`` at the top of the evidence body (below the front matter)."""
    text = pkg.read(SRC)
    head, body = text.split("---\n", 2)[1:]
    pkg.write(SRC, "---\n" + head + "---\n" + lines + body)


def definition(pkg: Package, label: str = "src", rel: str = "SKILL.md") -> str:
    return next(l for l in pkg.read(rel).splitlines() if l.startswith(f"[^{label}]:"))


def add_paraphrase(pkg: Package) -> int:
    """Cite the evidence's second sentence as paraphrase; return its line."""
    cheap = line_of(pkg.read(SRC), "It is a cheap assumption")
    pkg.replace("SKILL.md", "# Pkg\n", "# Pkg\n\nA paraphrase.[^para]\n")
    pkg.write("SKILL.md", pkg.read("SKILL.md") + f"[^para]: A. ([cache](docs/evidence/src.md): cheap L{cheap})\n")
    return cheap


def fix(root: Path, *args: str):
    return CliRunner().invoke(main, ["fix", str(root), *args])


def codes(root: Path) -> list[str]:
    return [d.code for d in check(root).diagnostics]


def test_quote_moved_to_another_section_is_followed(pkg: Package) -> None:
    # Move the cited passage to the end of the evidence and re-lock.
    passage = "Assume you have a bug. Everything else follows from this.\n"
    body = BODY.replace(passage, "") + "\n[...]\n\n" + passage
    pkg.write(SRC, evidence_text(body))
    assert codes(pkg.root) == ["SC301"]
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert codes(pkg.root) == []
    assert f"bug L{line_of(pkg.read(SRC), 'Assume you have a bug')}," in pkg.read("SKILL.md")


def test_lines_inserted_above_are_carried_through_history(pkg: Package) -> None:
    # A paraphrase anchor rides along with the quotes.
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    text = pkg.read(SRC)
    head, body = text.split("---\n", 2)[1:]
    pkg.write(SRC, "---\n" + head + "---\nA new first line.\nAnd a second.\n" + body)
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert "2 file" not in r.output
    assert f"cheap L{cheap + 2})" in pkg.read("SKILL.md")
    assert f"bug L{line_of(pkg.read(SRC), 'Assume you have a bug')}," in pkg.read("SKILL.md")
    assert set(codes(pkg.root)) == {"SC403"}  # the lock is still for review


def test_deleted_lines_inside_a_range_are_reported_not_guessed(pkg: Package) -> None:
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    pkg.replace(SRC, "It is a cheap assumption and an expensive one to skip.\n", "")
    before = pkg.read("SKILL.md")
    r = fix(pkg.root)
    assert r.exit_code == 1
    assert f"SKILL.md:16: [^para] anchor cheap L{cheap} covers lines of docs/evidence/src.md that were rewritten or deleted since its lock; re-anchor by hand" in r.output
    assert f"cheap L{cheap})" in pkg.read("SKILL.md")
    assert pkg.read("SKILL.md").count("\n") == before.count("\n")


def test_shared_footnote_keeps_the_anchor_another_quote_needs(pkg: Package) -> None:
    # Both quotes cite one anchor covering both passages; the bug passage moves away.
    silent, bug = line_of(pkg.read(SRC), "neural nets"), line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}, silent L{silent}", f"both L{silent}-{bug + 1}")
    passage = "Assume you have a bug. Everything else follows from this.\n"
    body = BODY.replace(passage, "") + "\n[...]\n\n" + passage
    pkg.write(SRC, evidence_text(body))
    assert fix(pkg.root).exit_code == 0
    assert codes(pkg.root) == []
    new_bug = line_of(pkg.read(SRC), "Assume you")
    assert f"both L{silent}-{bug + 1}, L{new_bug})" in pkg.read("SKILL.md")


def test_diff_and_check_write_nothing(pkg: Package) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    before = pkg.read("SKILL.md")
    r = fix(pkg.root, "--diff")
    assert r.exit_code == 0
    assert "-[^src]:" in r.output and f"bug L{bug}" in r.output and "+++ b/SKILL.md" in r.output
    assert fix(pkg.root, "--check").exit_code == 1
    assert pkg.read("SKILL.md") == before
    assert fix(pkg.root).exit_code == 0
    assert fix(pkg.root, "--check").exit_code == 0  # idempotent


@pytest.mark.parametrize("newline,bom,final", [("\r\n", False, True), ("\n", True, False), ("\n", False, False)])
def test_bytes_outside_the_anchor_are_kept(pkg: Package, newline: str, bom: bool, final: bool) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    text = pkg.read("SKILL.md").replace("# Pkg", "# Pkg — naïve café ✓").replace(f"bug L{bug}", f"bug L{bug + 3}")
    text = text.replace("\n", newline)
    if not final:
        text = text.rstrip("\r\n")
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    pkg.write("SKILL.md", raw)
    assert fix(pkg.root).exit_code == 0
    after = (pkg.root / "SKILL.md").read_bytes()
    assert after == raw.replace(f"bug L{bug + 3}".encode(), f"bug L{bug}".encode())


def test_altered_quotes_are_reported_never_touched(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", "> Assume that you have a bug.")
    before = pkg.read("SKILL.md")
    r = fix(pkg.root)
    assert r.exit_code == 1 and "altered" in r.output
    assert pkg.read("SKILL.md") == before


def test_crash_between_temp_write_and_replace_keeps_original(pkg: Package, monkeypatch) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    before = (pkg.root / "SKILL.md").read_bytes()
    plan = plan_fixes(pkg.root)

    def crash(src, dst):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        write(plan)
    assert (pkg.root / "SKILL.md").read_bytes() == before
    assert not [p for p in os.listdir(pkg.root) if p.endswith(".tmp")]


def test_nothing_to_fix_exits_0(pkg: Package) -> None:
    r = fix(pkg.root)
    assert r.exit_code == 0 and "0 files changed" in r.output


def test_lines_removed_above_are_carried_through_history(pkg: Package) -> None:
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    # Drop the first passage (and its [...] separator) above every anchor.
    pkg.replace(SRC, "The first paragraph says that neural nets fail silently and you will not notice.\n\n[...]\n\n", "")
    pkg.replace("SKILL.md", ', "neural nets fail silently"[^src]', "")
    r = fix(pkg.root)
    assert f"cheap L{cheap - 4})" in pkg.read("SKILL.md"), r.output
    assert f"bug L{line_of(pkg.read(SRC), 'Assume you have a bug')}," in pkg.read("SKILL.md")


def test_cache_link_without_anchors_gets_one(pkg: Package) -> None:
    line = next(l for l in pkg.read("SKILL.md").splitlines() if l.startswith("[^src]:"))
    pkg.replace("SKILL.md", line, line[: line.index("): ") + 1] + ")")
    assert set(codes(pkg.root)) == {"SC209", "SC301"}
    r = fix(pkg.root)
    assert r.exit_code == 0
    assert "1 file changed (0 for moved quotes, 1 added to links without anchors, 0 carried, 0 refused)" in r.output
    ev = pkg.read(SRC)
    bug, silent = line_of(ev, "Assume you have a bug"), line_of(ev, "neural nets fail silently")
    assert f"([cache](docs/evidence/src.md): L{silent}+L{bug})" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []


# -- issue 13 §1: carrying from git, identity, --diff, --select -----------------


def test_lines_inserted_then_lock_then_fix_carries_from_head(pkg: Package) -> None:
    # The reported sequence: lines inserted, `lock` (so the lock is current), `fix`.
    # It used to append each moved quote's lines beside the stale anchors and
    # left paraphrase anchors on blank lines.
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    before = pkg.read(SRC)
    silent, bug = line_of(before, "neural nets fail"), line_of(before, "Assume you")
    insert_at_top(pkg, "Inserted one.\nInserted two.\n\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert "1 file changed (0 for moved quotes, 3 carried, 0 refused)" in r.output
    assert definition(pkg) == f"[^src]: A. Author, \"A Post\" (2020) — https://example.org/post ([cache](docs/evidence/src.md): bug L{bug + 3}, silent L{silent + 3})"
    assert definition(pkg, "para") == f"[^para]: A. ([cache](docs/evidence/src.md): cheap L{cheap + 3})"
    assert codes(pkg.root) == []


def test_second_fix_before_lock_changes_nothing(pkg: Package) -> None:
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    insert_at_top(pkg, "New one.\nNew two.\n")
    assert fix(pkg.root).exit_code == 0
    once = pkg.read("SKILL.md")
    assert f"cheap L{cheap + 2})" in once
    r = fix(pkg.root)
    assert r.exit_code == 0 and "0 files changed" in r.output
    assert pkg.read("SKILL.md") == once  # it used to drift by the diff again on every run
    assert fix(pkg.root, "--check").exit_code == 0


def test_anchor_already_moved_by_hand_is_left_alone(pkg: Package) -> None:
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    insert_at_top(pkg, "New one.\n")
    pkg.replace("SKILL.md", f"cheap L{cheap})", f"cheap L{cheap + 1})")
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert f"cheap L{cheap + 1})" in pkg.read("SKILL.md")
    assert "(0 for moved quotes, 2 carried, 0 refused)" in r.output


def test_from_revision_carries_across_commits(pkg: Package) -> None:
    cheap = add_paraphrase(pkg)
    commit_all(pkg.root)
    insert_at_top(pkg, "New one.\nNew two.\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    commit_all(pkg.root)  # evidence edit and lock committed, anchors not yet moved
    before = pkg.read("SKILL.md")
    r = fix(pkg.root, "--select", "SC403")
    assert r.exit_code == 0 and pkg.read("SKILL.md") == before  # HEAD is today's text: nothing to carry
    r = fix(pkg.root, "--from", "HEAD~1", "--select", "SC403")
    assert r.exit_code == 0, r.output
    assert "(0 for moved quotes, 3 carried, 0 refused)" in r.output
    assert f"cheap L{cheap + 2})" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []


def test_from_an_unknown_revision_is_a_usage_error(pkg: Package) -> None:
    commit_all(pkg.root)
    r = fix(pkg.root, "--from", "no-such-rev")
    assert r.exit_code == 2
    assert r.output == f"skillcite: error: --from no-such-rev: not a git revision of {pkg.root}\n"


def test_uniform_offset_moves_every_anchor_without_git(pkg: Package) -> None:
    # No history to diff against: both quotes moved down by 2, so the
    # paraphrase anchor into the same file moves by 2 as well.
    cheap = add_paraphrase(pkg)
    insert_at_top(pkg, "New one.\nNew two.\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    ev = pkg.read(SRC)
    assert f"bug L{line_of(ev, 'Assume you')}, silent L{line_of(ev, 'neural nets fail')})" in pkg.read("SKILL.md")
    assert f"cheap L{cheap + 2})" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []


def test_quotes_moved_by_different_offsets_replace_the_anchors_their_labels_name(pkg: Package) -> None:
    # Two lines above the first passage, one more above the second: no common
    # offset, so the paraphrase anchor is not guessed. The label "bug" names the
    # first quote's words: its anchor is replaced, and the other free anchor is
    # the only one left for the second quote. Nothing is appended.
    cheap = add_paraphrase(pkg)
    insert_at_top(pkg, "New one.\nNew two.\n")
    pkg.replace(SRC, "[...]\n", "[...]\nAnother.\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    ev = pkg.read(SRC)
    assert definition(pkg).endswith(f"bug L{line_of(ev, 'Assume you')}, silent L{line_of(ev, 'neural nets fail')})")
    assert f"cheap L{cheap})" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []


def test_quotes_moved_by_different_offsets_without_labels_or_history_are_added(pkg: Package) -> None:
    # No label, no history, both old anchors still on text: fix cannot tell
    # which anchor each quote left (either could hold a paraphrase), so it adds
    # the lines and says so.
    old = pkg.read(SRC)
    bug, silent = line_of(old, "Assume you"), line_of(old, "neural nets fail")
    pkg.replace("SKILL.md", f"bug L{bug}, silent L{silent}", f"L{bug}, L{silent}")
    insert_at_top(pkg, "New one.\nNew two.\n")
    pkg.replace(SRC, "[...]\n", "[...]\nAnother.\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    r = fix(pkg.root)
    assert r.exit_code == 1
    assert f"any of L{bug}, L{silent} may be the one it left" in r.output
    assert definition(pkg).endswith(f"L{bug}, L{silent}, L{silent + 2}+L{bug + 3})")


def test_stale_labelled_anchors_past_the_end_are_replaced_after_a_rewrite(pkg: Package) -> None:
    # The cache rewrite: the evidence is rewritten in one commit, both
    # labelled anchors are stale (one past the end of the file). fix replaces
    # each with the quote's new lines, with and without --from.
    bug, silent = line_of(pkg.read(SRC), "Assume you"), line_of(pkg.read(SRC), "neural nets fail")
    pkg.replace("SKILL.md", f"bug L{bug}, silent L{silent}", f"Assume-you-have-a-bug L{bug + 40}, fail-silently L{silent + 3}")
    commit_all(pkg.root)
    short = "In short, neural nets fail silently and you will not notice.\n\nAssume you have a bug. Everything else follows from this.\n"
    pkg.write(SRC, evidence_text(short))
    commit_all(pkg.root)
    ev = pkg.read(SRC)
    want = f"Assume-you-have-a-bug L{line_of(ev, 'Assume you')}, fail-silently L{line_of(ev, 'fail silently')})"
    for args in ((), ("--from", "HEAD~1")):
        r = fix(pkg.root, "--diff", *args)
        assert r.exit_code == 0, r.output
        assert "remove the stale one by hand" not in r.output
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert definition(pkg).endswith(want)
    assert codes(pkg.root) == []


def test_history_tells_which_unlabelled_anchor_a_quote_left(pkg: Package) -> None:
    # Two unlabelled anchors, both still on text; the evidence changed in the last
    # commit: its line diff maps one old anchor onto the quote's new lines.
    old = pkg.read(SRC)
    bug, silent = line_of(old, "Assume you"), line_of(old, "neural nets fail")
    pkg.replace("SKILL.md", f"bug L{bug}, silent L{silent}", f"L{bug}, L{silent}")
    commit_all(pkg.root)
    insert_at_top(pkg, "New one.\nNew two.\n")
    pkg.replace(SRC, "[...]\n", "[...]\nAnother.\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    commit_all(pkg.root)
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    ev = pkg.read(SRC)
    assert definition(pkg).endswith(f"L{line_of(ev, 'Assume you')}, L{line_of(ev, 'neural nets fail')})")
    assert codes(pkg.root) == []


def test_github_fragment_anchors_are_repaired(pkg: Package) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", "> Assume you have a bug.[^src]", "> Assume you have a bug. Everything else follows from this.[^frag]")
    pkg.write("SKILL.md", pkg.read("SKILL.md") + f"[^frag]: A. ([cache](docs/evidence/src.md#L{bug}))\n")
    assert codes(pkg.root) == []
    insert_at_top(pkg, "New one.\nNew two.\n")
    assert CliRunner().invoke(main, ["lock", "--root", str(pkg.root)]).exit_code == 0
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert f"(docs/evidence/src.md#L{bug + 2}))" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []


def test_not_found_is_spelt_out(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", "> Completely different words here.")
    r = fix(pkg.root)
    assert r.exit_code == 1
    assert "not fixed: SKILL.md:7: blockquote is not found in docs/evidence/src.md; fix the quote by hand" in r.output
    assert "notfound" not in r.output


def test_findings_are_compared_by_identity_not_message(pkg: Package) -> None:
    # SKILL.md over its token budget (SC506, a warning) before and after: the
    # token count in the message changes with the anchor text. Compared by
    # message, the old fix called it a new finding and refused to write.
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nskill_max_tokens = 10\n')
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    assert sorted(codes(pkg.root)) == ["SC301", "SC506"]
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert f"bug L{bug}," in pkg.read("SKILL.md")
    assert codes(pkg.root) == ["SC506"]


# -- issue 14 §1.4: the safety net ------------------------------------------------

NET_SKILL = """---
name: pkg
description: A test skill for the checker.
---
# Pkg

As the post says, "Quoted sentence about a cheap assumption"[^src].

[^src]: A. ([cache](docs/evidence/src.md): cheap L{start}-{end})
"""
NET_OLD = "Intro one.\nIntro two.\nAlpha sentence here.\nQuoted sentence about a cheap assumption.\nOmega sentence here.\nTail line.\n"
NET_NEW = "Alpha sentence here.\nOmega sentence here.\nTail line.\nQuoted sentence about a cheap assumption.\nMore.\n"


def _net_package(pkg: Package) -> tuple[int, int]:
    """Evidence edited so that carrying [^src] alone would leave its quote outside.

    The anchor covers Alpha..Omega with the quoted line between them. The
    intro lines were deleted and the quoted line moved below Tail: Alpha and
    Omega survive, so the diff carries the range, but the quote is no
    longer inside it. The stale range happens to hold the quote today.
    """
    pkg.write(SRC, evidence_text(NET_OLD))
    start, end = line_of(pkg.read(SRC), "Alpha"), line_of(pkg.read(SRC), "Omega")
    pkg.write("SKILL.md", NET_SKILL.format(start=start, end=end))
    commit_all(pkg.root)
    pkg.write(SRC, evidence_text(NET_NEW))
    assert codes(pkg.root) == []
    return start, end


def test_safety_net_refuses_a_carry_that_would_move_a_quote_and_writes_nothing(pkg: Package) -> None:
    start, end = _net_package(pkg)
    raw = (pkg.root / "SKILL.md").read_bytes()
    ev = pkg.read(SRC)
    new_start, new_end = line_of(ev, "Alpha"), line_of(ev, "Omega")
    r = fix(pkg.root, "--select", "SC403")
    assert r.exit_code == 1
    assert (
        f"refused: SKILL.md:9: [^src]: L{start}-{end} -> L{new_start}-{new_end}: would add "
        f"SKILL.md:7:19: SC301 quote is at docs/evidence/src.md L{line_of(ev, 'Quoted')}, "
        "outside the lines [^src] cites (run: skillcite fix)"
    ) in r.output
    assert "0 files changed (0 for moved quotes, 0 carried, 1 refused)" in r.output
    assert (pkg.root / "SKILL.md").read_bytes() == raw


def test_diff_shows_nothing_it_refuses_and_lists_the_refusal(pkg: Package) -> None:
    start, end = _net_package(pkg)
    raw = (pkg.root / "SKILL.md").read_bytes()
    r = CliRunner().invoke(main, ["fix", str(pkg.root), "--diff", "--select", "SC403"])
    assert r.exit_code == 1
    assert r.stdout == ""
    assert f"refused: SKILL.md:9: [^src]: L{start}-{end} -> " in r.stderr
    assert (pkg.root / "SKILL.md").read_bytes() == raw


def test_carry_and_follow_together_repair_what_carry_alone_would_break(pkg: Package) -> None:
    _net_package(pkg)
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    quoted = line_of(pkg.read(SRC), "Quoted")
    assert definition(pkg) == f"[^src]: A. ([cache](docs/evidence/src.md): cheap L{quoted})"
    assert codes(pkg.root) == []


def test_one_free_anchor_of_several_is_the_one_rewritten(pkg: Package) -> None:
    # [^src] has two anchors; the other quote relies on `silent`, so only
    # `bug` is free and it is rewritten in place (nothing appended).
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 1}")
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    silent = line_of(pkg.read(SRC), "neural nets fail")
    assert definition(pkg).endswith(f"([cache](docs/evidence/src.md): bug L{bug}, silent L{silent})")


def test_two_free_anchors_get_a_new_one_and_a_note_naming_both(pkg: Package) -> None:
    # A paraphrase anchor in the same link is as free as the stale one, both on
    # text, and no label names the quote: which one the quote left is a guess,
    # so the lines are added and both named.
    bug = line_of(pkg.read(SRC), "Assume you")
    cheap = line_of(pkg.read(SRC), "It is a cheap")
    pkg.replace("SKILL.md", f"bug L{bug}, ", f"first L{bug + 3}, cheap L{cheap}, ")
    r = fix(pkg.root)
    assert r.exit_code == 1
    assert f"any of first L{bug + 3}, cheap L{cheap} may be the one it left" in r.output
    assert f"first L{bug + 3}, cheap L{cheap}, silent L{line_of(pkg.read(SRC), 'neural nets fail')}, L{bug})" in definition(pkg)


def test_a_label_naming_the_quote_tells_the_stale_anchor_from_a_paraphrase(pkg: Package) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    cheap = line_of(pkg.read(SRC), "It is a cheap")
    pkg.replace("SKILL.md", f"bug L{bug}, ", f"bug L{bug + 3}, cheap L{cheap}, ")
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert f"bug L{bug}, cheap L{cheap}, silent L{line_of(pkg.read(SRC), 'neural nets fail')})" in definition(pkg)


def test_an_anchor_past_the_end_is_the_one_a_quote_left(pkg: Package) -> None:
    # No label; the paraphrase anchor is on text, the other one past the end of the file: it held nothing.
    bug = line_of(pkg.read(SRC), "Assume you")
    cheap = line_of(pkg.read(SRC), "It is a cheap")
    pkg.replace("SKILL.md", f"bug L{bug}, ", f"L{bug + 300}, cheap L{cheap}, ")
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert f"L{bug}, cheap L{cheap}, silent L" in definition(pkg)


def test_reversed_range_is_reported_not_carried(pkg: Package) -> None:
    add_paraphrase(pkg)
    cheap = line_of(pkg.read(SRC), "It is a cheap")
    pkg.replace("SKILL.md", f"cheap L{cheap})", f"cheap L{cheap}-{cheap - 1})")
    commit_all(pkg.root)
    insert_at_top(pkg, "New one.\n")
    r = fix(pkg.root)
    assert f"not fixed: SKILL.md:16: [^para] anchor cheap L{cheap}-{cheap - 1} is reversed (SC206); re-anchor by hand" in r.output
    assert f"cheap L{cheap}-{cheap - 1})" in pkg.read("SKILL.md")


# -- issue 15 §3: symlinks, concurrent edits, temp files, empty lists --------------


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlinked_document_is_edited_once(pkg: Package) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    os.symlink("SKILL.md", pkg.root / "AGENTS.md")
    expected = pkg.read("SKILL.md").replace(f"bug L{bug + 3}", f"bug L{bug}")
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert "1 file changed" in r.output
    assert pkg.read("SKILL.md") == expected
    assert os.readlink(pkg.root / "AGENTS.md") == "SKILL.md"
    assert codes(pkg.root) == []


def test_edit_made_while_fix_runs_is_not_overwritten(pkg: Package) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    plan = plan_fixes(pkg.root)
    assert plan.changed == [(pkg.root / "SKILL.md").resolve()]
    pkg.replace("SKILL.md", "# Pkg", "# Pkg, edited meanwhile")
    edited = (pkg.root / "SKILL.md").read_bytes()
    with pytest.raises(ChangedOnDisk, match="changed while fix ran"):
        write(plan)
    assert (pkg.root / "SKILL.md").read_bytes() == edited


def test_temp_file_left_by_a_kill_is_removed_by_the_next_run(pkg: Package) -> None:
    left = pkg.write(".SKILL.md.k1ll_3d0.tmp", "half a file")
    other = pkg.write(".SKILL.md.notatemp.txt", "keep me")
    r = fix(pkg.root)
    assert r.exit_code == 0 and "0 files changed" in r.output
    assert not left.exists() and other.exists()


def test_empty_anchor_list_gets_a_parseable_anchor(pkg: Package) -> None:
    line = definition(pkg)
    pkg.replace("SKILL.md", line, line[: line.index("): ") + 1] + ": )")
    assert set(codes(pkg.root)) == {"SC204", "SC301"}
    assert fix(pkg.root).exit_code == 0
    ev = pkg.read(SRC)
    bug, silent = line_of(ev, "Assume you have a bug"), line_of(ev, "neural nets fail silently")
    assert definition(pkg).endswith(f"([cache](docs/evidence/src.md): L{silent}+L{bug})")
    assert codes(pkg.root) == []


# -- issue: fix honours the baseline and inline suppressions ----------------------


def test_fix_check_agrees_with_check_strict_under_a_baseline_and_suppressions(pkg: Package) -> None:
    pkg.replace("SKILL.md", "> Assume you have a bug.", "> Assume you have a bug. Everything else follows from that.")  # SC302, to accept
    pkg.replace("SKILL.md", 'As the post says, "neural nets fail silently"[^src].',
                '<!-- skillcite: ignore SC303 -->\nAs the post says, "neural nets never fail"[^src].')  # SC303, suppressed
    strict = CliRunner().invoke(main, ["check", str(pkg.root), "--strict"])
    assert strict.exit_code == 1 and "SC302" in strict.output and "SC303" not in strict.output, strict.output
    r = fix(pkg.root, "--check")
    assert r.exit_code == 1 and "is not found" not in r.output
    assert "blockquote is altered" in r.output
    assert CliRunner().invoke(main, ["check", str(pkg.root), "--write-baseline", str(pkg.root / "base.json")]).exit_code == 0
    pkg.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\nbaseline = "base.json"\n')
    assert CliRunner().invoke(main, ["check", str(pkg.root), "--strict"]).exit_code == 0
    r = fix(pkg.root, "--check")
    assert r.exit_code == 0, r.output
    assert "0 files would change" in r.output and "not fixed" not in r.output


def test_words_where_the_anchors_go_become_the_note_after_the_anchors_fix_adds(pkg: Package) -> None:
    # Issue 29 (wassname/ml-debug: "[cache](...): tweets 1-3 verbatim, cross-checked ..."): fix said "cannot be parsed;
    # add L17+L21+L25 by hand", so the quotes stayed SC301 after the walkthrough. The words stay, as the note after ';'.
    line = next(l for l in pkg.read("SKILL.md").splitlines() if l.startswith("[^src]:"))
    pkg.replace("SKILL.md", line, line[: line.index("): ") + 3] + "the two passages, copied from the post; see also its comments)")
    assert set(codes(pkg.root)) == {"SC204", "SC301"}
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    assert "1 file changed (0 for moved quotes, 1 added to links without anchors, 0 carried, 0 refused)" in r.output
    ev = pkg.read(SRC)
    bug, silent = line_of(ev, "Assume you have a bug"), line_of(ev, "neural nets fail silently")
    assert f"([cache](docs/evidence/src.md): L{silent}+L{bug}; the two passages, copied from the post; see also its comments)" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []


@pytest.mark.parametrize("quote", ["> Assume [...] a bug.", "> assume you have a bug."])
def test_a_moved_quote_that_departs_from_verbatim_is_placed_and_left_to_review(pkg: Package, quote: str) -> None:
    # Issue 29: the anchor used to be refused (it "would add SC313"), and review cannot list a quote before it has one.
    passage = "Assume you have a bug. Everything else follows from this.\n"
    pkg.write(SRC, evidence_text(BODY.replace(passage, "") + "\n[...]\n\n" + passage))
    pkg.replace("SKILL.md", "> Assume you have a bug.", quote)
    assert codes(pkg.root) == ["SC301"]
    r = fix(pkg.root)
    assert r.exit_code == 0, r.output
    at = line_of(pkg.read(SRC), "Assume you have a bug")
    assert f"bug L{at}," in pkg.read("SKILL.md")
    [line] = [x for x in r.output.splitlines() if x.startswith("to review: ")]
    assert line.startswith(f"to review: SKILL.md:7:1: SC313 blockquote departs from verbatim at docs/evidence/src.md L{at}-{at} and it is not reviewed: ")
    assert r.output.splitlines()[-1] == "1 file changed (1 for moved quotes, 0 carried, 0 refused); 1 placed quote to review (run: skillcite review)"
    assert codes(pkg.root) == ["SC313"]
    assert CliRunner().invoke(main, ["review", str(pkg.root), "--accept-all", "--by", "R <r@example.org>"]).exit_code == 0
    assert codes(pkg.root) == []


def test_a_moved_verbatim_quote_is_placed_with_nothing_to_review(pkg: Package) -> None:
    passage = "Assume you have a bug. Everything else follows from this.\n"
    pkg.write(SRC, evidence_text(BODY.replace(passage, "") + "\n[...]\n\n" + passage))
    r = fix(pkg.root, "--check")
    assert (r.exit_code, r.output.splitlines()[-1]) == (1, "1 file would change (1 for moved quotes, 0 carried, 0 refused); exit 1: anchors drifted")
    r = fix(pkg.root)
    assert (r.exit_code, r.output.splitlines()[-1]) == (0, "1 file changed (1 for moved quotes, 0 carried, 0 refused)")
    r = fix(pkg.root, "--check")
    assert (r.exit_code, r.output) == (0, "0 files would change (0 for moved quotes, 0 carried, 0 refused)\n")
    assert "to review" not in r.output
    assert codes(pkg.root) == []


def test_only_the_placed_quote_may_trade_sc301_for_sc313() -> None:
    # The safety net's one exception: SC313 on a quote whose SC301 the same result clears.
    from collections import Counter

    from skillcite.core.diagnostics import Diagnostic
    from skillcite.repair.safety import _placed

    d = Diagnostic.make("SC313", "SKILL.md", 7, 1, "departs", subject="Assume [...] a bug.")
    moved = ("SC301", "SKILL.md", "Assume [...] a bug.")
    other = ("SC301", "SKILL.md", "Another quote.")
    assert not _placed(d, Counter([moved]), Counter([moved]), None)  # type: ignore[arg-type]  # still outside its lines: nothing placed it
    assert not _placed(d, Counter([other]), Counter(), None)  # type: ignore[arg-type]  # another quote was placed: this one is a new finding
    assert not _placed(Diagnostic.make("SC302", "SKILL.md", 7, 1, "differs", subject="Assume [...] a bug."), Counter([moved]), Counter(), None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("edit", "own"),
    [
        ("elision [...] between 'Assume' and 'a bug', for 'you have'", True),
        ("first letter 'b' for 'B'", True),
        ("insertion [the model] at the start, for 'it'", True),
        ("'μ' written for the source's 'mu'", True),
        ("leaves out the lead-in 'Myth:' before it", False),
        ("leaves out ', not by hand' after it, which holds 'not'", False),
        ("crosses an omission [...] of the evidence: the text it stands for is not in the cache", False),
        ("the next sentence qualifies it: 'Not always.'", False),
    ],
)
def test_a_bulk_acceptance_takes_only_the_departures_a_quote_writes_itself(edit: str, own: bool) -> None:
    from skillcite.check.matching.marks import own_edit

    assert own_edit(edit) is own


@pytest.mark.parametrize("owned", [True, False])
def test_a_refusal_cites_its_own_footnotes_finding_not_its_neighbours_on_the_line(pkg: Package, monkeypatch: pytest.MonkeyPatch, owned: bool) -> None:
    # Issue 29: two quotes on one line citing two footnotes: the finding of one was laid at both doors,
    # so the other footnote's sound carry was refused too, citing a finding that was not its own.
    # Not owned: a finding no definition is found to own is traced by applying each definition's changes alone.
    if not owned:
        monkeypatch.setattr("skillcite.repair.safety.SafetyNet._culprits", lambda self, report, d, changes: set())
    start, end = _net_package(pkg)
    omega = line_of(pkg.read(SRC), "Omega")
    old = evidence_text(NET_OLD)
    omega_old = line_of(old, "Omega")
    pkg.write(SRC, old)
    pkg.replace("SKILL.md", '"Quoted sentence about a cheap assumption"[^src].', '"Quoted sentence about a cheap assumption"[^src] and "Omega sentence here"[^two].')
    pkg.write("SKILL.md", pkg.read("SKILL.md") + f"[^two]: B. ([cache](docs/evidence/src.md): omega L{omega_old})\n")
    commit_all(pkg.root)
    pkg.write(SRC, evidence_text(NET_NEW))
    r = fix(pkg.root, "--select", "SC403")
    refused = [x for x in r.output.splitlines() if x.startswith("refused: ")]
    assert len(refused) == 1 and refused[0].startswith(f"refused: SKILL.md:9: [^src]: L{start}-{end} -> "), r.output
    assert f"[^two]: B. ([cache](docs/evidence/src.md): omega L{omega})" in pkg.read("SKILL.md")
    assert r.exit_code == 1
