"""``skillcite install``: copy the skill into an agent's skills folder.

In the package the sub-skills live inside the main skill (``rl/``,
``pinn/``); agents want every skill as its own folder, named as its ``name:``,
side by side in one skills folder. So the main skill installs as ``<name>/``
with PLAYBOOK.md, refs/, the evidence folder and every file its links reach,
and each sub-skill as ``<name>-<folder>/`` with ``name:`` rewritten to match.
Relative links are rewritten for the new layout (``../SKILL.md`` becomes
``../ml-debug/SKILL.md``); evidence files are copied byte for byte, so their
locks still hold.

Nothing outside the package is ever read: a link with an absolute target or
one that leaves the root, a symlink that resolves outside it (SC603), and a
FIFO, device or socket (SC604) are problems of the package, and then nothing
is installed. Sub-skill folders whose names map to one skill name are
refused before anything changes.

Installing is atomic: the tree is built in a hidden folder inside the
destination, checked (every link resolves, every name equals its folder),
then renamed into place. An existing skill folder is replaced only with
``--force``, and kept as a backup until every rename has succeeded.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from ..check.judging.baseline import load_baseline
from ..check.parsing.document import local_target
from ..check.parsing.evidence import split_front_matter
from ..check.parsing.mdlinks import find_inline_links
from ..check.parsing.workspace import Workspace
from ..check.rules.skills import is_skill_name
from ..check.run import check
from ..core.config import Config, is_markdown_name, load_project, sub_skill_folders
from ..core.edits import Edit, apply_edits
from ..core.frontmatter import set_key
from ..core.globs import glob_match
from ..core.paths import unsafe_entry, unsafe_link
from ..core.regular import read_regular
from ..core.textio import BOM, InputError, TextFile, exists_or_unreadable, is_dir_safe, read_text, resolve
from .locate import locate
from .receipt import RECEIPT, FolderState, Receipt, digest, inspect_folder

# Skills folders as each agent documents them: (user scope, under the home
# folder; project scope, under the current folder). Claude Code reads only its
# own folder; Codex, Gemini CLI, GitHub Copilot and Cursor all read the shared
# .agents/skills, so one install serves the four (sources: docs/install.md).
AGENT_FOLDERS: dict[str, tuple[str, str]] = {
    "claude": (".claude/skills", ".claude/skills"),  # code.claude.com/docs/en/skills
    "codex": (".agents/skills", ".agents/skills"),  # developers.openai.com/codex/skills
    "gemini": (".agents/skills", ".agents/skills"),  # geminicli.com/docs/cli/using-agent-skills
    "copilot": (".agents/skills", ".agents/skills"),  # docs.github.com: Copilot, adding agent skills
    "cursor": (".agents/skills", ".agents/skills"),  # cursor.com/docs/skills
    "agents": (".agents/skills", ".agents/skills"),  # the shared folder, by its own name
}
MAIN_EXTRAS = ("PLAYBOOK.md", "refs")  # installed with the main skill even if nothing links them


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill to install: its folder there and its folder here."""

    name: str  # installed folder name, equal to its front matter name
    source: str  # its folder in the package; "" for the main skill


@dataclass(slots=True)
class InstallPlan:
    """Everything an install writes, computed before anything is written."""

    root: Path
    dest: Path
    skills: list[Skill]
    evidence: tuple[str, ...]  # the evidence folders, relative to the package root
    version: str | None = None  # the package version, for the receipts
    config: Config = field(default_factory=Config)  # the package's own, to check the copy by
    files: dict[str, bytes] = field(default_factory=dict)  # path under dest -> content
    sources: dict[str, str] = field(default_factory=dict)  # path under dest -> package path
    notes: dict[str, str] = field(default_factory=dict)  # path under dest -> what was rewritten
    problems: list[str] = field(default_factory=list)  # findings in the package itself: then nothing is installed

    def problem(self, rel: str, line: int, column: int, code: str, message: str) -> None:
        """Record a finding about package path ``rel``, as ``path:line:col: CODE message``."""
        entry = f"{self.root / rel}:{line}:{column}: {code} {message}"
        if entry not in self.problems:
            self.problems.append(entry)

    def place(self, rel: str) -> str:
        """Where the package path ``rel`` goes, relative to the destination.

        The main skill's folder (``source``, the root or ``skills/<name>``)
        becomes ``<name>/``; files outside it that its links need (evidence
        shared by a collection) go under ``<name>/`` by their package path.
        """
        for skill in self.skills[1:]:
            if rel == skill.source or rel.startswith(skill.source + "/"):
                return skill.name + rel[len(skill.source) :]
        main, home = self.skills[0].name, self.skills[0].source
        if home and (rel == home or rel.startswith(home + "/")):
            return main + rel[len(home) :]
        return main if rel in ("", ".") else f"{main}/{rel}"

    def count(self, skill: Skill) -> int:
        """Number of files installed into ``skill``'s folder."""
        return sum(1 for rel in self.files if rel.startswith(skill.name + "/"))

    def receipt(self, skill: Skill) -> Receipt:
        """The receipt of ``skill``'s folder: every file written there, with its hash."""
        prefix = skill.name + "/"
        files = {rel[len(prefix) :]: digest(data) for rel, data in self.files.items() if rel.startswith(prefix)}
        return Receipt(self.skills[0].name, skill.name, self.version, files)


