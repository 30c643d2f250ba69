"""``skillcite bundle``: the skill as one self-contained Markdown file.

For a system prompt (README.md, "Three ways to use it", 2): the chosen files in order, front
matter removed, footnote ids prefixed per file (``[^jo]`` in ``rl/SKILL.md``
becomes ``[^rl-jo]``). Links to a bundled file or heading become in-bundle
``#fragments`` (GitHub slugs of the bundled text); cache links leave the
footnotes, whose definitions keep the source URL; other links to evidence
point at its ``source:``; links to other local files become the path in
backticks, since a prompt has no repository. The result is parsed again
and refused if a footnote or fragment dangles. The link scanner lives in
:mod:`skillcite.mdlinks`, shared with ``skillcite install``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from .. import __version__
from ..check.parsing.anchors import ANCHOR_LIST, CacheLink, is_line_fragment
from ..check.parsing.builder import parse_document
from ..check.parsing.document import SlugCounter, local_target, parser
from ..check.parsing.evidence import split_front_matter
from ..check.parsing.mdlinks import InlineLink, find_inline_links
from ..check.parsing.workspace import Workspace
from ..core.config import Config, load_config, sub_skill_folders
from ..core.edits import Edit, apply_edits
from ..core.errors import FindingsError
from ..core.globs import glob_match
from ..core.textio import InputError, TextFile, line_starts, read_text
from .locate import locate
from .provenance import Provenance, provenance

_GLOB_MAGIC = re.compile(r"[*?\[]")
_URL = re.compile(r"https?://")
_BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")
_PLACEHOLDER = re.compile(r"#skillcite-link-(\d+)")


class BundleError(FindingsError):
    """The bundle failed its own check: a footnote or a link would dangle."""


def heading_slugs(tokens: list[Token]) -> list[tuple[int, str]]:
    """``(line, slug)`` of every heading, numbered exactly as ``parse_document`` numbers them."""
    counter = SlugCounter()
    return [(tok.map[0] if tok.map else 0, counter.add(tokens[i + 1])) for i, tok in enumerate(tokens) if tok.type == "heading_open"]


@dataclass(slots=True)
class Part:
    """One bundled file: its rewritten body and the anchors it offers."""

    rel: str
    prefix: str  # footnote id prefix, unique in the bundle
    body: str
    front: dict[str, Any] | None
    slugs: list[str]  # heading slugs of the source file, in order
    html_ids: set[str]
    anchor: str = ""  # the bundle fragment of the file's start
    bundle_slugs: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Bundle:
    """The finished bundle and what went into it."""

    text: str
    files: list[str]
    warnings: list[str] = field(default_factory=list)
    root: Path = Path(".")  # the repository root the files are relative to

    @property
    def tokens(self) -> int:
        """Estimated tokens: characters / 4, as the SKILL.md budget counts them."""
        return len(self.text) // 4


_NAME_TARGETS = {"playbook": "PLAYBOOK.md", "refs": "refs/*.md", "all": "PLAYBOOK.md, refs/*.md or sub-skill"}


def named_selections(root: Path, config: Config, evidence: tuple[Path, ...] = ()) -> dict[str, list[str]]:
    """What each ``--include`` name stands for, in the canonical bundle order.

    A sub-skill stands for its ``SKILL.md`` and the Markdown files in its
    folder that it routes to (links, followed from file to file), evidence
    excepted: ``rl`` is ``rl/SKILL.md`` and ``rl/rewards.md``.
    """
    refs = sorted(Path(os.path.relpath(p, root)).as_posix() for p in (root / "refs").glob("*.md") if p.is_file())
    names = {"playbook": ["PLAYBOOK.md"] if (root / "PLAYBOOK.md").is_file() else [], "refs": refs}
    names |= {folder: _routed(root, folder, evidence) for folder in sub_skill_folders(root, config) if folder not in names}
    names["all"] = list(dict.fromkeys(rel for key in names for rel in names[key]))
    return names


def _routed(root: Path, folder: str, evidence: tuple[Path, ...]) -> list[str]:
    """``folder/SKILL.md`` and the Markdown files inside ``folder`` it reaches by links, in the order reached."""
    base = (root / folder).resolve()
    out = [f"{folder}/SKILL.md"]
    queue = [base / "SKILL.md"]
    while queue:
        path = queue.pop(0)
        try:
            file = read_text(path)
        except InputError:
            continue
        for link in find_inline_links(file):
            local = local_target(link.href)
            if local is None or not local[0] or not local[0].lower().endswith(".md"):
                continue
            target = (path.parent / local[0]).resolve()
            if base not in target.parents or not target.is_file() or any(e == target or e in target.parents for e in evidence):
                continue
            rel = f"{folder}/{target.relative_to(base).as_posix()}"
            if rel not in out:
                out.append(rel)
                queue.append(target)
    return out


def select_files(root: Path, includes: Sequence[str] = (), config: Config | None = None, evidence: tuple[Path, ...] = ()) -> list[str]:
    """``SKILL.md``, then what ``--include`` names, in a stable order.

    A name (``playbook``, ``refs``, a sub-skill folder such as ``rl``, or
    ``all``) or a path or glob. Files a name can select always come in the
    canonical order (SKILL.md, PLAYBOOK.md, refs/, sub-skills), however the
    options are ordered, so the same selection gives the same bytes; other
    paths and globs follow in the order given.
    """
    if not root.is_dir():
        raise InputError(f"{root}: no such directory")
    if not (root / "SKILL.md").is_file():
        raise InputError(f"{root}: no SKILL.md to bundle")
    config = config if config is not None else load_config(root)
    names = named_selections(root, config, evidence)
    chosen = ["SKILL.md"]
    for value in (p.strip() for item in includes for p in item.split(",") if p.strip()):
        if value.lower() in names:
            matches = names[value.lower()]
            if not matches:
                raise InputError(f"--include {value}: {root} has no {_NAME_TARGETS.get(value.lower(), value)}")
        else:
            matches = _glob(root, value, names, evidence)
        chosen += [rel for rel in matches if rel not in chosen]
    canonical = ["SKILL.md", *names["all"]]
    rank = {rel: n for n, rel in enumerate(canonical)}
    return sorted(chosen, key=lambda rel: (rank.get(rel, len(canonical)), chosen.index(rel)))


def _glob(root: Path, pattern: str, names: dict[str, list[str]], evidence: tuple[Path, ...] = ()) -> list[str]:
    """Markdown files under ``root`` matching a path, a folder or a glob; a usage error when there are none.

    Globs match as the settings' globs do (``rl/**`` takes every file under
    ``rl/``, ``**/`` also matches no folder); evidence files are never bundled.
    """
    pattern = pattern.strip().rstrip("/") if not _GLOB_MAGIC.search(pattern) else pattern.strip()
    target = root / pattern
    if not _GLOB_MAGIC.search(pattern) and not target.is_dir():
        paths = [target]
    else:
        glob = f"{pattern}/**" if not _GLOB_MAGIC.search(pattern) else pattern
        paths = [p for p in _markdown_under(root, evidence) if glob_match(Path(os.path.relpath(p, root)).as_posix(), glob)]
    matches = [Path(os.path.relpath(p, root)).as_posix() for p in paths if p.is_file()]
    if not matches:
        known = ", ".join(names)
        raise InputError(f"--include {pattern!r} matches no Markdown file under {root} (names: {known}; or a path, a folder or a glob)")
    for rel in matches:
        if rel.startswith("../") or not rel.endswith(".md"):
            raise InputError(f"--include {pattern!r}: {rel} is not a Markdown file inside {root}")
    return matches


def _markdown_under(root: Path, evidence: tuple[Path, ...]) -> list[Path]:
    """Markdown files below ``root``, outside hidden folders and evidence folders, sorted."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and (here / d).resolve() not in evidence)
        found.extend(here / f for f in sorted(filenames) if f.endswith(".md"))
    return found


