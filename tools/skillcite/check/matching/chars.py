"""Character classes the matchers share: scripts written without spaces, token characters, word edges."""


from __future__ import annotations

import re
import unicodedata

_EDGE = " .,;:"
# Scripts that write words without spaces: a quote may start or stop between
# any two of their letters (Thai, Lao, Tibetan, Myanmar, Khmer, CJK, kana, Yi).
_UNSPACED = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fdf\u3000-\u312f\u3190-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua000-\ua4cf\uf900-\ufaff\U00020000-\U0003134f]"
)
# Chinese and Japanese negations glued to the word they negate: a quote must
# not start right after the first, nor stop right before the second.
_CJK_NEG_BEFORE = frozenset("不没沒未无無非别別勿莫否")
_CJK_NEG_AFTER = ("ない", "なかった", "ません", "ぬ", "ず")


def _spaced_letter(ch: str) -> bool:
    """A letter of a script that separates words with spaces (Latin, Hangul, Georgian, ...).

    Chinese, Japanese, Thai and their kin write words without spaces, so a
    quote may start or stop between any two of their letters.
    """
    return ch.isalpha() and not _UNSPACED.match(ch)


def _scripted(ch: str) -> bool:
    return unicodedata.decomposition(ch).startswith(("<super>", "<sub>"))


def _token_char(ch: str) -> bool:
    """A character that belongs to a word or number token of a spaced script."""
    if ch.isdigit() or ch == "_":
        return True
    return _spaced_letter(ch)
