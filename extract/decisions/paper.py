"""What the abstract's own words say about the paper: whether the system it introduces is a model
(GUIDELINES: "models: named ML models, including an introduced model; not methods or serving
systems"). A paper that trains a network talks of layers, parameters and tasks; one that builds
a serving system talks of memory, throughput and requests. A logistic regression over the
words written in lower case (names are written with capitals, so no name enters) gives the
probability, a feature of every candidate of a claim's model (``SYSTEM_MODEL``).

The weights are data in the decisions file (``system_model``: each word's weight and the
intercept); ``training.learn`` fits them with scikit-learn."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional

SYSTEM_MODEL = "paper:system_model"  # the feature's name in a model candidate's row
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]+(?![\w-])")


def paper_words(text: str) -> tuple[str, ...]:
    """The distinct words of a text written wholly in lower case, sorted."""
    return tuple(sorted(set(_LOWER_WORD.findall(text))))


@dataclass(frozen=True)
class WordScore:
    """A logistic regression over which words a text has: each known word's weight, and the
    intercept."""

    weights: dict[str, float]
    intercept: float

    def probability(self, words: Iterable[str]) -> float:
        z = self.intercept + math.fsum(self.weights.get(word, 0.0) for word in set(words))  # exact: any order
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def to_dict(self) -> dict[str, Any]:
        return {"weights": {w: round(v, 6) for w, v in sorted(self.weights.items())}, "intercept": round(self.intercept, 6)}

    @classmethod
    def from_dict(cls, data: Optional[dict[str, Any]]) -> Optional["WordScore"]:
        if not data:
            return None
        return cls({str(w): float(v) for w, v in data["weights"].items()}, float(data["intercept"]))


def system_model_features(attribute: str, probability: Optional[float]) -> dict[str, float]:
    """The entries the paper's probability adds to a candidate row of ``attribute``: a model's
    only (none without a probability)."""
    return {SYSTEM_MODEL: probability} if attribute == "model" and probability is not None else {}
