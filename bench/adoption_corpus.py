"""The documented adoption routes, run on real public skill repositories (issue 29).

Nothing is vendored: bench/adoption_corpus.toml names each repository, the
commit measured, its layout, and the reading of its findings (how many of
each code are real problems, and the classes of false alarms). This script
takes local copies, one per repository: a git directory or a checked-out
tree, given on the command line as ``owner/name=PATH`` (or found under
``/work/.mirror/<owner>+<name>/repo``, where the ``fetch`` tool leaves its
snapshots). Each is cloned at the recorded commit into a temporary folder
(history kept, so ``evidence adopt`` reads real commit dates), then the
literal route of docs/adopting.md runs command by command:

    check (nothing configured) -> init -> evidence adopt -> fix -> review --accept-all -> check

and after each step it prints the findings by code and the time the
command took. It then compares the last step with the TOML's real counts:
false alarms are findings beyond the real count of their code, named by the
class the TOML gives; the careful route (review each quote, fill each TODO,
fix each real finding by hand) is estimated from per-finding minutes in the
TOML, a model of a maintainer's time, not a measurement of one.

    python bench/adoption_corpus.py                      # every repository found under /work/.mirror
    python bench/adoption_corpus.py wassname/ml-debug=/path/to/git/dir
    python bench/adoption_corpus.py --only wassname/ml-debug --show SC304
    python bench/adoption_corpus.py --only wassname/ml-debug --keep /tmp/adopted   # then bench/check_speed.py --roots

Exit status 0 when the corpus ran (whatever it found), 2 when a copy is missing or unreadable.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tools")]

from click.testing import CliRunner  # noqa: E402
from skillcite.check import check  # noqa: E402
from skillcite.cli import main  # noqa: E402

CORPUS = Path(__file__).with_name("adoption_corpus.toml")
MIRROR = Path("/work/.mirror")
ROUTE: list[tuple[str, list[str]]] = [
    ("init", ["init"]),
    ("evidence adopt", ["evidence", "adopt"]),
    ("fix", ["fix"]),
    ("review --accept-all", ["review", "--accept-all"]),
]


@dataclass
class Step:
    """One step of the route: its findings by code and the seconds its command took."""

    name: str
    counts: Counter[str]
    seconds: float
    exit_code: int | None = None


@dataclass
class Outcome:
    """The route on one repository."""

    name: str
    steps: list[Step] = field(default_factory=list)
    final: list[tuple[str, str, int, str]] = field(default_factory=list)  # (code, path, line, message)
    todo_hosts: Counter[str] = field(default_factory=Counter)  # the source host of each file whose licence is TODO


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "bench",
           "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def copy_at(source: Path, commit: str, into: Path) -> Path:
    """A working copy of ``source`` (a git directory or a tree) at ``commit``, with its history where there is one."""
    target = into / "repo"
    if (source / "HEAD").is_file() or (source / ".git").exists():
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(target)], check=True, capture_output=True)
        git(target, "checkout", "-q", commit)
    else:  # an extracted tree (git archive): no history, so one commit holds it
        shutil.copytree(source, target, symlinks=True)
        git(target, "init", "-q")
        git(target, "add", "-A")
        git(target, "commit", "-qm", f"snapshot of {commit}")
    return target


def findings(root: Path) -> tuple[Counter[str], list[tuple[str, str, int, str]]]:
    with redirect_stdout(StringIO()), redirect_stderr(StringIO()):
        diags = check(root).diagnostics
    return Counter(d.code for d in diags), [(d.code, d.path, d.line, d.message) for d in diags]


def run_route(name: str, root: Path) -> Outcome:
    out = Outcome(name)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        start = time.perf_counter()
        counts, _ = findings(root)
        out.steps.append(Step("check (nothing configured)", counts, time.perf_counter() - start))
        for label, args in ROUTE:
            start = time.perf_counter()
            result = CliRunner().invoke(main, args)
            seconds = time.perf_counter() - start
            counts, _ = findings(root)
            out.steps.append(Step(label, counts, seconds, result.exit_code))
        start = time.perf_counter()
        counts, out.final = findings(root)
        out.steps.append(Step("check", counts, time.perf_counter() - start))
        out.todo_hosts = licence_hosts(root, out.final)
    finally:
        os.chdir(cwd)
    return out


_TODO_KEYS = re.compile(r"front matter: (?P<keys>[a-z, ]+) still TODO")
_SOURCE = re.compile(r"^source:[ \t]*['\"]?(?:https?://)?(?:www\.)?(?P<host>[^/\s'\"]+)", re.MULTILINE)


def todo_keys(final: list[tuple[str, str, int, str]]) -> Counter[str]:
    """How many files have each front-matter key still TODO (SC402 names them)."""
    out: Counter[str] = Counter()
    for code, _path, _line, message in final:
        m = _TODO_KEYS.search(message) if code == "SC402" else None
        if m:
            out.update(k.strip() for k in m.group("keys").split(","))
    return out


def licence_hosts(root: Path, final: list[tuple[str, str, int, str]]) -> Counter[str]:
    """The source host of each file whose licence is still TODO: one look-up per file, or per host where a host states one licence."""
    out: Counter[str] = Counter()
    for code, path, _line, message in final:
        m = _TODO_KEYS.search(message) if code == "SC402" else None
        if m and "license" in m.group("keys"):
            host = _SOURCE.search((root / path).read_text(encoding="utf-8", errors="replace"))
            out[host.group("host").lower() if host and host.group("host") != "TODO" else "(no source)"] += 1
    return out


def render(counts: Counter[str]) -> str:
    return ", ".join(f"{code} x{n}" for code, n in sorted(counts.items())) or "none"


def minutes(counts: Counter[str], per: dict[str, float], default: float) -> float:
    return sum(n * per.get(code, default) for code, n in counts.items())


def locate(name: str, given: dict[str, Path]) -> Path | None:
    if name in given:
        return given[name]
    mirrored = MIRROR / name.replace("/", "+") / "repo"
    return mirrored if mirrored.exists() else None


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("copies", nargs="*", help="owner/name=PATH (a git directory or a tree)")
    parser.add_argument("--only", action="append", default=[], help="run only this repository (repeatable)")
    parser.add_argument("--show", action="append", default=[], help="print each final finding of this code")
    parser.add_argument("--keep", type=Path, help="copy each adopted tree into this folder (as owner+name), to measure it further")
    args = parser.parse_args(argv)
    corpus = tomllib.loads(CORPUS.read_text(encoding="utf-8"))
    per = {k: float(v) for k, v in corpus["minutes"].items() if k != "default"}
    default = float(corpus["minutes"]["default"])
    given: dict[str, Path] = {}
    for item in args.copies:
        name, sep, path = item.partition("=")
        if not sep:
            print(f"{item}: expected owner/name=PATH", file=sys.stderr)
            return 2
        given[name] = Path(path)
    rows: list[tuple[str, int, int, int, str, float, float]] = []
    for repo in corpus["repo"]:
        name = repo["name"]
        if args.only and name not in args.only:
            continue
        source = locate(name, given)
        if source is None:
            print(f"{name}: no local copy (give {name}=PATH, or fetch it into {MIRROR})", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                root = copy_at(source, repo["commit"], Path(tmp))
            except (subprocess.CalledProcessError, OSError) as exc:
                print(f"{source}: cannot take commit {repo['commit'][:12]} ({exc})", file=sys.stderr)
                return 2
            outcome = run_route(name, root)
            if args.keep is not None:
                kept = args.keep / name.replace("/", "+")
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(root, kept, symlinks=True)
        print(f"\n## {name} @ {repo['commit'][:7]}: {repo['layout']}")
        print(f"{'step':<28} {'exit':>4} {'time':>7}  findings")
        for step in outcome.steps:
            status = "" if step.exit_code is None else str(step.exit_code)
            print(f"{step.name:<28} {status:>4} {step.seconds:6.1f}s  {sum(step.counts.values())}: {render(step.counts)}")
        final = outcome.steps[-1].counts
        real = Counter({k: int(v) for k, v in repo.get("real", {}).items()})
        alarms = Counter({code: n - real.get(code, 0) for code, n in final.items() if n > real.get(code, 0)})
        missed = Counter({code: n - final.get(code, 0) for code, n in real.items() if n > final.get(code, 0)})
        classes = repo.get("false_alarm_classes", {})
        print(f"real (the TOML's reading): {sum(real.values())}: {render(real)}")
        print(f"false alarms: {sum(alarms.values())}" + "".join(f"\n  {code} x{n}: {classes.get(code, 'unclassified: read them (--show ' + code + ')')}"
                                                          for code, n in sorted(alarms.items())))
        if missed:
            print(f"fewer than the reading (the reading or the tool is out of date): {render(missed)}")
        for code, path, line, message in outcome.final:
            if code in args.show:
                print(f"  {path}:{line}: {code} {message}")
        # The careful route: every quote --accept-all took is read one by one, every TODO filled in, every
        # false alarm recognised and set aside; the real findings go into the baseline (docs/adopting.md)
        # and are the repository's own work, estimated apart.
        reviews = outcome.steps[3].counts.get("SC313", 0)
        todo_files = final.get("SC402", 0)
        careful = reviews * per.get("SC313", default) + todo_files * per.get("SC402", default) + sum(alarms.values()) * float(corpus["minutes"]["false_alarm"])
        own = minutes(Counter({c: n for c, n in real.items() if c not in ("SC402", "SC313")}), per, default)  # both counted above
        tool = sum(s.seconds for s in outcome.steps)
        print(f"careful route (model): {careful / 60:.1f} h: {reviews} quotes to review one by one, {todo_files} files with a TODO, "
              f"{sum(alarms.values())} false alarms; then fixing the real findings: {own / 60:.1f} h")
        if todo_files:
            keys = todo_keys(outcome.final)
            hosts = outcome.todo_hosts
            known = {h: n for h, n in hosts.items() if h != "(no source)"}
            shared = {h: n for h, n in known.items() if n > 1}
            print(f"  still TODO: {render(keys)}; of the {sum(hosts.values())} licences to look up, {hosts['(no source)']} have no source yet and "
                  f"{sum(known.values())} are on {len(known)} hosts ({sum(shared.values())} files share a host: "
                  f"{', '.join(f'{h} x{n}' for h, n in sorted(shared.items(), key=lambda x: -x[1])) or 'none'})")
        rows.append((name, outcome.steps[0].counts.total(), sum(final.values()), sum(real.values()), str(sum(alarms.values())), careful / 60, tool))
    if rows:
        print("\n| repository | before | literal route | real | false alarms | careful route (h, model) | tool time (s) |")
        print("|---|---|---|---|---|---|---|")
        for name, before, after, real_n, alarms_n, careful_h, tool in rows:
            print(f"| {name} | {before} | {after} | {real_n} | {alarms_n} | {careful_h:.1f} | {tool:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
