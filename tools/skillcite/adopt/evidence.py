"""``skillcite evidence adopt``: give header-line evidence files real front matter.

For each evidence file without a ``---`` block, the header lines at its top
(``Source:``, ``Title:``, ``Author:`` ...) become YAML front matter, the keys
that can be inferred are filled (``retrieved`` from the file's first commit,
``kind: excerpt`` as the usual case), the body is locked, and every anchor in
every document that points into the file is moved by exactly the number of
lines the conversion added or removed, so quotes that were verified before
stay verified. Anchors that pointed into the old header lines cannot be
carried: they are reported and left as they were.

Nothing is written unless every file involved can be read and every edit
applied; ``dry_run`` reports the same plan without writing.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from ..check.parsing.anchors import LINE_RANGE, Range
from ..check.parsing.evidence import split_front_matter
from ..check.run import check
from ..core.config import Config
from ..core.edits import Edit, apply_edits
from ..core.textio import BOM, TextFile, atomic_write, read_text, resolve
from ..repair.lock import relock_text
from .headers import KINDS, REQUIRED, read_header, render_front_matter
from .provenance import TODO, license_todo, page_author, page_license, pdf_source

_FRAGMENT = re.compile("#" + LINE_RANGE.pattern)  # where a #L12-L20 fragment sits in a link
_URL = re.compile(r"https?://[^\s<>\"'`]+")
_PDF_NAME = re.compile(r"[\w.\-]+\.pdf", re.IGNORECASE)
_FIRST_HEADING = re.compile(r"^[ \t]{0,3}#{1,2}[ \t]+(?P<title>\S.*?)[ \t#]*$", re.MULTILINE)


@dataclass(slots=True)
class Adopted:
    """What adopting one evidence file did (or would do)."""

    path: Path
    rel: str
    status: str  # "adopted" or "skipped"
    reason: str = ""
    found: list[str] = field(default_factory=list)  # keys taken from the header
    inferred: dict[str, str] = field(default_factory=dict)  # key -> how it was inferred
    missing: list[str] = field(default_factory=list)  # required keys still to fill by hand
    header_lines: int = 0  # lines of the old header (gone with it)
    header_start: int = 0  # 0-based first line of the old header (lines above it stay, a heading say)
    front_lines: int = 0  # lines of the new front matter
    delta: int = 0  # lines added (negative: removed) before the body
    origin: str = ""  # where the header's fields came from ("lines 1-5"), empty when no header was found
    anchors_moved: int = 0
    uncarried: list[str] = field(default_factory=list)  # "doc.md:12: label L3 points into the old header"

    def new_line(self, line: int) -> int | None:
        """Where 1-based ``line`` of the old file is after adoption (None: it was a header line)."""
        if line <= self.header_start:
            return line + self.front_lines
        if line <= self.header_start + self.header_lines:
            return None
        return line + self.delta


@dataclass(slots=True)
class AdoptPlan:
    """Every file's outcome, and the new text of every file to write."""

    results: list[Adopted] = field(default_factory=list)
    writes: dict[Path, tuple[str, bool]] = field(default_factory=dict)  # path -> (text, bom)

    @property
    def adopted(self) -> list[Adopted]:
        """The files that get front matter."""
        return [r for r in self.results if r.status == "adopted"]


