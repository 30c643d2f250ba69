"""``skillcite refresh``: are the cached passages still there upstream?

For each evidence file the ``source:`` URL is fetched (:mod:`.fetch`), its
text extracted (HTML through trafilatura, plain text as is), and every
passage of the excerpt (blocks of the body between lines ``[...]``) looked
up in it after :func:`~skillcite.normalize.normalize` on both sides. Each
source gets one status:

``ok``             every passage found verbatim (score 100)
``changed``        some passage not found; each is listed with its first
                   line in the evidence file and its best fuzzy score
``moved``          a permanent redirect (301/308); passages found at the new URL
``cannot verify``  401/403/429, 5xx or timeouts after retries, connection
                   errors, size cap, unsupported content, notes/transcripts
``gone``           404 or 410

Exit status 1 when a source is changed or gone. ``requests``, ``trafilatura``
and ``rapidfuzz`` are imported inside the functions that run a refresh, never
at import time, so importing this module stays light.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check.parsing.evidence import Evidence, normalize_markdown
from ..check.parsing.workspace import list_evidence
from ..core.config import load_config
from ..core.textio import InputError, TextFile
from .extract import Unsupported, extract_text
from .fetch import FetchConfig, Fetcher, FetchResult
from .record import CheckRecord, load_records, record_key, record_path, write_records

STATUSES = ("ok", "changed", "moved", "cannot verify", "gone")
FAILING = frozenset({"changed", "gone"})  # statuses that make the exit status 1
WRITABLE = frozenset({"ok", "changed", "moved"})  # fetched and compared: --write records them
ELISION = "[...]"
# What the refresh extra holds, installable in any environment: ``pip install -e ".[refresh]"``
# would reinstall whatever project the current folder holds, not skillcite.
INSTALL_HINT = "pip install requests trafilatura (skillcite's refresh extra)"


# --- passages and scores ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Passage:
    """One block of the excerpt: its first non-blank line and normalized text."""

    line: int
    text: str


@dataclass(frozen=True, slots=True)
class PassageScore:
    """How well one passage matched upstream (100 = found verbatim)."""

    line: int
    score: float
    passage: str
    found: str  # the closest upstream stretch (normalized), for --verbose diffs


def split_passages(tf: TextFile, body_offset: int) -> list[Passage]:
    """Blocks of the body separated by lines that are exactly ``[...]``."""
    passages: list[Passage] = []
    first = tf.line_of(body_offset) if body_offset < len(tf.text) else tf.line_count + 1
    start: int | None = None  # first non-blank line of the current block
    end = 0

    def flush() -> None:
        if start is not None:
            lo, _ = tf.line_span(start, start)
            _, hi = tf.line_span(end, end)
            text = normalize_markdown(tf.text[lo:hi]).text
            if text:
                passages.append(Passage(start, text))

    for number in range(first, tf.line_count + 1):
        line = tf.line(number)
        if line == ELISION:
            flush()
            start = None
        elif line.strip():
            start = number if start is None else start
            end = number
    flush()
    return passages


def score_passage(passage: Passage, upstream: list[str]) -> PassageScore:
    """Best score of ``passage`` over the upstream texts (all normalized).

    Containment is 100; otherwise rapidfuzz's ``partial_ratio``, capped at
    99.9 so that only a verbatim match counts as found. When the upstream
    text is shorter than the passage ``partial_ratio`` would score the
    upstream inside the passage, so a plain ratio is used instead.
    """
    for hay in upstream:
        if passage.text in hay:
            return PassageScore(passage.line, 100.0, passage.text, passage.text)
    from rapidfuzz import fuzz

    best, found = 0.0, ""
    for hay in upstream:
        if not hay:
            continue
        if len(hay) >= len(passage.text):
            res = fuzz.partial_ratio_alignment(passage.text, hay)
            if res is None:  # only with a score_cutoff, which we do not pass
                continue
            score, snippet = res.score, hay[res.dest_start : res.dest_end]
        else:
            score, snippet = fuzz.ratio(passage.text, hay), hay
        if score > best:
            best, found = score, snippet
    return PassageScore(passage.line, round(min(best, 99.9), 1), passage.text, found)


# --- classification --------------------------------------------------------


@dataclass(slots=True)
class SourceReport:
    """The outcome for one evidence file."""

    id: str
    path: Path
    url: str | None
    status: str
    detail: str
    scores: list[PassageScore] = field(default_factory=list)
    upstream_sha256: str | None = None
    written: bool = False


def _redirect_note(result: FetchResult) -> str:
    if not result.redirects:
        return ""
    hops = ", ".join(f"{r.status} to {r.target}" for r in result.redirects)
    return f" (redirected: {hops})"


def classify(
    ev_id: str, ev: Evidence, result: FetchResult | None, min_score: float = 100.0, recorded: str | None = None
) -> SourceReport:
    """Turn a fetch result into a status, a one-line detail and passage scores.

    ``recorded`` is the upstream SHA-256 of the last ``--write`` (from
    ``refresh.json``); without it, a legacy ``upstream_sha256:`` front-matter
    key is used.
    """
    data = (ev.front.data if ev.front else None) or {}
    url = data.get("source") if isinstance(data.get("source"), str) else None
    report = SourceReport(ev_id, ev.path, url, "cannot verify", "")
    if ev.error or ev.file is None or ev.front is None:
        report.detail = f"evidence file unreadable: {ev.error or 'no text'}"
        return report
    if result is None:
        report.detail = "no source: URL in the front matter" if not url else "not fetched"
        return report
    note = _redirect_note(result)
    if result.error:
        report.detail = result.error + note
        return report
    code = f"HTTP {result.status} {result.reason}".rstrip()
    if result.status in (404, 410):
        report.status, report.detail = "gone", code + note
        return report
    if not result.has_body:
        tries = f" after {result.attempts} attempts" if result.attempts > 1 else ""
        report.detail = code + tries + note
        return report
    try:
        upstream, texts = extract_text(result.body, result.content_type)
    except Unsupported as exc:
        report.detail = str(exc) + note
        return report
    if not upstream.strip():
        report.detail = f"no text could be extracted from the page ({len(result.body):,} bytes){note}"
        return report
    report.upstream_sha256 = hashlib.sha256(upstream.encode("utf-8")).hexdigest()
    moved = result.moved_to
    moved_note = f"moved permanently to {moved}" if moved else ""
    kind = data.get("kind", "excerpt")
    if kind != "excerpt":
        report.status = "moved" if moved else "cannot verify"
        report.detail = "; ".join(filter(None, [moved_note, f"page reachable; kind {kind}: passages are not upstream text, not compared"]))
        return report
    passages = split_passages(ev.file, ev.front.body_offset)
    normalized = [normalize_markdown(t).text for t in texts if t]
    report.scores = [score_passage(p, normalized) for p in passages]
    bad = [s for s in report.scores if s.score < min_score]
    parts = []
    if bad:
        report.status = "changed"
        listed = ", ".join(f"line {s.line} (score {s.score:g})" for s in bad)
        parts.append(f"{len(bad)} of {len(passages)} passages not found: {listed}")
    else:
        report.status = "moved" if moved else "ok"
        parts.append(f"{len(passages)} passage{'s' * (len(passages) != 1)} found")
        inexact = [s.score for s in report.scores if s.score < 100]
        if inexact:  # accepted only because of --min-score: say so
            parts[-1] += f" ({len(inexact)} not verbatim, lowest score {min(inexact):g})"
    if moved_note:
        parts.append(moved_note)
    elif result.redirects:
        parts.append(note.strip(" ()"))
    if result.from_cache:
        parts.append("not modified (304), cached copy used")
    if recorded is None:
        recorded = data.get("upstream_sha256")
    if isinstance(recorded, str) and recorded and recorded != report.upstream_sha256:
        parts.append("upstream text differs from the last check")
    if result.attempts > 1:
        parts.append(f"{result.attempts} attempts")
    report.detail = "; ".join(parts)
    return report


# --- running ---------------------------------------------------------------


def require_fetchers() -> None:
    """Raise :class:`InputError` when the optional packages a refresh needs are missing."""
    try:
        import requests  # noqa: F401  (probe only: the fetcher imports it where used)
        import trafilatura  # noqa: F401
    except ImportError as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InputError(f"refresh needs the optional packages requests and trafilatura ({reason}); install them with: {INSTALL_HINT}") from None


def evidence_folders(root: Path) -> list[Path]:
    """The evidence folders of the package at ``root``."""
    return [root / folder for folder in load_config(root).evidence_folders]


def folder_of(root: Path, path: Path) -> Path:
    """The evidence folder that holds ``path`` (its refresh records live there)."""
    for folder in sorted(evidence_folders(root), key=lambda f: len(f.parts), reverse=True):
        if path.is_relative_to(folder):
            return folder
    return path.parent


def evidence_files(root: Path, ids: tuple[str, ...] = ()) -> list[tuple[str, Path]]:
    """``(id, path)`` of the evidence files to refresh; unknown ids are an error."""
    folders = evidence_folders(root)
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        raise InputError(f"{missing[0]}: no evidence folder")
    found = sorted({(p.stem, p) for folder in folders for p in list_evidence(folder)}, key=lambda item: item[1])
    if not ids:
        return found
    known = {i for i, _ in found}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise InputError(f"no evidence file with id {', '.join(unknown)} in {', '.join(str(f) for f in folders)}")
    wanted = set(ids)
    return [(i, p) for i, p in found if i in wanted]


def refresh_sources(
    root: Path, ids: tuple[str, ...] = (), config: FetchConfig | None = None, jobs: int = 4,
    min_score: float = 100.0, progress: Any = None,
) -> list[SourceReport]:
    """Fetch and classify every chosen source, ``jobs`` fetches at a time.

    Each distinct URL is fetched once. Fetches run in threads (the per-host
    gate keeps them polite); extraction and scoring run in this thread, as
    results arrive, because they are CPU-bound and trafilatura's thread
    safety is not documented. ``progress`` gets ``update(1)`` per source.
    """
    chosen = [(i, Evidence.load(p, str(p.relative_to(root) if p.is_relative_to(root) else p))) for i, p in evidence_files(root, ids)]
    records = {folder: load_records(folder) for folder in evidence_folders(root) if folder.is_dir()}

    def last(ev: Evidence) -> str | None:
        folder = folder_of(root, ev.path)
        found = records.get(folder, {}).get(record_key(folder, ev.path))
        return found.upstream_sha256 if found else None

    fetcher = Fetcher(config)
    by_url: dict[str, list[tuple[str, Evidence]]] = {}
    reports: dict[str, SourceReport] = {}
    for ev_id, ev in chosen:
        data = (ev.front.data if ev.front else None) or {}
        url = data.get("source")
        if ev.file is None or not isinstance(url, str) or not url.strip():
            reports[str(ev.path)] = classify(ev_id, ev, None, min_score, last(ev))
            if progress is not None:
                progress.update(1)
        else:
            by_url.setdefault(url.strip(), []).append((ev_id, ev))
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="skillcite-fetch") as pool:
        futures: dict[Future[FetchResult], str] = {pool.submit(fetcher.fetch, url): url for url in by_url}
        for future in as_completed(futures):
            url = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 - a bug or an odd URL must not sink the whole run
                result = FetchResult(url, url, error=f"internal error: {type(exc).__name__}: {exc}")
            for ev_id, ev in by_url[url]:
                reports[str(ev.path)] = classify(ev_id, ev, result, min_score, last(ev))
                if progress is not None:
                    progress.update(1)
    return [reports[str(ev.path)] for _, ev in chosen]


def render_table(reports: list[SourceReport]) -> str:
    """One row per source (id, status, detail) and a summary line."""
    rows = [("id", "status", "detail")] + [(r.id, r.status, r.detail) for r in reports]
    w_id = max(len(r[0]) for r in rows)
    w_status = max(len(r[1]) for r in rows)
    lines = [f"{a:<{w_id}}  {b:<{w_status}}  {c}".rstrip() for a, b, c in rows]
    counts = ", ".join(f"{sum(r.status == s for r in reports)} {s}" for s in STATUSES)
    lines.append(f"{len(reports)} source{'s' * (len(reports) != 1)}: {counts}")
    return "\n".join(lines)


def record_reports(root: Path, reports: list[SourceReport], today: str) -> tuple[int, list[str]]:
    """Record every fetched and compared source in the sidecar; ``(count, errors)``.

    Nothing is written into evidence files (see :mod:`.record`): their lines,
    and so every anchor into them, stay where they are.
    """
    by_folder: dict[Path, dict[str, CheckRecord]] = {}
    for r in reports:
        if r.status in WRITABLE and r.upstream_sha256:
            folder = folder_of(root, r.path)
            by_folder.setdefault(folder, {})[record_key(folder, r.path)] = CheckRecord(today, r.status, r.upstream_sha256)
    written, errors = 0, []
    for folder, updates in by_folder.items():
        try:
            write_records(folder, updates)
        except InputError as exc:
            errors.append(str(exc))
            continue
        except OSError as exc:  # a read-only evidence folder: one line, after the table
            errors.append(f"{record_path(folder)}: cannot write ({exc.strerror or exc})")
            continue
        written += len(updates)
        for r in reports:
            if folder_of(root, r.path) == folder and record_key(folder, r.path) in updates:
                r.written = True
    return written, errors
