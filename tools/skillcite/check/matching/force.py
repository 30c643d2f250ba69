"""Force words: the negations and numbers whose loss or addition changes what a sentence says.

A cut (``[...]``) or an insertion (``[word]``) that drops or adds one of
them is a departure of its own (SC310-SC312), whatever else it does.
"""


from __future__ import annotations

import re
from collections import Counter

from .chars import _EDGE, _scripted

# Negations an editorial mark may neither drop nor add (docs/citations.md).
_NEG_WORDS = frozenset(
    ["not", "no", "non", "never", "without", "none", "nor", "neither", "nothing", "nobody", "nowhere", "cannot", "cant", "wont", "dont",
     "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "shouldnt", "wouldnt", "couldnt", "mustnt", "neednt", "hasnt", "havent", "hadnt", "aint"]
)
_NEG_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir")
_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?:/\d+)?[kKmMbB%]?")


# -- the editorial policy ------------------------------------------------------
def _negations(text: str) -> Counter[str]:
    """Negation words of ``text`` (``n't`` forms counted as ``not``)."""
    out: Counter[str] = Counter()
    for w in _WORDS.findall(text.lower()):
        if w.endswith("n't") or w.replace("'", "") in _NEG_WORDS:
            out["not" if w.endswith("n't") else w.replace("'", "")] += 1
    return out


def _affix_flip(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by a negating prefix or the suffix ``-less``."""
    a, b = a.lower(), b.lower()
    if a == b:
        return False
    for p in _NEG_PREFIXES:
        if a == p + b or b == p + a:
            return True
    return a[:3] == b[:3] and a.endswith("less") != b.endswith("less")


# Numbers written as words count as numbers, compared as written: "[five]"
# for "three" changes a number, and so does "[3]" for "three".
_NUMBER_WORD_TEXT = (
    "zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion trillion "
    "dozen dozens hundreds thousands millions billions twice thrice"
)
_NUMBER_WORDS = frozenset(_NUMBER_WORD_TEXT.split())  # not "one": it is a pronoun as often


def _numbers(text: str) -> Counter[str]:
    found = Counter(m.group().lstrip("+").rstrip(",") for m in _NUMBER.finditer(text))
    found.update(ch for ch in text if _scripted(ch) and ch.isdigit())
    found.update(w for w in _WORDS.findall(text.lower()) if w in _NUMBER_WORDS)
    return found


def _is_number(token: str) -> bool:
    token = token.strip(_EDGE + "()[]")
    return bool(token) and (bool(_NUMBER.fullmatch(token)) or token.lower() in _NUMBER_WORDS)
