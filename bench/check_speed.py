"""Benchmark ``skillcite check`` against a range-only audit: CPU and wall time, pair by pair.

Run from the repository root::

    python bench/check_speed.py                       # every corpus, growth to 100x
    python bench/check_speed.py --scales 1 10 --rounds 5
    python bench/check_speed.py --corpora repo real --audit "python other/audit.py {root}"
    python bench/check_speed.py --extras              # also fuzzy, hostile and big-file timings
    python bench/check_speed.py --corpora --scales --pads --roots /tmp/adopted/wassname+ml-debug

It prints numbers and asserts nothing. What it measures, and how:

* **Each run is one child process**, timed with ``os.wait4``: its own user +
  system CPU time, its wall time and its own peak RSS (not
  ``RUSAGE_CHILDREN``, whose ``ru_maxrss`` is the largest of all children so far).
* **Pairs, alternating.** Each round runs the audit and a check back to back
  (the order swapped every round), and the ratio is taken within the pair;
  the report gives min / median / max of the ratios, for CPU and for wall
  time. On a loaded machine CPU time is the figure to trust.
* **Cold** is a first check on a fresh runner: an empty cache folder, so it
  pays for writing the parse and result caches. **Warm** is the same command
  again with the cache kept. Skillcite's bytecode is compiled (as after
  ``pip install``).
* **Corpora.** ``repo``: this repository. ``real``: a corpus shaped like a
  real public skill repository (about 70 evidence files of mixed size, most
  lines never quoted; quotes of one to several lines, from lists, tables and
  paragraphs). ``copies``: N copies of this repository's documents and
  evidence, each copy with its own evidence folder (the growth to 100x with
  many evidence folders), so 100x is 100 times this repository's real work;
  each copy's files end with a line naming the copy, so that no parse is
  shared through the cache (parses are keyed by text).
* **Before and after.** ``--tools DIR`` measures the skillcite in ``DIR``
  (``git archive COMMIT tools | tar -x -C /tmp/old``) on the same corpora.
* **The anchor** is ``bench/range_audit.py``, this project's own stand-in for
  the range-only audits skill repositories run; pass a real one with
  ``--audit "COMMAND {root}"`` to measure against it instead.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"  # the skillcite measured; --tools names another (an earlier commit's, for before/after)
WORDS = (
    "loss gradient batch seed learning rate model data label noise overfit "
    "validation train step warmup clip norm layer weight bias update signal "
    "check assume bug silent fail inspect baseline probe reward policy value"
).split()


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _marked_line(rng: random.Random, n: int) -> tuple[str, str]:
    """One line of evidence prose and its plain words: some words emphasised, in code or linked."""
    raw, plain = [], []
    for _ in range(n):
        w = rng.choice(WORDS)
        plain.append(w)
        roll = rng.random()
        raw.append(f"*{w}*" if roll < 0.04 else f"`{w}`" if roll < 0.06 else f"[{w}](https://example.org/{w})" if roll < 0.08 else w)
    return " ".join(raw), " ".join(plain)


def _evidence_body(rng: random.Random, chars: int) -> tuple[list[str], list[tuple[int, int, str]]]:
    """Markdown of about ``chars`` characters, and the passages a quote may take: ``(first line, last line, plain text)`` (0-based)."""
    lines: list[str] = []
    passages: list[tuple[int, int, str]] = []
    size = 0
    while size < chars:
        kind = rng.random()
        start = len(lines)
        if kind < 0.08:
            lines += [f"## {sentence(rng, 4)[:-1]}", ""]
        elif kind < 0.25:
            for _ in range(rng.randint(3, 7)):
                raw, plain = _marked_line(rng, rng.randint(6, 14))
                passages.append((len(lines), len(lines), plain))
                lines.append(f"- {raw}")
            lines.append("")
        elif kind < 0.32:
            lines += ["| step | value | note |", "|---|---|---|"]
            lines += [f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} | {sentence(rng, 5)} |" for _ in range(rng.randint(3, 8))]
            lines.append("")
        elif kind < 0.40:
            lines += ["```python", *(f"x_{i} = model({rng.choice(WORDS)}, lr={rng.random():.3g})" for i in range(rng.randint(3, 12))), "```", ""]
        else:
            para = [_marked_line(rng, rng.randint(10, 16)) for _ in range(rng.randint(2, 6))]
            for k in range(len(para)):
                span = rng.randint(1, min(3, len(para) - k))
                passages.append((start + k, start + k + span - 1, " ".join(p[1] for p in para[k : k + span])))
            lines += [p[0] for p in para] + [""]
        size += sum(len(x) + 1 for x in lines[start:])
    return lines, passages


def real_shaped(root: Path, seed: int = 0, pad: int = 1, sources: int = 70) -> dict[str, int]:
    """A package shaped like a real public skill repository, written under ``root``; its counts.

    ``sources`` evidence files of mixed size (log-normal, 1.5 KB to 200 KB;
    ``pad`` times as many unquoted lines, for the memory measurement), one
    to five quotes each, of one to three lines (blockquotes, inline quotes,
    list items); the cited lines are about 2% of the evidence. Laid out as
    the Agent Skills format with no configuration: ``SKILL.md``,
    ``references/``, and a sub-skill ``sub/`` keeping ten of the sources in
    its own ``sub/docs/evidence``.
    """
    sys.path.insert(0, str(TOOLS))
    from skillcite.repair.lock import relock_text

    rng = random.Random(seed)
    cites: list[tuple[str, str, int, int, str]] = []  # (owner, evidence rel to owner, first, last, text)
    ev_chars = cited_chars = 0
    for s in range(sources):
        owner = "sub" if s >= sources - 10 else ""
        size = int(min(200_000, max(1_500, rng.lognormvariate(9.6, 1.0)))) * pad
        body, passages = _evidence_body(rng, size)
        front = (
            f"---\nsource: https://example.org/{s}\ntitle: Source {s}\nauthor: A\nretrieved: 2026-11-22\n"
            f"kind: excerpt\nlicense: CC BY 4.0\nsha256: 0\n---\n"
        )
        folder = root / owner / "docs/evidence"
        folder.mkdir(parents=True, exist_ok=True)
        text = relock_text(front + "\n".join(body) + "\n")[0]
        (folder / f"s{s}.md").write_text(text)
        ev_chars += len(text)
        offset = front.count("\n")
        for first, last, plain in rng.sample(passages, k=min(len(passages), rng.randint(1, 5))):
            cites.append((owner, f"docs/evidence/s{s}.md", offset + first + 1, offset + last + 1, plain))
            cited_chars += sum(len(x) + 1 for x in body[first : last + 1])
    rng.shuffle(cites)
    docs = {"": ["SKILL.md", *(f"references/r{i}.md" for i in range(12))], "sub": ["SKILL.md", "references/r0.md"]}
    for owner, names in docs.items():
        mine = [c for c in cites if c[0] == owner]
        for i, name in enumerate(names):
            path = root / owner / name
            path.parent.mkdir(parents=True, exist_ok=True)
            up = "../" * name.count("/")
            out = [f"---\nname: {owner or 'pkg'}\ndescription: A skill for a benchmark.\n---\n" if name == "SKILL.md" else "", f"# {name}\n"]
            defs = []
            for q, (_, ev, first, last, plain) in enumerate(mine[i :: len(names)]):
                out.append(f"{sentence(rng, 20)} {sentence(rng, 12)}\n")
                if rng.random() < 0.3:
                    out.append(f"- {sentence(rng, 8)}\n- {sentence(rng, 6)}\n")
                if rng.random() < 0.15:
                    out.append(f"```sh\nrun --seed {q}\n```\n")
                if rng.random() < 0.5:
                    out.append(f"> {plain}[^q{q}]\n")
                else:
                    words = plain.split()
                    out.append(f"It says \"{' '.join(words[: max(3, len(words) // 2)])}\"[^q{q}] and more.\n")
                anchor = f"L{first}" if first == last else f"L{first}-{last}"
                defs.append(f"[^q{q}]: A, \"Source\" — https://example.org/x ([cache]({up}{ev}): {anchor})")
            path.write_text("\n".join(out) + "\n" + "\n".join(defs) + "\n")
    return {"evidence files": sources, "evidence chars": ev_chars, "cited chars": cited_chars, "quotes": len(cites)}


@dataclass(frozen=True, slots=True)
class Run:
    """One child process: CPU seconds (user + system), wall seconds, its own peak RSS (MB), exit status, output."""

    cpu: float
    wall: float
    rss_mb: float
    status: int
    out: str


def measure(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``cmd`` and read its own resource use with ``os.wait4`` (never another child's)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    # ru_maxrss is in KB on Linux (bytes on macOS).
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return Run(usage.ru_utime + usage.ru_stime, wall, rss, proc.returncode, text)


def check_cmd(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "skillcite", "check", str(root), *extra]


def audit_cmd(root: Path, template: str | None) -> list[str]:
    if template:
        return [part.replace("{root}", str(root)) for part in shlex.split(template)]
    return [sys.executable, str(REPO / "bench" / "range_audit.py"), str(root)]


def cache_env(folder: Path) -> dict[str, str]:
    """The environment of a measured check: its own cache folder, bytecode as installed."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SKILLCITE_NO_CACHE")}
    env["SKILLCITE_CACHE_DIR"] = str(folder)
    return env


