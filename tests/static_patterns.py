"""The searches of refs/static_analysis.md, read from the Markdown at test time.

The Markdown is the single source: every ```bash block names each command with a comment
line ``# <id>: <what it finds>``; the table under "Which search flags which zoo bug" says
which zoo bugs each search flags; the ``ml_lint.sh`` block repeats the flagging searches.
This module parses those three things and runs a search two ways: with ripgrep, and with
the ``re`` emulation in ``rg_emulation``.

Usage (prints, per search, the zoo bugs whose buggy file it hits, with ``*`` when the fixed
twin stays quiet):  python tests/static_patterns.py [--rg]
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rg_emulation  # a sibling module, found when run as a script too

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "refs" / "static_analysis.md"
ZOO = ROOT / "tests" / "bugzoo"
TABLE_HEADING = "## Which search flags which zoo bug"
EYE = "to read by eye"
FLAGS = "flags"

_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.DOTALL | re.MULTILINE)
_NAME = re.compile(r"^# ([a-z0-9]+(?:-[a-z0-9]+)*): (\S.*)$")
_ROW = re.compile(r"^\| `([a-z0-9-]+)` \| ([^|]+?) \| ([^|]*?) \|$")
_TICKED = re.compile(r"`([a-z0-9_]+)`")


@dataclass(frozen=True)
class Search:
    """One documented search: its id, its comment, its command, and its section heading."""

    id: str
    description: str
    command: str
    section: str


@dataclass(frozen=True)
class Claim:
    """A table row: whether the search flags (or is read by eye) and the zoo bugs it claims."""

    kind: str
    bugs: frozenset[str]


def doc_text() -> str:
    """The Markdown source of the searches."""
    return DOC.read_text(encoding="utf-8")


def _blocks(text: str):
    """(section heading, block body) for every ```bash block."""
    for m in _BLOCK.finditer(text):
        headings = re.findall(r"^## (.+)$", text[: m.start()], re.MULTILINE)
        yield (headings[-1] if headings else ""), m.group(1)


def searches(text: str | None = None) -> list[Search]:
    """Every named command outside the ml_lint.sh block, in document order."""
    text = doc_text() if text is None else text
    found: list[Search] = []
    for section, body in _blocks(text):
        if body.startswith("#!"):
            continue
        name = None
        for line in re.sub(r"\s*\\\n\s*", " ", body).splitlines():  # join continued lines
            m = _NAME.match(line)
            if m:
                name = m.groups()
            elif line.strip():
                if name is None:
                    raise ValueError(f"command without a '# id: description' line in {section!r}: {line}")
                found.append(Search(name[0], name[1], line.strip(), section))
                name = None
    ids = [s.id for s in found]
    if len(ids) != len(set(ids)):
        raise ValueError(f"repeated search ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return found


def lint_script_text(text: str | None = None) -> str:
    """The body of the ml_lint.sh block (the only ```bash block that opens with ``#!``)."""
    text = doc_text() if text is None else text
    bodies = [body for _, body in _blocks(text) if body.startswith("#!")]
    if len(bodies) != 1:
        raise ValueError(f"expected one script block, found {len(bodies)}")
    return bodies[0]


def lint_script(text: str | None = None) -> dict[str, list[str]]:
    """The ``run <id> <command>`` lines of the ml_lint.sh block, as id -> argv tokens."""
    runs: dict[str, list[str]] = {}
    for line in lint_script_text(text).splitlines():
        if line.startswith("run "):
            _, name, *argv = shlex.split(line)
            if argv[:2] == ["sh", "-c"] and len(argv) == 3:
                argv = shlex.split(argv[2])
            runs[name] = argv
    return runs


def claims(text: str | None = None) -> dict[str, Claim]:
    """The table rows: search id -> Claim."""
    rows: dict[str, Claim] = {}
    for line in _table_section(text).splitlines():
        m = _ROW.match(line)
        if m:
            sid, kind, bugs = m.groups()
            if kind not in (FLAGS, EYE):
                raise ValueError(f"kind of {sid!r} is {kind!r}, not {FLAGS!r} or {EYE!r}")
            rows[sid] = Claim(kind, frozenset(_TICKED.findall(bugs)))
    return rows


