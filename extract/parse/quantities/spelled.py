"""The spelled-out core parser: "twice", "a dozen", "half a trillion", "one-eighth", "three
languages", "an order of magnitude"."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.quantities.draft import Draft, spelled_value
from paper_claims.parse.quantities.grow_left import grow_left
from paper_claims.parse.quantities.grow_right import read_scale, read_tail, read_unit
from paper_claims.parse.quantities.patterns import (
    HALF_NOUN_RE, HALF_OF_RE, HALF_PART_RE, HALF_SCALE_RE, IN_BEFORE_RE, MODAL_BEFORE_RE, MULT_OBJECT_RE,
    OF_AFTER_RE, QUAL_WORD_RE, fold_words, mult_words, ones, spelled_number,
)
from paper_claims.parse.vocab import LazyPattern, alternation, values, words


def _parse_half(text: str, c: Draft) -> bool:
    """Fill ``c`` for "half": "half a trillion tokens", "half a second", "half the memory"."""
    e = c.end
    m = HALF_SCALE_RE.match(text, e)
    if m:
        c.value = 0.5 * values("scale_words")[m.group(1).lower()]
        c.end = read_tail(text, m.end(), c)
        return c.end >= 0
    m = HALF_NOUN_RE.match(text, e)
    if m and m.group(1).lower() in words("count_nouns"):
        c.value, c.unit, c.noun, c.end = 0.5, m.group(1), True, m.end()
        return True
    before = text[max(0, c.start - 10) : c.start]
    if HALF_OF_RE.match(text, e) or IN_BEFORE_RE.search(before):
        if HALF_PART_RE.search(before):
            return False  # "the first half of", "the other half"
        c.value, c.unit, c.strong = 0.5, "x", True
        return True
    return False


_PAIR_NEXT_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:{alternation('number_joiners')})[ \t]+(?:{spelled_number()}|[0-9]+(?:\.[0-9]+)?)\b)")


def _pairs_with_unit(text: str, pos: int) -> bool:
    """Whether "and/or/to" and a number with a unit (%, x, points, physical) follow at ``pos``."""
    m = _PAIR_NEXT_RE.match(text, pos)
    if m is None:
        return False
    sub = Draft(0, 0, 0.0)
    return read_unit(text, m.end(), sub) > m.end() and sub.strong


def parse_word(text: str, m: re.Match, floor: int) -> tuple[Optional[Draft], int]:
    """Parse a spelled-out core (twice, a dozen, half a trillion, one-eighth, three languages)."""
    s, e = m.span()
    kind = m.lastgroup
    word = m.group(0)
    low = re.sub(r"\s+", " ", word.lower())
    c = Draft(s, e, 0.0, spelled=True)
    if kind == "frac":
        num, den = low.replace("-", " ").split()
        if num == "a" and not OF_AFTER_RE.match(text, e):
            return None, e  # "a third of", but not "a quarter" of a year
        n = 1.0 if num == "a" else float(ones()[num])
        c.value, c.unit, c.strong, c.integer = n / values("fractions")[den], "x", True, False
    elif kind == "order":
        c.value, c.unit, c.strong = 1.0, "orders of magnitude", True
    elif kind == "fold":
        c.value, c.unit, c.strong = float(fold_words()[re.sub(r"-?fold$", "", low)]), "x", True
    elif kind == "mult":
        if low in words("multiplying_verbs", base=True) and not (
            QUAL_WORD_RE.search(text, max(0, s - 24), s)
            or MULT_OBJECT_RE.match(text, e)  # "double the throughput"
            or MODAL_BEFORE_RE.search(text, max(0, s - 12), s)  # "would triple"
        ):
            return None, e  # "double precision", "triple loss"
        c.value, c.unit, c.strong = mult_words()[low], "x", True
    elif kind == "ascale":
        c.value = values("scale_words")[low.split()[-1]]
        c.end = read_tail(text, e, c)
        if c.end < 0:
            return None, e
    elif kind == "half":
        if not _parse_half(text, c):
            return None, e
    else:  # spelled
        base = spelled_value(low)
        if base is None:
            return None, e
        c.value = base
        pos = read_scale(text, e, c)
        scaled = pos > e
        end = read_tail(text, pos, c)
        if end < 0:
            return None, e
        if not scaled:
            unit = (c.unit or "").lower().rstrip("s")
            if base == 1.0 and unit in words("time_units", "long_time_units"):
                pass  # "one week", "one-day"
            elif base > 1.0 and c.unit is None and _pairs_with_unit(text, end):
                pass  # "six and ten times": the unit written after the next number is shared
            elif base in (0.0, 1.0) or not (c.noun or c.strong):
                return None, e  # "one", "zero", "two" alone
        c.end = end
    if c.end < 0:
        return None, e
    grow_left(text, c, floor)
    return c, c.end