def spread(values: list[float]) -> str:
    """``min / median / max`` of ratios."""
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def pairs(root: Path, rounds: int, audit: str | None = None) -> dict[str, list[tuple[Run, Run]]]:
    """``{"cold": [(audit, check), ...], "warm": [...]}``: each check paired with an audit run next to it.

    Cold: a new, empty cache folder for every run (the first check on a
    fresh runner, cache writes included). Warm: the cold run's folder, run
    again. Each round alternates which of the pair goes first.
    """
    out: dict[str, list[tuple[Run, Run]]] = {"cold": [], "warm": []}
    acmd = audit_cmd(root, audit)
    measure(acmd)  # the audit's files in the page cache, as the check's are below
    with tempfile.TemporaryDirectory() as tmp:
        measure(check_cmd(root), cache_env(Path(tmp) / "prime"))
        for r in range(rounds):
            folder = Path(tmp) / f"c{r}"
            for mode in ("cold", "warm"):
                first_audit = (r + (mode == "warm")) % 2 == 0
                a = measure(acmd) if first_audit else None
                c = measure(check_cmd(root), cache_env(folder))
                if a is None:
                    a = measure(acmd)
                out[mode].append((a, c))
    return out


def report_pairs(label: str, found: dict[str, list[tuple[Run, Run]]]) -> None:
    for mode, runs in found.items():
        cpu = [c.cpu / a.cpu for a, c in runs]
        wall = [c.wall / a.wall for a, c in runs]
        med = lambda xs: statistics.median(xs)  # noqa: E731
        print(
            f"{label} {mode}: check {med([c.cpu for _, c in runs]):.3f} s CPU, {med([c.wall for _, c in runs]):.3f} s wall, "
            f"peak RSS {med([c.rss_mb for _, c in runs]):.0f} MB; audit {med([a.cpu for a, _ in runs]):.3f} s CPU | "
            f"ratio to the audit, min/median/max of {len(runs)} pairs: CPU {spread(cpu)}, wall {spread(wall)}"
        )
    last = found["cold"][-1][1].out.strip().splitlines()
    print(f"  {last[-1] if last else '(no output)'}")