def _prefix(rel: str, taken: set[str]) -> str:
    """A short footnote prefix: the sub-skill's folder, else the file's stem."""
    path = Path(rel)
    base = path.parent.name if path.name == "SKILL.md" else path.stem
    base = re.sub(r"[^a-z0-9]+", "-", (base or "main").lower()).strip("-") or "file"
    prefix, n = base, 2
    while prefix in taken:
        prefix, n = f"{base}{n}", n + 1
    taken.add(prefix)
    return prefix


def _source_url(ws: Workspace, path: Path | None) -> str | None:
    """The ``source:`` URL of an evidence file, if it has one."""
    if path is None or not path.is_file():
        return None
    ev = ws.load_evidence(path)
    data = ev.front.data if ev.front else None
    url = data.get("source") if data else None
    return url if isinstance(url, str) and _URL.match(url) else None


def _drop_cache_link(text: str, link: CacheLink, start: int, end: int, url: str | None) -> Edit:
    """The edit that takes one cache link and its anchor list out of a definition.

    ``(... [cache](x.md): L1-3)`` vanishes whole; ``([cache](x.md): L1; note)``
    keeps ``(note)``. With ``url`` (the definition names no URL itself) the
    link is replaced by the source's URL, so the footnote keeps its source.
    """
    m = ANCHOR_LIST.match(text, link.end, end)
    stop = m.end() if m else link.end
    if url:
        return link.offset, stop, f"<{url}>"
    before, after = text[start : link.offset], text[stop:end]
    opened = re.search(r"[ \t]*\([ \t]*$", before)
    if opened and (closed := re.match(r"[ \t]*\)", after)):
        return start + opened.start(), stop + closed.end(), ""
    if opened and (sep := re.match(r"[ \t]*[;,][ \t]*", after)):
        return link.offset, stop + sep.end(), ""
    if sep := re.search(r"[ \t]*[;,][ \t]*$", before):  # a later cache link in a list
        return start + sep.start(), stop, ""
    return link.offset, stop, ""