def _first_commit_date(path: Path) -> str | None:
    """The date (YYYY-MM-DD) of the commit that added ``path``, if git knows it."""
    try:
        out = subprocess.run(
            ["git", "log", "--follow", "--diff-filter=A", "--format=%as", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    dates = out.stdout.split()
    return dates[-1] if out.returncode == 0 and dates else None


def _convert(tf: TextFile, rel: str) -> tuple[str, Adopted]:
    """The file's new text (front matter, then the body unchanged) and its outcome."""
    result = Adopted(tf.path, rel, "adopted")
    header = read_header(tf.text)
    newline = "\r\n" if "\r\n" in tf.text[: 2000] else "\n"
    values: dict[str, str] = {}
    header_start = header_end = 0
    if header is not None:
        values.update(header.fields)
        values.update({k: v for k, v in header.extra.items() if k not in values})
        result.found = sorted(header.fields)
        result.origin = header.render_origin()
        header_start, header_end = header.start, header.lines
    if "retrieved" not in values:
        when = _first_commit_date(tf.path)
        if when:
            values["retrieved"] = when
            result.inferred["retrieved"] = "date of the commit that added the file"
        else:
            values["retrieved"] = dt.date.fromtimestamp(tf.path.stat().st_mtime).isoformat()
            result.inferred["retrieved"] = "the file's modification date"
    if "kind" not in values:
        values["kind"] = "excerpt"
        result.inferred["kind"] = "assumed excerpt (use transcript or notes if it is one)"
    elif values["kind"] not in KINDS:
        result.missing.append(f"kind ({values['kind']!r} is not one of {', '.join(KINDS)})")
    body_text = tf.text[tf.line_starts[header_end] :] if header_end < len(tf.line_starts) else ""
    source = values.get("source", "")
    url = _URL.search(source)
    if url and url.group() != source:
        # "ICLR Blog Track, 2022-03-25 — https://..." or "https://x . Cached excerpt": the URL is the source, the words a note.
        values["source"] = url.group().rstrip(".,;)")
        values.setdefault("note", source)
        result.inferred["source"] = "the URL in the header's Source: line (the whole line kept as note)"
        source = values["source"]
    if not values.get("author"):
        author = page_author(body_text)
        if author:
            values["author"] = author
            result.inferred["author"] = "an Author: line on the page"
    if not values.get("license"):
        stated = page_license(tf.text, source)
        if stated:
            values["license"], how = stated
            result.inferred["license"] = how
    why_pdf = pdf_source(source, values.get("title", ""))
    if _PDF_NAME.fullmatch(values.get("title", "")):
        # Page-to-Markdown tools title a PDF by its file name ("2109.01050v2.pdf"); the paper's first heading is its title.
        heading = _FIRST_HEADING.search("\n".join(body_text.split("\n")[:10]))
        if heading:
            values["title"] = heading.group("title").strip()
            result.inferred["title"] = "the first heading of the text (the header's title was the PDF's file name)"
    if why_pdf and "format" not in values:
        values["format"] = "pdf"
        result.inferred["format"] = f"pdf: the header names {why_pdf} (in-line hyphens may be joined where a quote needs it)"
    missing = [k for k in REQUIRED if not values.get(k)]
    result.missing.extend(missing)
    # An explicit TODO on the key's own line: the check reports it once per file, and filling it moves no anchor.
    values.update({k: license_todo(source) if k == "license" else TODO for k in missing})
    # Lines are counted on "\n" only (as anchors count them), never splitlines().
    starts = tf.line_starts
    above = tf.text[: starts[header_start]] if header_start < len(starts) else tf.text
    below = tf.text[starts[header_end] :] if header_end < len(starts) else ""
    body = above + below
    header_lines = header_end - header_start
    front = render_front_matter(values, newline)
    new_text, _digest, _changed = relock_text(front + body)
    new_front_lines = new_text[: len(new_text) - len(body)].count("\n")
    result.header_lines = header_lines
    result.header_start = header_start
    result.front_lines = new_front_lines
    result.delta = new_front_lines - header_lines
    result.reason = f"{header_lines} header line(s) -> {new_front_lines} front-matter line(s)"
    return new_text, result


def plan_adoption(root: Path, paths: list[Path] | None = None, config: Config | None = None) -> AdoptPlan:
    """Plan the conversion of ``paths`` (default: every evidence file without front matter)."""
    report = check(root, config)
    plan = AdoptPlan()
    candidates = sorted(report.evidence) if paths is None else [resolve(p) for p in paths]
    by_target: dict[Path, Adopted] = {}
    for path in candidates:
        ev = report.evidence.get(path)
        tf = ev.file if ev is not None and ev.file is not None else read_text(path)
        rel = ev.rel if ev is not None else path.as_posix()
        if split_front_matter(tf).end_line > 0 or tf.text.startswith("---"):
            plan.results.append(Adopted(path, rel, "skipped", "already has front matter"))
            continue
        new_text, result = _convert(tf, rel)
        plan.results.append(result)
        plan.writes[path] = (new_text, tf.bom)
        by_target[path] = result
    if not by_target:
        return plan
    for doc in report.documents:
        edits: list[Edit] = []
        text = doc.file.text
        for definition in doc.definitions:
            for link in definition.cache_links:
                target = resolve(doc.path.parent / unquote(link.target))
                adopted = by_target.get(target)
                if adopted is None:
                    continue
                for anchor in link.anchors:
                    where = f"{doc.rel}:{doc.file.line_of(anchor.offset)}"
                    ends = [(adopted.new_line(r.start), adopted.new_line(r.end)) for r in anchor.ranges]
                    if any(a is None or b is None for a, b in ends):
                        shown = f"{anchor.label} {anchor.render_ranges()}".strip()
                        adopted.uncarried.append(f"{where}: {shown} points into the old header lines")
                        continue
                    moved = [Range(a, b) for a, b in ends if a is not None and b is not None]
                    if anchor.span is not None:
                        edits.append((*anchor.span, "+".join(r.render() for r in moved)))
                    else:
                        m = _FRAGMENT.search(text, link.offset, link.end)
                        if m is None:
                            adopted.uncarried.append(f"{where}: fragment #{link.fragment} not found in the link")
                            continue
                        r = moved[0]
                        new = f"#L{r.start}" if m.group("end") is None else f"#L{r.start}-{m.group('L')}{r.end}"
                        edits.append((m.start(), m.end(), new))
                    adopted.anchors_moved += 1
        if edits:
            plan.writes[resolve(doc.path)] = (apply_edits(text, edits), doc.file.bom)
    return plan


def write_plan(plan: AdoptPlan) -> None:
    """Write every planned file atomically (evidence first, then documents)."""
    for path, (text, bom) in plan.writes.items():
        atomic_write(path, ((BOM if bom else "") + text).encode("utf-8"))
