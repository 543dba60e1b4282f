"""Rejection checks on a digit core: an identifier glued to it ("GPT-4", "3x3", "2D"), a label,
a year, an enumeration or a citation around it."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.quantities.draft import Draft, prev_token, sentence_initial
from paper_claims.parse.quantities.grow_right import glued_plural
from paper_claims.parse.quantities.patterns import (
    DECIMAL_PAIR_RE, DIM_RE, ENUM_CLOSE_RE, FACTOR_RE, FRACTION_RE, HUNDREDS_OF_RE, IDENT_TAIL_RE,
    LATEX_OPEN_RE, LOST_EXP_RE, MATH_OPEN_RE, OPERATOR_BEFORE_RE, PERCENT_RE, POINTS_RE, SCI_RE,
    SLASH_TAIL_RE, SUFFIX_RE, UNIT_RE, VERSION_TAIL_RE,
)
from paper_claims.parse.vocab import words


def is_fraction(text: str, s: int, e: int) -> bool:
    """Whether ``text[s:]`` is a simple fraction "a/b" (a < b <= 12, or b = 100, 1000), e.g. "1/3"."""
    fm = FRACTION_RE.match(text, e)
    if not (fm and text[s:e].isdigit()):
        return False
    num, den = int(text[s:e]), int(fm.group(1))
    return 0 < num < den and (den <= 12 or den in (100, 1000))


def glued_reject(text: str, s: int, e: int) -> Optional[int]:
    """If the digits at s:e are part of an identifier, return how far to skip, else None."""
    before = text[s - 1] if s else ""
    before2 = text[s - 2] if s >= 2 else ""
    if before in "-−–_" and before2 and (before2.isalnum() or before2 in ")]"):
        return IDENT_TAIL_RE.match(text, e).end()  # GPT-4, ResNet-18, Llama-3-70b, top-1, m−1
    if before and before in "#@^)]}":
        return e  # "#1", "Pass@1", "Mg(ClO4)2"
    if before in "'’" and before2.isalpha():
        return e  # a year written short after a name: "WMT'14", "NeurIPS’21"
    if before == "{" and (not LATEX_OPEN_RE.search(text, max(0, s - 12), s) or MATH_OPEN_RE.search(text, max(0, s - 12), s)):
        return e  # "{111}", "T^{\frac{2}{3}}" (but "\textbf{30\%}" is fine)
    if (
        ENUM_CLOSE_RE.match(text, e)
        and e - s <= 2
        and (s == 0 or text[s - 1] in " \t\n")
        and not OPERATOR_BEFORE_RE.search(text, max(0, s - 4), s)
    ):
        return e  # enumeration "1.)", "2)" (but not "n = 3)")
    if before == "(" and s >= 2 and text[s - 2].isalpha():
        return e  # "F(3, ...)", "poly(3-hexylthiophene)"
    if text[s] == "0" and e - s > 1 and text[s + 1].isdigit():
        return e  # "001", "040301": codes, not quantities
    if "." in text[s:e] and DECIMAL_PAIR_RE.match(text, e):
        return None  # "90.0/79.2": two scores, read one by one
    if text[e : e + 1] == "/" and text[e + 1 : e + 2].isdigit() and not is_fraction(text, s, e):
        return SLASH_TAIL_RE.match(text, e).end()  # "22/10a-4", dates
    nxt = text[e : e + 1]
    if HUNDREDS_OF_RE.match(text, e):
        return e + 1  # "100s of robots": an order of size, not seconds
    if nxt == "s" and re.fullmatch(r"(?:19|20)[0-9]0", text[s:e]) and not text[e + 1 : e + 2].isalnum():
        return e + 1  # "the 1990s": a decade, not seconds
    if nxt == "." and text[e + 1 : e + 2].isdigit():
        return VERSION_TAIL_RE.match(text, e).end()  # 1.2.3
    # "3x3", "8x7B", "224×224": a dimension or a model name
    m = DIM_RE.match(text, e)
    if m and not SCI_RE.match(text, e) and not LOST_EXP_RE.match(text, e):
        if UNIT_RE.match(text, m.end()):
            return None  # "60 × 10 × 3 mm3": a physical size, parsed by parse_digit
        return m.end()
    if nxt.isalpha():
        if SUFFIX_RE.match(text, e) or FACTOR_RE.match(text, e) or PERCENT_RE.match(text, e):
            return None
        if POINTS_RE.match(text, e):
            return None
        um = UNIT_RE.match(text, e)
        if um and um.group(0) not in {"t", "d", "D"}:
            return None
        if glued_plural(text, e):
            return None  # "2,048GPUs": a counted noun fused to its number at a lost space
        return IDENT_TAIL_RE.match(text, e).end()  # 2D, 3rd, 11Project, 40G
    return None


def context_reject(text: str, s: int, e: int, c: Draft) -> bool:
    """Reference, identifier, year, enumeration or citation context around a number."""
    prev = prev_token(text, s)
    if prev:
        token, token_start = prev
        low = token.lower().rstrip(".")
        if low in words("label_words"):
            return True  # Fig. 3, Table 2, Section 4, type 1, p. 301
        if low in words("reference_words") and not c.strong and not c.noun:
            return True  # phases 3, 5 and 7; complex 1; fraction 11
        if token.endswith("."):
            pass  # the previous sentence (or an abbreviation) ended
        elif token[:1].isupper() and low not in words("before_quantity") and low not in words("counted_noun_stops") and not c.strong:
            title = re.fullmatch(r"[A-Z][a-z]+", token) is not None
            if not (title and c.noun and sentence_initial(text, token_start)):
                return True  # "Llama 3", "PaLM 2", "Stable Diffusion 2", "Mixtral 8"
        elif re.search(r"[A-Za-z]", token) and re.search(r"[0-9]", token) and not c.strong:
            if not re.fullmatch(r"[0-9.,]+[kKMBT]?%?", token):
                return True  # "Llama3 8B", "A100 80", "TPU v3 2"
    if (
        c.integer
        and c.value_high is None
        and not c.noun
        and not c.strong
        and 1900 <= c.value <= 2039
        and re.fullmatch(r"[0-9]{4}", text[s:e])
    ):
        return True  # a year
    if s and text[s - 1] == "(" and text[e : e + 1] == ")" and c.integer and c.value < 30:
        return True  # enumeration "(1)" or equation number
    return False
