"""The searches of refs/static_analysis.md, run from the Markdown on the bug zoo.

No torch needed: the zoo programs are only searched as text. With ripgrep (built with PCRE2)
on PATH, every command also runs through ripgrep, and its output must equal the emulation's
byte for byte; without it those comparisons skip and the emulation alone is checked against
the table.
"""

from __future__ import annotations

import shlex

import pytest
import rg_emulation
import static_corpus
import static_patterns as sp

SEARCHES = sp.searches()
BY_ID = {s.id: s for s in SEARCHES}
CLAIMS = sp.claims()
BUGS = sp.zoo_bugs()
FLAG_IDS = [s.id for s in SEARCHES if CLAIMS.get(s.id, sp.Claim("", frozenset())).kind == sp.FLAGS]

needs_rg = pytest.mark.skipif(
    not sp.rg_available(),
    reason="ripgrep with PCRE2 is not on PATH: rg-vs-re comparison skipped (the re emulation is still checked)",
)

# Option forms the documented commands do not use today, compared with ripgrep all the same.
EXTRA_COMMANDS = [
    "rg -n -i 'SOFTMAX\\('",
    "rg -n -w -t py 'loss'",
    "rg -n -g '*.ipynb' 'softmax\\('",
    "rg -n -C2 -t py '\\.backward\\('",
    "rg --files-with-matches --type py 'no_grad'",
    "rg --line-number --after-context=1 -tpy 'zero_grad'",
    "rg -l -0 -t py 'Softmax' | xargs -0 -r rg -n -B1 'softmax'",
]

# Constructs the emulation must refuse rather than approximate.
REFUSED = [
    "rg -n --pcre2 'f(\\((?:[^()]++|(?1))*\\))'",  # recursion
    "rg -n '(?<!x)y'",  # look-behind without --pcre2: ripgrep itself rejects it
    "rg -c 'x'",
    "rg -L 'x'",  # -L is --follow in ripgrep, not --files-without-match
    "rg -l 'x' | xargs rg -n 'y'",  # xargs without -0 -r splits on blanks and quotes
    "rg -n 'x' | sort",
    "rg -n --pcre2 '\\Kx'",
    "rg -n -t py -g '*.py' 'x'",
]


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> dict:
    """The zoo and the planted examples, each copied alone into a fresh folder."""
    return {
        "zoo": sp.copy_zoo(tmp_path_factory.mktemp("zoo")),
        "planted": static_corpus.write(static_corpus.PLANTED, tmp_path_factory.mktemp("planted")),
        "one_file": static_corpus.write(static_corpus.ONE_FILE, tmp_path_factory.mktemp("one")),
    }


def test_every_command_is_named_and_is_a_search():
    assert len(SEARCHES) >= 30
    for s in SEARCHES:
        assert s.command.startswith("rg "), s
        assert s.description, s


def test_table_has_one_row_per_search():
    assert set(CLAIMS) == set(BY_ID), {"rows without a search": set(CLAIMS) - set(BY_ID), "searches without a row": set(BY_ID) - set(CLAIMS)}


def test_table_names_only_zoo_bugs():
    named = set().union(*(c.bugs for c in CLAIMS.values())) | sp.targets()
    assert named <= set(BUGS), named - set(BUGS)


@pytest.mark.parametrize("sid", list(BY_ID))
def test_table_agrees_with_the_zoo(sid, corpora):
    buggy, fixed = sp.measure(BY_ID[sid].command, corpora["zoo"], BUGS)
    claim = CLAIMS[sid]
    if claim.kind == sp.FLAGS:
        assert buggy - fixed == claim.bugs, f"{sid} flags {sorted(buggy - fixed)}, the table says {sorted(claim.bugs)}"
    else:
        assert claim.bugs <= buggy, f"{sid} misses the buggy file of {sorted(claim.bugs - buggy)}"


def test_targets_are_the_bugs_no_search_flags():
    flagged = set().union(*(c.bugs for c in CLAIMS.values() if c.kind == sp.FLAGS))
    assert sp.targets() == set(BUGS) - flagged


@pytest.mark.parametrize("sid", list(BY_ID))
def test_every_search_fires_on_the_planted_examples(sid, corpora):
    hits = sp.hit_files(BY_ID[sid].command, corpora["planted"])
    assert hits, f"{sid} hits nothing in tests/static_corpus.py"
    assert not any(h.startswith(".hidden/") or h.endswith((".txt", ".ipynb")) for h in hits), hits


def test_one_path_through_xargs_keeps_its_origin(corpora):
    command = BY_ID["softmax-in-ce-files"].command
    records = rg_emulation.run(command, corpora["one_file"])
    assert records and all(":" in r.text and not r.text.startswith("only.py") for r in records)
    assert {r.origin for r in records} == {"only.py"}


@needs_rg
@pytest.mark.parametrize("corpus", ["zoo", "planted", "one_file"])
@pytest.mark.parametrize("sid", list(BY_ID))
def test_ripgrep_and_emulation_agree(sid, corpus, corpora, tmp_path):
    command = BY_ID[sid].command
    expected = sp.run_rg(command, corpora[corpus], tmp_path)
    assert rg_emulation.render(rg_emulation.run(command, corpora[corpus])) == expected


@needs_rg
@pytest.mark.parametrize("command", EXTRA_COMMANDS)
def test_ripgrep_and_emulation_agree_on_other_options(command, corpora, tmp_path):
    expected = sp.run_rg(command, corpora["planted"], tmp_path)
    assert expected, "a comparison on empty output proves little"
    assert rg_emulation.render(rg_emulation.run(command, corpora["planted"])) == expected


@pytest.mark.parametrize("command", REFUSED)
def test_emulation_refuses_what_it_does_not_model(command, corpora):
    with pytest.raises(rg_emulation.Unsupported):
        rg_emulation.run(command, corpora["planted"])


def test_lint_script_runs_exactly_the_flagging_searches():
    script = sp.lint_script()
    assert list(script) == FLAG_IDS
    for sid, argv in script.items():
        assert argv == shlex.split(BY_ID[sid].command), sid


@needs_rg
def test_lint_script_prints_what_each_search_prints(corpora, tmp_path):
    script = tmp_path / "ml_lint.sh"
    script.write_text(sp.lint_script_text())
    printed = sp.run_bash([str(script), str(corpora["zoo"])], tmp_path, tmp_path)
    sections = dict(s.split("\n", 1) for s in printed.split("\n== ")[1:])
    assert list(sections) == FLAG_IDS
    for sid, out in sections.items():
        assert out == sp.run_rg(BY_ID[sid].command, corpora["zoo"], tmp_path), sid
