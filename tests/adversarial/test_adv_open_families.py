"""Issue 28 §6: the earlier round's open families, each with must-fail, must-review and must-pass twins.

- truncation in scripts without spaces (Chinese, Japanese, Thai) and next
  to Korean negations: the part a quote leaves out holds a negation;
- units and primes: 6" (inches) is not 6' (feet);
- struck-through (<del>, <strike>) and hidden (hidden, display:none)
  text, image alt text and link titles around a quote;
- footnote definitions inside evidence, and quotes inside HTML blocks and
  tables.

``match`` cites every line of the body; ``edits`` non-empty with status
verified is a must-review (SC313 until a person reviews it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial_cases import match


def verdict(tmp_path: Path, body: str, quote: str) -> str:
    """``pass``, ``review`` (verified with departures) or ``fail`` (anything else)."""
    m = match(tmp_path, body, quote)
    if m.status == "verified":
        return "review" if m.edits else "pass"
    return "fail"


CASES = {
    "scripts without spaces": [
        # Chinese: 不要 "do not", 没有用 "useless".
        ("不要使用学习率预热。", "使用学习率预热", "review"),
        ("学习率预热没有用。", "学习率预热", "review"),
        ("学习率预热很有用。", "学习率预热很有用", "pass"),
        ("学习率预热很有用。它也很简单。", "学习率预热很有用。", "pass"),  # 。 ends the sentence
        ("学习率预热很有用。", "学习率预热没有用", "fail"),
        # Japanese: ない.
        ("ウォームアップは効果がない。", "ウォームアップは効果が", "fail"),  # a cut inside a kana run is no word boundary
        ("ウォームアップは効果がある。", "ウォームアップは効果がある", "pass"),
        ("ウォームアップは効果がある。", "ウォームアップは効果がない", "fail"),
        # Korean: 없다 "there is none", a stand-alone 안 "not", 마세요 "do not".
        ("이 방법은 효과가 없다.", "이 방법은 효과가", "review"),
        ("워밍업은 안 도움이 된다.", "도움이 된다.", "review"),
        ("워밍업을 사용하지 마세요. 좋다.", "워밍업을", "review"),
        ("이 방법은 안전하다.", "방법은 안전하다.", "pass"),  # 안 inside a word: no negation
        ("이 방법은 효과가 있다.", "이 방법은 효과가 있다.", "pass"),
        ("이 방법은 효과가 있다.", "이 방법은 효과가 없다.", "fail"),
        # Thai: อย่า "do not", ไม่ "not".
        ("อย่าใช้ warmup ในการฝึก", "ใช้ warmup ในการฝึก", "review"),
        ("warmup ไม่ช่วย", "warmup", "review"),
        ("warmup ช่วยได้มาก", "warmup ช่วยได้มาก", "pass"),
        ("warmup ช่วยได้มาก", "warmup ไม่ช่วย", "fail"),
    ],
    "units and primes": [
        ('The cable is 6" long.', "The cable is 6' long.", "fail"),
        ("The cable is 6\u2033 long.", "The cable is 6\u2032 long.", "fail"),
        ("It is 5'11\" tall.", "It is 5\"11' tall.", "fail"),
        ('The cable is 6" long.', 'The cable is 6" long.', "pass"),
        ('The cable is 6" long.', "The cable is 6\u2033 long.", "pass"),
        ("The cable is 6\u2032 long.", "The cable is 6' long.", "pass"),
        ("He said \u201cuse 5\u201d twice.", 'He said "use 5" twice.', "pass"),  # a closing quotation mark, not inches
        ('He said "use 5" twice.', "He said \u201cuse 5\u201d twice.", "pass"),
        ('A 6" cable, they said, is too long for the rack.', 'A 6" cable [...] is too long', "review"),
    ],
    "struck, hidden, alt and title text": [
        ("Use <del>no</del> warmup always.", "Use no warmup always.", "fail"),  # struck text quoted as current
        ("Use <strike>no</strike> warmup always.", "Use no warmup always.", "fail"),
        ("Use ~~no~~ warmup always.", "Use no warmup always.", "fail"),
        ("Use <del>no</del> warmup always.", "Use ~~no~~ warmup always.", "pass"),
        ("Use <del>no</del> warmup always.", "Use ~~no~~ warmup [...].", "review"),
        ("The <s> token starts it.", "The <s> token starts it.", "pass"),  # <s> is a tokenizer's token, not a strike
        ('Use <span style="display:none">no</span> warmup always.', "Use no warmup always.", "fail"),
        ("Use <span hidden>no</span> warmup always.", "Use no warmup always.", "fail"),
        ("Use <span hidden>no</span> warmup always.", "Use [...] warmup always.", "review"),
        ('Use <span class="x">no</span> warmup always.', "Use no warmup always.", "pass"),
        ('Use [warmup](https://x.org "never") always.', "Use warmup always.", "pass"),  # a title is not text
        ('Use [warmup](https://x.org "never") always.', "Use warmup never always.", "fail"),
        ('Use <img alt="no" src="x.png"> warmup always.', "Use no warmup always.", "fail"),
        ('Use <img alt="no" src="x.png"> warmup always.', "Use warmup always.", "pass"),
    ],
    "footnote definitions and HTML": [
        # A footnote definition of the evidence is not the body text it follows.
        ("Warmup helps.[^1] It is cheap.\n\n[^1]: Not on small data.", "Warmup helps. Not on small data.", "fail"),
        ("Warmup helps.[^1] It is cheap.\n\n[^1]: Only on small data.", "Warmup helps. It is cheap.", "pass"),
        ("Warmup helps.[^1]\n\n[^1]: But not on small data.", "Warmup helps.", "review"),  # the source's own footnote takes it back
        ("Warmup helps.[^1] It is cheap.\n\n[^1]: Not on small data.", "It is cheap. Not on small data.", "fail"),
        ("Warmup helps.[^1] It is cheap.\n\n[^1]: Not on small data.", "Not on small data.", "pass"),
        # Quotes inside HTML blocks and tables of the evidence.
        ("<div>\nWarmup helps. It is cheap.\n</div>", "Warmup helps. It is cheap.", "pass"),
        ("<div>\nWarmup helps. It is cheap.\n</div>", "Warmup always helps.", "fail"),
        ("<table><tr><td>Warmup helps</td><td>never</td></tr></table>", "Warmup helps never", "fail"),
        ("<table><tr><td>Warmup helps</td><td>always</td></tr></table>", "Warmup helps", "pass"),
        ("<table><tr><td>Warmup helps</td><td>never</td></tr></table>", "Warmup helps", "pass"),  # cells are apart
        ("<table><tr><td>Warmup helps a lot</td></tr></table>", "Warmup helps [...]", "review"),
        ("| method | verdict |\n|---|---|\n| warmup | helps |", "warmup helps", "fail"),
        ("| method | verdict |\n|---|---|\n| warmup | helps |", "warmup", "pass"),
        ("<div>\nWarmup helps. But not on small data.\n</div>", "Warmup helps.", "review"),
    ],
}
ALL = [(family, *case) for family, cases in CASES.items() for case in cases]


@pytest.mark.parametrize(("family", "body", "quote", "expected"), ALL, ids=[f"{f[:12]}|{q[:30]}|{e}" for f, _, q, e in ALL])
def test_open_family(tmp_path: Path, family: str, body: str, quote: str, expected: str) -> None:
    assert verdict(tmp_path, body, quote) == expected


@pytest.mark.parametrize("family", sorted(CASES))
def test_every_family_has_three_twins(family: str) -> None:
    assert {e for _, _, e in CASES[family]} == {"pass", "review", "fail"}


# The same family on the skill side, through the whole check: what a reader
# of the rendered skill does not see as text must not pass as quoted words.
SKILL_SIDE = [
    ("Use no warmup always.\n", "> Use ![no](x.png) warmup always.[^s]", ["SC307"]),
    ("Use warmup always.\n", '> Use [warmup](https://x.org "never") always.[^s]', ["SC307"]),
    ("Use no warmup always.\n", "> Use <del>no</del> warmup always.[^s]", ["SC302"]),
    ("Use no warmup always.\n", 'They wrote "Use <del>no</del> warmup always"[^s].', ["SC302"]),
    ("Use no warmup always.\n", "> Use <span hidden>no</span> warmup always.[^s]", ["SC311", "SC313"]),
    ("Use warmup always.\n", "> Use [warmup](https://x.org) always.[^s]", []),
    ("Use ~~no~~ warmup always.\n", "> Use <del>no</del> warmup always.[^s]", []),
]


@pytest.mark.parametrize(("body", "block", "codes"), SKILL_SIDE, ids=[b for _, b, _ in SKILL_SIDE])
def test_unshown_text_in_the_skill(tmp_path: Path, body: str, block: str, codes: list[str]) -> None:
    from test_adv_skill_side import findings, package

    assert [f[0] for f in findings(package(tmp_path, body, block))] == codes