def _plain(link: InlineLink, display: str) -> str:
    """A link to a file the reader cannot open, as plain text naming the path."""
    label = link.text.strip()
    if not label or label.strip("`") in (display, display.rstrip("/"), link.href):
        return f"`{display}`"
    return f"{label} (`{display}`)"


def _elsewhere(link: InlineLink, target_rel: str, display: str, fragment: str, folder: bool, prov: Provenance) -> Edit:
    """A link to a package file left out of the bundle: its web address if known, else its path as text."""
    url = prov.url(target_rel, folder)
    prov.left_out.add(target_rel)
    if url is None:
        return link.start, link.end, _plain(link, display)
    return (*link.target_span, url + (f"#{fragment}" if fragment else ""))


def _prepare(ws: Workspace, prov: Provenance, rel: str, files: list[str], prefix: str, targets: list[tuple[str, str]]) -> Part:
    """Rewrite one file: front matter out, footnotes prefixed, links resolved or placeholders."""
    path = ws.root / rel
    text = read_text(path).text.replace("\r\n", "\n")  # the bundle uses \n throughout
    file = TextFile(path, text, False, line_starts(text))
    doc = parse_document(path, rel, file, ws.is_cache_for(path))
    if doc.too_deep:  # markdown-it left the rest of a block unparsed: never ship it unchecked (SC002)
        raise InputError(f"{path}:{doc.too_deep[0].line}: nested more than {doc.too_deep[0].value} levels deep; run skillcite check")
    if doc.front_matter_error is not None:  # SC003: never guess what unreadable front matter meant
        problem = doc.front_matter_error
        raise InputError(f"{path}:{problem.line}: front matter cannot be read: {problem.value}")
    blank = _BLANK_LINES.match(text, split_front_matter(file).body_offset)
    body = blank.end() if blank else 0
    edits: list[Edit] = [(0, body, "")] if body else []

    def placeholder(target: str, fragment: str) -> str:
        targets.append((target, fragment))
        return f"#skillcite-link-{len(targets) - 1}"

    for ref in doc.references:
        offset = file.line_starts[ref.line - 1] + ref.column - 1
        if text.startswith(f"[^{ref.value}]", offset):
            edits.append((offset, offset + len(ref.value) + 3, f"[^{prefix}-{ref.value}]"))
    cache_spans: list[tuple[int, int]] = []
    for d in doc.definitions:
        if text.startswith(f"[^{d.label}]:", d.start):
            edits.append((d.start, d.start + len(d.label) + 4, f"[^{prefix}-{d.label}]:"))
        has_url = bool(_URL.search(text, d.start, d.end))
        for cache in d.cache_links:
            cache_spans.append((cache.offset, cache.end))
            url = None if has_url else _source_url(ws, ws.resolve_cache(doc, cache)[0])
            edits.append(_drop_cache_link(text, cache, d.start, d.end, url))
    root = ws.root.resolve()
    for link in find_inline_links(file):
        local = local_target(link.href)
        if local is None or link.start < body or any(a <= link.start < b for a, b in cache_spans):
            continue
        target_path, fragment = local
        if not target_path:
            if fragment:
                edits.append((*link.target_span, placeholder(rel, fragment)))
            continue
        target = (path.parent / target_path).resolve()
        inside = target == root or root in target.parents
        target_rel = target.relative_to(root).as_posix() if inside else target_path
        if target_rel in files:
            edits.append((*link.target_span, placeholder(target_rel, fragment)))
        elif ws.in_evidence_dir(target) and (url := _source_url(ws, target)):
            edits.append((*link.target_span, url))
        elif not inside:
            edits.append((link.start, link.end, _plain(link, target_rel)))
        else:
            display = target_rel + ("/" if target_path.endswith("/") and target_rel != "." else "")
            edits.append(_elsewhere(link, target_rel, display, fragment, target.is_dir(), prov))
    slugs = [slug for _, slug in heading_slugs(parser().parse(text))]
    rewritten = apply_edits(text, edits).strip("\n") + "\n"
    return Part(rel, prefix, rewritten, doc.front_matter, slugs, doc.slugs - set(slugs))


