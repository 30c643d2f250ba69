"""Issue 29, item 3: a quote whose new place has a context departure is placed too, and reviewed.

``fix`` used to refuse the anchor of a moved quote when, at its new lines,
the source around it changes what it may mean: a next sentence that
qualifies it, a lead-in it leaves out ("Myth:"), a "not only" its cut
leaves out. ``review`` lists a quote only once it has its anchor, so each
stayed "outside the cited lines" (SC301) for good; on wassname/ml-debug the
walkthrough of docs/adopting.md left 13 of them behind 8 refused
footnotes. Now ``fix`` places them; the departure is an ordinary SC313 that
``review`` shows; ``review --accept-all`` leaves such quotes to a person
(exit 1, each listed) unless ``--include-context`` is passed.

The repository is a real git repository: a skill quoting a cache that a
later commit rewrote, so that every anchor into it is stale and three of
the four quotes now sit in a context that qualifies them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_fix_review_walk import at, findings, git, header, run

OLD = header("Training large models", "https://example.org/large", "L. Arge") + "".join(f"Intro line {k} of the older page.\n" for k in range(6)) + (
    "\nWarm up the learning rate when the batch is large.\n\n"
    "Filler one.\n\n"
    "Warm restarts always help.\n\n"
    "Filler two.\n\n"
    "Clip the gradients of the critic to a norm of one.\n\n"
    "Log the gradient norm of every layer.\n"
)
NEW = header("Training large models", "https://example.org/large", "L. Arge") + (
    "Warm up the learning rate when the batch is large. But not on small data, where it only slows training down.\n\n"
    "Myth: warm restarts always help.\n\n"
    "It is not only the actor: clip the gradients of the critic to a norm of one.\n\n"
    "A paragraph the rewrite added.\n\n"
    "Log the gradient norm of every layer.\n"
)
QUOTES = {
    "warmup": "> Warm up the learning rate when the batch is large.[^large]",  # the next sentence qualifies it
    "restarts": "> Warm restarts always help.[^large]",  # a lead-in left out ("Myth:"), and a first letter
    "clip": "> Clip the gradients of the critic to a norm of one.[^large]",  # a cut that leaves out "not only"
    "log": "> Log the gradient norm of every layer.[^large]",  # verbatim: placed with nothing to review
}


def build(tmp_path: Path) -> Path:
    root = tmp_path / "foreign-skill"
    (root / "docs/evidence").mkdir(parents=True)
    (root / "docs/evidence/large.md").write_text(OLD)
    anchors = ", ".join(f"{label} L{at(OLD, QUOTES[label][2:].split('[^')[0].rstrip('.'))}" for label in QUOTES)
    (root / "SKILL.md").write_text(
        "---\nname: foreign\ndescription: Training advice whose quotes are checked.\n---\n# Foreign\n\n"
        + "\n\n".join(QUOTES.values())
        + f"\n\n[^large]: L. Arge, \"Training large models\" ([cache](docs/evidence/large.md): {anchors})\n"
    )
    (root / "pyproject.toml").write_text('[project]\nname = "foreign-skill"\nversion = "1.0.0"\n')
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a skill and its source")
    (root / "docs/evidence/large.md").write_text(NEW)  # the cache rewrite: every anchor into it goes stale
    git(root, "commit", "-qam", "refresh the source")
    return root


def walk(root: Path) -> list[tuple[str, int, Counter[str]]]:
    seen = []
    for command in (["init"], ["evidence", "adopt"], ["fix"]):
        status, _ = run(*command)
        seen.append((" ".join(command), status, findings(root)))
    return seen


def test_fix_places_quotes_whose_new_context_departs_and_review_shows_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(tmp_path)
    monkeypatch.chdir(root)
    assert walk(root) == [
        ("init", 0, Counter({"SC301": 4, "SC207": 3, "SC208": 1, "SC401": 1})),  # the rewrite is shorter: old anchors run past its end
        ("evidence adopt", 0, Counter({"SC301": 4, "SC207": 3, "SC208": 1})),
        ("fix", 0, Counter({"SC313": 3})),
    ]
    skill = (root / "SKILL.md").read_text()
    new = (root / "docs/evidence/large.md").read_text()
    lines = {label: at(new, words) for label, words in (("warmup", "Warm up"), ("restarts", "Myth:"), ("clip", "It is not only"), ("log", "Log the"))}
    assert f"warmup L{lines['warmup']}, restarts L{lines['restarts']}, clip L{lines['clip']}, log L{lines['log']})" in skill
    status, listing = run("review")
    assert status == 1
    assert listing.count("[not reviewed]") == 3
    assert "  - the next sentence qualifies it: 'But not on small data, where it only slows training down.'" in listing
    assert "  - leaves out the lead-in 'Myth:' before it" in listing
    assert "  - leaves out 'It is not only the actor:' before it, which holds 'not', 'only'" in listing
    assert listing.splitlines()[-1] == "3 quotes depart from verbatim: 0 reviewed, 3 not reviewed"


def test_bulk_acceptance_leaves_context_departures_to_a_person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(tmp_path)
    monkeypatch.chdir(root)
    walk(root)
    status, out = run("review", "--accept-all", "--by", "R <r@example.org>")
    assert status == 1
    left = [line for line in out.splitlines() if line.startswith("left ")]
    assert len(left) == 3 and all("(read it with skillcite review and accept it by ID, or pass --include-context)" in line for line in left)
    assert any(": its context departs: leaves out the lead-in 'Myth:' before it; leaves out 'Myth:' before it, which holds 'myth' (" in line for line in left)
    assert not any("first letter" in line for line in left)  # its own mark is not what keeps it out of the bulk
    assert out.splitlines()[-1] == "recorded 0 bulk acceptances by R <r@example.org> in docs/evidence/reviews.json; 3 whose context departs left to review one by one"
    assert findings(root) == Counter({"SC313": 3})
    ids = [line.split()[1] for line in left]
    status, out = run("review", *[x for i in ids for x in ("--accept", i)], "--by", "R <r@example.org>")
    assert (status, out) == (0, "recorded 3 reviews by R <r@example.org> in docs/evidence/reviews.json\n")
    assert findings(root) == Counter()


def test_bulk_acceptance_takes_context_departures_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(tmp_path)
    monkeypatch.chdir(root)
    walk(root)
    status, out = run("review", "--accept-all", "--include-context", "--by", "R <r@example.org>")
    assert status == 0
    assert [line.split()[:3] for line in out.splitlines()[:-1]] == [["accepted", "in", "bulk"]] * 3
    assert out.splitlines()[-1] == "recorded 3 bulk acceptances by R <r@example.org> in docs/evidence/reviews.json"
    assert findings(root) == Counter()


def test_include_context_goes_with_accept_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(tmp_path)
    monkeypatch.chdir(root)
    status, out = run("review", "--include-context")
    assert status == 2 and "--include-context goes with --accept-all" in out
