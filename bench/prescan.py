"""What the line pre-scan saves a cold check: documents that can hold no quotation, footnote or link (issue 30, section 2).

    python bench/prescan.py                  # this repository, the real-shaped corpus, the adoption corpus
    python bench/prescan.py ROOT [ROOT ...]  # other packages

A document without any ``[``, ``<`` or ``>`` can hold no footnote reference
or definition, no link, no blockquote and no HTML quotation, so no
quotation either (an inline quote counts only with a footnote reference
after it). Such a document still needs its headings (link fragments),
fences, front matter and nesting read, which ``check/parsing/prescan.py``
reads from the lines where it can be sure. For each package this script
prints how many of the documents ``check`` parses have none of the three
characters, their share of the bytes, how many of them the scan read, and
the CPU of parsing every document into models with the scan and without it
(best of 5, in process), also as multiples of the range-only audit of the
same package (median of 3, child processes). It prints numbers and asserts
nothing; docs/maintaining.md ("Parsing fewer bytes") reads them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "bench"))

from skillcite.check.parsing import builder  # noqa: E402
from skillcite.check.parsing.prescan import scan  # noqa: E402
from skillcite.check.parsing.workspace import Workspace  # noqa: E402
from skillcite.core.config import load_config  # noqa: E402
from skillcite.core.textio import TextFile, read_text  # noqa: E402

TRIGGERS = "[<>"


def audit_seconds(root: Path) -> float:
    """Median CPU seconds of the range-only audit of ``root`` (3 child processes)."""
    runs = []
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, str(REPO / "bench" / "range_audit.py"), str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        runs.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(runs)


def parse_seconds(files: list[TextFile], with_scan: bool) -> float:
    """Least CPU seconds of 5 parses of ``files`` into models, as ``check`` parses them, with or without the scan."""
    real = builder.plain_document
    if not with_scan:
        builder.plain_document = lambda path, rel, file: None
    try:
        best = float("inf")
        for _ in range(5):
            t = time.process_time()
            for f in files:
                builder.parse_document(f.path, f.path.name, f)
            best = min(best, time.process_time() - t)
        return best
    finally:
        builder.plain_document = real


def measure(label: str, root: Path) -> None:
    ws = Workspace(root, load_config(root), use_cache=False)
    files = []
    for path in ws.discover():
        try:
            files.append(read_text(path))
        except Exception:  # an unreadable document is the check's finding, not this script's
            continue
    plain = [f for f in files if not any(ch in f.text for ch in TRIGGERS)]
    read = [f for f in plain if scan(f.text) is not None]
    every = parse_seconds(files, False)
    full, scanned = parse_seconds(read, False), parse_seconds(read, True)
    audit = audit_seconds(root)
    size, plain_size = sum(len(f.text) for f in files), sum(len(f.text) for f in plain)
    print(
        f"{label}: {len(plain)} of {len(files)} documents hold no [ < > ({plain_size / max(size, 1):.0%} of {size:,} chars), the scan read {len(read)}: "
        f"{full:.3f} s CPU parsed in full, {scanned:.3f} s scanned, {(full - scanned) / audit:.2f}x of the audit's {audit:.3f} s saved "
        f"(parsing every document in full: {every / audit:.2f}x)"
    )


def main() -> None:
    if len(sys.argv) > 1:
        for arg in sys.argv[1:]:
            measure(arg, Path(arg))
        return
    measure("this repository", REPO)
    from adoption_corpus import MIRROR, copy_at
    from check_speed import real_shaped

    with tempfile.TemporaryDirectory() as tmp:
        shaped = Path(tmp) / "pkg"
        real_shaped(shaped)
        measure("real-shaped corpus", shaped)
        corpus = tomllib.loads((REPO / "bench" / "adoption_corpus.toml").read_text(encoding="utf-8"))
        for k, repo in enumerate(corpus["repo"]):
            source = MIRROR / repo["name"].replace("/", "+") / "repo"
            if not source.exists():
                print(f"{repo['name']}: no local copy under {MIRROR} (fetch it first)")
                continue
            into = Path(tmp) / f"r{k}"
            into.mkdir()
            measure(repo["name"], copy_at(source, repo["commit"], into))


if __name__ == "__main__":
    main()
