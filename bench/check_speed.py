"""Benchmark ``skillcite check``: scale, fuzzy relocation, big files, imports.

Run from the repository root::

    python bench/check_speed.py            # 1x, 10x, 100x
    python bench/check_speed.py --scales 1 10

It prints numbers and asserts nothing: the targets are in the issue and the
results go into the closing note. Synthetic packages are generated under a
temporary folder with the repository's own shape (documents, quotes per
document, evidence files and their size), measured first.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORDS = (
    "loss gradient batch seed learning rate model data label noise overfit "
    "validation train step warmup clip norm layer weight bias update signal "
    "check assume bug silent fail inspect baseline probe reward policy value"
).split()


def repo_shape() -> dict[str, int]:
    """Documents, quotes and evidence bytes of the real repository."""
    sys.path.insert(0, str(REPO / "tools"))
    from skillcite.check import check

    report = check(REPO)
    ev_bytes = sum(len(e.file.text) for e in report.evidence.values() if e.file)
    return {
        "docs": len(report.documents),
        "quotes": len(report.outcomes),
        "sources": len(report.evidence),
        "evidence_bytes": ev_bytes,
    }


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(root: Path, shape: dict[str, int], scale: int, seed: int = 0) -> None:
    """Write a package ``scale`` times the repository's size under ``root``."""
    sys.path.insert(0, str(REPO / "tools"))
    from skillcite.repair.lock import relock_text

    rng = random.Random(seed)
    (root / "docs/evidence").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.skillcite]\nevidence = "docs/evidence"\n')
    n_sources = shape["sources"] * scale
    lines_per_source = max(20, shape["evidence_bytes"] // max(shape["sources"], 1) // 100)
    passages: list[tuple[str, int, str]] = []
    for s in range(n_sources):
        body_lines = [sentence(rng) for _ in range(lines_per_source)]
        body = "\n".join(body_lines) + "\n"
        digest = hashlib.sha256(body.encode()).hexdigest()
        front = (
            f"---\nsource: https://example.org/{s}\ntitle: Source {s}\nauthor: A\nretrieved: 2026-11-22\n"
            f"kind: excerpt\nlicense: CC BY 4.0\nsha256: {digest}\n---\n"
        )
        (root / f"docs/evidence/s{s}.md").write_text(relock_text(front + body)[0])  # the lock covers the whole file
        offset = front.count("\n")
        for k in rng.sample(range(lines_per_source), k=min(6, lines_per_source)):
            passages.append((f"s{s}", offset + k + 1, body_lines[k]))
    n_docs = shape["docs"] * scale
    per_doc = max(1, shape["quotes"] * scale // n_docs)
    rng.shuffle(passages)
    cursor = 0
    for d in range(n_docs):
        out = [f"# Document {d}\n"]
        defs = []
        for q in range(per_doc):
            src, line, text = passages[cursor % len(passages)]
            cursor += 1
            out.append(f"> {text}[^q{q}]\n\nOur own words about it.\n")
            defs.append(f"[^q{q}]: A. ([cache](../docs/evidence/{src}.md): L{line})")
        folder = root / f"d{d // 50}"
        folder.mkdir(exist_ok=True)
        (folder / f"doc{d}.md").write_text("\n".join(out) + "\n" + "\n".join(defs) + "\n")
    # Cite every source at least once so nothing is reported uncited.
    cited = {p[0] for p in passages[:cursor]}
    rest = [p for p in passages if p[0] not in cited]
    seen: set[str] = set()
    lines = ["# Index\n"]
    defs = []
    for i, (src, line, text) in enumerate(rest):
        if src in seen:
            continue
        seen.add(src)
        lines.append(f"> {text}[^i{i}]\n")
        defs.append(f"[^i{i}]: A. ([cache](docs/evidence/{src}.md): L{line})")
    (root / "index.md").write_text("\n".join(lines) + "\n" + "\n".join(defs) + "\n")


def run_check(root: Path, *extra: str) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KB) and summary line of one check process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "skillcite", "check", str(root), *extra], capture_output=True, text=True)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before), proc.stdout.strip().splitlines()[-1]


def _seconds(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=False, env=env)
    return time.perf_counter() - start


def bytecode_env(cached: bool) -> dict[str, str]:
    """The environment for a measured command, with or without Python's bytecode cache.

    An installed skillcite runs from compiled bytecode (pip compiles it at
    install; an editable install writes it on first import); with
    ``PYTHONDONTWRITEBYTECODE=1`` every run compiles every module it imports
    from source, which costs a warm check more than all its own work.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not cached:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def drop_bytecode() -> None:
    """Delete the compiled bytecode of the skillcite this benchmark runs, when it is this repository's."""
    import shutil

    sys.path.insert(0, str(REPO / "tools"))
    import skillcite

    package = Path(skillcite.__file__).resolve().parent
    if REPO.resolve() in package.parents:
        for folder in package.rglob("__pycache__"):
            shutil.rmtree(folder, ignore_errors=True)


