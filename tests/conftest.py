"""Shared builders: small skill packages written into ``tmp_path``.

No fixture named SKILL.md is ever committed under tests/ (agents would load
it as a skill); every package is built here at run time.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

FRONT = """---
source: https://example.org/post
title: "A Post"
author: A. Author
published: 2020
retrieved: 2026-11-21
kind: {kind}
license: CC BY 4.0
sha256: {sha}
---
"""

BODY = """The first paragraph says that neural nets fail silently and you will not notice.

[...]

Assume you have a bug. Everything else follows from this.
It is a cheap assumption and an expensive one to skip.

A passage with [brackets] of its own and an ellipsis... in the source.
"""


def evidence_text(body: str = BODY, kind: str = "excerpt", sha: str | None = None) -> str:
    """An evidence file: front matter (10 lines) plus ``body``, locked unless ``sha`` is given."""
    if sha is not None:
        return FRONT.format(kind=kind, sha=sha) + body
    return locked(FRONT.format(kind=kind, sha="0" * 64) + body)


def locked(text: str) -> str:
    """``text`` (an evidence file) with its ``sha256`` line set to the lock ``skillcite lock`` writes."""
    from skillcite.repair.lock import relock_text

    return relock_text(text)[0]


def line_of(text: str, needle: str) -> int:
    """1-based line of the first occurrence of ``needle``."""
    return text[: text.index(needle)].count("\n") + 1


SKILL = """---
name: pkg
description: A test skill for the checker.
---
# Pkg

> Assume you have a bug.[^src]

As the post says, "neural nets fail silently"[^src].

See [the section](#pkg) and [the notes](notes.md).

[^src]: A. Author, "A Post" (2020) — https://example.org/post ([cache](docs/evidence/src.md): bug L{bug}, silent L{silent})
"""


class Package:
    """A package tree under a temporary root, with helpers to edit it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8"))
        return path

    def read(self, rel: str) -> str:
        return (self.root / rel).read_bytes().decode("utf-8")

    def replace(self, rel: str, old: str, new: str) -> None:
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, 1))


def skill_text(evidence: str = None) -> str:
    ev = evidence_text() if evidence is None else evidence
    return SKILL.format(bug=line_of(ev, "Assume you have a bug"), silent=line_of(ev, "neural nets fail silently"))


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory) -> None:
    """Keep the on-disk parse cache of every test run out of the user's home."""
    os.environ["SKILLCITE_CACHE_DIR"] = str(tmp_path_factory.mktemp("skillcite-cache"))


# Git as the tests see it: no user or system configuration (a global
# commit.gpgsign, hook path or alias would change what the tests' commits
# do), and an author and committer, which a bare machine lacks.
HERMETIC_GIT = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "skillcite tests",
    "GIT_AUTHOR_EMAIL": "tests@example.org",
    "GIT_COMMITTER_NAME": "skillcite tests",
    "GIT_COMMITTER_EMAIL": "tests@example.org",
}

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git on the PATH")


def _stretch_reads_as_whole(ev, stretch, wholes: dict) -> None:
    """Fail unless ``stretch`` (a narrow normalization of ``ev``) is the whole file's, text and offsets."""
    from skillcite.check.parsing.evidence import Evidence

    start, end = next(k for k, v in ev._stretches.items() if v is stretch)
    key = (id(ev.file), ev.file.text if ev.file else "")
    whole = wholes.get(key)
    if whole is None:
        wholes.clear()  # one file at a time: the audit must not hold every file of the run
        whole = wholes[key] = Evidence(ev.path, ev.rel, ev.file, ev.error, ev.front).whole()
    a, b = whole.from_source(start), whole.from_source(end)
    part = whole.text[a:b]
    lead = len(part) - len(part.lstrip(" "))
    assert part.strip(" ") == stretch.text.strip(" "), f"{ev.rel}: the stretch {start}-{end} reads differently from the whole file"
    for j in range(len(stretch.text)):
        assert stretch.to_source(j) == whole.to_source(a + lead + j), f"{ev.rel}: offset {j} of the stretch {start}-{end} maps elsewhere"


@pytest.fixture(autouse=True, scope="session")
def _audit_narrow_stretches():
    """Every narrow stretch any test builds is compared with the whole file's normalization (see test_narrow.py)."""
    from skillcite.check.parsing.evidence import Evidence

    real = Evidence.narrow
    wholes: dict = {}
    audited: set = set()

    def narrow(self, first, last):
        got = real(self, first, last)
        if got is not None and (id(got), first, last) not in audited:
            _stretch_reads_as_whole(self, got, wholes)
            audited.add((id(got), first, last))
        return got

    with pytest.MonkeyPatch.context() as m:
        m.setattr(Evidence, "narrow", narrow)
        yield


@pytest.fixture(autouse=True)
def _hermetic_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test, and every process it starts, runs git without the user's configuration."""
    for name, value in HERMETIC_GIT.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def pkg(tmp_path: Path) -> Package:
    """A clean package: one SKILL.md, one locked evidence file, one linked note."""
    return clean_package(tmp_path)


def clean_package(root: Path) -> Package:
    """Write the clean package of the ``pkg`` fixture under ``root``."""
    p = Package(root)
    p.write("pyproject.toml", '[tool.skillcite]\nevidence = "docs/evidence"\n')
    p.write("docs/evidence/src.md", evidence_text())
    p.write("SKILL.md", skill_text())
    p.write("notes.md", "# Notes\n\nPlain text.\n")
    return p
