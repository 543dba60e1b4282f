"""Units spelled one way, and what a physical unit measures.

The quantity parser reads a unit as the text writes it ("seconds", "2.5-sec", "µs", "frames per
second", "queries per Joule"); ``canonical`` spells it the way GUIDELINES.md and the annotations
write units: the SI symbol for the second and its prefixed forms (s, ms, μs, ns), minutes, hours
and days as words, the SI symbols of energy, power and frequency (mJ, mW, Hz), and a rate as
numerator/denominator ("frames/s", "queries/J", "reads/hour"). Counted nouns stay as written.
``dimension`` names what a canonical unit measures (time, energy, frequency), or None. The units
are the word classes ``time_units``, ``energy_units`` and ``frequency_units`` (parse/vocab).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from paper_claims.parse.vocab import entries, words

__all__ = ["canonical", "dimension", "DIMENSIONS"]

# what a unit class measures: its name without "_units"
DIMENSIONS = {name.removesuffix("_units"): name for name in ("time_units", "energy_units", "frequency_units")}
_LATEX_MU = re.compile(r"\{\\mu\}|\$\\mu\$|\\mu\{\}")
_RATE = re.compile(r"^(?P<num>.+?)(?:\s+per\s+|/)(?P<den>.+)$")


@lru_cache(maxsize=None)
def _forms() -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """Every form of the unit classes -> (canonical form, dimension): symbols by their exact
    spelling (mW is not MW), words of four letters or more also lower-cased ("Joule")."""
    exact: dict[str, tuple[str, str]] = {}
    folded: dict[str, tuple[str, str]] = {}
    for dim, name in DIMENSIONS.items():
        for forms in entries(name):
            for form in forms:
                exact[form] = (forms[0], dim)
                if len(form) >= 4:
                    folded[form.lower()] = (forms[0], dim)
    return exact, folded


def _lookup(unit: str) -> Optional[tuple[str, str]]:
    exact, folded = _forms()
    return exact.get(unit) or folded.get(unit.lower())


def _denominator(unit: str) -> str:
    """A rate's denominator: a time as its symbol for seconds ("/s") and as a singular word for
    longer spans ("/hour", "/day"); an energy or power as its symbol ("/J"); else as written."""
    found = _lookup(unit)
    if found is None:
        return unit
    form, dim = found
    if dim == "time" and form not in words("second_units", base=True):
        return form[:-1]  # minutes -> minute, hours -> hour, days -> day
    return form


def canonical(unit: Optional[str]) -> Optional[str]:
    """``unit`` spelled as the annotations spell it; counted nouns and unknown units unchanged."""
    if not unit:
        return unit
    unit = _LATEX_MU.sub("\u03bc", unit.replace("\u00b5", "\u03bc"))  # MICRO SIGN, LaTeX "{\mu}" -> μ
    found = _lookup(unit)
    if found is not None:
        return found[0]
    rate = _RATE.match(unit)
    if rate is not None:
        num, den = rate.group("num"), rate.group("den")
        parts = re.split(r"(?:\s+per\s+|/)", den)
        head = _lookup(num)
        return "/".join([head[0] if head else num, *(_denominator(part) for part in parts)])
    return unit


def dimension(unit: Optional[str]) -> Optional[str]:
    """What a unit measures: "time", "energy" (energy and power) or "frequency"; None for any
    other unit, a rate or a counted noun."""
    found = _lookup(unit) if unit else None
    return found[1] if found else None
