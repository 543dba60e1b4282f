"""Compound and rate units: what follows a unit or counted noun and belongs to it.

``extend_rate`` grows a unit read by the quantity parser over a denominator written with a
slash ("TFLOPs/s", "TFlops/GPU", "ms/token", "samples/s/W") or with "per" ("tokens per
second", "frames per second", "queries per GPU"). ``time_compound`` joins a resource noun and
a time unit ("GPU hours", "node days", "core-hours" is already one word).
"""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.vocab import LazyPattern, alternation, words

__all__ = ["extend_rate", "per_time", "time_compound"]

# A denominator after a slash: a short unit or noun, possibly several ("/s/W"), not a word
# that goes on with a digit or another letter ("and/or" has no number before it anyway).
_SLASH_RE = re.compile(r"(?:/[A-Za-z][A-Za-z0-9]{0,11})+(?![A-Za-z0-9/\-])")
# ... or a resource-time compound ("per core-second", "per GPU-hour", "per node hour": HPC's
# accounting units)
_PER_RE = LazyPattern(lambda: r"[ \t]+per[ \t]+([A-Za-z][A-Za-z0-9]{0,14}(?:[ \t-](?:%s)(?![A-Za-z0-9\-]))?)(?![A-Za-z0-9\-])"
                              % alternation("time_units"))


def extend_rate(text: str, pos: int, unit: str) -> tuple[str, int]:
    """The unit with a slash or "per" denominator written at ``pos``, and where it ends.

    Returns ``(unit, pos)`` unchanged when no denominator follows.
    """
    m = _SLASH_RE.match(text, pos)
    if m:
        return unit + m.group(0), m.end()
    m = _PER_RE.match(text, pos)
    if m and m.group(1).lower() not in words("not_denominators"):  # "per se", "per the", "per cent"
        return f"{unit} per {m.group(1)}", m.end()
    return unit, pos


def per_time(text: str, pos: int) -> bool:
    """Whether a slash denominator of time follows at ``pos`` ("/s", "/sec", "/hour"): what
    stands before it is counted per unit of time, a rate ("tx/sec")."""
    m = _SLASH_RE.match(text, pos)
    return m is not None and m.group(0).split("/")[1].lower() in words("time_units")


def time_compound(resource: str, noun: Optional[str], between: str) -> Optional[str]:
    """"GPU hours": a resource word right before a time unit makes one unit, else None.

    ``between`` is the text from the end of ``resource`` to the end of ``noun``; the two
    words must be adjacent (one space or a hyphen).
    """
    if not noun or noun.lower() not in words("time_units"):
        return None
    if not re.fullmatch(r"[ \t-]" + re.escape(noun), between):
        return None
    return f"{resource}{between[0] if between[0] == '-' else ' '}{noun}"
