"""The digit core parser: a number written in digits, checked (``rejections``) and grown to
the right (fraction, size, scientific notation, LaTeX math, scale, range or tail) and the
left."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.quantities.draft import Draft, pow10, prev_token, to_float
from paper_claims.parse.quantities.grow_left import grow_left
from paper_claims.parse.quantities.grow_right import read_scale, read_tail, read_unit, score_unit_around
from paper_claims.parse.quantities.patterns import (
    BARE_EXP_RE, BEFORE_SIGN, BETWEEN_RE, DIM_RE, FACTOR_RE, FRACTION_RE, FROM_BEFORE_RE, LOST_EXP_RE,
    NUM_AT_RE, PERCENT_RE, POW_RE, RANGE_SEP_RE, RANGING_FROM_RE, REF_LIST_RE, REF_NUM_TAIL_RE, SCI_RE,
    SUFFIX_RE, UNIT_RE,
)
from paper_claims.parse.quantities.rejections import context_reject, glued_reject, is_fraction
from paper_claims.parse.vocab import words


def parse_digit(text: str, m: re.Match, floor: int) -> tuple[Optional[Draft], int]:
    """Parse a digit core and grow it; returns (mention or None, position consumed to)."""
    s, e = m.span()
    raw = m.group(0)
    prev = prev_token(text, s)
    if prev and prev[0].lower().rstrip(".") in words("label_words"):
        return None, _ref_list_end(text, REF_NUM_TAIL_RE.match(text, e).end())
    skip = glued_reject(text, s, e)
    if skip is not None:
        return None, max(skip, e)
    c = Draft(s, e, to_float(raw), integer=re.fullmatch(r"[0-9,]+", raw) is not None)
    # a negative sign standing alone or after a comparison or approximation sign: "−1.6", " -3", "∼−27‰"
    if s >= 1 and text[s - 1] in "−-" and (s == 1 or text[s - 2] in BEFORE_SIGN) and s - 1 >= floor:
        c.start -= 1
        c.value = -c.value
    pos = e
    # a fraction "1/3"
    fm = FRACTION_RE.match(text, pos)
    if fm and is_fraction(text, s, e):
        c.value = c.value / int(fm.group(1))
        c.unit, c.strong, c.integer = "x", True, False
        c.end = fm.end()
        grow_left(text, c, floor)
        return c, c.end
    # a size "60 × 10 × 3 mm3": the first number, with the unit written after the last
    dm = DIM_RE.match(text, pos)
    if dm and not SCI_RE.match(text, pos) and not LOST_EXP_RE.match(text, pos):
        c.end = read_unit(text, dm.end(), c)
        if context_reject(text, c.start, e, c):
            return None, c.end
        grow_left(text, c, floor)
        return c, c.end
    # scientific notation "2.5 × 10−3", "10^{-3}", "1.5 x 10^6", "1.5×1012" (lost superscript)
    sm = SCI_RE.match(text, pos)
    lm = LOST_EXP_RE.match(text, pos) if not c.integer else None
    if lm and not sm:
        c.value *= pow10(lm.group(1))
        pos = lm.end()
    elif sm:
        c.value *= pow10(next(g for g in sm.groups() if g is not None))
        c.integer = False
        pos = sm.end()
    elif raw == "10" and POW_RE.match(text, pos):
        pm = POW_RE.match(text, pos)
        c.value = pow10(pm.group(1))
        c.integer = False
        pos = pm.end()
    elif raw == "10":
        bm = BARE_EXP_RE.match(text, pos)
        if bm:
            c.value = 1.0 / pow10(bm.group(1))
            c.integer = False
            pos = bm.end()
    pos = _close_math(text, s, pos, c)  # "$17$ billion atoms": the unit is read after the math
    pos = read_scale(text, pos, c)
    # a range "2--4×", "50% to 62%", "~3 −15%", "2 20 points"
    pos = _read_range_or_tail(text, pos, c, c.start)
    if pos < 0:
        return None, e
    c.end = pos
    if context_reject(text, c.start, e, c):
        return None, _ref_list_end(text, pos)
    grow_left(text, c, floor)
    score_unit_around(text, c)
    return c, c.end


_MATH_WRAPS = (("$", "$"), ("\\(", "\\)"))


def _close_math(text: str, s: int, pos: int, c: Draft) -> int:
    """Past the closing of inline LaTeX math wrapped around the number alone ("$17$",
    "\\(3\\)"), so its scale word and unit, written after the math, are read; else ``pos``."""
    for opener, closer in _MATH_WRAPS:
        if text.startswith(opener, s - len(opener)) and text.startswith(closer, pos):
            c.math = opener
            return pos + len(closer)
    return pos


def _read_range_or_tail(text: str, pos: int, c: Draft, s: int) -> int:
    """Read the tail of ``c``; merge a following second number into a range."""
    first_unit = Draft(0, 0, 0.0)
    after_first = read_unit(text, pos, first_unit)
    sep = RANGE_SEP_RE.match(text, after_first)
    if sep:
        n = NUM_AT_RE.match(text, sep.end())
        ok = n is not None and not (
            text[n.end() : n.end() + 1].isalpha() and not _tail_ok(text, n.end())
        )
        sep_text = sep.group(0).strip().lower()
        if ok and n.group(0).startswith(("-", "−")) and sep_text not in {"to", "and"}:
            ok = False  # "5 - -3"
        if ok and sep_text == "and" and not BETWEEN_RE.search(text, max(0, s - 10), s):
            ok = False  # "and" joins a range only after "between"
        if ok and sep_text == "to" and _from_before(text, s):
            ok = False  # "from 14 s to 1.2 s": two mentions
        if ok and sep_text == "" and first_unit.unit:
            ok = False
        if ok:
            hi = Draft(0, 0, to_float(n.group(0)))
            hi_pos = read_scale(text, n.end(), hi)
            if not hi.value and not c.value:
                ok = False
            tail = Draft(0, 0, hi.value, spelled=False)
            tail_end = read_tail(text, hi_pos, tail)
            if tail_end < 0:
                ok = False
            elif sep_text == "" and not tail.strong:
                ok = False  # "2 20 points" needs a unit to be a lost-dash range
            elif sep_text == "or" and not (tail.strong or tail.noun):
                ok = False  # "3 or 4 bits" is a range; a bare "3 or 4" is left alone
            elif first_unit.unit and tail.unit and first_unit.unit != tail.unit:
                ok = False
            elif first_unit.unit and not tail.unit and sep_text not in {"-", "–", "--", "—"}:
                ok = False
            elif sep_text in {"and", "to"} and hi.value < c.value and _range_word_before(text, s):
                c.value, hi.value = hi.value, c.value  # "ranging from 11.4% to 2.4%"
            elif sep_text == "and" and hi.value < c.value:
                c.value, hi.value = hi.value, c.value  # "between −2 and −7‰"
            elif hi.value <= c.value:
                ok = False
            elif 1900 <= c.value <= 2039 and 1900 <= hi.value <= 2039 and not tail.unit:
                c.value_high = hi.value
                return -1  # a span of years
            if ok:
                c.value_high = hi.value
                c.unit = tail.unit or first_unit.unit
                c.strong = tail.strong or first_unit.strong
                c.noun = tail.noun
                if tail.qualifier and c.qualifier is None:
                    c.qualifier = tail.qualifier
                return tail_end
    return read_tail(text, pos, c)


def _tail_ok(text: str, pos: int) -> bool:
    """Whether letters glued after a number are a scale suffix or unit (not an identifier)."""
    if SUFFIX_RE.match(text, pos) or FACTOR_RE.match(text, pos) or PERCENT_RE.match(text, pos):
        return True
    um = UNIT_RE.match(text, pos)
    return bool(um and um.group(0) not in {"t", "d", "D"})


def _from_before(text: str, s: int) -> bool:
    """Whether the number at ``s`` follows "from" (and not "ranging from")."""
    window = text[max(0, s - 40) : s]
    m = FROM_BEFORE_RE.search(window)
    if not m:
        return False
    return not (m.group(1) or "").lower().startswith(("rang", "var"))


def _range_word_before(text: str, s: int) -> bool:
    """Whether "between" or "ranging from" introduces the number at ``s``."""
    window = text[max(0, s - 24) : s]
    return bool(BETWEEN_RE.search(window) or RANGING_FROM_RE.search(window))


def _ref_list_end(text: str, pos: int) -> int:
    """End of a reference list after a rejected number ("Figs. 2 and 3", "Tables 1, 4")."""
    return REF_LIST_RE.match(text, pos).end()
