"""skillcite fix: carried and followed anchors, byte preservation, safety."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import BODY, Package, evidence_text, line_of
from skillcite.check import check
from skillcite.cli.app import main
from skillcite.repair.fix import plan_fixes, write

SRC = "docs/evidence/src.md"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def commit_all(root: Path) -> None:
    if not (root / ".git").exists():
        git(root, "init", "-q")
        git(root, "config", "user.email", "t@example.org")
        git(root, "config", "user.name", "t")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "snapshot")


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
    assert "[^para] anchor" in r.output and "re-anchor by hand" in r.output
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


def test_refuses_a_result_with_new_findings(pkg: Package) -> None:
    bug = line_of(pkg.read(SRC), "Assume you")
    pkg.replace("SKILL.md", f"bug L{bug}", f"bug L{bug + 3}")
    plan = plan_fixes(pkg.root)
    plan.refused = ["SKILL.md:1:1: SC207 invented"]
    with pytest.raises(RuntimeError):
        write(plan)


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
    assert fix(pkg.root).exit_code == 0
    ev = pkg.read(SRC)
    bug, silent = line_of(ev, "Assume you have a bug"), line_of(ev, "neural nets fail silently")
    assert f"([cache](docs/evidence/src.md): L{silent}+L{bug})" in pkg.read("SKILL.md")
    assert codes(pkg.root) == []