def targets(text: str | None = None) -> set[str]:
    """The zoo bugs the table section lists as targets (no search flags them)."""
    for paragraph in _table_section(text).split("\n\n"):
        if paragraph.startswith("**Targets**"):
            return set(_TICKED.findall(paragraph))
    raise ValueError("no **Targets** line in the table section")


def _table_section(text: str | None) -> str:
    text = doc_text() if text is None else text
    start = text.index(TABLE_HEADING)
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def zoo_bugs(zoo: Path = ZOO) -> list[str]:
    """Folders of the bug zoo that hold a buggy.py and fixed.py pair."""
    return sorted(p.name for p in zoo.iterdir() if (p / "buggy.py").is_file() and (p / "fixed.py").is_file())


def copy_zoo(dest: Path, zoo: Path = ZOO) -> Path:
    """The zoo's program pairs alone (no caches, no ignore files) under ``dest``."""
    for bug in zoo_bugs(zoo):
        for name in ("buggy.py", "fixed.py"):
            target = dest / bug / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(zoo / bug / name, target)
    return dest


def rg_available() -> bool:
    """True when ripgrep with PCRE2 support is on PATH."""
    if shutil.which("rg") is None:
        return False
    probe = subprocess.run(["rg", "--pcre2-version"], check=False, capture_output=True)
    return probe.returncode == 0


def run_bash(args: list[str], cwd: Path, config_dir: Path) -> str:
    """Standard output of ``bash args`` in ``cwd``, with ripgrep sorting files by path.

    stdin is /dev/null (a character device), so a first ``rg`` without paths searches the
    folder, as it does from a terminal. The config file pins the order of files, which
    ripgrep otherwise leaves to its threads; it also shuts out the user's own config.
    """
    config = config_dir / "ripgreprc"
    config.write_text("--sort=path\n")
    env = {**os.environ, "RIPGREP_CONFIG_PATH": str(config)}
    done = subprocess.run(["bash", *args], check=False, cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    # 1: no match; 123: xargs saying one of its rg runs found no match.
    if done.stderr or done.returncode not in (0, 1, 123):
        raise RuntimeError(f"{args}\nexit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return done.stdout.decode("utf-8")


def run_rg(command: str, cwd: Path, config_dir: Path) -> str:
    """Standard output of one documented command run by ripgrep (see :func:`run_bash`)."""
    return run_bash(["-c", command], cwd, config_dir)


def hit_files(command: str, cwd: Path) -> set[str]:
    """Corpus files (relative paths) behind the output records of the emulated command."""
    return {r.origin for r in rg_emulation.run(command, cwd) if r.origin}


def measure(command: str, corpus: Path, bugs: list[str]) -> tuple[set[str], set[str]]:
    """(bugs whose buggy.py the search hits, bugs whose fixed.py it hits) on a zoo copy."""
    files = hit_files(command, corpus)
    return {b for b in bugs if f"{b}/buggy.py" in files}, {b for b in bugs if f"{b}/fixed.py" in files}


def _report(use_rg: bool) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        corpus = copy_zoo(Path(tmp) / "zoo")
        bugs = zoo_bugs()
        for s in searches():
            buggy, fixed = measure(s.command, corpus, bugs)
            agree = ""
            if use_rg:
                same = run_rg(s.command, corpus, Path(tmp)) == rg_emulation.render(rg_emulation.run(s.command, corpus))
                agree = " [rg agrees]" if same else " [rg DIFFERS]"
            marks = ", ".join(b + ("*" if b not in fixed else "") for b in sorted(buggy)) or "-"
            print(f"{s.id:32s}{agree} {marks}")


if __name__ == "__main__":
    _report("--rg" in sys.argv[1:])
