"""How far an output's confidences hold against the annotations: each claim's ``confidence``
against whether the claim is right in every field (matched, with the annotated kind, unit,
dataset, hardware, model and baseline; an output claim the annotations lack is wrong), as a
reliability table and its expected calibration error; and each decision's own confidence
(``kind_confidence``, ``dataset_confidence``, ...) against its field on the matched claims."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from paper_claims.evaluation.figures import ATTRIBUTES, Reliability, ReliabilityBin
from paper_claims.evaluation.matching import ScoredClaim, agrees

BINS = 10  # equal bands of confidence: [0, 0.1), ..., [0.9, 1]
DECISIONS = ("kind", *ATTRIBUTES)


def _bands(confidence: np.ndarray, bins: int) -> np.ndarray:
    return np.clip(np.digitize(confidence, np.linspace(0, 1, bins + 1)[1:-1]), 0, bins - 1)


def calibration_error(confidence: Sequence[float], right: Sequence[bool], bins: int = BINS) -> float:
    """Expected calibration error: over equal bands of confidence, the gap between the mean
    confidence and the share right, each band counting as its share of the claims."""
    c, r = np.asarray(confidence, dtype=float), np.asarray(right, dtype=float)
    if not len(c):
        return float("nan")
    band = _bands(c, bins)
    return float(sum(abs(c[band == b].mean() - r[band == b].mean()) * np.mean(band == b)
                     for b in range(bins) if np.any(band == b)))


def reliability_bins(confidence: Sequence[float], right: Sequence[bool], bins: int = BINS) -> list[ReliabilityBin]:
    """The bands of confidence that hold claims: how many, their mean confidence, the share right."""
    c, r = np.asarray(confidence, dtype=float), np.asarray(right, dtype=float)
    band = _bands(c, bins) if len(c) else np.zeros(0, dtype=int)
    return [ReliabilityBin(low=b / bins, high=(b + 1) / bins, claims=int(np.sum(band == b)),
                           confidence=float(c[band == b].mean()), right=float(r[band == b].mean()))
            for b in range(bins) if np.any(band == b)]


def _number(row: dict[str, Any], column: str) -> Optional[float]:
    value = row.get(column)
    try:
        return None if value in (None, "") else float(value)
    except (TypeError, ValueError):
        return None


def reliability(pairs: Sequence[tuple[ScoredClaim, ScoredClaim]], unmatched: Sequence[ScoredClaim],
                bins: int = BINS) -> Optional[Reliability]:
    """The reliability of the output's confidences (None when no claim carries one)."""
    confidence, right = [], []
    for gold, pred in pairs:
        if (c := _number(pred.row, "confidence")) is not None:
            confidence.append(c)
            right.append(all(agrees(gold, pred, name) for name in ("kind", "unit", *ATTRIBUTES)))
    for pred in unmatched:
        if (c := _number(pred.row, "confidence")) is not None:
            confidence.append(c)
            right.append(False)
    if not confidence:
        return None
    decisions = {}
    for name in DECISIONS:
        found = [(c, agrees(g, p, name)) for g, p in pairs if (c := _number(p.row, f"{name}_confidence")) is not None]
        if found:
            decisions[name] = calibration_error([c for c, _ in found], [r for _, r in found], bins)
    return Reliability(claims=len(confidence), right=float(np.mean(right)), ece=calibration_error(confidence, right, bins),
                       bins=reliability_bins(confidence, right, bins), decisions=decisions)