def skills_folder(agent: str, scope: str, dest: Path | None) -> Path:
    """The folder the skills go into: ``dest`` if given, else the agent's documented one."""
    if dest is not None:
        return dest.expanduser()
    folders = AGENT_FOLDERS[agent.lower()]
    return Path.home() / folders[0] if scope == "user" else Path.cwd() / folders[1]


def find_skills(root: Path, config: Config, home: str = "") -> list[Skill]:
    """The main skill (the ``SKILL.md`` in ``home``), then every folder in it with a ``SKILL.md`` (sorted)."""
    folder_of_main = root / home if home else root
    fm = split_front_matter(read_text(folder_of_main / "SKILL.md"))
    if fm.error:  # the same problem check reports as SC003
        raise InputError(f"{folder_of_main / 'SKILL.md'}: front matter cannot be read: {fm.error}")
    main = fm.data.get("name") if fm.data else None
    if not isinstance(main, str) or not is_skill_name(main):
        raise InputError(f"{folder_of_main / 'SKILL.md'}: name {main!r} is not a valid skill name (a-z, 0-9, single hyphens)")
    skills = [Skill(main, home)]
    sources: dict[str, str] = {}  # skill name -> the folder it comes from
    for source in sub_skill_folders(folder_of_main, config):
        folder = folder_of_main / source
        name = f"{main}-{re.sub(r'[^a-z0-9]+', '-', folder.name.lower()).strip('-')}"
        if not is_skill_name(name):
            raise InputError(f"{folder}: cannot name its skill {name!r} (a-z, 0-9, single hyphens, at most 64)")
        if name in sources:  # a_b and a-b, X and x: one folder would overwrite the other half-way
            raise InputError(f"{root}: sub-skill folders {sources[name]!r} and {folder.name!r} would both install as {name}; rename one")
        sources[name] = folder.name
        skills.append(Skill(name, f"{home}/{folder.name}" if home else folder.name))
    return skills


def _skip(rel: str) -> bool:
    """Hidden files and caches are never installed."""
    return any(part.startswith(".") or part == "__pycache__" for part in rel.split("/"))


def _is_under(rel: str, folder: str) -> bool:
    return rel == folder or rel.startswith(folder + "/")


def _link_targets(ws: Workspace, plan: InstallPlan, rel: str, root_real: Path) -> list[str]:
    """Package paths that the local links of document ``rel`` point at; links that leave the package are problems."""
    out = []
    for link in ws.load_document(plan.root / rel).links:
        local = local_target(link.value)
        if local is None or not local[0]:
            continue
        unsafe = unsafe_link(local[0], (plan.root / rel).parent, root_real)
        if unsafe is not None:
            plan.problem(rel, link.line, link.column, *unsafe)
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), local[0]))
        # The package root and the sub-skill folders are installed anyway; a
        # link to one of them must not pull in the whole repository.
        if target == "." or target in {s.source for s in plan.skills}:
            continue
        out.append(target)
    return out


def _rewrite(plan: InstallPlan, rel: str, file: TextFile) -> tuple[str, str]:
    """The text of document ``rel`` with links fitted to the installed layout."""
    here, there = posixpath.dirname(rel), posixpath.dirname(plan.place(rel))
    edits: list[Edit] = []
    for link in find_inline_links(file):
        local = local_target(link.href)
        if local is None or not local[0]:
            continue
        target = posixpath.normpath(posixpath.join(here, local[0]))
        if target.startswith("../") or target == "..":
            continue  # outside the package: nothing to point at (the check reports it)
        placed = plan.place(target)
        if posixpath.normpath(posixpath.join(there, local[0])) == placed:
            continue  # still right where it is
        raw = link.target.partition("#")[0]
        new = posixpath.relpath(placed, there or ".") + ("/" if raw.endswith("/") else "")
        bracketed = file.text[link.target_span[0] - 1] == "<"  # <...> may hold spaces
        edits.append((link.target_span[0], link.target_span[0] + len(raw), new if bracketed else quote(new, safe="/")))
    notes = [f"{len(edits)} link{'s' * (len(edits) != 1)} rewritten"] if edits else []
    skill = next((s for s in plan.skills[1:] if rel == f"{s.source}/SKILL.md"), None)
    if skill is not None:  # Agent Skills rule: the name equals the folder
        edit = set_key(file, split_front_matter(file).end_line, "name", skill.name, add=False)
        if edit is not None:
            edits.append(edit)
            notes.insert(0, f"name: {skill.name}")
    return apply_edits(file.text, edits), ", ".join(notes)