def range_audit_ratios(root: Path, rounds: int = 5, cached_bytecode: bool = True) -> dict[str, float]:
    """Median seconds of the range-only audit, a warm and a cold check, and markdown-it-py alone, measured alternately.

    Alternating them in each round spreads the machine's load over all of
    them alike; the check's caches (results, parses, and bytecode when
    ``cached_bytecode``) are filled before the first round. Without
    ``cached_bytecode``, skillcite's bytecode is deleted first and never
    written, so every run compiles the modules it imports (the standard
    library keeps its compiled files, as in any installation). ``parse`` is
    ``bench/parse_floor.py``: markdown-it-py parsing every Markdown file and
    nothing else, the least any check that parses its inputs can cost.
    """
    env = bytecode_env(cached_bytecode)
    if not cached_bytecode:
        drop_bytecode()
    commands = {
        "audit": [sys.executable, str(REPO / "bench" / "range_audit.py"), str(root)],
        "warm": [sys.executable, "-m", "skillcite", "check", str(root)],
        "cold": [sys.executable, "-m", "skillcite", "check", str(root), "--no-cache"],
        "parse": [sys.executable, str(REPO / "bench" / "parse_floor.py"), str(root)],
    }
    for name in ("cold", "warm", "parse"):
        subprocess.run(commands[name], capture_output=True, check=False, env=env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            times[name].append(_seconds(cmd, env))
    return {name: sorted(values)[rounds // 2] for name, values in times.items()}


def regression_seconds() -> dict[str, float]:
    """The inputs that were once slow (tests check they finish; this times them)."""
    sys.path.insert(0, str(REPO / "tools"))
    from skillcite.check.normalize import normalize_text

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
    sys.path.insert(0, str(REPO / "tools"))
    from skillcite.check.anchors import Range
    from skillcite.check.evidence import Evidence

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
            from skillcite.check.matching import compile_quote, locate

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
    sys.path.insert(0, str(REPO / "tools"))
    from skillcite.check.anchors import Range
    from skillcite.check.evidence import Evidence
    from skillcite.check.matching import compile_quote, locate

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10, 100])
    args = ap.parse_args()

    shape = repo_shape()
    print(f"repository shape: {shape}")
    for label, make in (("repository", None), ("10x synthetic", 10)):
        with tempfile.TemporaryDirectory() as tmp:
            root = REPO
            if make is not None:
                root = Path(tmp)
                generate(root, shape, make)
            for cached in (True, False):
                t = range_audit_ratios(root, cached_bytecode=cached)
                a = t["audit"]
                print(
                    f"{label}, bytecode {'cached' if cached else 'not cached (PYTHONDONTWRITEBYTECODE=1)'}: "
                    f"range-only audit {a:.3f} s; check warm {t['warm']:.3f} s = {t['warm'] / a:.2f}x (goal <= 1.0x), "
                    f"cold {t['cold']:.3f} s = {t['cold'] / a:.2f}x (goal <= 2.0x); "
                    f"markdown-it-py alone {t['parse']:.3f} s = {t['parse'] / a:.2f}x (medians of 5, alternated)"
                )
    cold = sorted(run_check(REPO, "--no-cache")[0] for _ in range(5))
    run_check(REPO)  # fill the parse cache
    warm = sorted(run_check(REPO)[0] for _ in range(5))
    print(
        f"repository: median {cold[2]:.3f} s cold (--no-cache), {warm[2]:.3f} s warm cache "
        "(5 runs each, interpreter start included)"
    )
    base = sorted(startup() for _ in range(5))[2]
    print(f"interpreter + imports alone: {base:.3f} s (median of 5)")
    results = {}
    for scale in args.scales:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            generate(root, shape, scale)
            # Small scales are noisy next to start-up: take the median of 5.
            runs = sorted((run_check(root, "--no-cache") for _ in range(5 if scale <= 10 else 1)), key=lambda r: r[0])
            wall, peak, summary = runs[len(runs) // 2]
            results[scale] = wall
            quotes = int(summary.split(": ")[1].split(" ")[0])
            print(
                f"{scale:>4}x (cold): {wall:7.3f} s wall, peak RSS {peak / 1024:7.1f} MB, "
                f"{(wall - base) / max(quotes, 1) * 1e6:8.1f} us/quote after start-up | {summary}"
            )
    if 1 in results and 100 in results:
        ratio = (results[100] - base) / max(results[1] - base, 1e-9)
        print(f"100x / 1x after start-up: {ratio:.1f}x (target <= 120x)")
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
    print(importtime())


if __name__ == "__main__":
    main()
