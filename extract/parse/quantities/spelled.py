"""The spelled-out core parser: "twice", "a dozen", "half a trillion", "one-eighth", "three
languages", "an order of magnitude"."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.quantities.candidate import _Cand, _spelled_value
from paper_claims.parse.quantities.grow_left import _grow_left
from paper_claims.parse.quantities.grow_right import _read_scale, _read_tail, _read_unit
from paper_claims.parse.quantities.patterns import (
    _HALF_NOUN_RE, _HALF_OF_RE, _HALF_PART_RE, _HALF_SCALE_RE, _IN_BEFORE_RE, _MODAL_BEFORE_RE, _MULT_OBJECT_RE,
    _OF_AFTER_RE, _QUAL_WORD_RE, _fold_words, _mult_words, _ones, _spelled,
)
from paper_claims.parse.vocab import LazyPattern, alternation, values, words


def _parse_half(text: str, c: _Cand) -> bool:
    """Fill ``c`` for "half": "half a trillion tokens", "half a second", "half the memory"."""
    e = c.end
    m = _HALF_SCALE_RE.match(text, e)
    if m:
        c.value = 0.5 * values("scale_words")[m.group(1).lower()]
        c.end = _read_tail(text, m.end(), c)
        return c.end >= 0
    m = _HALF_NOUN_RE.match(text, e)
    if m and m.group(1).lower() in words("count_nouns"):
        c.value, c.unit, c.noun, c.end = 0.5, m.group(1), True, m.end()
        return True
    before = text[max(0, c.start - 10) : c.start]
    if _HALF_OF_RE.match(text, e) or _IN_BEFORE_RE.search(before):
        if _HALF_PART_RE.search(before):
            return False  # "the first half of", "the other half"
        c.value, c.unit, c.strong = 0.5, "x", True
        return True
    return False


_PAIR_NEXT_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:{alternation('number_joiners')})[ \t]+(?:{_spelled()}|[0-9]+(?:\.[0-9]+)?)\b)")


def _pairs_with_unit(text: str, pos: int) -> bool:
    """Whether "and/or/to" and a number with a unit (%, x, points, physical) follow at ``pos``."""
    m = _PAIR_NEXT_RE.match(text, pos)
    if m is None:
        return False
    sub = _Cand(0, 0, 0.0)
    return _read_unit(text, m.end(), sub) > m.end() and sub.strong


def _parse_word(text: str, m: re.Match, floor: int) -> tuple[Optional[_Cand], int]:
    """Parse a spelled-out core (twice, a dozen, half a trillion, one-eighth, three languages)."""
    s, e = m.span()
    kind = m.lastgroup
    word = m.group(0)
    low = re.sub(r"\s+", " ", word.lower())
    c = _Cand(s, e, 0.0, spelled=True)
    if kind == "frac":
        num, den = low.replace("-", " ").split()
        if num == "a" and not _OF_AFTER_RE.match(text, e):
            return None, e  # "a third of", but not "a quarter" of a year
        n = 1.0 if num == "a" else float(_ones()[num])
        c.value, c.unit, c.strong, c.integer = n / values("fractions")[den], "x", True, False
    elif kind == "order":
        c.value, c.unit, c.strong = 1.0, "orders of magnitude", True
    elif kind == "fold":
        c.value, c.unit, c.strong = float(_fold_words()[re.sub(r"-?fold$", "", low)]), "x", True
    elif kind == "mult":
        if low in words("multiplying_verbs", base=True) and not (
            _QUAL_WORD_RE.search(text, max(0, s - 24), s)
            or _MULT_OBJECT_RE.match(text, e)  # "double the throughput"
            or _MODAL_BEFORE_RE.search(text, max(0, s - 12), s)  # "would triple"
        ):
            return None, e  # "double precision", "triple loss"
        c.value, c.unit, c.strong = _mult_words()[low], "x", True
    elif kind == "ascale":
        c.value = values("scale_words")[low.split()[-1]]
        c.end = _read_tail(text, e, c)
        if c.end < 0:
            return None, e
    elif kind == "half":
        if not _parse_half(text, c):
            return None, e
    else:  # spelled
        base = _spelled_value(low)
        if base is None:
            return None, e
        c.value = base
        pos = _read_scale(text, e, c)
        scaled = pos > e
        end = _read_tail(text, pos, c)
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
    _grow_left(text, c, floor)
    return c, c.end