def plan_install(root: Path | None, dest: Path, home: str | None = None) -> InstallPlan:
    """Collect and rewrite every file to install, in memory.

    ``root`` is found as :func:`~skillcite.deliver.locate.locate` finds it
    (a skill folder inside a repository takes the repository's settings);
    in a collection, ``home`` names the skill (see :func:`plan_installs`).
    """
    found = locate(root)
    if home is None:
        if len(found.homes) > 1:
            raise InputError(f"{found.root} holds {len(found.homes)} skills ({', '.join(found.homes)}); use plan_installs")
        home = found.homes[0]
    root, config = found.root, found.config
    skills = find_skills(root, config, home)
    evidence = tuple(e.strip("/") for e in config.evidence_folders)
    plan = InstallPlan(root, dest, skills, evidence, load_project(root).version, config)
    ws = Workspace(root, config)
    # A collection's skill takes its own evidence folders whole, and shared evidence file by file, as its links need.
    mine = [e for e in plan.evidence if not home or _is_under(e, home)]
    queue = [f"{home}/SKILL.md" if home else "SKILL.md", *(f"{home}/{x}" if home else x for x in MAIN_EXTRAS), *mine, *(s.source for s in plan.skills[1:])]
    root_real = resolve(root)
    seen: set[str] = set()
    walked: set[Path] = {root_real}  # real folders already listed: a symlinked folder is walked once, a loop never
    while queue:
        rel = queue.pop(0)
        path = root / rel
        if rel in seen or _skip(rel) or not (exists_or_unreadable(path) or path.is_symlink()):
            continue
        seen.add(rel)
        unsafe = unsafe_entry(path, root_real)  # follow nothing out of the package, open nothing but files
        if unsafe is not None:
            plan.problem(rel, 1, 1, *unsafe)
            continue
        if is_dir_safe(path):
            if resolve(path) not in walked:
                walked.add(resolve(path))
                queue.extend(sorted(f"{rel}/{child.name}" for child in path.iterdir()))
            continue
        placed = plan.place(rel)
        plan.sources[placed] = rel
        data = read_regular(path)
        if is_markdown_name(rel) and not any(_is_under(rel, e) for e in plan.evidence):
            queue.extend(_link_targets(ws, plan, rel, root_real))
            file = read_text(path)
            text, note = _rewrite(plan, rel, file)
            if text != file.text:
                data = (BOM if file.bom else "").encode("utf-8") + text.encode("utf-8")
                plan.notes[placed] = note
        plan.files[placed] = data
    plan.problems.sort()
    return plan


def plan_installs(root: Path | None, dest: Path) -> list[InstallPlan]:
    """One plan per skill: the package's skill, or each skill of a collection (``skills/<name>/SKILL.md``)."""
    found = locate(root)
    return [plan_install(root, dest, home) for home in found.homes]


def write_tree(plan: InstallPlan, folder: Path) -> None:
    """Write the plan's files under ``folder``, keeping each file's permissions, then the receipts."""
    for rel, data in plan.files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        shutil.copymode(plan.root / plan.sources[rel], path)
    for skill in plan.skills:
        (folder / skill.name).mkdir(parents=True, exist_ok=True)
        (folder / skill.name / RECEIPT).write_bytes(plan.receipt(skill).to_json())


