"""Sentences of normalized evidence text, and the words that change a sentence's force.

Both serve the editorial model (docs/citations.md, "Verified"): a quote
that cuts a sentence next to a word such as "not", "only" or "unless" is a
departure from verbatim that a person must review, and the review is keyed
by the whole sentence(s) the quote stands for.

A sentence ends at ``.``, ``!`` or ``?`` followed by a space (or the end of
the text) and then by anything but a lower-case letter, and at an omission
mark ``[...]`` of the evidence. Not at an abbreviation (``e.g.``, ``et al.``,
``Sec. 2``, ``Fig. 3``, an initial ``J.``), not at a source ellipsis
(``is... not... helpful``), and not at ``:`` or ``;``, which join clauses of
one sentence. Where in doubt, the sentence is taken longer: a longer
sentence shows the reviewer more, and hides no word of it from the policy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

# Words that change a sentence's force: negations, quantifiers, modals and
# conditions, in English and the other languages the normalizer folds most
# often (French, German, Spanish, Italian, Portuguese). Lower case, without
# apostrophes; any "n't" form counts as a negation too.
_FORCE_TEXT = """
    not no non never without none nor neither nothing nobody nowhere cannot cant wont dont doesnt didnt isnt arent
    wasnt werent shouldnt wouldnt couldnt mustnt neednt hasnt havent hadnt aint
    only unless except excepting barely hardly scarcely seldom rarely few fewer little least
    all every each always most many some sometimes often usually generally mostly any
    must may might can could should would shall will need needs ought
    if when whenever until provided assuming than but however although though
    false untrue wrong incorrect myth myths misconception unlikely doubt doubtful whether supposedly allegedly
    claim claims claimed believe believes believed seems seem seemed appears apparently perhaps maybe possibly
    avoid anti mistake mistakes pitfall pitfalls bad
    say says said think thinks thought hypothesized hypothesis expected assumed theory theoretically supposed
    reportedly rumored ironically sarcastically jokingly instead rather stop quit overrated debunked disproven
    ne pas jamais rien aucun aucune sans sauf seulement si peu
    nicht nie niemals kein keine keinen keiner nur außer ausser wenn falls selten ohne
    nunca nada ninguno ninguna sin solo sólo salvo excepto pocos pocas
    non mai nessuno nessuna senza solo tranne
    não nunca nenhum nenhuma sem apenas exceto
"""
FORCE_WORDS = frozenset(_FORCE_TEXT.split())
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_CANDIDATE = re.compile(r"[.!?]+(?=[\"'\u201d\u2019)\]]*(?:\s|$))|\[\.\.\.\]|\u3002")  # 。 ends a sentence with no space after it
_ABBREVIATION_TEXT = """
    e.g i.e eg ie al etc cf vs viz sec secs fig figs eq eqs tab tabs ch chap app no nos vol vols pp p ref refs
    approx resp dr mr mrs ms prof st jr sr inc ltd co corp dept est ed eds trans op ca min max avg
