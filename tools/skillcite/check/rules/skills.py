"""SC501-SC507: Agent Skills front matter, size budgets, and tables of contents."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...core.diagnostics import Diagnostic
from ...core.frontmatter import closing_fence, key_lines
from ...core.globs import glob_match
from ..parsing.document import Document
from ..parsing.workspace import Workspace
from .base import Rule

ALLOWED_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
# Keys Claude Code documents for a skill's front matter beyond the Agent Skills spec
# (https://code.claude.com/docs/en/skills, "Frontmatter reference", as of January 2026),
# each with the type it documents: other agents ignore them, so a skill that sets one
# is still a valid skill, and a wrong type is still reported.
CLAUDE_CODE_KEYS: dict[str, type] = {
    "argument-hint": str,  # the hint shown after /name
    "disable-model-invocation": bool,  # true: only the user invokes it
    "user-invocable": bool,  # false: hidden from the / menu
    "model": str,
    "context": str,  # "fork": run in a subagent
    "agent": str,  # the subagent type for context: fork
    "hooks": dict,  # hooks scoped to the skill's lifetime
}
KNOWN_KEYS = ALLOWED_KEYS | set(CLAUDE_CODE_KEYS)
_TYPE_NAMES: dict[type, str] = {str: "a string", bool: "true or false", dict: "a mapping"}
Finding = tuple[str, int, int, str, str]  # code, line, column, message, subject

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # lowercase words joined by single hyphens
MAX_NAME = 64


def is_skill_name(name: str) -> bool:
    """True when ``name`` is a valid Agent Skills name: 1-64 characters of ``a-z0-9`` and single inner hyphens."""
    return len(name) <= MAX_NAME and KEBAB.fullmatch(name) is not None


def check_skill(doc: Document, max_lines: int, max_tokens: int, at_root: bool = False) -> list[Finding]:
    """Findings ``(code, line, column, message)`` for one ``SKILL.md``.

    The rules follow the open Agent Skills specification: ``name`` is 1-64
    characters of ``a-z0-9`` and single hyphens and equals the folder name;
    ``description`` is 1-1024 characters without angle brackets; only the
    known keys appear (the spec's, and the ones Claude Code documents, of
    their documented types); ``compatibility`` is at most 500 characters and
    ``metadata`` maps strings to strings. The skill at the package root
    (``at_root``) is exempt from the folder rule: its folder is whatever the
    clone is called, and ``skillcite install`` names the installed copy.
    """
    out: list[Finding] = []
    fm = doc.front_matter
    if doc.front_matter_error is not None:
        return _budget(doc, max_lines, max_tokens)  # SC003 says why it cannot be read
    if fm is None or "__invalid__" in fm:
        out.append(("SC501", 1, 1, "SKILL.md needs YAML front matter with name and description", "front matter"))
        return out + _budget(doc, max_lines, max_tokens)
    line_of = key_lines(doc.file, closing_fence(doc.file))
    folder = doc.path.resolve().parent.name
    name = fm.get("name")
    if not isinstance(name, str) or not name:
        out.append(("SC502", line_of.get("name", 1), 1, "name is missing or not a string", "name"))
    elif not is_skill_name(name):
        out.append(("SC502", line_of["name"], 1, f"name {name!r} must be 1-64 characters of a-z, 0-9 and single inner hyphens", "name"))
    elif name != folder and not at_root:
        out.append(("SC503", line_of["name"], 1, f"name {name!r} differs from its folder {folder!r}", "name"))
    desc = fm.get("description")
    if not isinstance(desc, str) or not desc.strip():
        out.append(("SC504", line_of.get("description", 1), 1, "description is missing or empty", "description"))
    elif len(desc) > 1024:
        out.append(("SC504", line_of["description"], 1, f"description has {len(desc)} characters (at most 1024)", "description"))
    elif "<" in desc or ">" in desc:
        out.append(("SC504", line_of["description"], 1, "description must not contain < or >", "description"))
    for key in fm:
        if key not in KNOWN_KEYS:
            out.append(
                (
                    "SC505",
                    line_of.get(key, 1),
                    1,
                    f"unknown key {key!r} (allowed: {', '.join(sorted(ALLOWED_KEYS))}; and Claude Code's {', '.join(sorted(CLAUDE_CODE_KEYS))})",
                    key,
                )
            )
        elif key in CLAUDE_CODE_KEYS and not isinstance(fm[key], CLAUDE_CODE_KEYS[key]):
            want = CLAUDE_CODE_KEYS[key]
            out.append(("SC505", line_of.get(key, 1), 1, f"{key} must be {_TYPE_NAMES[want]} (Claude Code's skill front matter)", key))
    comp = fm.get("compatibility")
    if comp is not None and (not isinstance(comp, str) or len(comp) > 500):
        out.append(("SC505", line_of.get("compatibility", 1), 1, "compatibility must be a string of at most 500 characters", "compatibility"))
    meta = fm.get("metadata")
    if meta is not None and not (isinstance(meta, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items())):
        out.append(("SC505", line_of.get("metadata", 1), 1, "metadata must map strings to strings", "metadata"))
    tools = fm.get("allowed-tools")
    if tools is not None and not isinstance(tools, (str, list)):
        out.append(("SC505", line_of.get("allowed-tools", 1), 1, "allowed-tools must be a string or a list", "allowed-tools"))
    return out + _budget(doc, max_lines, max_tokens)


def _budget(doc: Document, max_lines: int, max_tokens: int) -> list[Finding]:
    out: list[Finding] = []
    lines = doc.file.line_count
    tokens = len(doc.file.text) // 4
    if lines > max_lines:
        out.append(("SC506", max_lines + 1, 1, f"{lines} lines, over the budget of {max_lines}", "lines"))
    if tokens > max_tokens:
        out.append(("SC506", 1, 1, f"about {tokens} tokens (characters/4), over the budget of {max_tokens}", "tokens"))
    return out


TOC_WINDOW = 40  # a table of contents must start within this many lines
TOC_MIN_LINKS = 3


def check_toc(doc: Document, min_lines: int) -> list[Finding]:
    """SC507 when a long reference file does not open with a table of contents.

    A table of contents is taken to be at least three links to headings of
    the same file (``#fragment``) within the first lines: readers, and
    agents that read only the top of a file, see the structure first.
    """
    if doc.file.line_count <= min_lines:
        return []
    near_top = [link for link in doc.links if link.value.startswith("#") and link.line <= TOC_WINDOW]
    if len(near_top) >= TOC_MIN_LINKS:
        return []
    return [("SC507", 1, 1, f"{doc.file.line_count} lines and no table of contents near the top (links to its own #headings)", "table of contents")]


def skills(ws: Workspace) -> Iterator[Diagnostic]:
    """SC501-SC506 for every SKILL.md; SC507 for long files matching ``toc``."""
    cfg = ws.config
    for doc in ws.checked_documents():
        found: list[Finding] = []
        if doc.path.name == "SKILL.md":
            found += check_skill(doc, cfg.skill_max_lines, cfg.skill_max_tokens, at_root=doc.rel == "SKILL.md")
        if any(glob_match(doc.rel, g) for g in cfg.toc):
            found += check_toc(doc, cfg.toc_min_lines)
        for code, line, col, message, subject in found:
            yield Diagnostic.make(code, doc.rel, line, col, message, subject=subject)


RULE = Rule("skills", ("SC501", "SC502", "SC503", "SC504", "SC505", "SC506", "SC507"), skills)
