"""The least a check that parses its Markdown can cost: markdown-it-py over every file, nothing else.

    python bench/parse_floor.py ROOT [EVIDENCE_FOLDER]

Imports markdown-it-py with the plugins ``check`` uses, walks the tree as
``bench/range_audit.py`` does, and parses every Markdown document and
evidence file once with one parser (the documents' configuration): no
normalization, no matching, no rules. ``check_speed.py`` times it beside the
range-only audit, to show how much of a cold check is the parser alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin


def parse_all(root: Path) -> int:
    """Parse every ``.md`` file under ``root`` (hidden folders skipped); return the token count."""
    md = MarkdownIt("commonmark").use(front_matter_plugin).use(footnote_plugin, inline=False, move_to_end=False)
    md.enable("table")
    tokens = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md"):
                text = (Path(dirpath) / name).read_text(encoding="utf-8", errors="replace")
                tokens += len(md.parse(text))
    return tokens


if __name__ == "__main__":
    print(f"parsed: {parse_all(Path(sys.argv[1] if len(sys.argv) > 1 else '.'))} tokens")
