"""A Python ``re`` emulation of the ripgrep pipelines used in refs/static_analysis.md.

It models the subset of ripgrep and xargs that the documented searches use, output byte
for byte: ``rg`` with ``-n -l -0 -U -i -w -A/-B/-C -t -g --pcre2 --files-without-match``
(and their long forms), searching the current folder, explicit paths or the previous stage
of a pipe, and ``xargs -0 -r rg ...``. Anything outside that subset raises
:class:`Unsupported` instead of being approximated, so a command the emulation cannot follow
fails the tests rather than passing them by accident.

Each output record keeps the corpus file it came from (``Record.origin``), so callers can
tell which file a search flagged even when ripgrep prints no file name (one explicit path).

Modelled ripgrep behaviour (checked against ripgrep 13 by tests/test_static_patterns.py):
file names are shown when a folder or several paths are searched; files are visited in
path order (the tests give ripgrep ``--sort=path`` through its config file); hidden entries
and non-matching types are skipped; lines end at ``\\n`` only; a multi-line match prints
every line it touches; context groups are separated by ``--``, also across files.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

# ripgrep's built-in type definitions for the types the emulation supports.
TYPES = {"py": ("*.py",)}

# Constructs of PCRE2 or Rust regex that Python's ``re`` lacks or reads differently.
_FOREIGN = [
    (re.compile(r"\(\?(?:[0-9R&+]|P>|\||C|-|[a-zA-Z]*-)"), "recursion, subroutine, branch reset or flag switch"),
    (re.compile(r"\(\*"), "backtracking verb"),
    (re.compile(r"\(\?<[A-Za-z_]"), "named group without P"),
    (re.compile(r"\\[KQEzZhHvVRXGpPN]|\\[xo]\{"), "escape Python reads differently"),
    (re.compile(r"\[\[:"), "POSIX class"),
]
# Only PCRE2 has look-arounds and back-references; ripgrep's default engine rejects them.
_PCRE_ONLY = re.compile(r"\(\?<?[=!]|\\[1-9]")
_CONTEXT_FLAGS = {"A": "after", "B": "before", "C": "context"}
_LONG = {
    "--pcre2": "pcre2",
    "--files-without-match": "without",
    "--files-with-matches": "with_matches",
    "--multiline": "multiline",
    "--line-number": "line_number",
    "--null": "null",
    "--ignore-case": "ignore_case",
    "--word-regexp": "word",
}
_LONG_VALUE = {
    "--type": "t",
    "--glob": "g",
    "--after-context": "A",
    "--before-context": "B",
    "--context": "C",
}
_SHORT_BOOL = {
    "n": "line_number",
    "l": "with_matches",
    "0": "null",
    "U": "multiline",
    "i": "ignore_case",
    "w": "word",
}
_IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


class Unsupported(ValueError):
    """The command uses something this emulation does not model faithfully."""


@dataclass(frozen=True)
class Record:
    """One output record: its text, its terminator, and the corpus file it came from."""

    text: str
    origin: str | None = None
    end: str = "\n"


@dataclass
class Options:
    """The parsed options of one ``rg`` invocation."""

    pattern: str = ""
    paths: list[str] = field(default_factory=list)
    pcre2: bool = False
    without: bool = False
    with_matches: bool = False
    multiline: bool = False
    line_number: bool = False
    null: bool = False
    ignore_case: bool = False
    word: bool = False
    after: int = 0
    before: int = 0
    types: list[str] = field(default_factory=list)
    globs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Source:
    """Lines to search: a file, or the previous stage of a pipe (``name`` None)."""

    name: str | None
    lines: list[str]
    origins: list[str | None]


def render(records: list[Record]) -> str:
    """The text a shell would see on standard output."""
    return "".join(r.text + r.end for r in records)


def run(command: str, cwd: Path) -> list[Record]:
    """Run a documented pipeline (``rg ... | rg ...``, ``rg ... | xargs -0 -r rg ...``) in ``cwd``."""
    records: list[Record] | None = None
    for stage in _split_pipeline(command):
        if stage[0] == "xargs":
            records = _xargs(stage[1:], records or [], cwd)
        elif stage[0] == "rg":
            records = _rg(parse_rg(stage[1:]), cwd, records)
        else:
            raise Unsupported(f"program {stage[0]!r}")
    return records or []


def _split_pipeline(command: str) -> list[list[str]]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    stages: list[list[str]] = [[]]
    for token in lexer:
        if token == "|":
            stages.append([])
        elif token and set(token) <= set("();<>|&"):
            raise Unsupported(f"shell operator {token!r}")
        else:
            stages[-1].append(token)
    if not all(stages):
        raise Unsupported("empty pipeline stage")
    return stages


def _xargs(args: list[str], previous: list[Record], cwd: Path) -> list[Record]:
    flags = []
    while args and args[0].startswith("-"):
        flags.append(args.pop(0))
    if sorted(flags) != ["-0", "-r"] or not args or args[0] != "rg":
        raise Unsupported(f"xargs {' '.join(flags)} {' '.join(args[:1])}: only 'xargs -0 -r rg' is modelled")
    names = [n for n in render(previous).split("\0") if n]
    if sum(len(n) + 1 for n in names) > 100_000:
        raise Unsupported("xargs would split a long argument list into several runs")
    if not names:
        return []
    options = parse_rg(args[1:])
    options.paths += names
    return _rg(options, cwd, None)


def parse_rg(args: list[str]) -> Options:
    """Options of one ``rg`` call; raises :class:`Unsupported` on any other flag."""
    opts = Options()
    positional: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "-" or arg == "--":
            raise Unsupported(f"rg argument {arg!r}")
        if not arg.startswith("-"):
            positional.append(arg)
        elif arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in _LONG and not eq:
                setattr(opts, _LONG[name], True)
            elif name in _LONG_VALUE:
                _set_value(opts, _LONG_VALUE[name], value if eq else next(it))
            else:
                raise Unsupported(f"rg option {arg}")
        else:
            _short_flags(opts, arg[1:], it)
    if not positional:
        raise Unsupported("rg without a pattern")
    opts.pattern, opts.paths = positional[0], positional[1:]
    if opts.without and opts.with_matches:
        raise Unsupported("-l together with --files-without-match")
    if opts.multiline and (opts.after or opts.before):
        raise Unsupported("context lines in multi-line mode")
    if opts.types and opts.globs:
        raise Unsupported("-t together with -g (ripgrep's precedence between them is not modelled)")
    return opts


def _short_flags(opts: Options, flags: str, it) -> None:
    i = 0
    while i < len(flags):
        f = flags[i]
        if f in _SHORT_BOOL:
            setattr(opts, _SHORT_BOOL[f], True)
            i += 1
        elif f in "ABCtg":
            rest = flags[i + 1 :]
            _set_value(opts, f, rest if rest else next(it))
            return
        else:
            raise Unsupported(f"rg flag -{f}")


def _set_value(opts: Options, key: str, value: str) -> None:
    if key in _CONTEXT_FLAGS:
        n = int(value)
        if key in "AC":
            opts.after = n
        if key in "BC":
            opts.before = n
    elif key == "t":
        if value not in TYPES:
            raise Unsupported(f"file type {value!r}")
        opts.types.append(value)
    else:
        if "/" in value or "**" in value or value.startswith("!"):
            raise Unsupported(f"glob {value!r}: only a file-name glob is modelled")
        opts.globs.append(value)


def compile_pattern(opts: Options) -> re.Pattern:
    """The pattern as Python ``re``, or :class:`Unsupported` where the dialects differ."""
    pattern = opts.pattern
    for probe, what in _FOREIGN:
        if probe.search(_without_escaped_backslashes(pattern)):
            raise Unsupported(f"{what} in {pattern!r}")
    if not opts.pcre2 and _PCRE_ONLY.search(_without_escaped_backslashes(pattern)):
        raise Unsupported(f"look-around or back-reference without --pcre2 (ripgrep rejects it): {pattern!r}")
    if opts.word:
        pattern = rf"(?<!\w)(?:{pattern})(?!\w)"
    # ripgrep always lets ^ and $ match at line boundaries.
    flags = re.MULTILINE | (re.IGNORECASE if opts.ignore_case else 0)
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise Unsupported(f"Python cannot compile {pattern!r}: {exc}") from exc


def _without_escaped_backslashes(pattern: str) -> str:
    return pattern.replace("\\\\", "")


def _rg(opts: Options, cwd: Path, stdin: list[Record] | None) -> list[Record]:
    regex = compile_pattern(opts)
    if opts.paths:
        sources = [s for p in opts.paths for s in _sources(cwd, p, opts, explicit=True)]
        named = len(opts.paths) > 1 or any((cwd / p).is_dir() for p in opts.paths)
    elif stdin is not None:
        if any(r.end != "\n" for r in stdin):
            raise Unsupported("NUL-separated input on a pipe into rg")
        sources = [Source(None, [r.text for r in stdin], [r.origin for r in stdin])]
        named = False
    else:
        sources = list(_sources(cwd, None, opts, explicit=False))
        named = True
    out: list[Record] = []
    for source in sources:
        hits = _matching_lines(regex, source, opts.multiline)
        out += _report(source, hits, opts, named, separated=bool(out))
    return out


def _sources(cwd: Path, arg: str | None, opts: Options, explicit: bool):
    root = cwd / arg if arg is not None else cwd
    if root.is_file():
        yield _read(root, arg)
        return
    if not root.is_dir():
        raise Unsupported(f"missing path {arg!r}")
    for path in _walk(root):
        rel = path.relative_to(root).as_posix()
        if _selected(path.name, opts):
            yield _read(path, rel if arg is None else f"{arg.rstrip('/')}/{rel}")


def _walk(folder: Path):
    """Files below ``folder`` in ripgrep's --sort=path order, hidden entries skipped."""
    for entry in sorted(folder.iterdir(), key=lambda p: p.name.encode()):
        if entry.name in _IGNORE_FILES:
            raise Unsupported(f"ignore file {entry}: ignore rules are not modelled")
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        if entry.is_dir():
            yield from _walk(entry)
        elif entry.is_file():
            yield entry