def _header(prov: Provenance, parts: list[Part], files: list[str], tokens: int) -> str:
    """The provenance comment, then the skill's name and description (its front matter is gone)."""
    front = parts[0].front or {}
    name, desc = front.get("name"), front.get("description")
    label = prov.label(name if isinstance(name, str) else None)
    source = f"{label}, " if label else ""
    out = f"<!-- {source}bundled by skillcite {__version__} from {', '.join(files)}; about {tokens} tokens (characters/4). -->\n\n"
    if isinstance(name, str) and isinstance(desc, str):
        out += f"**{name}**: {' '.join(desc.split())}\n\n"
    return out


def _assemble(parts: list[Part], header: str) -> str:
    """Concatenate the parts after ``header`` and give each its in-bundle anchors."""
    chunks = [header]
    starts: list[int] = []  # first line (0-based) of each part
    for n, part in enumerate(parts):
        part.bundle_slugs.clear()  # assembled again for each header: start from nothing
        part.anchor = ""
        if n:
            chunks.append("\n---\n\n")
        if not part.slugs:  # no heading to link to: give the file an anchor of its own
            part.anchor = f"bundle-{part.prefix}"
            chunks.append(f'<a id="{part.anchor}"></a>\n\n')
        starts.append(sum(c.count("\n") for c in chunks))
        chunks.append(part.body)
    text = "".join(chunks)
    for line, slug in heading_slugs(parser().parse(text)):
        owner = max((n for n, s in enumerate(starts) if s <= line), default=None)
        if owner is not None:
            parts[owner].bundle_slugs.append(slug)
    for part in parts:
        part.anchor = part.anchor or (part.bundle_slugs[0] if part.bundle_slugs else "")
    return text