# -- corpora ---------------------------------------------------------------------
def repo_documents() -> list[Path]:
    """The documents the check of this repository reads (relative paths)."""
    sys.path.insert(0, str(TOOLS))
    from skillcite.check.parsing.workspace import Workspace

    ws = Workspace(REPO)
    return [p.relative_to(REPO) for p in ws.discover()]


def copies(root: Path, n: int) -> None:
    """``n`` copies of this repository's documents and evidence under ``root``, each with its own evidence folder."""
    sys.path.insert(0, str(TOOLS))
    from skillcite.core.config import load_config

    from skillcite.repair.lock import relock_text

    config = load_config(REPO)
    docs = repo_documents()
    evidence = sorted((REPO / "docs/evidence").rglob("*"))
    for k in range(n):
        # Every file's text differs from copy to copy (a last line naming the
        # copy; evidence relocked), so no parse or normalization is shared: 100x
        # is 100 times the work, as 100 different repositories would be.
        top = root / f"c{k}"
        for path in evidence:
            target = top / "docs/evidence" / path.relative_to(REPO / "docs/evidence")
            if path.is_dir():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".md" and path.name != "README.md":
                target.write_text(relock_text(path.read_text(encoding="utf-8") + f"\nCopy {k}.\n")[0], encoding="utf-8")
            else:
                shutil.copyfile(path, target)
        for rel in docs:
            (top / rel).parent.mkdir(parents=True, exist_ok=True)
            (top / rel).write_text((REPO / rel).read_text(encoding="utf-8") + f"\n<!-- copy {k} -->\n", encoding="utf-8")
    glob = lambda items: "[" + ", ".join(f'"c*/{g}"' for g in items) + "]"  # noqa: E731
    evidence = "[" + ", ".join(f'"c{k}/docs/evidence"' for k in range(n)) + "]"
    (root / "pyproject.toml").write_text(
        f"[tool.skillcite]\nevidence = {evidence}\ncontent = {glob(config.content)}\ntoc = {glob(config.toc)}\n"
    )


