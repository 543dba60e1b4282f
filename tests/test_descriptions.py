"""paper_claims.rules.descriptions: what a name's own description says it is (invented abstracts)."""

from __future__ import annotations

from paper_claims.parse.document import parse_text
from paper_claims.rules.descriptions import described
from paper_claims.schemas import NameCode
from tests.invented import marks_by_text


def test_an_opening_phrase_with_a_class_noun_types_no_name() -> None:
    text = "On both benchmarks, Wisp-2 gains 4 points. Models such as Heron and Kite lag behind."
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Wisp-2"]) is None
    assert described(parse_text(text), marks["Heron"]).value == "model"


def test_a_name_called_or_denoted_in_parentheses_or_after_its_noun_phrase_is_described() -> None:
    text = ("We train a small speech model (called Wisp) on 900 hours. The resultant models, denoted as "
            "Wisp-Lite, gain 4 points. We design a new scheduler, denoted as Tern, for it.")
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Wisp"]).value == "model"
    assert described(parse_text(text), marks["Wisp-Lite"]).value == "model"
    assert described(parse_text(text), marks["Tern"]).value == "none"


def test_a_description_before_a_name_counts_after_an_introducing_verb_not_in_an_opening_phrase() -> None:
    text = ("Applied to a strong speech model, Tern halves the error by 50%. We propose a new scheduler, Wisp. "
            "A smaller version of the network, Fast Kite, runs 3x faster.")
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Tern"]) is None
    assert described(parse_text(text), marks["Wisp"]).value == "none"
    assert described(parse_text(text), marks["Fast Kite"]).value == "model"


def test_a_name_described_as_a_set_of_games_is_a_dataset() -> None:
    text = "We train Wisp on Quill-40 (all available Quill games in the Tern suite) and reach 3x higher scores."
    assert described(parse_text(text), marks_by_text(text)["Quill-40"]) == NameCode.dataset


def test_a_name_in_an_opening_phrase_is_not_described_by_what_follows_the_comma() -> None:
    text = "On Quill, a small model reaches 71%. We release Tern, a benchmark of riddles."
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Quill"]) is None
    assert described(parse_text(text), marks["Tern"]).value == "dataset"
    text = "On Quill, the small model reaches 71%. We distill them into Tern Riddle Evaluations (TRE), the first benchmark of riddles."
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Quill"]) is None
    assert described(parse_text(text), marks["Tern Riddle Evaluations (TRE)"]).value == "dataset"  # "X, the first benchmark"


def test_a_name_the_authors_give_a_class_of_things_is_of_that_class() -> None:
    text = "We relabel the Tern segmentation datasets (which we call Tern-Clean) and gain 4 points on them."
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Tern-Clean"]) == NameCode.dataset
