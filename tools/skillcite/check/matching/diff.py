"""Word diffs of a quote against the passage it was found in, marking only the words that changed."""


from __future__ import annotations

from collections.abc import Callable

from .chars import _EDGE

DIFF_WORDS = 400  # longest word lists compared with difflib; longer ones with rapidfuzz


def word_diff(quoted: str, found: str, context: int = 3, trim: bool = False, shown: str | None = None, mark_elisions: bool = False) -> str:
    """A compact word diff: ``[-quoted-]{+source+}`` with a little context.

    With ``trim``, ``found`` is a stretch of the source around the quote:
    source words before the quote's first word and after its last are not
    differences, so they are left out rather than shown as insertions. A
    ``[...]`` is shown as itself (a finding's diff marks only real
    differences) unless ``mark_elisions``: a reviewer sees what it stands for.
    """
    a, b = quoted.split(), found.split()
    out: list[str] = []
    # Shown: the quote's own quotation marks (", not the normalized '), when normalization kept its words one for one.
    display = a
    if shown is not None and len(shown.split()) == len(a):
        display = [w if _fold_quotes(w) == q else q for w, q in zip(shown.split(), a, strict=True)]
    # Compare words without edge punctuation, and source words without the
    # quotation marks or emphasis around them: a quote may end before the
    # source's full stop, and ``'the`` or ``*a*`` in the source is ``the``
    # or ``a`` in a quote. Quotation marks the quote adds stay differences.
    # Quotation marks the quote adds are differences; parentheses and emphasis around a word are not.
    keys_a = [w if w in _ELISIONS else w.strip(_EDGE).strip(_NOT_QUOTES).strip(_EDGE) or w for w in a]
    keys_b = [_diff_key(w) for w in b]
    ops = _word_opcodes(keys_a, keys_b)
    if keys_a and keys_a[0]:
        # The quote's first letter may change case (docs/citations.md): only
        # for the source word the quote's first word faces, never for the
        # same word further on ("The ... the" is no change).
        first = keys_a[0]
        facing = next((op for op in ops if op[1] == 0 and op[2] > 0 and op[0] == "replace"), None)
        if facing is not None:
            j = next((j for j in range(facing[3], facing[4]) if keys_b[j] != first and keys_b[j][1:] == first[1:] and keys_b[j][:1].lower() == first[:1].lower()), None)
            if j is not None:
                keys_b = keys_b[:j] + [first] + keys_b[j + 1 :]
                ops = _word_opcodes(keys_a, keys_b)
    if trim:
        # Keep only the source words facing the quote: as many before the
        # first equal run as the quote has there, and as many after the last,
        # but never across a sentence's end: a quote that adds words after
        # the source's full stop changed those words, not the next sentence.
        equal = [op for op in ops if op[0] == "equal"]
        if equal:
            lo = max(0, equal[0][3] - equal[0][1])
            hi = min(len(b), equal[-1][4] + (len(a) - equal[-1][2]))
            if hi > equal[-1][4] and b[equal[-1][4] - 1].rstrip(_CLOSERS).endswith(_STOPS):
                hi = equal[-1][4]
            if lo < equal[0][3] and b[equal[0][3] - 1].rstrip(_CLOSERS).endswith(_STOPS):
                lo = equal[0][3]
            b, keys_b = b[lo:hi], keys_b[lo:hi]
            ops = _word_opcodes(keys_a, keys_b)
    # A word written the same on both sides is no difference, whatever its keys say
    # (a prime, x', is a quotation mark to the keys: the quote's is kept, the source's stripped).
    same_a = [w.strip(_EDGE) or w for w in a]
    same_b = [w.strip(_EDGE) or w for w in b]
    ops = _only_differences(ops, lambda i, j: keys_a[i] == keys_b[j] or same_a[i] == same_b[j])
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            words = display[i1:i2]
            if len(words) > 2 * context:
                head = words[:context] if k > 0 else []
                tail = words[-context:] if k < len(ops) - 1 else []
                words = head + ["..."] + tail
            out.extend(words)
        elif i2 > i1 and not mark_elisions and all(key in _ELISIONS for key in keys_a[i1:i2]):
            out.extend(display[i1:i2])  # a legitimate [...] stands for the source words it leaves out: no difference
        else:
            if i2 > i1:
                out.append("[-" + " ".join(display[i1:i2]) + "-]")
            if j2 > j1:
                out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)


_STOPS = (".", "!", "?")
_CLOSERS = "\"')]*_\u2019\u201d"


_QUOTE_CHARS = "\"\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f"


def _fold_quotes(word: str) -> str:
    """``word`` with every quotation mark as the normalized text writes it (')."""
    return word.translate({ord(c): "'" for c in _QUOTE_CHARS})


_ELISIONS = frozenset({"[...]", "[…]", "...", "…", "(...)", "[..]"})
_MARKUP = "*_`'\"\u2018\u2019\u201c\u201d\u00ab\u00bb()"
_NOT_QUOTES = "*_`()"  # markup around a word that is no quotation mark


def _diff_key(word: str) -> str:
    """A word as the diff compares it: edge punctuation, quotation marks and emphasis off (case counts)."""
    if word in _ELISIONS:
        return word
    key = word.strip(_EDGE + _MARKUP).strip(_EDGE)
    return key or word


def _only_differences(ops: list[tuple[str, int, int, int, int]], eq: Callable[[int, int], bool]) -> list[tuple[str, int, int, int, int]]:
    """``ops`` with the equal words (``eq(i, j)``) at either end of a replace block split off as equal runs."""
    out: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace":
            out.append((tag, i1, i2, j1, j2))
            continue
        head = 0
        while i1 + head < i2 and j1 + head < j2 and eq(i1 + head, j1 + head):
            head += 1
        tail = 0
        while i2 - tail > i1 + head and j2 - tail > j1 + head and eq(i2 - tail - 1, j2 - tail - 1):
            tail += 1
        if head:
            out.append(("equal", i1, i1 + head, j1, j1 + head))
        mid = (i1 + head, i2 - tail, j1 + head, j2 - tail)
        if mid[0] < mid[1] or mid[2] < mid[3]:
            kind = "replace" if mid[0] < mid[1] and mid[2] < mid[3] else "delete" if mid[0] < mid[1] else "insert"
            out.append((kind, *mid))
        if tail:
            out.append(("equal", i2 - tail, i2, j2 - tail, j2))
    merged: list[tuple[str, int, int, int, int]] = []
    for op in out:
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    return merged


def _word_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Opcodes turning word list ``a`` into ``b``; rapidfuzz past :data:`DIFF_WORDS` (difflib is quadratic)."""
    if len(a) <= DIFF_WORDS and len(b) <= DIFF_WORDS:
        import difflib  # here only: a verbatim quote needs no diff

        return [tuple(op) for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()]  # type: ignore[misc]
    from rapidfuzz.distance import Indel

    ops: list[tuple[str, int, int, int, int]] = []
    for op in Indel.opcodes(a, b):
        tag = op.tag
        if ops and ops[-1][0] in ("delete", "insert") and tag in ("delete", "insert") and ops[-1][0] != tag:
            prev = ops.pop()
            ops.append(("replace", prev[1], op.src_end, prev[3], op.dest_end))
        else:
            ops.append((tag, op.src_start, op.src_end, op.dest_start, op.dest_end))
    return ops
