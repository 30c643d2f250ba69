"""Editorial marks and the departures from verbatim they make.

:func:`find_exact` finds a compiled quote in a stretch of text and says
what each mark stands for there: a mark that breaks the editorial policy
is a problem (SC310-SC312); the others, cuts beside words that change a
sentence's force, a changed first letter, a lead-in left out, are edits a
person reviews.
"""


from __future__ import annotations

import re

from ..parsing.sentences import cut_context, force_words, frames_next, next_sentence, previous_sentence, script_negations, sentence_ends, sentence_span, takes_back
from .force import _WORDS, _affix_flip, _is_number, _negations, _numbers
from .pattern import _OMISSION, Hit, Mark, QuotePattern, _find_segments, _inside, _whole_words

# Editor's notes that stand for no source text and change none.
_NOTES = frozenset({"sic", "emphasis added", "emphasis mine", "emphasis in original", "italics added", "italics mine"})


def _word_at(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to the whole token(s) it touches."""
    while start > 0 and _inside(text, start):
        start -= 1
    while end < len(text) and _inside(text, end):
        end += 1
    return start, end


def _token(text: str, pos: int) -> tuple[int, int]:
    """The token holding the character at ``pos``."""
    if not 0 <= pos < len(text) or text[pos].isspace():
        return pos, pos
    return _word_at(text, pos, pos + 1)


def _sentence_part(dropped: str, before: str) -> str:
    """The part of a dropped stretch that belongs to a sentence the quote shows.

    An elision that runs past a sentence end drops whole sentences there;
    only the stretch up to the first end (unless the quoted text before the
    elision ended its sentence already), and the stretch after the last one,
    are inside a sentence the quote shows.
    """
    ends = list(sentence_ends(dropped))
    if not ends:
        return dropped
    joined = before + dropped
    closed = any(e == len(before.rstrip()) for _s, e in sentence_ends(joined, max(0, len(before.rstrip()) - 4), len(before.rstrip()) + 1))
    head = "" if closed else dropped[: ends[0][0]]
    return head + " " + dropped[ends[-1][1] :]


def _check_insertion(inserted: str, quoted: str, source: str, glued: bool) -> tuple[str, str] | None:
    """Policy for one insertion: ``quoted`` is the word(s) it forms, ``source`` what it replaces there."""
    if _negations(inserted) != _negations(source) or any(
        _affix_flip(q, s) for q in _WORDS.findall(quoted) for s in _WORDS.findall(source)
    ):
        return "SC311", f"insertion [{inserted}] turns {source.strip()!r} into {quoted.strip()!r}: it adds or removes a negation"
    if _numbers(inserted) != _numbers(source) and not glued or glued and _numbers(quoted) != _numbers(source):
        return "SC312", f"insertion [{inserted}] turns {source.strip()!r} into {quoted.strip()!r}: it changes a number"
    return None


def _check_marks(qp: QuotePattern, spans: list[tuple[int, int]], text: str, lo: int, hi: int) -> tuple[str, str] | None:
    """The first editorial mark of a found chain that breaks the policy, as (code, detail)."""
    segs = qp.segmented or ()
    # A leading or trailing elision stands for the rest of the clause it cuts.
    for mark, at_start in ((qp.lead, True), (qp.tail, False)):
        if mark is None or not mark.elided:
            continue
        before, after = cut_context(text, spans[0][0], spans[-1][1], lo, hi)
        rest = before if at_start else after
        neg = _negations(rest)
        if neg:
            where = "before" if at_start else "after"
            return "SC311", f"[...] {where} the quote drops {next(iter(neg))!r} from {_clip(rest)}: it removes a negation"
    for k in range(1, len(segs)):
        seg, prev = segs[k], segs[k - 1]
        mark = seg.mark
        if mark is None:
            continue
        a, b = spans[k - 1][1], spans[k][0]
        dropped = text[a:b]
        if mark.elided:
            part = _sentence_part(dropped, text[spans[k - 1][0] : a])
            neg = _negations(part)
            if neg:
                word = next(iter(neg))
                return "SC311", f"[...] drops {word!r} from {_clip(text[spans[k - 1][0] : spans[k][1]])}: it removes a negation"
            before, after = text[spans[k - 1][0] : a], text[b : spans[k][1]]
            last = before.split()[-1] if before.split() else ""
            first = after.split()[0] if after.split() else ""
            if _is_number(last) and _is_number(first):
                return "SC312", f"[...] joins two numbers: {_clip(before + dropped + after)}"
            if _is_number(last) and dropped.strip()[:1].isalnum() and first[:1].isalpha():
                # "5 [...] seeds" for "5 epochs and 3 seeds": the number now counts another word.
                return "SC312", f"[...] binds the number {last!r} to {first!r}: {_clip(before + dropped + after)}"
        if mark.inserted:
            if prev.glued_end and seg.glued_start:
                return "SC310", f"insertion [{mark.inserted}] sits inside the word {_clip(text[slice(*_word_at(text, a, b))])}"
            if seg.glued_start:
                w0, w1 = _token(text, b)
                found = _check_insertion(mark.inserted, mark.inserted + text[b:w1], text[w0:w1], True)
            elif prev.glued_end:
                w0, w1 = _token(text, a - 1)
                found = _check_insertion(mark.inserted, text[w0:a] + mark.inserted, text[w0:w1], True)
            else:
                found = _check_insertion(mark.inserted, mark.inserted, dropped, False)
            if found:
                return found
            if mark.inserted.lower() in _NOTES and dropped.strip() and not mark.elided:
                return "SC310", f"editor's note [{mark.inserted}] stands for {_clip(dropped)}: a note replaces no source text"
            if not dropped.strip() and mark.inserted.lower() not in _NOTES:
                return "SC310", f"insertion [{mark.inserted}] replaces nothing in the source: {_clip(text[spans[k - 1][0] : spans[k][1]])}"
    for mark, at_start in ((qp.lead, True), (qp.tail, False)):
        if mark is None or not mark.inserted:
            continue
        seg = segs[0] if at_start else segs[-1]
        edge = spans[0][0] if at_start else spans[-1][1]
        glued = seg.glued_start if at_start else seg.glued_end
        if glued:
            w0, w1 = _token(text, edge if at_start else edge - 1)
            replaced = text[w0:edge] if at_start else text[edge:w1]
            quoted = mark.inserted + text[edge:w1] if at_start else text[w0:edge] + mark.inserted
            found = _check_insertion(mark.inserted, quoted, text[w0:w1], True)
        else:
            replaced = _neighbour_words(text, edge, len(mark.inserted.split()) or 1, at_start, lo, hi)
            # What it replaces is not marked: every word of the sentence it
            # stands beside is a candidate ("[Always]" for "Do not ever").
            rest = _before_in_sentence(text, edge, lo) if at_start else _after_in_sentence(text, edge, hi)
            found = _check_insertion(mark.inserted, mark.inserted, rest if replaced.strip() else replaced, False)
        if found:
            return found
        if not replaced.strip() and mark.inserted.lower() not in _NOTES:
            where = "before" if at_start else "after"
            return "SC310", f"insertion [{mark.inserted}] replaces nothing in the source {where} {_clip(text[spans[0][0] : spans[-1][1]])}"
    return None


def _neighbour_words(text: str, edge: int, count: int, before: bool, lo: int, hi: int) -> str:
    """Up to ``count`` words next to ``edge`` inside the same sentence (what a leading or trailing insertion replaces)."""
    if before:
        stretch = _before_in_sentence(text, edge, lo)
        words = stretch.split()
        return " ".join(words[-count:]) if words else ""
    stretch = _after_in_sentence(text, edge, hi)
    end = next(sentence_ends(stretch), None)
    if end:
        stretch = stretch[: end[0]]
    words = stretch.split()
    return " ".join(words[:count])


def _clip(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def find_exact(qp: QuotePattern, text: str, lo: int = 0, hi: int | None = None, context: tuple[int, int] | None = None) -> Hit | None:
    """The quote in ``text[lo:hi]``: literal first, then segments (with the editorial policy).

    A match must begin and end on token boundaries (see :func:`_whole_words`).
    ``context`` bounds what is read around a hit for the sentences before
    and after it (default: ``lo`` and ``hi``).
    """
    end = len(text) if hi is None else hi
    ctx = context if context is not None else (lo, end)
    best = -1
    for variant in qp.literal:
        i = text.find(variant, lo, end)
        while i != -1 and not _whole_words(text, i, i + len(variant)):
            i = text.find(variant, i + 1, end)
        if i != -1 and (best == -1 or i < best):
            best, length = i, len(variant)
    if best != -1:
        edits = []
        found = text[best : best + length]
        if found != qp.text:
            edits.append(f"first letter {_first_letter(qp.text)!r} for {_first_letter(found)!r}")
        if _OMISSION in found:
            # The excerpt itself omits text there: what the [...] stands for is not in the cache.
            edits.append("crosses an omission [...] of the evidence: the text it stands for is not in the cache")
        edits.extend(_truncations(text, best, best + length, lo, end, ctx))
        return Hit(best, best + length, None, tuple(edits), sentence_span(text, best, best + length, lo, end))
    if not qp.segmented:
        return None
    spans = _find_segments(qp.segmented, text, lo, end)
    if spans is None:
        return None
    problem = _check_marks(qp, spans, text, lo, end)
    edits = _mark_edits(qp, spans, text, lo, end)
    edits.extend(_truncations(text, spans[0][0], spans[-1][1], lo, end, ctx))
    return Hit(spans[0][0], spans[-1][1], problem, tuple(edits), sentence_span(text, spans[0][0], spans[-1][1], lo, end))


def _first_letter(text: str) -> str:
    return next((ch for ch in text if ch.isalnum()), "")


# Departures a quote writes itself (its marks, its first letter, a respelled Greek letter):
# the same wherever its words are found. Every other departure depends on the source
# around the words (a cut next to "not", a lead-in left out, an omission crossed).
_OWN_EDITS = re.compile(r"(?:first letter |elision |insertion \[|editor's note \[|'[^']+' written for the source's ')")


def own_edit(edit: str) -> bool:
    """True when departure ``edit`` is one the quote writes itself, not one its place in the source makes."""
    return _OWN_EDITS.match(edit) is not None


def _truncations(text: str, start: int, end: int, lo: int, hi: int, ctx: tuple[int, int]) -> list[str]:
    """Departures of a quote that cuts its sentence where the part left out holds a word that changes its force.

    Also the context that qualifies a quote of whole sentences (issue 28):
    a next sentence that takes it back, a sentence before that frames it,
    the source quoting the words from someone else; read within ``ctx``.
    """
    before, after = cut_context(text, start, end, lo, hi)
    out = []
    a, b = sentence_span(text, start, end, lo, hi)
    sentence = text[a:b].rstrip("\"')]\u201d\u2019 ")
    if sentence.endswith("?") and "?" not in text[start:end]:
        out.append(f"leaves out the question mark of {_clip(text[a:b])}: the source asks, the quote states")
    if end >= b - 1:  # the quote ends its sentence: the next one may take it back
        nxt = next_sentence(text, b, max(hi, ctx[1]))
        if takes_back(nxt):
            out.append(f"the next sentence qualifies it: {_clip(nxt)}")
    prev = previous_sentence(text, a, min(lo, ctx[0]))
    if prev and frames_next(prev):
        out.append(f"the sentence before frames it: {_clip(prev)}")
    speech = _reported_speech(text, start, end, min(lo, ctx[0]), max(hi, ctx[1]))
    if speech is not None:
        out.append(f"the source quotes these words from someone else: {_clip(speech)}")
    head, tail = text[max(a - 2, 0) : start], text[end : b + 2]
    if "~~" in head and "~~" in tail:
        out.append("quotes text the source strikes through (~~)")
    if before.rstrip().endswith(":") and len(before.split()) <= 4 and not _NOTE_LABEL.fullmatch(before.strip()):
        # A short label before a colon frames what follows ("Myth: you never
        # have a bug."): without it the words may say the opposite.
        out.append(f"leaves out the lead-in {_clip(before.strip())} before it")
    # A contrast that opens the sentence ("However, ...") qualifies what came
    # before it; one after the quote ("..., but hurts RNNs") qualifies the quote.
    words = [w for w in force_words(before) if w not in _AFTER_ONLY] + script_negations(before)
    if words:
        out.append(f"leaves out {_clip(before.strip())} before it, which holds {', '.join(repr(w) for w in dict.fromkeys(words))}")
    words = force_words(after) + script_negations(after)
    if words:
        out.append(f"leaves out {_clip(after.strip())} after it, which holds {', '.join(repr(w) for w in dict.fromkeys(words))}")
    return out


_NOTE_LABEL = re.compile(r"\[\^[^\]\s]+\]:")  # a footnote definition's label: not a lead-in


def _reported_speech(text: str, start: int, end: int, lo: int, hi: int) -> str | None:
    """The lead-in when ``text[start:end]`` lies inside quotation marks of the source ("He wrote: '...'"), else None.

    The normalized text writes every quotation mark as ``'``: one that opens
    right before the quote's first word (after a space, a colon, a bracket
    or the start) and one that closes at or right after its end. An
    apostrophe inside a word ("don't") is never preceded by a space.
    """
    i = start
    while i > lo and text[i - 1] == " ":
        i -= 1
    if i <= lo or text[i - 1] not in "'\"":
        return None
    if i - 1 > lo and text[i - 2] not in " :([":
        return None
    j = end
    while j < hi and text[j] in ".,;:!? ":
        j += 1
    if not (j < hi and text[j] in "'\"") and text[end - 1 : end] not in ("'", '"'):
        return None
    a, _ = sentence_span(text, i - 1, i - 1, lo, hi)
    return text[a : i - 1].strip() or "'"


# Words that change a quote's force after it only: a contrast ("..., but
# hurts RNNs") or a report ("..., or so they say"); before it they qualify
# what came earlier ("However, ...") or introduce the author's own words
# ("The paper says that ...").
_AFTER_ONLY = frozenset({"but", "however", "although", "though", "say", "says", "said"})


def _mark_edits(qp: QuotePattern, spans: list[tuple[int, int]], text: str, lo: int, hi: int) -> list[str]:
    """What each editorial mark of a found chain stands for, in the quote's order."""
    segs = qp.segmented or ()
    out: list[str] = []
    if qp.lead is not None:
        out.extend(_describe_mark(qp.lead, _before_in_sentence(text, spans[0][0], lo), "at the start"))
    first = text[spans[0][0] : spans[0][1]]
    if segs and segs[0].written and first != segs[0].written and first.lower() == segs[0].written.lower():
        out.append(f"first letter {_first_letter(segs[0].written)!r} for {_first_letter(first)!r}")
    for k in range(1, len(segs)):
        mark = segs[k].mark
        if mark is not None:
            where = f"between {_clip(_tail_words(text[slice(*spans[k - 1])]))} and {_clip(_head_words(text[slice(*spans[k])]))}"
            out.extend(_describe_mark(mark, text[spans[k - 1][1] : spans[k][0]], where))
        found = text[spans[k][0] : spans[k][1]]
        if segs[k].written and found != segs[k].written:
            out.append(f"first letter {_first_letter(segs[k].written)!r} for {_first_letter(found)!r}")
    if qp.tail is not None:
        out.extend(_describe_mark(qp.tail, _after_in_sentence(text, spans[-1][1], hi), "at the end"))
    return out


