"""Fitting the learned decisions: scikit-learn's histogram gradient boosting on the examples'
feature rows, exported to the plain data ``decisions.model`` reads (split features, thresholds,
leaf values). Deterministic: fixed settings, no sampling, features in sorted order.

Each decision's threshold, and the rows the confidence is learned from, come from the training
sets alone, leave-one-set-out among them: a model never chooses its own threshold on the
abstracts it was fitted on."""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Optional, Sequence

import numpy as np

from paper_claims.decisions.model import as_matrix
from paper_claims.training.examples import DocumentExamples, Options

Row = dict[str, float]
MIN_COUNT = 5  # a feature seen fewer times than this while training is left out
# most features are yes/no or small counts: 32 bins hold them all
SETTINGS = {"max_iter": 120, "learning_rate": 0.05, "max_depth": 3, "min_samples_leaf": 20, "l2_regularization": 1.0,
            "max_bins": 32}
THRESHOLDS = np.round(np.arange(0.05, 0.96, 0.025), 3)


def vocabulary(rows: Sequence[Row]) -> list[str]:
    """The feature names seen at least MIN_COUNT times, sorted (a deterministic column order)."""
    counts: Counter[str] = Counter(name for row in rows for name, value in row.items() if value)
    return sorted(name for name, n in counts.items() if n >= MIN_COUNT)


def matrix(rows: Sequence[Row], names: Sequence[str]) -> np.ndarray:
    """The rows as the matrix a model is fitted on, its columns ``names``."""
    return as_matrix(rows, {name: i for i, name in enumerate(names)}, len(names))


def _boosting(**overrides: Any) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(**{**SETTINGS, **overrides}, early_stopping=False, random_state=0)


def _export(model: Any, names: Sequence[str], classes: Sequence[str] = (), threshold: float = 0.5) -> dict[str, Any]:
    """A fitted HistGradientBoostingClassifier as the trees ``decisions.model.Trees`` reads."""
    trees = []
    for stage in model._predictors:
        for predictor in stage:
            nodes = predictor.nodes
            leaf = nodes["is_leaf"].astype(bool)
            trees.append({"feature": np.where(leaf, -1, nodes["feature_idx"].astype(np.int64)).tolist(),
                          "threshold": [float(t) for t in nodes["num_threshold"]],
                          "left": np.where(leaf, -1, nodes["left"].astype(np.int64)).tolist(),
                          "right": np.where(leaf, -1, nodes["right"].astype(np.int64)).tolist(),
                          "value": [round(float(v), 6) for v in nodes["value"]]})
    init = np.asarray(model._baseline_prediction, dtype=float).ravel().tolist()
    return {"features": list(names), "init": init, "rate": 1.0, "trees": trees, "classes": list(classes),
            "threshold": threshold}


def fit_binary(rows: Sequence[Row], labels: Sequence[bool], threshold: float = 0.5,
               weights: Optional[Sequence[float]] = None, **settings: Any) -> dict[str, Any]:
    """A yes/no decision (``weights``: how much each row counts); all one answer: a constant."""
    names = vocabulary(rows)
    y = np.asarray(labels, dtype=int)
    if len(set(y.tolist())) < 2 or not names:
        share = float(y.mean()) if len(y) else 0.0
        share = min(max(share, 1e-4), 1 - 1e-4)
        return {"features": names, "init": [float(np.log(share / (1 - share)))], "rate": 1.0, "trees": [],
                "classes": [], "threshold": threshold}
    model = _boosting(**settings).fit(matrix(rows, names), y, sample_weight=_weights(weights, len(y)))
    return _export(model, names, threshold=threshold)


def _weights(weights: Optional[Sequence[float]], n: int) -> Optional[np.ndarray]:
    if weights is None or all(w == 1.0 for w in weights):
        return None
    return np.asarray(weights, dtype=float)


def fit_kinds(rows: Sequence[Row], kinds: Sequence[str], weights: Optional[Sequence[float]] = None) -> dict[str, Any]:
    """A claim's kind among the kinds the annotations use."""
    names = vocabulary(rows)
    classes = sorted(set(kinds) | {"accuracy", "speedup"})
    y = np.asarray([classes.index(k) for k in kinds])
    present = sorted(set(y.tolist()))
    if len(present) < 2:  # one kind only: it, always
        return {"features": names, "init": [0.0], "rate": 1.0, "trees": [], "classes": [classes[present[0]]] * 2,
                "threshold": 0.5}
    model = _boosting().fit(matrix(rows, names), y, sample_weight=_weights(weights, len(y)))
    return _export(model, names, [classes[i] for i in present], 0.5)


# --- choosing thresholds on held-out predictions ----------------------------------------------


def attribute_f1(choices: Sequence[Options], scores: Sequence[np.ndarray], threshold: float,
                 weights: Optional[Sequence[float]] = None) -> float:
    """The attribute's F1 as ``claims eval`` counts it, choosing the best candidate at or above
    ``threshold`` (else none); ``weights``: how much each claim counts."""
    tp = fp = fn = 0.0
    for choice, p, w in zip(choices, scores, weights or [1.0] * len(choices)):
        chosen = None
        if len(p):
            best = int(np.argmax(p))
            if p[best] >= threshold:
                chosen = best
        hit = chosen is not None and choice.right[chosen]
        if choice.gold and chosen is not None and hit:
            tp += w
        else:
            fp += w * (chosen is not None)
            fn += w * bool(choice.gold)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def list_f1(truth: Sequence[bool], scores: np.ndarray, threshold: float, missed: float,
            weights: Optional[np.ndarray] = None) -> float:
    """A list's F1 over the names (``missed``: annotated names no candidate matches, weighted;
    ``weights``: how much each name counts)."""
    w = np.ones(len(scores)) if weights is None else np.asarray(weights, dtype=float)
    chosen, right = scores >= threshold, np.asarray(truth, dtype=bool)
    tp = float(np.sum(w[chosen & right]))
    fp = float(np.sum(w[chosen])) - tp
    fn = float(np.sum(w[right])) - tp + missed
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def best_threshold(score: Callable[[float], float]) -> float:
    """The threshold of the highest score (the middle one of a plateau)."""
    values = [score(t) for t in THRESHOLDS]
    top = max(values)
    best = [t for t, v in zip(THRESHOLDS, values) if v >= top - 1e-9]
    return float(best[len(best) // 2])


def groups_of(examples: Sequence[DocumentExamples]) -> list[str]:
    return sorted({e.group for e in examples})
