"""The learned decisions as data: small gradient-boosted tree ensembles (and a calibration map)
read from a JSON file, evaluated with plain numpy. Nothing executable is loaded: the file holds
feature names, split thresholds and leaf values only (``make train`` writes it,
``paper_claims.training``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from paper_claims.errors import InputError

PACKAGED = "decisions.json"
FORMAT = 1


@dataclass(frozen=True)
class Trees:
    """One ensemble of regression trees over named features: binary (one tree per stage) or
    one tree per class and stage (``classes``); ``threshold``: the probability a choice needs."""

    features: tuple[str, ...]
    init: np.ndarray  # raw score before any tree: shape (1,) binary, (K,) multiclass
    rate: float
    trees: tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]  # feature, threshold, left, right, value
    classes: tuple[str, ...] = ()
    threshold: float = 0.5

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Trees":
        trees = tuple((np.asarray(t["feature"], dtype=np.int32), np.asarray(t["threshold"], dtype=np.float64),
                       np.asarray(t["left"], dtype=np.int32), np.asarray(t["right"], dtype=np.int32),
                       np.asarray(t["value"], dtype=np.float64)) for t in data["trees"])
        return cls(tuple(data["features"]), np.asarray(data["init"], dtype=np.float64), float(data["rate"]), trees,
                   tuple(data.get("classes", ())), float(data.get("threshold", 0.5)))

    def vectors(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        """Rows of named features as a matrix in this ensemble's feature order (unknown names: 0)."""
        index = self._index
        matrix = np.zeros((len(rows), len(self.features)))
        for i, row in enumerate(rows):
            for name, value in row.items():
                j = index.get(name)
                if j is not None:
                    matrix[i, j] = value
        return matrix

    @property
    def _index(self) -> dict[str, int]:
        cached = self.__dict__.get("_index_cache")
        if cached is None:
            cached = {name: i for i, name in enumerate(self.features)}
            object.__setattr__(self, "_index_cache", cached)
        return cached  # type: ignore[no-any-return]

    def raw(self, matrix: np.ndarray) -> np.ndarray:
        """Raw scores: (n,) binary (two classes too), (n, K) for more classes."""
        n = matrix.shape[0]
        k = len(self.init)
        scores = np.tile(self.init, (n, 1)).astype(np.float64) if k > 1 else np.full(n, float(self.init[0]))
        for t, (feature, threshold, left, right, value) in enumerate(self.trees):
            node = np.zeros(n, dtype=np.int32)
            while True:
                inner = left[node] >= 0
                if not inner.any():
                    break
                go_left = matrix[np.arange(n), np.maximum(feature[node], 0)] <= threshold[node]
                node = np.where(inner, np.where(go_left, left[node], right[node]), node)
            if k > 1:
                scores[:, t % k] += self.rate * value[node]
            else:
                scores += self.rate * value[node]
        return scores

    def probabilities(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        """P(yes) for a binary ensemble (n,), or class probabilities (n, K)."""
        if not rows:
            return np.zeros((0, len(self.classes))) if self.classes else np.zeros(0)
        raw = self.raw(self.vectors(rows))
        if self.classes and len(self.init) == 1:  # two classes: one score, for the second
            second = 1.0 / (1.0 + np.exp(-raw))
            return np.column_stack([1.0 - second, second])
        if self.classes:
            raw = raw - raw.max(axis=1, keepdims=True)
            exp = np.exp(raw)
            return exp / exp.sum(axis=1, keepdims=True)
        return 1.0 / (1.0 + np.exp(-raw))


@dataclass(frozen=True)
class Calibration:
    """A monotone map from a raw confidence to the share of claims that were right: the mean of
    each bin of training confidences (isotonic regression's steps)."""

    edges: np.ndarray  # upper bounds of the steps, increasing
    values: np.ndarray

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Calibration":
        return cls(np.asarray(data["edges"], dtype=np.float64), np.asarray(data["values"], dtype=np.float64))

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        if not len(self.edges):
            return raw
        return np.interp(raw, self.edges, self.values)


@dataclass(frozen=True)
class DecisionModels:
    """Every learned decision: a claim's kind, each attribute's choice among the names, each
    document list's names, and the calibrated confidence of a claim."""

    kind: Trees
    attributes: dict[str, Trees]
    lists: dict[str, Trees]
    confidence: Trees
    calibration: Calibration
    about: dict[str, Any]
    digest: str = ""  # sha256 of the file (part of a run's key when the file is one of your own)

    @classmethod
    def from_dict(cls, data: dict[str, Any], digest: str = "") -> "DecisionModels":
        if data.get("format") != FORMAT:
            raise InputError(f"decisions file of format {data.get('format')!r}; this version reads format {FORMAT}")
        return cls(Trees.from_dict(data["kind"]), {k: Trees.from_dict(v) for k, v in data["attributes"].items()},
                   {k: Trees.from_dict(v) for k, v in data["lists"].items()}, Trees.from_dict(data["confidence"]),
                   Calibration.from_dict(data["calibration"]), dict(data.get("about", {})), digest)


_LOADED: dict[str, DecisionModels] = {}


def load_decisions(path: Optional[Union[str, Path]] = None) -> Optional[DecisionModels]:
    """The decisions file at ``path``, else the packaged one (None when the package has none).
    Read once per path."""
    key = str(path) if path is not None else ""
    if key not in _LOADED:
        try:
            if path is None:
                source = resources.files("paper_claims.decisions").joinpath(PACKAGED)
                if not source.is_file():
                    return None
                text = source.read_text(encoding="utf-8")
            else:
                text = Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot read decisions file {path or PACKAGED}: {e}") from None
        try:
            _LOADED[key] = DecisionModels.from_dict(data, hashlib.sha256(text.encode("utf-8")).hexdigest())
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"decisions file {path or PACKAGED} is not one claims train wrote ({type(e).__name__}: {e})") from None
    return _LOADED[key]
