"""paper_claims.rules.metric: a claim's metric from the words around its number (invented sentences)."""

from __future__ import annotations

import pytest

from paper_claims.rules.metric import metric_of
from paper_claims.parse.quantities import find_quantities


@pytest.mark.parametrize("sentence, metric", [
    ("Corvid reaches 91.2% word accuracy on it.", "word accuracy"),
    ("It runs 2.5x faster than DenseMix.", "faster"),
    ("It attains a macro F1 of 77.1%.", "macro F1"),
    ("The cache improves throughput by 3x.", "improves throughput"),
    ("We collect 3,000 hours of audio.", "hours"),
    ("It uses 40% less memory.", "less memory"),
])
def test_metric_of(sentence: str, metric: str) -> None:
    (mention,) = find_quantities(sentence)
    assert metric_of(sentence, mention) == metric


def test_metric_of_a_bare_number_at_the_end_is_none() -> None:
    sentence = "The gain was 3x."
    (mention,) = find_quantities(sentence)
    assert metric_of(sentence, mention) is None
