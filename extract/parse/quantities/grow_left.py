"""Left-hand growth of a number: currency, LaTeX wrappers, "a factor of", a symbol ("κ =") and
the qualifier ("up to", "~"), with where its words stand."""

from __future__ import annotations

import re
from functools import lru_cache

from paper_claims.parse.quantities.draft import Draft
from paper_claims.parse.quantities.patterns import (
    BETWEEN_RE, CURRENCY_PRE_RE, CURRENCY_UNITS, FACTOR_OF_RE, GREEK_UNITS, QUAL_SYMBOLS, QUAL_SYM_RE,
    QUAL_WORD_RE, SYMBOL_EQ_RE, qual_words,
)
from paper_claims.schemas import Qualifier


def grow_left(text: str, c: Draft, floor: int) -> None:
    """Extend ``c`` left over currency, LaTeX wrappers, 'a factor of', symbols and qualifiers."""
    s = c.start
    # LaTeX math opening "$16\times$" / currency "$20"
    if c.math == "\\(" and s - 2 >= floor:
        s -= 2  # "\\(3\\) tokens per second"
    elif s > floor and text[s - 1] == "$":
        if c.math or text[c.end - 1] == "$" or "\\" in text[s : c.end] or text[c.end : c.end + 1] == "$":
            s -= 1  # LaTeX math: "$16\times$", "$2\times 10^{6}$"
            if text[c.end - 1] != "$" and text[c.end : c.end + 1] == "$":
                c.end += 1
        elif c.unit is None or c.noun:
            m = CURRENCY_PRE_RE.search(text, max(floor, s - 4), s)
            if m:
                c.unit, c.strong, c.noun = "USD", True, False
                s = m.start()
    elif s > floor:
        m = CURRENCY_PRE_RE.search(text, max(floor, s - 4), s)
        if m and (c.unit is None or c.noun):
            c.unit = CURRENCY_UNITS.get(m.group(0).strip(), "USD")
            c.strong, c.noun = True, False
            s = m.start()
    # \textbf{30\%}
    if text.startswith("\\textbf{", max(0, s - 8)) and s - 8 >= floor and text[c.end : c.end + 1] == "}":
        s -= 8
        c.end += 1
    # (10.3x) after a qualifier
    paren = s > floor and text[s - 1] == "(" and text[c.end : c.end + 1] == ")"
    look = s - 1 if paren else s
    m = FACTOR_OF_RE.search(text, max(floor, look - 20), look)
    if m:
        if c.unit is None:
            c.unit, c.strong = "x", True
        s = m.start()
        look = s
    else:
        m = SYMBOL_EQ_RE.search(text, max(floor, look - 12), look)
        if m:
            sym = m.group(1)
            if c.unit is None and sym in GREEK_UNITS:
                c.unit = GREEK_UNITS[sym]
            s = m.start()
            look = s
    m = QUAL_SYM_RE.search(text, max(floor, look - 3), look)
    if m:
        if c.qualifier is None:
            c.qualifier = QUAL_SYMBOLS[m.group(1)]
        c.qualified = m.span(1)
        s = m.start()
        look = s
        m = FACTOR_OF_RE.search(text, max(floor, look - 20), look)
        if m and c.unit is None:  # "a factor of >50"
            c.unit, c.strong = "x", True
            s = look = m.start()
    m = QUAL_WORD_RE.search(text, max(floor, look - 24), look)
    if m and not (m.group(1).lower() == "some" and not c.noun):
        if c.qualifier is None:
            c.qualifier = _qualifier_of(m.group(1))
        c.qualified = (m.start(1), c.qualified[1] if c.qualified else m.end(1))  # "up to ~3x": both
        s = m.start()
        if paren:
            c.end += 1
    elif c.value_high is not None:
        m = BETWEEN_RE.search(text, max(floor, look - 10), look)
        if m:
            s = m.start()
    c.start = s


@lru_cache(maxsize=None)
def _qual_word_res() -> list[tuple[re.Pattern[str], Qualifier]]:
    return [(re.compile(p, re.I), q) for p, q in qual_words()]


def _qualifier_of(phrase: str) -> Qualifier:
    """The qualifier a matched qualifier phrase stands for ("as much as" -> up to)."""
    phrase = re.sub(r"\s+", " ", phrase.lower())
    for pattern, qual in _qual_word_res():
        if pattern.fullmatch(phrase):
            return qual
    return Qualifier.about