def verify_bundle(text: str) -> list[str]:
    """Problems that make a bundle unusable: undefined footnotes, links that do not resolve in it."""
    name = Path("bundle.md")
    doc = parse_document(name, name.name, TextFile(name, text, False, line_starts(text)), lambda _t, _u: False)
    problems = [f"line {r.line}: footnote [^{r.value}] has no definition" for r in doc.undefined]
    labels = [d.label for d in doc.definitions]
    problems += [f"line {d.line}: footnote [^{d.label}] is defined twice" for n, d in enumerate(doc.definitions) if d.label in labels[:n]]
    for link in doc.links:
        local = local_target(link.value)
        if local is None:
            continue
        target, fragment = local
        if target:
            problems.append(f"line {link.line}: link to {target!r} points outside the bundle")
        elif fragment and fragment not in doc.slugs and fragment.lower() not in doc.slugs:
            problems.append(f"line {link.line}: no heading #{fragment} in the bundle")
    return problems


def build_bundle(root: Path | None, includes: Sequence[str] = ()) -> Bundle:
    """Bundle the skill at ``root`` (found from the current folder when None); raise :class:`BundleError` if the result would dangle."""
    found = locate(root)
    if len(found.homes) > 1:
        listed = ", ".join(found.homes)
        raise InputError(f"{found.root} holds {len(found.homes)} skills ({listed}); bundle one: skillcite bundle {found.homes[0]}")
    home = found.homes[0]
    evidence = tuple((found.root / e).resolve() for e in found.config.evidence_folders)
    local = select_files(found.folder(home), includes, found.config, evidence)
    files = [f"{home}/{rel}" if home else rel for rel in local]
    ws = Workspace(found.root, found.config)  # for the evidence folder, the cache-link rule and evidence loading
    prov = provenance(found.root, ws.config, files)
    targets: list[tuple[str, str]] = []  # placeholder number -> (bundled file, fragment)
    taken: set[str] = set()
    parts = [_prepare(ws, prov, rel, files, _prefix(mine, taken), targets) for rel, mine in zip(files, local, strict=True)]
    by_rel = {p.rel: p for p in parts}
    warnings: list[str] = []

    def resolve(m: re.Match[str]) -> str:
        rel, fragment = targets[int(m.group(1))]
        part = by_rel[rel]
        if fragment and not is_line_fragment(fragment):
            for candidate in (fragment, fragment.lower()):
                k = part.slugs.index(candidate) if candidate in part.slugs else len(part.bundle_slugs)
                if k < len(part.bundle_slugs):
                    return "#" + part.bundle_slugs[k]
            if fragment in part.html_ids:
                return "#" + fragment
            warnings.append(f"{rel} has no heading #{fragment}; linking to the start of the file")
        return "#" + part.anchor

    # The header states the token count of the finished text, itself included:
    # iterate to the fixed point (the count's digits rarely change twice).
    tokens = -1
    for _ in range(5):
        warnings.clear()
        text = _PLACEHOLDER.sub(resolve, _assemble(parts, _header(prov, parts, files, max(tokens, 0))))
        if len(text) // 4 == tokens:
            break
        tokens = len(text) // 4
    problems = verify_bundle(text)
    if problems:
        raise BundleError("\n".join(problems))
    if prov.left_out and not prov.repository:
        n = len(prov.left_out)
        warnings.append(
            f"{n} link{'s' * (n != 1)} to files left out of the bundle became plain paths: no repository URL "
            "(set [tool.skillcite] repository, project.urls, or a git remote named origin)"
        )
    return Bundle(text, files, warnings, found.root)
