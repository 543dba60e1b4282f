"""Claim values read and compared: the numbers a piece of evidence can be read as (magnitude
words, fractions, number words, LaTeX), a claim's value as a float with a magnitude word of its
unit moved into it, agreement up to rounding and across percent and fraction, and one spelling of
a unit."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any, Optional

from paper_claims.parse.units import canonical

REL_TOL = 0.01

_MAGNITUDES = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9, "t": 1e12, "trillion": 1e12,
}
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "a hundred": 100,
    "dozen": 12, "a dozen": 12, "half": 0.5, "a half": 0.5, "twice": 2, "double": 2,
    "doubles": 2, "triple": 3, "triples": 3, "thrice": 3, "quadruple": 4,
    "a": 1, "an": 1,
}
_WORD_RE = "|".join(sorted((re.escape(w) for w in _WORD_NUMBERS), key=len, reverse=True))
_MAG_RE = r"(?:thousand|million|billion|trillion|bn|mn|[kmbt])(?![a-z])"
_NUMBER = re.compile(
    rf"(?P<num>\d+(?:,\d{{3}})*(?:\.\d+)?|\.\d+)(?:\s*/\s*(?P<den>\d+(?:\.\d+)?))?"
    rf"(?:[\s-]*(?P<mag>{_MAG_RE}))?"
    rf"|\b(?P<word>{_WORD_RE})\b(?:[\s-]+(?:a\s+)?(?P<wmag>thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)


def _clean_latex(text: str) -> str:
    """Undo the LaTeX the corpus carries (``$16\\times$``, ``\\textbf{30\\%}``)."""
    text = re.sub(r"\\times", "×", text)
    text = re.sub(r"\\[a-zA-Z]+\{([^}]*)\}", r"\1", text)
    return text.replace("\\%", "%").replace("$", " ").replace("{", "").replace("}", "")


def parse_numbers(text: str) -> list[float]:
    """Every number a piece of evidence can be read as (with and without magnitudes)."""
    values: list[float] = []
    for m in _NUMBER.finditer(_clean_latex(text)):
        if m.group("num"):
            base = float(m.group("num").replace(",", ""))
            if m.group("den"):
                den = float(m.group("den"))
                if den:
                    values.append(base / den)
            values.append(base)
            if m.group("mag"):
                values.append(base * _MAGNITUDES[m.group("mag").lower()])
        else:
            word = " ".join(m.group("word").lower().split())
            base = float(_WORD_NUMBERS[word])
            if m.group("wmag"):
                values.append(base * _MAGNITUDES[m.group("wmag").lower()])
            elif word not in {"a", "an"}:
                values.append(base)
    return values


def coerce_value(raw: Any) -> Optional[float]:
    """A claim value as a float: numbers pass, strings like "600 billion" are parsed."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, (int, float)):
        return float(raw) if math.isfinite(float(raw)) else None
    try:
        return float(str(raw).replace(",", ""))
    except ValueError:
        parsed = parse_numbers(str(raw))
        return max(parsed) if parsed else None


def split_magnitude(value: Optional[float], unit: Optional[str]) -> tuple[Optional[float], str]:
    """Move a magnitude word at the head of the unit into the value ("billion parameters")."""
    unit = (unit or "").strip()
    words = unit.split()
    if words and value is not None:
        head = words[0].lower()
        if head in _MAGNITUDES and (len(head) > 2 or len(words) > 1):
            return value * _MAGNITUDES[head], " ".join(words[1:])
    return value, unit


def _precision(x: float) -> tuple[int, int]:
    """(decimal places, significant digits) of a float as written: 84.4 -> (1, 3)."""
    digits = Decimal(repr(x)).normalize().as_tuple()
    return -int(digits.exponent), len(digits.digits)


def _close(a: float, b: float) -> bool:
    """Equal within REL_TOL, or equal once the longer is rounded to the shorter's precision."""
    if math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-9):
        return True
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        return False
    short, long_ = sorted((a, b), key=lambda v: _precision(v)[0])
    decimals, significant = _precision(short)
    # a single significant digit ("0.9", "6e11") is too coarse to call a rounding
    return significant >= 2 and round(long_, decimals) == short


def values_match(gold: float, gold_unit: Optional[str], pred: float, pred_unit: Optional[str]) -> bool:
    """Whether two claim values agree (rounding, and 97% vs 0.97 across a %/fraction pair)."""
    candidates = [pred]
    gu, pu = normalise_unit(gold_unit), normalise_unit(pred_unit)
    if (gu == "%") != (pu == "%") and "x" not in (gu, pu):
        candidates.append(pred * 100 if gu == "%" else pred / 100)
    return any(_close(gold, c) for c in candidates)


def normalise_unit(unit: Optional[str]) -> str:
    """Case-insensitive, singular, "×"/"times" -> "x", "percent" -> "%", "pp" -> "point", and one
    spelling of a physical unit or rate (``parse.units.canonical``: "seconds" -> "s", "frames per
    second" -> "frames/s", "µs" -> "μs")."""
    s = " ".join((canonical(unit) or "").replace("×", "x").replace("\\times", "x").lower().split())
    s = {"times": "x", "fold": "x", "factor": "x", "percent": "%", "percentage": "%",
         "pct": "%", "percentage points": "point", "percentage point": "point", "pp": "point",
         "pts": "point", "$": "usd", "dollars": "usd"}.get(s, s)
    words = s.split()
    if words:
        last = words[-1]
        if last.endswith("ies") and len(last) > 4:
            last = last[:-3] + "y"
        elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
            last = last[:-1]
        s = " ".join([*words[:-1], last])
    return s
