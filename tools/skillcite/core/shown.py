"""Paths and messages as every output prints them: one line, no control characters.

A file name may hold a newline, an escape sequence or a bidirectional
override. Printed raw, it could end a finding's line and start another (in
GitHub Actions a line of its own can be a workflow command, ``::error``),
or recolour and rewrite the terminal. Every command prints paths through
:func:`shown` and one-line messages through :func:`one_line`.
"""

from __future__ import annotations

import unicodedata


def shown(path: str) -> str:
    """``path`` as printed in any output: unchanged when every character is a plain printable one.

    Otherwise quoted, with control, format (bidirectional overrides),
    separator, private and unpaired surrogate characters (an undecodable
    file name) written as escapes: a newline in a file name must not start
    a line of its own (a GitHub workflow command, a forged finding), nor an
    escape sequence reach the terminal.
    """
    if all(_plain(ch) for ch in path):
        return path
    out = []
    for ch in path:
        if ch in '"\\':
            out.append("\\" + ch)
        elif _plain(ch):
            out.append(ch)
        else:
            out.append(_escape(ch))
    return '"' + "".join(out) + '"'


def one_line(text: str) -> str:
    """``text`` with every character :func:`shown` would escape written as an escape, not quoted.

    For messages printed on one line (a finding, an error on stderr): a file
    name they mention cannot end the line or reach the terminal as a
    control sequence.
    """
    if all(_plain(ch) for ch in text):
        return text
    return "".join(ch if _plain(ch) else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    if ord(ch) < 0x100:
        return f"\\x{ord(ch):02x}"
    if ord(ch) < 0x10000:
        return f"\\u{ord(ch):04x}"
    return f"\\U{ord(ch):08x}"


def _plain(ch: str) -> bool:
    return unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
