"""YAML text as the checker reads it: a safe load that returns every problem, never raises.

Front matter is untrusted input. Nesting is bounded by skillcite itself,
before YAML parses (:func:`nesting_excess`), so that the finding and its
message are the same whatever PyYAML version is installed: PyYAML 6.0.4
refuses deep nesting with a message of its own, and older releases' C
composer recursed once per level until the process died.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

MAX_YAML_DEPTH = 64  # deeper front matter is refused
_NESTING_MARKS = "[{-?:"  # every level of YAML nesting needs one of these characters
TOO_DEEP = f"nesting deeper than {MAX_YAML_DEPTH} levels"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader (libyaml's C parser when present), noting duplicate keys.

    PyYAML silently keeps the last of two equal keys, so ``kind: notes`` then
    ``kind: excerpt`` would read as an excerpt; each repeat is recorded in
    :attr:`duplicates` as ``(key, line, first_line)`` (0-based lines of the
    YAML text). Timestamps that are not real dates or times (``2026-02-30``,
    ``T25:00``) are YAML errors at their line, never a ``ValueError``.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[str, int, int]] = []

    def construct_mapping(self, node, deep=False):  # type: ignore[no-untyped-def]
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            try:
                if key in seen:
                    self.duplicates.append((str(key), key_node.start_mark.line, seen[key]))
                else:
                    seen[key] = key_node.start_mark.line
            except TypeError:  # an unhashable key: the base class reports it
                continue
        return super().construct_mapping(node, deep)

    def construct_yaml_timestamp(self, node):  # type: ignore[no-untyped-def]
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(None, None, f"{node.value!r} is not a valid date or time ({exc})", node.start_mark) from None


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)


@dataclass(slots=True)
class YamlResult:
    """A loaded YAML text: its data, or why it could not be read, and its repeated keys."""

    data: object = None
    error: str | None = None
    error_line: int | None = None  # 0-based line of the YAML text, when known
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)


class _Scan:
    """One pass over YAML text that counts nesting levels as the YAML grammar opens them.

    Block levels are open indentation columns (a line more indented than the
    last opens one; each ``- `` or ``? `` entry marker opens one at the
    column of its content); flow levels are ``[`` and ``{`` where a value
    may start, or anywhere inside flow context. Quoted scalars, comments and
    block scalars (``|``, ``>``) are skipped as YAML skips them. The count is
    never below YAML's own (a scalar entry counts one level more), so a text
    it passes cannot nest deeper than the limit.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.columns: list[tuple[int, str]] = []  # open block levels: (column, "seq" or "map")
        self.flow = 0
        self.quote = ""  # the open quote character of a multi-line quoted scalar
        self.literal_above: int | None = None  # lines indented deeper than this belong to a block scalar

    def run(self, text: str) -> int | None:
        """The 0-based line where the depth first exceeds the limit, or None."""
        for number, line in enumerate(text.split("\n")):
            if self._line(line.rstrip("\r")):
                return number
        return None

    def _deep(self) -> bool:
        return len(self.columns) + self.flow > self.limit

    def _line(self, line: str) -> bool:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if self.literal_above is not None:
            if not body.strip() or indent > self.literal_above:
                return False
            self.literal_above = None
        if self.quote or self.flow:
            return self._inline(line, indent, value_start=self.flow > 0)
        if not body or body.startswith("#") or (indent == 0 and body.startswith(("---", "..."))):
            return False
        while self.columns and self.columns[-1][0] > indent:
            self.columns.pop()
        kind = "seq" if _marker(line, indent) == "-" else "map"
        top = self.columns[-1] if self.columns else None
        if top is not None and top[0] == indent and top[1] == "seq" and kind == "map":
            self.columns.pop()  # the sequence ended; its parent mapping may sit at the same column
            top = self.columns[-1] if self.columns else None
        if top is None or top[0] != indent or top[1] != kind:
            self.columns.append((indent, kind))  # a new level (a sequence may share its mapping's column)
        i = indent
        while _marker(line, i) is not None:
            i += 1
            while i < len(line) and line[i] in " \t":
                i += 1
            if i == len(line) or line[i] == "#":
                break  # the entry's value starts on a later line, which opens its own level
            # what follows a marker is a level of its own (a scalar entry counts one too many)
            self.columns.append((i, "seq" if _marker(line, i) == "-" else "map"))
            if self._deep():
                return True
        if self._deep():
            return True
        return self._inline(line, i, value_start=True)

    def _inline(self, line: str, i: int, value_start: bool) -> bool:
        """Scan ``line`` from ``i``; True when the depth exceeds the limit."""
        n = len(line)
        while i < n:
            ch = line[i]
            if self.quote:
                if ch == "\\" and self.quote == '"':
                    i += 2
                    continue
                if ch == self.quote:
                    if self.quote == "'" and line.startswith("''", i):
                        i += 2
                        continue
                    self.quote = ""
                i += 1
                value_start = False
                continue
            if ch in " \t":
                i += 1
                continue
            if ch == "#" and (i == 0 or line[i - 1] in " \t"):
                return False  # a comment runs to the end of the line
            if value_start and ch in "\"'":
                self.quote = ch
                i += 1
                continue
            if (value_start or self.flow) and ch in "[{":
                self.flow += 1
                if self._deep():
                    return True
                i += 1
                value_start = True
                continue
            if self.flow and ch in "]}":
                self.flow -= 1
                i += 1
                value_start = False
                continue
            if self.flow and ch == ",":
                i += 1
                value_start = True
                continue
            if value_start and not self.flow and ch in "|>":
                self.literal_above = len(line) - len(line.lstrip(" "))
                return False
            if ch == ":" and (i + 1 == n or line[i + 1] in " \t" or (self.flow and line[i + 1] in ",[]{}")):
                i += 1
                value_start = True
                continue
            i += 1
            value_start = False
        return False


def _marker(line: str, i: int) -> str | None:
    """The block indicator (``-``, ``?`` or ``:``) that opens an entry at ``line[i]``, or None."""
    if i < len(line) and line[i] in "-?:" and (i + 1 == len(line) or line[i + 1] in " \t"):
        return line[i]
    return None


def nesting_excess(text: str, limit: int = MAX_YAML_DEPTH) -> int | None:
    """The 0-based line of ``text`` where YAML nesting first exceeds ``limit`` levels, or None.

    Linear in the text and independent of the YAML library; text with fewer
    nesting characters than the limit is passed without a scan.
    """
    if sum(text.count(ch) for ch in _NESTING_MARKS) < limit:
        return None
    return _Scan(limit).run(text)


def parse_yaml(text: str) -> YamlResult:
    """Safely load YAML text; every problem is returned, never raised.

    Problems: nesting deeper than :data:`MAX_YAML_DEPTH` (found before
    YAML parses, see :func:`nesting_excess`), invalid YAML, a date or time
    out of range. Duplicate keys are listed in the result.
    """
    deep = nesting_excess(text)
    if deep is not None:
        return YamlResult(error=TOO_DEEP, error_line=deep)
    loader = _Loader(text)
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return YamlResult(error=reason, error_line=mark.line if mark is not None else None)
    except RecursionError:  # the pure-Python loader, without libyaml
        return YamlResult(error=TOO_DEEP)
    finally:
        loader.dispose()
    return YamlResult(data, duplicates=loader.duplicates)
