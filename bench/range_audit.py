"""A range-only audit, standard library only: the baseline ``check_speed.py`` compares against.

What skill repositories often run instead of a quote check: read every
Markdown file and every evidence file, find each cache link's line anchors
(``([cache](path): label L12-20, L30)`` or ``#L12-L20``) and check that each
range lies inside its file. Nothing more: no parsing, no quote matching.
The evidence folders are the one given and every sub-skill's
``*/docs/evidence``, as skill repositories lay them out.

    python bench/range_audit.py ROOT [EVIDENCE_FOLDER]

Prints the number of files, anchors and ranges out of bounds; exits 1 on any.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

LINK = re.compile(r"\]\(([^()\s#]+\.md)(?:#L(\d+)(?:-L?(\d+))?)?\)(?::([^;()\n]*))?")
RANGE = re.compile(r"L(\d+)(?:-L?(\d+))?")


def audit(root: Path, evidence: str = "docs/evidence") -> tuple[int, int, list[str]]:
    """``(files read, ranges checked, problems)`` for the package at ``root``."""
    lines: dict[Path, int] = {}
    ev_roots = {(root / evidence).resolve(), *(p.resolve() for p in root.glob("*/docs/evidence"))}
    for ev_root in ev_roots:
        for dirpath, dirnames, filenames in os.walk(ev_root):
            for name in filenames:
                if name.endswith(".md"):
                    path = Path(dirpath) / name
                    lines[path] = path.read_bytes().count(b"\n")
    files = len(lines)
    ranges = 0
    problems: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and (Path(dirpath) / d).resolve() not in ev_roots]
        for name in filenames:
            if not name.endswith(".md"):
                continue
            doc = Path(dirpath) / name
            text = doc.read_text(encoding="utf-8", errors="replace")
            files += 1
            for m in LINK.finditer(text):
                target = (doc.parent / m.group(1)).resolve()
                if target not in lines:
                    continue
                spans = [(m.group(2), m.group(3))] if m.group(2) else []
                spans += [(r.group(1), r.group(2)) for r in RANGE.finditer(m.group(4) or "")]
                for a, b in spans:
                    start, end = int(a), int(b or a)
                    ranges += 1
                    if not 1 <= start <= end <= lines[target]:
                        problems.append(f"{doc}: L{start}-{end} outside {target.name} ({lines[target]} lines)")
    return files, ranges, problems


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    files, ranges, problems = audit(root, sys.argv[2] if len(sys.argv) > 2 else "docs/evidence")
    for p in problems:
        print(p)
    print(f"range audit: {files} files, {ranges} ranges, {len(problems)} out of bounds")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
