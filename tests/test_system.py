"""paper_claims.rules.system: the paper's system and what it is (invented abstracts)."""

from __future__ import annotations

from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import candidate_mentions
from paper_claims.schemas import DocumentLabels
from paper_claims.parse.document import parse_text
from tests.invented import CORVID, setup, system_type_of, ground, marked


def test_the_system_is_the_name_right_after_we_present_and_its_words_correct_the_model() -> None:
    mentions, L, M = setup(CORVID)
    # the model points elsewhere and calls the GPUs a dataset: the intro sentence and the class word win
    labels = DocumentLabels(s=L["DenseMix"], e={L["Corvid"]: "none", L["BirdCall benchmark"]: "model",
                                                L["DenseMix"]: "model", L["8 H100 GPUs"]: "dataset"})
    result = ground(CORVID, mentions, labels)
    assert result.system == "Corvid"
    assert result.hardware == ["8 H100 GPUs"] and result.datasets == ["BirdCall benchmark"]
    assert result.models == ["DenseMix"]


def test_the_words_after_the_system_say_what_it_is() -> None:
    text = ("We present Wren, a framework for serving Heron-9B on Z900 GPUs. "
            "Wren is 2x faster than Robin. We also present Finch, a 3B language model.")
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    L = {mark.text: mark.letter for mark in marked(text, mentions).names}
    labels = DocumentLabels(e={L["Wren"]: "model", L["Heron-9B"]: "model"}, c={"1": "speedup"})
    result = ground(text, mentions, labels)
    # a framework is not a model; "Finch, a 3B language model" is one by its description
    assert result.system == "Wren" and result.models == ["Heron-9B", "Finch"]


def test_the_system_type_is_the_head_of_its_description() -> None:
    from paper_claims.schemas import NameCode

    assert system_type_of("We present Zephyrus, an LLM serving system for agents.", "Zephyrus") == NameCode.none
    assert system_type_of("We present Corvid-2, a compact speech model that runs offline.", "Corvid-2") == NameCode.model
    assert system_type_of("We introduce Quokka: a new benchmark designed to test models.", "Quokka") == NameCode.dataset
    assert system_type_of("We propose a new network architecture, the Fernformer, for vision.", "Fernformer") == NameCode.model
    assert system_type_of("We present $\\textbf{Tally}$, a system for comparing two LLMs.", "Tally") == NameCode.none
    assert system_type_of("We study Wisp in detail.", "Wisp") is None
    assert system_type_of("We present Wisp. Wisp is an easy-to-run evaluation benchmark.", "Wisp") == NameCode.dataset


def test_a_store_or_an_alternative_is_no_model() -> None:
    from paper_claims.schemas import NameCode

    assert system_type_of("We present Tern, a unified object store for the cloud.", "Tern") == NameCode.none
    assert system_type_of("We propose Tern, an alternative that samples by strata.", "Tern") == NameCode.none


def test_without_we_propose_the_system_is_the_name_that_opens_the_clauses() -> None:
    text = ("Speech models need labels. wav9vec 3.0 masks the input and learns units. With one hour of labels, "
            "wav9vec 3.0 reaches 4.8 WER on Quokka.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Quokka"], c={M["4.8 WER"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.system == "wav9vec 3.0"


def test_a_system_with_no_description_is_no_model_on_the_models_word_alone() -> None:
    text = "We introduce Wisp, which ranks adapters. Wisp lifts Heron-9B by 4 points. We also present Tolu-7B."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Heron-9B"]: "model"},
                            c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.system == "Wisp" and result.models == ["Heron-9B", "Tolu-7B"]
    text = "We fine-tune a pre-trained Tolu model. Tolu reaches 4.8 WER. Tolu is small."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Tolu"], e={L["Tolu"]: "model"}, c={M["4.8 WER"]: "accuracy"})
    assert ground(text, mentions, labels).models == ["Tolu"]


def test_the_models_system_letter_counts_only_for_a_name_the_abstract_repeats() -> None:
    text = "We propose a benchmark of riddles. We tested Heron-9B and Kite. The best model solves 58% of them."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Kite"], e={L["Heron-9B"]: "model", L["Kite"]: "model"}, c={M["58%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.system is None and result.claims[0].model is None
    assert result.models == ["Heron-9B"]  # Kite: the model's own guess at the contribution, nothing calls it a model


def test_a_system_the_text_trains_is_a_model() -> None:
    text = "We introduce Wisp, which ranks adapters. We train Wisp on 2 million pairs. Wisp lifts Heron-9B by 4 points."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Heron-9B"]: "model"},
                            c={M["4 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["Wisp", "Heron-9B"]
    text = "We introduce Wisp, which ranks adapters. Wisp is pre-trained on 2 million pairs. Wisp lifts Heron-9B by 4 points."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Heron-9B"]: "model"},
                            c={M["4 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["Wisp", "Heron-9B"]


def test_a_system_the_authors_call_our_model_is_a_model_whatever_its_description() -> None:
    text = ("We propose Wisp-7B, a pre-training strategy for speech. Wisp-7B is simple. "
            "For example, our model outperforms Heron-9B by 4 points.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp-7B"], e={L["Wisp-7B"]: "model", L["Heron-9B"]: "model"},
                            c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Wisp-7B", "Heron-9B"] and result.claims[0].model == "Wisp-7B"
    # the models a method makes of others are not the method: "our sliced models"
    sliced = text.replace("our model outperforms", "our sliced models outperform")
    mentions, L, M = setup(sliced)
    result = ground(sliced, mentions, DocumentLabels(s=L["Wisp-7B"], e={L["Wisp-7B"]: "model", L["Heron-9B"]: "model"},
                                                     c={M["4 points"]: "improvement"}))
    assert result.models == ["Heron-9B"] and result.claims[0].model != "Wisp-7B"


def test_the_system_followed_by_model_anywhere_is_a_model() -> None:
    from paper_claims.schemas import NameCode

    text = "We present Wisp, a new approach to detection. Our base Wisp model runs at 45 frames per second."
    assert system_type_of(text, "Wisp") == NameCode.model


def test_a_variant_of_the_system_its_sentence_names_is_the_claims_model() -> None:
    text = ("We present Wisp, a family of speech models trained on 9,000 hours. "
            "Wisp-B4 reaches 50.3% accuracy on Quokka.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Wisp-B4"]: "model", L["Quokka"]: "dataset"},
                            c={M["50.3%"]: "accuracy"})
    claim = ground(text, mentions, labels).claims[0]
    assert claim.model == "Wisp-B4" and claim.dataset == "Quokka"


def test_with_no_we_propose_the_name_the_authors_give_is_the_system() -> None:
    text = ("Speech synthesis is slow. Compared with Heron-9B, our approach speeds up synthesis by 38x. "
            "Therefore, we call our model Wisp.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Wisp"]: "model", L["Heron-9B"]: "model"}, c={M["38x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.system == "Wisp" and result.claims[0].model == "Wisp"
    # a so-called name is no one's contribution
    text = "So-called Wisp models are slow. Heron-9B speeds up synthesis by 38x."
    mentions, L, M = setup(text)
    assert ground(text, mentions, DocumentLabels(c={M["38x"]: "speedup"})).system is None


def test_the_models_guess_named_once_is_no_model_beside_another_system() -> None:
    text = "We propose Wisp, a speech model. It uses a Kite block and runs 3x faster than Heron-9B. Wisp is small."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Kite"], e={L["Wisp"]: "model", L["Kite"]: "model", L["Heron-9B"]: "model"},
                            c={M["3x"]: "speedup"})
    assert ground(text, mentions, labels).models == ["Wisp", "Heron-9B"]