def regression_seconds() -> dict[str, float]:
    """The inputs that were once slow (tests check they finish; this times them)."""
    sys.path.insert(0, str(TOOLS))
    from skillcite.check.parsing.normalize import normalize_text

    out = {}
    text = "深度学习模型的训练很难调试。" * 200_000
    start = time.perf_counter()
    normalize_text(text)
    out["2.8 M CJK characters normalized"] = time.perf_counter() - start
    return out


def startup() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import skillcite.cli.app"], check=True)
    return time.perf_counter() - start


def fuzzy_relocation_ms(size: int = 1_000_000, repeats: int = 5) -> float:
    """Median ms to locate one altered 300-character quote in a ``size`` file."""
    sys.path.insert(0, str(TOOLS))
    from skillcite.check.parsing.anchors import Range
    from skillcite.check.parsing.evidence import Evidence

    rng = random.Random(1)
    text = "---\nsource: https://x\n---\n"
    lines = []
    while len(text) < size:
        line = sentence(rng, 16)
        lines.append(line)
        text += line + "\n"
    target = len(lines) // 2
    quote = lines[target] + " " + lines[target + 1] + " " + lines[target + 2]
    quote = quote[:300].rsplit(" ", 1)[0]
    altered = quote.replace(" ", " very ", 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "e.md"
        path.write_text(text)
        times = []
        for _ in range(repeats):
            from skillcite.check.matching.pattern import compile_quote
            from skillcite.check.matching.locate import locate

            compile_quote.cache_clear()
            ev = Evidence.load(path, "e.md")
            ev.whole()  # normalization is shared by all quotes of a file; time the search
            start = time.perf_counter()
            m = locate(altered, ev, [[Range(5, 6)]])
            times.append((time.perf_counter() - start) * 1000)
            assert m.status == "altered", m
    return sorted(times)[len(times) // 2]


def hostile_quote_seconds(words: int | None = None, chars: int | None = None, evidence_bytes: int = 28_000) -> tuple[float, str]:
    """Seconds to locate one long quote that matches nothing, and its outcome.

    The worst case for fuzzy matching: the quote is made of the evidence's
    own words in a random order, so every window looks a little like it.
    Before the fuzzy pass was bounded, 2,000 words against 28 KB took 27 s
    and a 1.2 MB quote over 90 minutes.
    """
    sys.path.insert(0, str(TOOLS))
    from skillcite.check.parsing.anchors import Range
    from skillcite.check.parsing.evidence import Evidence
    from skillcite.check.matching.pattern import compile_quote
    from skillcite.check.matching.locate import locate

    rng = random.Random(3)
    source = (REPO / "docs/evidence/ppo_37_implementation_details.md").read_text(encoding="utf-8")
    body = source.split("---\n", 2)[2]
    body = (body * (evidence_bytes // len(body) + 1))[:evidence_bytes]
    vocab = body.split()
    if chars is not None:
        parts: list[str] = []
        size = 0
        while size < chars:
            word = rng.choice(vocab)
            parts.append(word)
            size += len(word) + 1
        quote = " ".join(parts)
    else:
        quote = " ".join(rng.choice(vocab) for _ in range(words or 1))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "e.md"
        path.write_text("---\nsource: https://x\n---\n" + body + "\n", encoding="utf-8")
        compile_quote.cache_clear()
        ev = Evidence.load(path, "e.md")
        ev.whole()
        start = time.perf_counter()
        m = locate(quote, ev, [[Range(5, 20)]])
        return time.perf_counter() - start, m.status


def big_file_seconds(megabytes: int) -> float:
    """Seconds to check a package whose one evidence file has ``megabytes`` MB."""
    rng = random.Random(2)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        chunk = "\n".join(sentence(rng, 16) for _ in range(2000)) + "\n"
        body = chunk * max(1, megabytes * 1_000_000 // len(chunk))
        first = body.split("\n", 1)[0]
        digest = hashlib.sha256(body.encode()).hexdigest()
        (root / "docs/evidence").mkdir(parents=True)
        front = f"---\nsource: https://x.org\ntitle: t\nauthor: a\nretrieved: 2026-11-22\nkind: excerpt\nlicense: x\nsha256: {digest}\n---\n"
        (root / "docs/evidence/big.md").write_text(front + body)
        (root / "doc.md").write_text(f"> {first}[^a]\n\n[^a]: A. ([cache](docs/evidence/big.md): L{front.count(chr(10)) + 3})\n")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "skillcite", "check", str(root), "--no-cache"], capture_output=True)
        return time.perf_counter() - start


def importtime() -> str:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import skillcite.cli.app, skillcite.check.run"],
        capture_output=True, text=True,
    ).stderr
    heavy = [line for line in out.splitlines() if any(m in line for m in ("requests", "trafilatura"))]
    total = out.strip().splitlines()[-1]
    return ("requests/trafilatura imported: " + ("; ".join(heavy) if heavy else "no")) + "\n  last line: " + total


def growth(scales: list[int]) -> None:
    """Cold check CPU at 1x, 10x, 100x copies of this repository (one evidence folder per copy)."""
    results: dict[int, Run] = {}
    for scale in scales:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "pkg"
            copies(root, scale)
            runs = [measure(check_cmd(root), cache_env(Path(tmp) / f"cache{i}")) for i in range(3 if scale <= 10 else 1)]
            run = sorted(runs, key=lambda r: r.cpu)[len(runs) // 2]
            results[scale] = run
            summary = run.out.strip().splitlines()[-1] if run.out.strip() else "(no output)"
            print(f"{scale:>4}x copies, {scale} evidence folders (cold): {run.cpu:7.2f} s CPU, {run.wall:7.2f} s wall, peak RSS {run.rss_mb:6.0f} MB | {summary}")
    if 1 in results and max(results) > 1:
        top = max(results)
        import math

        exponent = math.log(results[top].cpu / results[1].cpu) / math.log(top)
        print(f"{top}x / 1x: {results[top].cpu / results[1].cpu:.1f}x CPU (growth exponent {exponent:.2f}; start-up included)")


def memory(pads: list[int]) -> None:
    """Peak RSS of a cold check of the real-shaped corpus as its unquoted evidence lines grow."""
    for pad in pads:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "pkg"
            shape = real_shaped(root, pad=pad)
            run = measure(check_cmd(root), cache_env(Path(tmp) / "cache"))
            print(f"real-shaped, unquoted evidence x{pad} ({shape['evidence chars'] / 1e6:.1f} M chars): peak RSS {run.rss_mb:.0f} MB, {run.cpu:.2f} s CPU (cold)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", nargs="*", default=["repo", "real"], choices=["repo", "real"])
    ap.add_argument("--roots", nargs="*", type=Path, default=[], help="other packages to pair with the audit, cold and warm (an adopted copy of a real repository)")
    ap.add_argument("--rounds", type=int, default=7, help="pairs per corpus and mode")
    ap.add_argument("--scales", type=int, nargs="*", default=[1, 10, 100], help="copies of this repository for the growth run")
    ap.add_argument("--pads", type=int, nargs="*", default=[1, 4], help="unquoted-evidence multipliers for the memory run")
    ap.add_argument("--audit", help='the audit command, "{root}" standing for the package (default: bench/range_audit.py)')
    ap.add_argument("--extras", action="store_true", help="also fuzzy relocation, hostile quotes, big files and imports")
    ap.add_argument("--tools", type=Path, help="the tools/ folder of the skillcite to measure (default: this checkout's)")
    args = ap.parse_args()
    if args.tools is not None:
        global TOOLS
        TOOLS = args.tools.resolve()
        os.environ["PYTHONPATH"] = os.pathsep.join([str(TOOLS), *filter(None, [os.environ.get("PYTHONPATH")])])

    print(f"skillcite from {TOOLS}; python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for corpus in args.corpora:
        with tempfile.TemporaryDirectory() as tmp:
            root = REPO
            if corpus == "real":
                root = Path(tmp) / "pkg"
                shape = real_shaped(root)
                print(f"real-shaped corpus: {shape} ({shape['cited chars'] / shape['evidence chars']:.1%} of evidence characters cited)")
            report_pairs(corpus, pairs(root, args.rounds, args.audit))
    for root in args.roots:
        report_pairs(str(root), pairs(root.resolve(), args.rounds, args.audit))
    if args.scales:
        growth(args.scales)
    if args.pads:
        memory(args.pads)
    if not args.extras:
        return
    print(f"altered 300-char quote in 1 MB: {fuzzy_relocation_ms():.1f} ms median (target <= 20 ms)")
    for label, kwargs in (
        ("2,000-word non-matching quote vs 28 KB", {"words": 2000}),
        ("4,000-word non-matching quote vs 28 KB", {"words": 4000}),
        ("1.2 MB non-matching quote vs 28 KB", {"chars": 1_200_000}),
        ("2,000-word non-matching quote vs 1 MB", {"words": 2000, "evidence_bytes": 1_000_000}),
    ):
        seconds, status = hostile_quote_seconds(**kwargs)  # type: ignore[arg-type]
        print(f"{label}: {seconds:.3f} s ({status}; was 27 s, 216 s and > 90 min before the bound)")
    for label, seconds in regression_seconds().items():
        print(f"{label}: {seconds:.2f} s")
    for mb in (5, 50):
        print(f"{mb:>3} MB evidence file: {big_file_seconds(mb):.2f} s")
    print(f"interpreter + imports alone: {startup():.3f} s")
    print(importtime())


if __name__ == "__main__":
    main()
