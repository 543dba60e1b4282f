"""paper_claims.decisions.model: the learned decisions are plain data evaluated with numpy, and give
exactly what the fitted scikit-learn models give."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paper_claims.decisions.model import Calibration, Trees, load_decisions
from paper_claims.errors import InputError

pytest.importorskip("sklearn")

from paper_claims.training.fit import _boosting, _export, fit_binary, fit_kinds, matrix, vocabulary  # noqa: E402


def _rows(n: int, seed: int) -> tuple[list[dict[str, float]], np.ndarray]:
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for _ in range(n):
        a, b = rng.random(), float(rng.integers(0, 4))
        word = f"between:{rng.choice(['on', 'than', 'with', 'using'])}"
        rows.append({"a": a, "b": b, word: 1.0})
        labels.append(int(a > 0.5) + int(word == "between:than"))
    return rows, np.asarray(labels)


def test_exported_trees_give_the_fitted_models_probabilities() -> None:
    rows, labels = _rows(400, 1)
    names = vocabulary(rows)
    x = matrix(rows, names)
    binary = _boosting().fit(x, labels > 0)
    trees = Trees.from_dict(json.loads(json.dumps(_export(binary, names))))  # through JSON, as the file is read
    assert np.allclose(trees.probabilities(rows), binary.predict_proba(x)[:, 1], atol=1e-9)
    multi = _boosting().fit(x, labels)
    trees = Trees.from_dict(json.loads(json.dumps(_export(multi, names, ["x", "y", "z"]))))
    assert np.allclose(trees.probabilities(rows), multi.predict_proba(x), atol=1e-9)


def test_a_feature_the_model_never_saw_counts_as_zero() -> None:
    rows, labels = _rows(300, 2)
    trees = Trees.from_dict(fit_binary(rows, labels > 0))
    seen = [{"a": 0.7, "b": 1.0}]
    assert np.allclose(trees.probabilities(seen), trees.probabilities([{**seen[0], "unseen:word": 5.0}]))


def test_one_answer_only_is_a_constant_and_two_kinds_are_two_classes() -> None:
    rows, labels = _rows(60, 3)
    constant = Trees.from_dict(fit_binary(rows, [True] * 60))
    assert constant.trees == 0 and np.all(constant.probabilities(rows) > 0.99)
    two = Trees.from_dict(fit_kinds(rows, ["speedup" if y else "accuracy" for y in labels > 0]))
    p = two.probabilities(rows)
    assert two.classes == ("accuracy", "speedup") and p.shape == (60, 2) and np.allclose(p.sum(axis=1), 1.0)
    assert np.mean((p[:, 1] > 0.5) == (labels > 0)) >= 0.85


def test_calibration_is_a_monotone_map() -> None:
    calibration = Calibration(np.array([0.1, 0.5, 0.9]), np.array([0.0, 0.4, 1.0]))
    assert np.allclose(calibration(np.array([0.0, 0.3, 0.5, 1.0])), [0.0, 0.2, 0.4, 1.0])


def test_a_broken_decisions_file_is_one_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "d.json"
    broken.write_text('{"format": 1, "kind": {}}')
    with pytest.raises(InputError, match="not one claims train wrote"):
        load_decisions(broken)
    other = tmp_path / "o.json"
    other.write_text('{"format": 99}')
    with pytest.raises(InputError, match="format 99"):
        load_decisions(other)
    with pytest.raises(InputError, match="cannot read"):
        load_decisions(tmp_path / "missing.json")
