"""Whether the paper's system is a model, by the abstract's lower-case words (decisions.paper):
the weights as data, the feature of a model candidate, and stacking without a set seeing its own
annotations."""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest

from paper_claims.decisions.features import Reading, candidates, claim_features, pair_features
from paper_claims.decisions.model import DecisionModels
from paper_claims.decisions.paper import SYSTEM_MODEL, WordScore, paper_words
from paper_claims.rules.votes import vote
from paper_claims.schemas import DocumentLabels
from tests.invented import marked, setup

pytest.importorskip("sklearn")

from paper_claims.training.examples import DocumentExamples, system_is_model  # noqa: E402
from paper_claims.training.words import fit_word_score, held_out_paper  # noqa: E402
from paper_claims.training.store import from_data, to_data  # noqa: E402

MODEL_WORDS = ("we", "train", "a", "neural", "network", "with", "layers")
SYSTEM_WORDS = ("we", "build", "a", "serving", "system", "with", "memory")


def documents(group: str, n: int, words_of_models: tuple[str, ...], words_of_systems: tuple[str, ...]) -> list[DocumentExamples]:
    """n documents whose system is a model (with ``words_of_models``) and n whose is not."""
    return [DocumentExamples(f"{group}{i}", group, words=tuple(sorted(set(words))), system_model=is_model)
            for i in range(n) for words, is_model in ((words_of_models, True), (words_of_systems, False))]


def test_only_words_written_in_lower_case_count() -> None:
    words = paper_words("We present GLaM-2, a sparse language model on TPU v4 chips; it trains in 9 days.")
    assert words == tuple(sorted(set(words)))
    assert "sparse" in words and "model" in words and "trains" in words
    assert not {"We", "GLaM", "glam", "TPU", "v4", "it."} & set(words)


def test_the_weights_are_a_logistic_regression_kept_as_data() -> None:
    score = WordScore({"neural": 1.5, "memory": -2.0}, -0.25)
    assert score.probability(["neural", "unknown"]) == pytest.approx(1 / (1 + math.exp(-1.25)))
    assert score.probability(["neural", "neural"]) == score.probability(["neural"])  # a word counts once
    again = WordScore.from_dict(score.to_dict())
    assert again == score and WordScore.from_dict(None) is None


def test_only_a_models_candidates_carry_the_papers_probability() -> None:
    text = "We present Kite, a neural network. Kite reaches 81.2% accuracy on the Fooset benchmark."
    doc = marked(text)
    _, letters, marks = setup(text)
    labels = DocumentLabels(s=letters["Kite"], e={letters["Kite"]: "model", letters["Fooset benchmark"]: "dataset"},
                            c={marks["81.2%"]: "accuracy"})
    votes = vote(doc, labels)
    assert votes.claims
    claim = votes.claims[0]
    for probability in (None, 0.8):
        reading = Reading(doc, labels, votes, probability)
        base = claim_features(reading, claim)
        for attribute in ("dataset", "model"):
            rows = [pair_features(attribute, reading, claim, c, base) for c in candidates(attribute, reading, claim)]
            assert rows
            expected = probability if attribute == "model" else None
            assert all(row.get(SYSTEM_MODEL) == expected for row in rows)


def test_a_file_without_word_weights_gives_no_probability() -> None:
    packaged = resources.files("paper_claims.decisions").joinpath("decisions.json")
    if not packaged.is_file():
        pytest.skip("no packaged decisions (make train)")
    data = json.loads(packaged.read_text(encoding="utf-8"))
    with_words = DecisionModels.from_dict(data)
    assert with_words.system_model is not None  # make train learns them
    assert with_words.system_model_probability("we train a neural network with layers") > \
        with_words.system_model_probability("we build a serving system that saves memory")
    data.pop("system_model")
    assert DecisionModels.from_dict(data).system_model_probability("we train a neural network") is None


def test_the_weights_learn_which_words_go_with_a_model() -> None:
    examples = documents("a", 6, MODEL_WORDS, SYSTEM_WORDS)
    score = fit_word_score(examples)
    assert score is not None
    assert score.probability(MODEL_WORDS) > 0.5 > score.probability(SYSTEM_WORDS)
    assert fit_word_score(documents("a", 3, MODEL_WORDS, MODEL_WORDS)[::2]) is None  # all one answer: nothing to learn


def test_each_sets_probability_comes_from_weights_learned_on_the_other_sets() -> None:
    """Sets a and c say the network words go with a model; set b says the opposite. Held out,
    b's documents get a's and c's answer, and a's get one learned with b's contrary one."""
    a = documents("a", 5, MODEL_WORDS, SYSTEM_WORDS)
    b = documents("b", 5, SYSTEM_WORDS, MODEL_WORDS)
    c = documents("c", 5, MODEL_WORDS, SYSTEM_WORDS)
    paper = held_out_paper(a + b + c)
    network = [e for e in b if "network" in e.words]
    assert network and all(paper[id(e)] > 0.5 for e in network)  # learned on a and c, not on b's own labels
    together = fit_word_score(a + b + c)
    assert together is not None
    first = next(e for e in a if "network" in e.words)
    assert paper[id(first)] < together.probability(first.words)  # b's contrary documents weigh on a's


def test_the_annotated_system_is_a_model_when_a_model_names_it() -> None:
    assert system_is_model({"system": "Quill", "models": ["Quill-7B", "CodeBase"]}) is True
    assert system_is_model({"system": "Tidal", "models": ["Heron-13B"]}) is False
    assert system_is_model({"system": None, "models": ["Heron-13B"]}) is None


def test_the_store_keeps_the_common_words_and_whether_the_system_is_a_model() -> None:
    examples = documents("a", 3, MODEL_WORDS, SYSTEM_WORDS)
    examples[0] = DocumentExamples("rare", "a", words=tuple(sorted(MODEL_WORDS + ("zyzzyva",))), system_model=True)
    back = from_data(to_data(examples))
    assert [e.system_model for e in back] == [e.system_model for e in examples]
    assert back[0].words == tuple(sorted(set(MODEL_WORDS)))  # a word of one document only is not kept
    assert back[1].words == tuple(sorted(set(SYSTEM_WORDS)))


def test_the_probability_does_not_depend_on_the_order_of_the_words() -> None:
    """A set's order changes between processes (hash seeds); the sum must not (make train writes
    the same file every time)."""
    score = WordScore({"big": 1e16, "small": 1.0, "minus": -1e16}, 0.0)
    assert score.probability(["big", "small", "minus"]) == score.probability(["minus", "big", "small"]) \
        == pytest.approx(1 / (1 + math.exp(-1.0)))