def _describe_mark(mark: Mark, stands_for: str, where: str) -> list[str]:
    out = []
    inserted = mark.inserted
    shown = " ".join(stands_for.split())
    if inserted and inserted.lower() in _NOTES:
        out.append(f"editor's note [{inserted}] {where}" + (f", standing for {_clip(shown)}" if shown and not mark.elided else ""))
        inserted = ""
    if mark.elided and inserted:
        out.append(f"elision and insertion [{inserted}] {where}, for {_clip(shown)}")
    elif mark.elided:
        out.append(f"elision [...] {where}, for {_clip(shown)}" if shown else f"elision [...] {where}")
    elif inserted:
        out.append(f"insertion [{inserted}] {where}, for {_clip(shown)}" if shown else f"insertion [{inserted}] {where}, for nothing")
    return out


def _head_words(text: str, n: int = 3) -> str:
    return " ".join(text.split()[:n])


def _tail_words(text: str, n: int = 3) -> str:
    return " ".join(text.split()[-n:])


def _before_in_sentence(text: str, edge: int, lo: int) -> str:
    a, _ = sentence_span(text, edge, edge, lo, edge)
    return text[a:edge]


def _after_in_sentence(text: str, edge: int, hi: int) -> str:
    _, b = sentence_span(text, edge, edge, edge, hi)
    return text[edge:b]
