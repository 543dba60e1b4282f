"""Names and metrics matched fuzzily: the token-set overlap of two names (numeric tokens must
agree; hardware by its canonical name), a metric by containment or its words."""

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


def _words(s: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", s.lower()))


def metric_similar(a: Optional[str], b: Optional[str]) -> bool:
    """Two metrics agree when, lower-cased with punctuation removed, one contains the other
    ("accuracy" in "top-1 accuracy") or their words match as names do."""
    wa, wb = _words(a or ""), _words(b or "")
    if not wa or not wb:
        return False
    if f" {wa} " in f" {wb} " or f" {wb} " in f" {wa} ":
        return True
    return fuzzy_similarity(wa, wb) >= FUZZY_THRESHOLD
