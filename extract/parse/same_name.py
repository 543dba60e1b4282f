"""When two names are one name: the token-set overlap of their words (numeric tokens must agree;
devices by their canonical name). The scorer matches names so (``evaluation.names``), and the
decisions hold a claim's dataset and hardware to the document's lists so (``decisions.decide``)."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.canonical import canonical_hardware

FUZZY_THRESHOLD = 0.5


def _tokens(s: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", s.lower()))


def fuzzy_similarity(a: Optional[str], b: Optional[str], *, hardware: bool = False) -> float:
    """Token-set overlap F1 of two names; 0 when their numeric tokens disagree.

    Numeric tokens ("10" in CIFAR-10, "70b" in Llama-3-70b) of one side must all appear on
    the other, so CIFAR-10 does not match CIFAR-100.  With ``hardware`` two names with the
    same :func:`canonical_hardware` are identical (1.0).
    """
    if not a or not b:
        return 0.0
    if a.strip().lower() == b.strip().lower():
        return 1.0
    if hardware and canonical_hardware(a) == canonical_hardware(b):
        return 1.0
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.0
    da = {t for t in ta if any(c.isdigit() for c in t)}
    db = {t for t in tb if any(c.isdigit() for c in t)}
    if not (da <= db or db <= da):
        return 0.0
    overlap = len(ta & tb)
    return 2 * overlap / (len(ta) + len(tb))


def same_name(a: Optional[str], b: Optional[str], *, hardware: bool = False) -> bool:
    """Whether two names are one name (their similarity reaches ``FUZZY_THRESHOLD``)."""
    return fuzzy_similarity(a, b, hardware=hardware) >= FUZZY_THRESHOLD
