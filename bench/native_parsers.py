"""Native Markdown parsers against markdown-it-py, on the files ``check`` parses (issue 23, section 2).

    pip install markdown-it-pyrs pyromark     # not dependencies of skillcite
    python bench/native_parsers.py [ROOT ...] # default: this repository and the real-shaped corpus

For each package it prints the CPU seconds (best of 3, in process) to parse
every document and evidence file the check reads, with markdown-it-py as
``check`` configures it, with markdown-it-pyrs (markdown-it in Rust: a tree
with a source map per node) and with pyromark (pulldown-cmark: events with
source ranges, footnotes and tables). Then it runs a prototype of the
evidence's markup offsets built on markdown-it-pyrs's source maps against
:func:`skillcite.check.parsing.markup.markup_offsets` on every Markdown file of
the package and counts the files where they differ: the evidence side of
a comparison must drop exactly the characters the check drops today, so a
native parser may replace markdown-it-py only where that count is zero.
Both native source maps are UTF-8 byte offsets (the prototype converts).
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from bisect import bisect_right
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "bench"))

_LIST_MARKER = re.compile(r"[ \t>]*(\d{1,9}[.)]|[-+*])(?=[ \t]|$)")
_HEADING = re.compile(r"[ \t>]*(#{1,6})(?=[ \t]|$)")
_FOOTNOTE_LABEL = re.compile(r"[ \t>]*(\[\^[^\]\s]+\]:)")
RULES = [
    "blockquote", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference", "autolink", "backticks",
    "emphasis", "entity", "escape", "image", "link", "newline", "html_block", "html_inline", "table", "front_matter", "footnote",
]  # commonmark less "code" (markup.py disables indented code), plus tables, front matter, footnotes


def rs_parser() -> Any:
    import markdown_it_pyrs

    md = markdown_it_pyrs.MarkdownIt("zero")
    md.enable_many(RULES)
    return md


def native_markup_offsets(md: Any, text: str) -> list[int]:
    """A prototype of ``markup_offsets`` from markdown-it-pyrs's source maps (same markup, same rules)."""
    source = text.replace("\r\n", "\n").replace("\r", " ") if "\r" in text else text
    if len(source.encode("utf-8")) == len(source):
        char: Callable[[int], int] = int
    else:
        table = [i for i, c in enumerate(source) for _ in range(len(c.encode("utf-8")))] + [len(source)]
        char = table.__getitem__
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    drop: list[int] = []
    cursor: dict[int, int] = {}
    stack = [md.tree(source)]
    while stack:
        node = stack.pop()
        kids = node.children
        stack.extend(reversed(kids))
        if node.srcmap is None:
            continue
        s, e = char(node.srcmap[0]), char(node.srcmap[1])
        number = bisect_right(starts, s) - 1
        name = node.name
        pattern = {"list_item": _LIST_MARKER, "footnote_def": _FOOTNOTE_LABEL, "heading": _HEADING}.get(name)
        if pattern is not None:
            m = pattern.match(lines[number], cursor.get(number, 0) if name == "list_item" else 0)
            if m:
                drop.extend(range(starts[number] + m.start(1), starts[number] + m.end(1)))
                if name == "list_item":
                    cursor[number] = m.end(1)
        elif name in ("em", "strong", "link", "image"):
            if not kids:
                drop.extend(range(s, e))
            elif kids[0].srcmap is not None and kids[-1].srcmap is not None:
                drop.extend(range(s, char(kids[0].srcmap[0])))
                drop.extend(range(char(kids[-1].srcmap[1]), e))
        elif name == "code_inline":
            width = int(node.meta.get("marker_len", 1))
            drop.extend([*range(s, s + width), *range(e - width, e)])
        elif (name == "text_special" and node.meta.get("info") == "escape") or (name == "hardbreak" and source[s : s + 1] == "\\"):
            drop.append(s)
        elif name == "autolink":
            drop.extend((s, e - 1))
        elif name == "footnote_ref":
            drop.extend(range(s, e))
    return sorted(set(drop))


def best(fn: Callable[[], object], reps: int = 3) -> float:
    times = []
    for _ in range(reps):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def measure(root: Path) -> None:
    import pyromark
    from skillcite.check.parsing.document import parser
    from skillcite.check.parsing.markup import markup_offsets
    from skillcite.check.parsing.workspace import Workspace

    ws = Workspace(root)
    texts = [p.read_text(encoding="utf-8") for p in [*ws.discover(), *ws.evidence_files()]]
    md, rs = parser(), rs_parser()
    options = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_FOOTNOTES | pyromark.Options.ENABLE_YAML_STYLE_METADATA_BLOCKS
    py = best(lambda: [md.parse(t) for t in texts])
    timings = {
        "markdown-it-pyrs tree": best(lambda: [rs.tree(t) for t in texts]),
        "pyromark events_with_range": best(lambda: [tuple(pyromark.events_with_range(t, options=options)) for t in texts]),
    }
    print(f"{root}: {len(texts)} files, {sum(map(len, texts)) / 1e6:.2f} M chars; markdown-it-py {py:.3f} s CPU; "
          + "; ".join(f"{k} {v:.3f} s ({py / v:.1f}x less)" for k, v in timings.items()))
    every = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.rglob("*.md")) if ".venv" not in p.parts]
    differ = sum(markup_offsets(t) != native_markup_offsets(rs, t) for t in every)
    old = best(lambda: [markup_offsets(t) for t in every], 1)
    new = best(lambda: [native_markup_offsets(rs, t) for t in every], 1)
    print(f"  markup offsets on {len(every)} Markdown files: markdown-it-py {old:.2f} s, markdown-it-pyrs prototype {new:.2f} s CPU; {differ} files differ")


def main() -> None:
    roots = [Path(a) for a in sys.argv[1:]]
    with tempfile.TemporaryDirectory() as tmp:
        if not roots:
            from check_speed import real_shaped

            real_shaped(Path(tmp) / "pkg")
            roots = [REPO, Path(tmp) / "pkg"]
        for root in roots:
            measure(root)


if __name__ == "__main__":
    main()
