"""Names and metrics matched fuzzily: two names as ``parse.same_name`` tells them apart (the
token-set overlap of their words), a metric by containment or its words."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.same_name import FUZZY_THRESHOLD, fuzzy_similarity, same_name

__all__ = ["FUZZY_THRESHOLD", "fuzzy_similarity", "metric_similar", "same_name"]


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
    return same_name(wa, wb)