def installed_config(plan: InstallPlan) -> Config:
    """The package's check settings, with every glob moved to where its files now live."""
    pkg = plan.config

    # The files themselves, not the globs moved: a glob such as skills/** means nothing once skills/ is gone.
    def placed(matches: Callable[[str], bool], *extra: str) -> list[str]:
        return sorted({_escape_glob(placed) for placed, rel in plan.sources.items() if is_markdown_name(rel) and matches(rel)} | set(extra))

    return Config(
        include=[f"{_escape_glob(s.name)}/**" for s in plan.skills],  # this package's skills only, whatever else the folder holds
        evidence=[plan.place(e) for e in plan.evidence if any(_is_under(rel, e) for rel in plan.sources.values())] or [plan.place(e) for e in plan.evidence],
        content=placed(pkg.is_content, "*/SKILL.md"),  # every skill keeps the quote rules
        toc=placed(lambda rel: any(glob_match(rel, g) for g in pkg.toc)),
        skill_max_lines=pkg.skill_max_lines,
        skill_max_tokens=pkg.skill_max_tokens,
        toc_min_lines=pkg.toc_min_lines,
        package_paths=dict(plan.sources),  # reviews are keyed by the package's paths
    )


def _escape_glob(path: str) -> str:
    """``path`` as a glob that matches exactly it."""
    return re.sub(r"([*?\[])", r"[\1]", path)


def verify_tree(plan: InstallPlan, folder: Path) -> list[str]:
    """Every finding of a strict ``skillcite check`` of the installed tree, as ``path:line:col: CODE message``.

    Findings the package's baseline accepts (``[tool.skillcite] baseline``,
    matched by identity with the file's package path) are accepted in the
    copy too: the package passes its own check with them.
    """
    report = check(folder, installed_config(plan))
    diagnostics = report.diagnostics
    if plan.config.baseline:
        baseline = load_baseline(plan.root / plan.config.baseline)
        as_packaged = [dataclasses.replace(d, path=plan.sources.get(d.path, d.path)) for d in diagnostics]
        new, _accepted = baseline.split(as_packaged)
        kept = {id(d) for d in new}
        diagnostics = [d for d, p in zip(diagnostics, as_packaged, strict=True) if id(p) in kept]
    return [f"{plan.dest / d.path}:{d.line}:{d.column}: {d.code} {d.message}" for d in diagnostics]


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink()
    else:
        shutil.rmtree(path)


def _swap(staging: Path, dest: Path, names: list[str]) -> None:
    """Rename each staged skill into place; on any failure put everything back."""
    backups: list[tuple[Path, Path]] = []
    placed: list[Path] = []
    try:
        for name in names:
            target = dest / name
            if target.exists() or target.is_symlink():
                backup = dest / f".{name}.skillcite-backup-{staging.name.rsplit('-', 1)[-1]}"
                os.rename(target, backup)
                backups.append((target, backup))
            os.rename(staging / name, target)
            placed.append(target)
    except BaseException:
        for target in reversed(placed):
            _remove(target)
        for target, backup in reversed(backups):
            os.rename(backup, target)
        raise
    for _, backup in backups:  # only now is the old version no longer needed
        _remove(backup)


def check_destination(plan: InstallPlan, force: bool) -> list[FolderState]:
    """Existing folders the install would replace; raise unless each may be replaced.

    A folder left unchanged by an earlier install of this package is updated
    freely; anything else (no receipt, another package, local edits) needs
    ``force``, so nothing is lost without asking.
    """
    root = plan.root.resolve()
    for path in (plan.dest, *(plan.dest / skill.name for skill in plan.skills)):
        try:
            target = path.resolve()
        except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError on a loop, later versions OSError
            raise InputError(f"{path}: symlink loop; cannot install there") from None
        if path != plan.dest and (target == root or target in root.parents):
            raise InputError(f"refusing to install into {path}: the package itself is there")
    taken = [inspect_folder(plan.dest / s.name) for s in plan.skills if (plan.dest / s.name).exists() or (plan.dest / s.name).is_symlink()]
    blocked = [reason for state in taken if (reason := state.describe(plan.skills[0].name))]
    if blocked and not force:
        one = len(blocked) == 1
        raise InputError(f"{'; '.join(blocked)}; pass --force to replace {'it' if one else 'them'}")
    return taken


def install_plan(plan: InstallPlan, force: bool = False) -> list[str]:
    """Write, check and move the plan into place; return problems (then nothing is installed)."""
    if plan.problems:  # the package itself reaches outside: write nothing at all
        return plan.problems
    check_destination(plan, force)
    plan.dest.mkdir(parents=True, exist_ok=True)
    # Inside the destination, so the final renames never cross file systems.
    staging = Path(tempfile.mkdtemp(prefix=".skillcite-install-", dir=plan.dest))
    try:
        write_tree(plan, staging)
        problems = verify_tree(plan, staging)
        if not problems:
            _swap(staging, plan.dest, [s.name for s in plan.skills])
        return problems
    finally:
        shutil.rmtree(staging, ignore_errors=True)
