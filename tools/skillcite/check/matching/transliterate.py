"""Greek letters spelled out: a quote that writes ``μ`` where its source writes ``mu``, or the reverse.

Caches are rewritten by tools that transliterate (a PDF's ``μ`` extracted as
``mu``, a page's ``sigma`` typeset as ``σ`` by another converter). Such a
quote is no longer verbatim, and was reported as altered even when its
passage only moved, so ``fix`` could not place it. Here the quote is tried
again with each letter spelled as the source spells it; a hit is a
departure from verbatim (SC313 until a person reviews it), never a silent
pass. The micro sign needs nothing: NFKC makes ``µ`` the letter ``μ``.
"""

from __future__ import annotations

import re

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta",
    "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi",
    "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}
_NAMES = {name: letter for letter, name in GREEK.items()}
_LETTER = re.compile("[" + "".join(GREEK) + "]")
_NAME = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(_NAMES, key=len, reverse=True)) + r")(?![A-Za-z])")


def _spelled(name: str, source: str) -> bool:
    return re.search(r"(?<![A-Za-z])" + name + r"(?![A-Za-z])", source) is not None


def transliterate(quote: str, source: str) -> tuple[str, tuple[str, ...]] | None:
    """``quote`` with each Greek letter, or letter name, spelled as ``source`` spells it, and what changed.

    A letter becomes its name only where the source holds the name as a
    word and not the letter; a name becomes its letter only where the
    source holds the letter and not the name. None when nothing changes.
    """
    changes: dict[str, str] = {}

    def to_name(m: re.Match[str]) -> str:
        letter = m.group()
        name = GREEK[letter]
        if letter not in source and _spelled(name, source):
            changes[letter] = name
            return name
        return letter

    def to_letter(m: re.Match[str]) -> str:
        name = m.group()
        letter = _NAMES[name]
        if letter in source and not _spelled(name, source):
            changes[name] = letter
            return letter
        return name

    changed = _LETTER.sub(to_name, quote) if _LETTER.search(quote) else quote
    changed = _NAME.sub(to_letter, changed) if _NAME.search(changed) else changed
    if changed == quote:
        return None
    return changed, tuple(f"'{a}' written for the source's '{b}'" for a, b in changes.items())
