"""The learned decisions as data: small gradient-boosted tree ensembles (a calibration map, and
the word weights of ``decisions.paper``) read from a JSON file, evaluated with plain numpy.
Nothing executable is loaded: the file holds feature names, split thresholds, leaf values and
word weights only (``make train`` writes it, ``paper_claims.training``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from paper_claims.decisions.paper import WordScore, paper_words
from paper_claims.errors import InputError

PACKAGED = "decisions.json"
FORMAT = 1


@dataclass(frozen=True)
class Trees:
    """One ensemble of regression trees over named features: binary (one tree per stage) or
    one tree per class and stage (``classes``); ``threshold``: the probability a choice needs.
    The trees are held as padded arrays (tree x node), so every tree is walked at once."""

    features: tuple[str, ...]
    init: np.ndarray  # raw score before any tree: shape (1,) binary, (K,) multiclass
    feature: np.ndarray  # (trees, nodes): the feature a node splits on (-1: a leaf)
    split: np.ndarray  # (trees, nodes): go left when the feature is at most this
    left: np.ndarray  # (trees, nodes): the left child (-1: a leaf)
    right: np.ndarray
    value: np.ndarray  # (trees, nodes): a leaf's value (the learning rate applied)
    depth: int
    trees: int  # how many (0: a constant)
    classes: tuple[str, ...] = ()
    threshold: float = 0.5

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Trees":
        trees, rate = data["trees"], float(data["rate"])
        width = max((len(t["feature"]) for t in trees), default=1)

        def padded(key: str, fill: float, dtype: Any) -> np.ndarray:
            out = np.full((max(len(trees), 1), width), fill, dtype=dtype)
            for i, tree in enumerate(trees):
                out[i, :len(tree[key])] = tree[key]
            return out

        left = padded("left", -1, np.int64)
        return cls(tuple(data["features"]), np.asarray(data["init"], dtype=np.float64),
                   padded("feature", -1, np.int64), padded("threshold", 0.0, np.float64), left,
                   padded("right", -1, np.int64), padded("value", 0.0, np.float64) * rate * bool(trees),
                   _depth(left, padded("right", -1, np.int64)), len(trees), tuple(data.get("classes", ())),
                   float(data.get("threshold", 0.5)))

    def vectors(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        """Rows of named features as a matrix in this ensemble's feature order (unknown names: 0)."""
        return as_matrix(rows, self._index, max(len(self.features), 1))

    @property
    def _index(self) -> dict[str, int]:
        cached = self.__dict__.get("_index_cache")
        if cached is None:
            cached = {name: i for i, name in enumerate(self.features)}
            object.__setattr__(self, "_index_cache", cached)
        return cached  # type: ignore[no-any-return]

    def raw(self, matrix: np.ndarray) -> np.ndarray:
        """Raw scores: (n,) binary (two classes too), (n, K) for more classes."""
        n, k = matrix.shape[0], len(self.init)
        tree = np.arange(self.feature.shape[0])[None, :]
        node = np.zeros((n, self.feature.shape[0]), dtype=np.int64)
        rows = np.arange(n)[:, None]
        for _ in range(self.depth):
            feature = self.feature[tree, node]
            go_left = matrix[rows, np.maximum(feature, 0)] <= self.split[tree, node]
            node = np.where(feature >= 0, np.where(go_left, self.left[tree, node], self.right[tree, node]), node)
        leaves = self.value[tree, node]  # (n, trees)
        if k > 1:
            scores = np.tile(self.init, (n, 1))
            for c in range(k):
                scores[:, c] += leaves[:, c::k].sum(axis=1)
            return scores
        return float(self.init[0]) + leaves.sum(axis=1)

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


def as_matrix(rows: Sequence[dict[str, float]], index: dict[str, int], width: int) -> np.ndarray:
    """Rows of named features as a matrix: column ``index[name]`` (a name not in it is left out)."""
    matrix = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        for name, value in row.items():
            j = index.get(name)
            if j is not None:
                matrix[i, j] = value
    return matrix


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """The deepest path of the trees (how many steps the walk of every tree at once takes)."""
    deepest = 0
    for lefts, rights in zip(left.tolist(), right.tolist()):
        level = [0]
        depth = 0
        while True:
            level = [child for node in level for child in (lefts[node], rights[node]) if child >= 0]
            if not level:
                break
            depth += 1
        deepest = max(deepest, depth)
    return deepest


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
    system_model: Optional[WordScore] = None  # whether the paper's system is a model, by its words

    def system_model_probability(self, text: str) -> Optional[float]:
        """The probability that the system a text introduces is a model (None: the file has no
        word weights)."""
        return self.system_model.probability(paper_words(text)) if self.system_model is not None else None

    @classmethod
    def from_dict(cls, data: dict[str, Any], digest: str = "") -> "DecisionModels":
        if data.get("format") != FORMAT:
            raise InputError(f"decisions file of format {data.get('format')!r}; this version reads format {FORMAT}")
        return cls(Trees.from_dict(data["kind"]), {k: Trees.from_dict(v) for k, v in data["attributes"].items()},
                   {k: Trees.from_dict(v) for k, v in data["lists"].items()}, Trees.from_dict(data["confidence"]),
                   Calibration.from_dict(data["calibration"]), dict(data.get("about", {})), digest,
                   WordScore.from_dict(data.get("system_model")))


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