"""
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())


def force_words(text: str) -> list[str]:
    """The words of ``text`` that change a sentence's force, in order (``n't`` forms as written)."""
    out = []
    for w in _WORD.findall(text.lower()):
        bare = w.replace("'", "").replace("\u2019", "")
        if bare in FORCE_WORDS or w.endswith(("n't", "n\u2019t")):
            out.append(w)
    return out


def sentence_ends(text: str, lo: int = 0, hi: int | None = None) -> Iterator[tuple[int, int]]:
    """Spans of the sentence ends in ``text[lo:hi]`` (see the module), in order."""
    hi = len(text) if hi is None else hi
    for m in _CANDIDATE.finditer(text, lo, hi):
        if m.group() in ("[...]", "\u3002"):
            yield m.start(), m.end()
            continue
        run = m.group()
        if run.count(".") >= 2 or "\u2026" in run:
            continue  # a source ellipsis: "is... not... helpful"
        if run == "." and _abbreviation(text, m.start()):
            continue
        nxt = _next_letter(text, m.end())
        if nxt is not None and nxt.islower():
            continue  # "e.g. the", "approx. five": the sentence goes on
        yield m.start(), m.end()


def _abbreviation(text: str, dot: int) -> bool:
    """True when the full stop at ``dot`` ends an abbreviation or an initial."""
    start = dot
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "([{\"'\u201c\u2018":
        start -= 1
    word = text[start:dot].lower()
    if not word:
        return False
    if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return True
    # "et al.": the word before "al"; "U.S.": dots inside the word.
    return "." in word and all(part.isalpha() and len(part) <= 3 for part in word.split("."))


def _next_letter(text: str, i: int) -> str | None:
    """The first letter or digit after offset ``i`` (None at the end)."""
    for ch in text[i : i + 40]:
        if ch.isalnum():
            return ch
    return None


# The matcher asks for the same span several times per quote (the hit, its
# cut context, its truncations): texts are immutable, so the answer is kept.
@lru_cache(maxsize=64)
def sentence_span(text: str, start: int, end: int, lo: int = 0, hi: int | None = None, reach: int = 2000) -> tuple[int, int]:
    """``[start, end)`` widened to the whole sentence(s) of ``text[lo:hi]`` it lies in.

    At most ``reach`` characters are added on each side, so a text without
    sentence ends costs no more than that.
    """
    hi = len(text) if hi is None else hi
    a = max(lo, start - reach)
    begin = a
    for _s, e in sentence_ends(text, a, start):
        begin = e
    stop = min(hi, end + reach)
    finish = stop
    # An end that the quote's last characters are part of ("... help." quoted as "help.").
    for s, e in sentence_ends(text, max(lo, end - 1), stop):
        if s >= end - 1 or e > end:
            finish = e
            break
    while begin < start and text[begin].isspace():
        begin += 1
    return begin, max(finish, end)


# Where a clause that a quote cuts ends: a semicolon, or a coordinating "and"
# or "or" that opens a clause of its own. Not a comma, nor "but": they
# attach the qualifications that change a claim's force ("helps, unless",
# "helps but not always").
_CLAUSE_STOP = re.compile(r";|\b(?:and|or|und|oder|et|ou)\b", re.IGNORECASE)


def cut_context(text: str, start: int, end: int, lo: int = 0, hi: int | None = None) -> tuple[str, str]:
    """The parts of the clauses around ``text[start:end]`` that a quote of that span leaves out.

    ``(before, after)``: from the start of the clause the quote's first word
    is in (within its sentence) to ``start``, and from ``end`` to the end of
    the clause its last word is in (without the closing punctuation).
    """
    a, b = sentence_span(text, start, end, lo, hi)
    before, after = text[a:start], text[end:b]
    stops = list(_CLAUSE_STOP.finditer(before))
    if stops:
        before = before[stops[-1].end() :]
    for stop in _CLAUSE_STOP.finditer(after):
        # "..., or so they say", "... and that is wrong": a clause that
        # refers back to the quote's words is about them, not a new one.
        nxt = _WORD.match(after, len(after) - len(after[stop.end() :].lstrip()))
        if nxt is None or nxt.group().lower() not in _BACK_REFERENCES:
            after = after[: stop.start()]
            break
    return before, after.rstrip(".!?\"'\u201d\u2019) \u3002")


# Words that open a clause or a sentence about what was just said.
_BACK_REFERENCES = frozenset({"that", "this", "which", "so", "these", "those", "such", "not", "no", "nor", "never"})


def next_sentence(text: str, end: int, hi: int | None = None) -> str:
    """The sentence after offset ``end`` when ``end`` closes one (else ""), at most 300 characters."""
    hi = len(text) if hi is None else hi
    rest = text[end : min(hi, end + 300)]
    closing = len(rest) - len(rest.lstrip("\"')]\u201d\u2019"))
    rest = rest[closing:]  # the sentence ended inside quotation marks or brackets: 'He wrote: "..." He was wrong.'
    if rest[:1] not in ("", " ") and not rest[:1].isspace():
        return ""
    body = rest.lstrip()
    stop = next(sentence_ends(body), None)
    return body[: stop[1]] if stop else body


# Words that deny what a back reference points at ("That is a myth.", "Not always.").
_DENIAL_TEXT = (
    "not no never none nor neither nothing nobody cannot false wrong untrue incorrect myth myths misconception "
    "debunked disproven overrated mistake unlikely doubtful rarely seldom hardly"
)
_DENIALS = frozenset(_DENIAL_TEXT.split())


def qualifies_previous(sentence: str) -> bool:
    """True when ``sentence`` opens with a back reference and denies it ("That is a myth.", "Not always.")."""
    first = _WORD.match(sentence.lstrip())
    if first is None or first.group().lower() not in _BACK_REFERENCES:
        return False
    return any(w in _DENIALS or w.endswith(("n't", "n\u2019t")) for w in force_words(sentence) + _WORD.findall(sentence.lower()))


# Issue 28: the context of a verbatim quote. A quote can be every word of
# its sentence and still stand for the opposite of what its source says:
# the next sentence takes it back ("But not on small data.", "Wrong.",
# "Update: I was wrong"), or the text before frames it as a myth, a
# failure or someone else's view. What these word lists catch is flagged
# for a person's review; what they miss is the review's job
# (docs/citations.md, "What the check cannot see").

# Openers of a sentence that contrasts with, corrects or retracts the one
# before, in the languages of FORCE_WORDS (lower case; a phrase is its words
# joined by one space).
_TAKE_BACK_OPENER_TEXT = """
    but however yet nevertheless nonetheless although though except unfortunately
    update updated edit edited correction erratum wrong false untrue incorrect nope myth
    mais cependant pourtant toutefois néanmoins sauf faux erreur
    aber jedoch doch allerdings trotzdem dennoch außer ausser falsch nein
    pero excepto salvo falso
    ma però tuttavia eppure tranne sbagliato
    mas porém contudo todavia entretanto exceto errado