def _selected(name: str, opts: Options) -> bool:
    if opts.types:
        return any(fnmatch.fnmatchcase(name, g) for t in opts.types for g in TYPES[t])
    if opts.globs:
        return any(fnmatch.fnmatchcase(name, g) for g in opts.globs)
    return True


def _read(path: Path, name: str) -> Source:
    data = path.read_bytes()
    if b"\0" in data or data.startswith(b"\xef\xbb\xbf"):
        raise Unsupported(f"{name}: binary file or byte-order mark (ripgrep treats them specially)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unsupported(f"{name}: not UTF-8") from exc
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    origin = Path(name).as_posix()
    return Source(name, lines, [origin] * len(lines))


def _matching_lines(regex: re.Pattern, source: Source, multiline: bool) -> list[int]:
    """0-based indices of the lines a match touches."""
    if not multiline:
        return [i for i, line in enumerate(source.lines) if regex.search(line)]
    text = "\n".join(source.lines) + "\n"
    starts = [0]
    for line in source.lines:
        starts.append(starts[-1] + len(line) + 1)
    touched: set[int] = set()
    for m in regex.finditer(text):
        last = max(m.start(), m.end() - 1)
        first_line = _line_at(starts, m.start())
        touched.update(range(first_line, _line_at(starts, last) + 1))
    return sorted(i for i in touched if i < len(source.lines))


def _line_at(starts: list[int], offset: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:  # last start <= offset
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _report(source: Source, hits: list[int], opts: Options, named: bool, separated: bool) -> list[Record]:
    display = source.name if source.name is not None else "<stdin>"
    end = "\0" if opts.null else "\n"
    origin = source.name and Path(source.name).as_posix()
    if opts.with_matches:
        return [Record(display, origin, end)] if hits else []
    if opts.without:
        return [] if hits else [Record(display, origin, end)]
    shown = _with_context(hits, len(source.lines), opts.before, opts.after)
    matched = set(hits)
    out: list[Record] = []
    previous = None
    for i in shown:
        if (opts.before or opts.after) and (previous is not None and i != previous + 1 or previous is None and separated):
            out.append(Record("--"))
        sep = ":" if i in matched else "-"
        prefix = (display + sep if named else "") + (f"{i + 1}{sep}" if opts.line_number else "")
        out.append(Record(prefix + source.lines[i], source.origins[i]))
        previous = i
    return out


def _with_context(hits: list[int], n: int, before: int, after: int) -> list[int]:
    shown: set[int] = set()
    for i in hits:
        shown.update(range(max(0, i - before), min(n, i + after + 1)))
    return sorted(shown)
