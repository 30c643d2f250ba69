"""SC601-SC604: local links and their #fragments; nothing outside the package, no special files."""

from __future__ import annotations

from collections.abc import Iterator

from ...core.config import is_markdown_name
from ...core.diagnostics import Diagnostic
from ...core.paths import unsafe_link
from ...core.textio import InputError, exists_or_unreadable, is_dir_safe
from ..parsing.anchors import is_line_fragment
from ..parsing.document import Document, local_target
from ..parsing.workspace import Workspace
from .base import Rule


def links(ws: Workspace) -> Iterator[Diagnostic]:
    """Paths never read (SC603, SC604), then every local link of every checked document."""
    for rel, (code, message) in ws.unsafe_paths().items():
        yield Diagnostic.make(code, rel, 1, 1, message, subject=rel)
    for doc in ws.checked_documents():
        yield from check_links(ws, doc)


def check_links(ws: Workspace, doc: Document) -> Iterator[Diagnostic]:
    """SC603/SC604 for a link that leaves the package or names a special file (never followed);
    SC601 for a link to a missing file; SC602 for a #fragment no heading or id of the target has."""
    cache_targets = {link.target for d in doc.definitions for link in d.cache_links}
    for link in doc.links:
        local = local_target(link.value)
        if local is None:
            continue
        path_part, fragment = local
        if path_part in cache_targets or link.value.split("#")[0] in cache_targets:
            continue
        unsafe = unsafe_link(path_part, doc.path.parent, ws.root_real) if path_part else None
        if unsafe is not None:
            yield Diagnostic.make(unsafe[0], doc.rel, link.line, link.column, unsafe[1], subject=path_part)
            continue
        target = (doc.path.parent / path_part) if path_part else doc.path
        if not exists_or_unreadable(target):
            yield Diagnostic.make("SC601", doc.rel, link.line, link.column, f"link target {path_part!r} does not exist", subject=path_part)
            continue
        if not fragment or is_line_fragment(fragment) or is_dir_safe(target):
            continue
        if not is_markdown_name(target.name):
            continue
        try:
            target_doc = ws.load_document(target)
        except InputError:
            continue
        if fragment not in target_doc.slugs and fragment.lower() not in target_doc.slugs:
            name = path_part or "this file"
            yield Diagnostic.make("SC602", doc.rel, link.line, link.column, f"no heading #{fragment} in {name}", subject=f"{path_part}#{fragment}")


RULE = Rule("links", ("SC601", "SC602", "SC603", "SC604"), links)