"""
_TAKE_BACK_OPENERS = frozenset(_TAKE_BACK_OPENER_TEXT.split())
_TAKE_BACK_PHRASES = ("that said", "on the other hand", "sin embargo", "no obstante", "no entanto", "en revanche", "par contre")
# Words that deny a claim wherever they stand in a short sentence ("He was wrong.").
_STRONG_DENIAL_TEXT = """
    wrong false untrue incorrect myth myths misconception misconceptions debunked disproven mistaken fallacy
    faux fausse erroné erronée mythe falsch irrtum mythos falso falsa equivocado equivocada mito
    sbagliato sbagliata errado errada
"""
_STRONG_DENIALS = frozenset(_STRONG_DENIAL_TEXT.split())
# Words that frame what follows as a belief, a claim or an opponent's view.
_FRAME_TEXT = """
    believed belief beliefs allegedly supposedly purportedly critics opponents skeptics sceptics
    croyance prétendument soi-disant angeblich vermeintlich creencia supuestamente presuntamente credenza presumibilmente
    crença supostamente
"""
# Strong denials frame only in a short sentence ("This is false:"); in a
# long one they are mostly about something else ("it's easy to miss errors
# related to wrong dimensions").
_FRAMES = frozenset(_FRAME_TEXT.split()) | frozenset(
    ["myth", "myths", "misconception", "misconceptions", "fallacy", "debunked", "disproven", "mythe", "mythos", "mito"]
)
# Words of a heading that frame its section as failures or mistakes ("What did not work").
_HEADING_TEXT = """
    failed fails failure failures mistake mistakes pitfall pitfalls antipattern antipatterns anti-pattern anti-patterns
    avoid dont myth myths échecs échec erreurs fehler fehlschläge errores fracasos errori errori erros fracassos
