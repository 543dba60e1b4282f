"""Learning whether a document's system is a model from its lower-case words
(``decisions.paper``): the weights of a logistic regression (scikit-learn), and each set's
probabilities from weights learned on the other sets, so that the decisions stacked on them
learn how far they hold where they were not fitted."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from paper_claims.decisions.paper import WordScore
from paper_claims.training.examples import DocumentExamples
from paper_claims.training.fit import groups_of
from paper_claims.training.store import common_words

WORD_STRENGTH = 0.3  # the inverse L2 strength (scikit-learn's C) of the paper's word weights
Paper = dict[int, float]  # id(document examples) -> whether its system is a model, by its words


def fit_word_score(examples: Sequence[DocumentExamples]) -> Optional[WordScore]:
    """Word weights for whether a document's system is a model, learned from the documents with
    an annotated system (the words at least ``store.COMMON`` of them have); None when they are all
    one answer."""
    from sklearn.linear_model import LogisticRegression

    known = [e for e in examples if e.system_model is not None]
    if len({e.system_model for e in known}) < 2:
        return None
    words = sorted(common_words(known))
    column = {w: i for i, w in enumerate(words)}
    x = np.zeros((len(known), len(words)))
    for i, e in enumerate(known):
        for w in set(e.words):
            if w in column:
                x[i, column[w]] = 1.0
    model = LogisticRegression(C=WORD_STRENGTH, max_iter=5000).fit(x, [bool(e.system_model) for e in known])
    return WordScore(dict(zip(words, model.coef_[0].tolist())), float(model.intercept_[0]))


def paper_scores(examples: Sequence[DocumentExamples], words: Optional[WordScore]) -> Paper:
    """Each document's probability by ``words`` (none without weights)."""
    return {id(e): words.probability(e.words) for e in examples} if words is not None else {}


def held_out_paper(examples: Sequence[DocumentExamples]) -> Paper:
    """Each document's probability by word weights learned on the other sets."""
    found: Paper = {}
    for group in groups_of(examples):
        found.update(paper_scores([e for e in examples if e.group == group],
                                  fit_word_score([e for e in examples if e.group != group])))
    return found