"""
_HEADING_FRAMES = _FRAMES | frozenset(_HEADING_TEXT.split())
_NEGATIONS = frozenset(["not", "no", "never", "nor", "cannot", "pas", "jamais", "nicht", "nie", "kein", "keine", "nunca", "non", "mai", "não"])
_SHORT = 8  # words: a sentence this short that holds a strong denial denies what came before


def _words(text: str) -> list[str]:
    return [w.replace("\u2019", "'") for w in _WORD.findall(text.lower())]


def _negated(words: list[str]) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)


_NOTE_LABEL = re.compile(r"^\s*\[\^[^\]\s]+\]:\s*")


def takes_back(sentence: str) -> bool:
    """True when ``sentence``, right after a quoted one, contrasts with, corrects or denies it.

    It opens with a contrast or a correction ("But not on small data.",
    "However, ...", "Update: I was wrong", "Wrong."), or with a back reference
    that it denies ("That is a myth.", "Not always."), or it is short and
    holds a strong denial ("He was wrong.").
    """
    sentence = _NOTE_LABEL.sub("", sentence, count=1)  # the source's own footnote on the quoted sentence
    words = _words(sentence)
    if not words:
        return False
    head = " ".join(words[:4])
    if words[0] in _TAKE_BACK_OPENERS or any(head.startswith(p) for p in _TAKE_BACK_PHRASES):
        return True
    if qualifies_previous(sentence):
        return True
    return len(words) <= _SHORT and any(w in _STRONG_DENIALS for w in words)


def frames_next(sentence: str) -> bool:
    """True when ``sentence``, right before a quoted one, frames it as a myth, a false claim or a belief ("Here is a myth we all believed.")."""
    words = _words(sentence)
    return any(w in _FRAMES for w in words) or (len(words) <= _SHORT and any(w in _STRONG_DENIALS for w in words))


def frames_section(heading: str) -> bool:
    """True when a heading frames its section as failures, mistakes or myths, or negates ("What did not work", "Myths")."""
    words = _words(heading)
    if len(words) <= _SHORT and any(w in _STRONG_DENIALS for w in words):
        return True
    return _negated(words) or any(w in _HEADING_FRAMES or w.replace("'", "") in _HEADING_FRAMES for w in words)


def previous_sentence(text: str, start: int, lo: int = 0, reach: int = 300) -> str:
    """The sentence of ``text[lo:start]`` that ends right before ``start`` (at most ``reach`` characters), or ""."""
    a = max(lo, start - reach)
    region = text[a:start].rstrip()
    if not region:
        return ""
    ends = list(sentence_ends(region))
    if not ends or ends[-1][1] < len(region.rstrip("\"')]\u201d\u2019")):
        return ""  # the text before does not end a sentence: a lead-in of the same sentence
    begin = ends[-2][1] if len(ends) >= 2 else 0
    return region[begin:].strip()


# Negations of the scripts that write words without spaces between them
# (Chinese, Japanese, Thai) or glue them to the verb (Korean): found as
# substrings, since a "word" there is a whole run of text. Chinese and
# Japanese 不 没 無 非 未 别 勿 莫, Japanese ない ません なかっ, Korean 않 없
# 못 아니 아닌 and a stand-alone 안, the forms of 말다 (마세요 ...), Thai ไม่
# อย่า ห้าม มิได้. Some also sit inside words that do not negate (不同,
# "different"): a review costs a reader a minute, a missed negation a
# reversed claim.
_SCRIPT_NEGATION = re.compile(
    "[\u4e0d\u6ca1\u6c92\u65e0\u7121\u975e\u672a\u522b\u5225\u52ff\u83ab]"
    "|\u306a\u3044|\u307e\u305b\u3093|\u306a\u304b\u3063"
    "|\uc54a|\uc5c6|\ubabb|\uc544\ub2c8|\uc544\ub2cc|(?<!\\S)\uc548(?!\\S)"
    "|\ub9c8\uc138\uc694|\ub9c8\uc2ed\uc2dc\uc624|\ub9c8\ub77c|\ub9d0\ub77c|\ub9d0\uace0|\ub9d0\uc544"
    "|\u0e44\u0e21\u0e48|\u0e2d\u0e22\u0e48\u0e32|\u0e2b\u0e49\u0e32\u0e21|\u0e21\u0e34\u0e44\u0e14\u0e49"
)


def script_negations(text: str) -> list[str]:
    """The negations of ``text`` in scripts without spaces between words, and in Korean (see above), in order."""
    return _SCRIPT_NEGATION.findall(text)
