"""paper_claims.grounding: numbers come from the parser's mentions, names from the marked candidates."""

from __future__ import annotations

from paper_claims.grounding import described, ground, nearest_name
from paper_claims.parse.marks import NameMark, name_marks
from paper_claims.parse.quantities import find_quantities
from paper_claims.parse.selection import candidate_mentions
from paper_claims.schemas import DocumentLabels, Kind

# Invented abstracts (no annotated text).
CORVID = (
    "We present Corvid for speech. "
    "On the BirdCall benchmark, Corvid reaches 91.2% accuracy and runs 2.5x faster than DenseMix on 8 H100 GPUs. "
    "It also cuts memory by 40% compared to DenseMix. "
    "We collect 3,000 hours of audio."
)
# the same, with a description that makes Corvid a model (a system the text does not
# describe is no model on the model's word alone)
CORVID_LM = CORVID.replace("Corvid for speech.", "Corvid, a speech model.")
LEDGER = (
    "We release Ledger, a benchmark of 1,200 accounting questions. "
    "The best model, Heron-9B, answers 47% of them. "
    "Training takes 6 hours on a single TPU v5e chip."
)


def _setup(text: str):
    mentions = candidate_mentions(text, find_quantities(text))
    letters = {mark.text: mark.letter for mark in name_marks(text, mentions)}
    marks = {m.text: str(i) for i, m in enumerate(mentions, start=1)}
    return mentions, letters, marks


def _name_marks(text: str) -> dict[str, NameMark]:
    """The name marks of ``text`` by their text."""
    return {m.text: m for m in name_marks(text, candidate_mentions(text, find_quantities(text)))}


def test_marks_of_the_invented_abstract() -> None:
    mentions, letters, marks = _setup(CORVID)
    assert list(marks) == ["91.2%", "2.5x", "8 H100 GPUs", "40%", "3,000 hours"]
    assert list(letters) == ["Corvid", "BirdCall benchmark", "DenseMix", "8 H100 GPUs"]


def test_lists_and_system_are_the_labelled_candidates() -> None:
    mentions, L, _ = _setup(CORVID_LM)
    labels = DocumentLabels(s=L["Corvid"], e={L["Corvid"]: "model", L["BirdCall benchmark"]: "dataset",
                                              L["DenseMix"]: "model", L["8 H100 GPUs"]: "hardware"})
    result = ground(CORVID_LM, mentions, labels)
    assert result.system == "Corvid"
    assert result.models == ["Corvid", "DenseMix"]
    assert result.datasets == ["BirdCall benchmark"]
    assert result.hardware == ["8 H100 GPUs"]
    assert result.claims == [] and result.dropped == 0


def test_claims_take_numbers_from_mentions_and_attributes_from_labelled_names() -> None:
    mentions, L, M = _setup(CORVID)
    labels = DocumentLabels(
        s=L["Corvid"],
        e={L["BirdCall benchmark"]: "dataset", L["DenseMix"]: "model", L["8 H100 GPUs"]: "hardware"},
        c={M["91.2%"]: "accuracy", M["2.5x"]: f"speedup {L['DenseMix']}", M["8 H100 GPUs"]: "scale",
           M["40%"]: f"efficiency {L['DenseMix']}", M["3,000 hours"]: "none"},
    )
    result = ground(CORVID, mentions, labels)
    by = {c.evidence: c for c in result.claims}
    assert list(by) == ["91.2%", "2.5x", "8 H100 GPUs", "40%"]
    for claim in result.claims:
        assert CORVID[claim.start:claim.end] == claim.evidence
    acc, speed, gpus, memory = result.claims
    assert (acc.kind, acc.value, acc.unit, acc.metric) == (Kind.accuracy, 91.2, "%", "accuracy")
    assert acc.dataset == "BirdCall benchmark" and acc.hardware is None  # a score is not on a device
    assert acc.baseline is None  # DenseMix is the baseline of another claim only
    assert speed.baseline == "DenseMix" and speed.model is None  # a claim's baseline is not its model
    assert speed.hardware == "8 H100 GPUs" and speed.hardware_canonical == "NVIDIA H100"
    assert gpus.hardware == "8 H100 GPUs"  # the count phrase holds its own mention
    # the third sentence names no dataset: the document's only dataset stands in
    assert memory.dataset == "BirdCall benchmark" and memory.hardware is None
    assert result.dropped == 0


def test_the_system_is_the_model_of_its_claims_when_it_is_a_model() -> None:
    mentions, L, M = _setup(CORVID_LM)
    labels = DocumentLabels(s=L["Corvid"], e={L["Corvid"]: "model", L["DenseMix"]: "model", L["8 H100 GPUs"]: "none"},
                            c={M["91.2%"]: "accuracy", M["40%"]: f"efficiency {L['DenseMix']}"})
    acc, memory = ground(CORVID_LM, mentions, labels).claims
    assert acc.model == memory.model == "Corvid"


def test_a_contributed_benchmark_is_the_dataset_of_claims_that_name_none() -> None:
    mentions, L, M = _setup(LEDGER)
    assert list(M) == ["1,200 accounting questions", "47%", "6 hours"]
    labels = DocumentLabels(s=L["Ledger"], e={L["Ledger"]: "dataset", L["Heron-9B"]: "model",
                                              L["single TPU v5e chip"]: "hardware"},
                            c={M["47%"]: "accuracy", M["6 hours"]: "speedup"})
    score, time = ground(LEDGER, mentions, labels).claims
    assert score.dataset == "Ledger" and score.model == "Heron-9B"
    assert time.hardware == "single TPU v5e chip" and time.dataset == "Ledger"


def test_unknown_letters_and_marks_are_dropped_and_counted() -> None:
    mentions, L, M = _setup(CORVID)
    labels = DocumentLabels(s="Q", e={"Z": "model", L["DenseMix"]: "model"},
                            c={M["2.5x"]: "speedup Y", "99": "speedup"})
    result = ground(CORVID, mentions, labels)
    assert result.system == "Corvid"  # from "We present Corvid", not the unknown letter
    assert result.models == ["DenseMix"]
    (claim,) = result.claims
    assert claim.baseline == "DenseMix"  # from "faster than DenseMix", not the unknown letter
    assert result.dropped == 4  # the system letter, the name letter, the mark and the baseline letter


def test_none_labels_make_no_claims_but_a_factor_stated_faster_or_smaller_and_devices_used() -> None:
    mentions, _, M = _setup(CORVID)
    result = ground(CORVID, mentions, DocumentLabels(c={n: "none" for n in M.values()}))
    # the GPUs a paper used are a scale claim (GUIDELINES.md), whatever the model said
    assert [(c.evidence, c.kind) for c in result.claims] == [("2.5x", Kind.speedup), ("8 H100 GPUs", Kind.scale)]
    assert result.dropped == 0


def test_the_rule_kind_wins_over_the_model_where_the_cues_decide() -> None:
    mentions, _, M = _setup(CORVID)
    result = ground(CORVID, mentions, DocumentLabels(c={M["2.5x"]: "accuracy", M["40%"]: "speedup"}))
    assert [(c.evidence, c.kind) for c in result.claims] == [("2.5x", Kind.speedup), ("40%", Kind.efficiency)]


def test_a_document_the_model_did_not_read_gets_hardware_and_datasets_from_class_words() -> None:
    text = ("We describe a compiler for multicore CPUs and low-power FPGAs, evaluated on two corpora: "
            "the Quill corpus and the Wren challenge.")
    result = ground(text, [], DocumentLabels())
    assert result.hardware == ["multicore CPUs", "low-power FPGAs"]
    # a written name with a data class word is a dataset; the class word alone ("two corpora") names nothing
    assert result.datasets == ["Quill corpus", "Wren challenge"]
    assert result.models == [] and result.system is None


def test_nearest_name_stays_in_the_sentence_and_weighs_names_after_the_number_double() -> None:
    mentions, L, M = _setup(CORVID)
    marks = {m.text: m for m in name_marks(CORVID, mentions)}
    speed = mentions[int(M["2.5x"]) - 1]
    assert nearest_name(CORVID, speed, [marks["DenseMix"], marks["8 H100 GPUs"]]) == "DenseMix"
    memory = mentions[int(M["40%"]) - 1]
    assert nearest_name(CORVID, memory, [marks["BirdCall benchmark"]]) is None
    assert nearest_name(CORVID, memory, []) is None


def test_labels_parse_kind_and_baseline_letter_and_refuse_other_text() -> None:
    import pytest
    from pydantic import ValidationError

    labels = DocumentLabels(c={"2": "speedup C", "1": "none"})
    assert [(label.n, label.k.value, label.b) for label in labels.claims()] == [(1, "none", None), (2, "speedup", "C")]
    with pytest.raises(ValidationError):
        DocumentLabels(c={"1": "fast"})
    with pytest.raises(ValidationError):
        DocumentLabels.model_validate({"c": {"3": "scale"}}, context={"n_mentions": 2})


def test_the_system_is_the_name_right_after_we_present_and_its_words_correct_the_model() -> None:
    mentions, L, M = _setup(CORVID)
    # the model points elsewhere and calls the GPUs a dataset: the intro sentence and the class word win
    labels = DocumentLabels(s=L["DenseMix"], e={L["Corvid"]: "none", L["BirdCall benchmark"]: "model",
                                                L["DenseMix"]: "model", L["8 H100 GPUs"]: "dataset"})
    result = ground(CORVID, mentions, labels)
    assert result.system == "Corvid"
    assert result.hardware == ["8 H100 GPUs"] and result.datasets == ["BirdCall benchmark"]
    assert result.models == ["DenseMix"]


def test_memory_parts_and_cloud_providers_are_not_hardware() -> None:
    text = "We present Corvid, which keeps weights in HBM and runs on AWS with 4x lower latency."
    mentions = candidate_mentions(text, find_quantities(text))
    letters = {mark.text: mark.letter for mark in name_marks(text, mentions)}
    labels = DocumentLabels(e={letters["HBM"]: "hardware", letters["AWS"]: "hardware"}, c={"1": "speedup"})
    assert ground(text, mentions, labels).hardware == []


def test_baseline_is_the_name_compared_in_the_claim_s_own_clause() -> None:
    from paper_claims.grounding import compared_name

    text = "We present Wren. Wren outperforms Finch by 4.1 points, and is 2x faster than Robin on Z900 GPUs."
    mentions = candidate_mentions(text, find_quantities(text))
    marks = name_marks(text, mentions)
    points, speed = mentions
    assert compared_name(text, points, marks).text == "Finch"  # "outperforms X by N"
    assert compared_name(text, speed, marks).text == "Robin"  # "N faster than X"
    labels = DocumentLabels(c={"1": "improvement", "2": "speedup"})
    assert [c.baseline for c in ground(text, mentions, labels).claims] == ["Finch", "Robin"]


def test_a_lower_case_dataset_phrase_is_a_description_not_a_name() -> None:
    text = "We present Wren for parsing; tested on public benchmarks and the Harbor benchmark, it gains 3 points."
    mentions = candidate_mentions(text, find_quantities(text))
    L = {mark.text: mark.letter for mark in name_marks(text, mentions)}
    labels = DocumentLabels(e={L["public benchmarks"]: "dataset", L["Harbor benchmark"]: "dataset"}, c={"1": "improvement"})
    assert ground(text, mentions, labels).datasets == ["Harbor benchmark"]


def test_a_name_typed_hardware_without_a_device_word_is_dropped() -> None:
    mentions, L, M = _setup(CORVID)
    labels = DocumentLabels(e={L["DenseMix"]: "hardware", L["8 H100 GPUs"]: "hardware"}, c={M["2.5x"]: "speedup"})
    assert ground(CORVID, mentions, labels).hardware == ["8 H100 GPUs"]


def test_the_words_after_the_system_say_what_it_is() -> None:
    text = ("We present Wren, a framework for serving Heron-9B on Z900 GPUs. "
            "Wren is 2x faster than Robin. We also present Finch, a 3B language model.")
    mentions = candidate_mentions(text, find_quantities(text))
    L = {mark.text: mark.letter for mark in name_marks(text, mentions)}
    labels = DocumentLabels(e={L["Wren"]: "model", L["Heron-9B"]: "model"}, c={"1": "speedup"})
    result = ground(text, mentions, labels)
    # a framework is not a model; "Finch, a 3B language model" is one by its description
    assert result.system == "Wren" and result.models == ["Heron-9B", "Finch"]


def test_a_name_a_number_is_measured_on_is_a_dataset() -> None:
    text = "We present Wren for parsing. Wren reaches 91.0% on TreeBank-X and runs on Z900 GPUs."
    mentions = candidate_mentions(text, find_quantities(text))
    L = {mark.text: mark.letter for mark in name_marks(text, mentions)}
    labels = DocumentLabels(e={L["TreeBank-X"]: "model", L["Z900 GPUs"]: "hardware"}, c={"1": "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["TreeBank-X"] and result.hardware == ["Z900 GPUs"]


def _system_type(text: str, system: str) -> object:
    from paper_claims.grounding import _system_code

    mentions = candidate_mentions(text, find_quantities(text))
    mark = next(m for m in name_marks(text, mentions) if m.text == system)
    return _system_code(text, mark)


def test_the_system_type_is_the_head_of_its_description() -> None:
    from paper_claims.schemas import NameCode

    assert _system_type("We present Zephyrus, an LLM serving system for agents.", "Zephyrus") == NameCode.none
    assert _system_type("We present Corvid-2, a compact speech model that runs offline.", "Corvid-2") == NameCode.model
    assert _system_type("We introduce Quokka: a new benchmark designed to test models.", "Quokka") == NameCode.dataset
    assert _system_type("We propose a new network architecture, the Fernformer, for vision.", "Fernformer") == NameCode.model
    assert _system_type("We present $\\textbf{Tally}$, a system for comparing two LLMs.", "Tally") == NameCode.none
    assert _system_type("We study Wisp in detail.", "Wisp") is None
    assert _system_type("We present Wisp. Wisp is an easy-to-run evaluation benchmark.", "Wisp") == NameCode.dataset


def test_claims_of_a_model_the_paper_introduces_are_about_it() -> None:
    text = ("We present Corvid-2, a compact speech model. "
            "Corvid-2 reaches 91.2% accuracy, 4 points above Heron and DenseMix-XL on the BirdCall benchmark.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Corvid-2"], e={L["Corvid-2"]: "model", L["Heron"]: "model", L["DenseMix-XL"]: "model"},
                            c={M["91.2%"]: "accuracy", M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert [c.model for c in result.claims] == ["Corvid-2", "Corvid-2"]
    assert [c.dataset for c in result.claims] == ["BirdCall benchmark", "BirdCall benchmark"]


def test_a_speedup_does_not_default_to_the_only_dataset() -> None:
    text = "We present Wisp. Wisp reaches 91.2% on the BirdCall benchmark. Separately, Wisp decodes 3x faster."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "none"}, c={M["91.2%"]: "accuracy", M["3x"]: "speedup"})
    by = {c.evidence: c for c in ground(text, mentions, labels).claims}
    assert by["91.2%"].dataset == "BirdCall benchmark" and by["3x"].dataset is None


def test_names_listed_together_share_the_type_their_words_settle() -> None:
    text = "We present Wisp. Wisp beats Llama-9-300b, Zorblat and Quenta by 4 points on the BirdCall benchmark."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Zorblat"]: "dataset", L["Quenta"]: "hardware"}, c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Llama-9-300b", "Zorblat", "Quenta"]
    assert result.datasets == ["BirdCall benchmark"]


def test_a_comma_after_an_opening_phrase_is_no_list() -> None:
    text = "On BirdCall, Wisp-2 reaches 91.2% and runs on one Pixel 9 phone."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(e={L["BirdCall"]: "dataset", L["Wisp-2"]: "model"}, c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["BirdCall"] and result.models == ["Wisp-2"]


def test_a_spelled_out_name_in_parentheses_is_listed_once() -> None:
    text = "We present Wisp (Wide Sparse Parser), a language model. Wisp reaches 91.2% on the BirdCall benchmark."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Wide Sparse Parser"]: "dataset"},
                            c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.models == ["Wisp"] and result.datasets == ["BirdCall benchmark"]


def test_the_baseline_is_the_name_compared_in_the_claims_clause() -> None:
    from paper_claims.grounding import compared_name

    text = ("Wisp-2 is 4.3x smaller and 5.5x faster than Heron-XL. "
            "Wisp-2 surpasses Corvid by 7.8%/5.3% and Zorblat by 6.1% on BirdCall.")
    mentions = candidate_mentions(text, find_quantities(text))
    marks = name_marks(text, mentions)
    got = {m.text: (b.text if (b := compared_name(text, m, marks)) else None) for m in mentions}
    assert got["4.3x"] == got["5.5x"] == "Heron-XL"
    assert got["7.8%"] == got["5.3%"] == "Corvid" and got["6.1%"] == "Zorblat"


def test_the_baseline_before_on_or_after_an_aside() -> None:
    from paper_claims.grounding import compared_name

    text = ("Wisp outperforms all previous tuners on six of the games. "
            "Wisp improves over the existing best results, including ensembles by over 2 BLEU.")
    mentions = candidate_mentions(text, find_quantities(text))
    marks = name_marks(text, mentions)
    got = {m.text: (b.text if (b := compared_name(text, m, marks)) else None) for m in mentions}
    assert got["six of the games"] == "previous tuners" and got["over 2 BLEU"] == "existing best results"


def test_cloud_providers_citation_keys_and_spelled_out_kinds_of_things_are_not_listed() -> None:
    text = "We present Wisp (okafor2021wisp). On Azure, Wisp helps Small Vision Models (SVMs) reach 91.2% on Quill."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Azure"]: "dataset", L["Small Vision Models (SVMs)"]: "model",
                                            L["okafor2021wisp"]: "model",
                                            L["Quill"]: "dataset"}, c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["Quill"] and result.models == [] and result.hardware == []


def test_a_store_or_an_alternative_is_no_model() -> None:
    from paper_claims.schemas import NameCode

    assert _system_type("We present Tern, a unified object store for the cloud.", "Tern") == NameCode.none
    assert _system_type("We propose Tern, an alternative that samples by strata.", "Tern") == NameCode.none


def test_a_factor_that_is_faster_or_smaller_stays_a_claim_when_the_model_lets_it_go() -> None:
    text = "Wisp runs about 15x faster than Heron and is 4x smaller. Prior tuners reported 2x."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(c={M["about 15x"]: "none", M["4x"]: "none", M["2x"]: "none"})
    by = {c.evidence: c.kind for c in ground(text, mentions, labels).claims}
    assert by == {"about 15x": Kind.speedup, "4x": Kind.efficiency}


def test_a_known_model_a_number_is_measured_on_stays_a_model_and_data_of_x_is_a_dataset() -> None:
    text = "We present Wisp. Wisp gives a 3x speed-up on GPT-9 training, using all labeled data of Quokka."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["GPT-9"]: "dataset", L["Quokka"]: "model"}, c={M["3x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.models == ["GPT-9"] and result.datasets == ["Quokka"]


def test_a_document_without_numbers_lists_no_generic_device_phrase() -> None:
    text = "Wisp maps graphs across multiple computational devices and low-power FPGAs."
    result = ground(text, [], DocumentLabels())
    assert result.hardware == ["low-power FPGAs"]


def test_a_generic_phrase_a_number_is_measured_on_is_no_dataset() -> None:
    text = "We present Wisp. Wisp reaches 34.8 BLEU on the entire test set of Quokka."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], c={M["34.8 BLEU"]: "accuracy"})
    assert ground(text, mentions, labels).datasets == ["Quokka"]


def test_the_dataset_is_the_name_right_after_on() -> None:
    text = "We present Wisp. Wisp beats Heron by up to 12% on BirdCall and 34% on Quokka."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["BirdCall"]: "dataset", L["Quokka"]: "dataset"},
                            c={M["up to 12%"]: "improvement", M["34%"]: "improvement"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"up to 12%": "BirdCall", "34%": "Quokka"}


def test_the_baseline_named_before_a_colon_and_after_a_lead_word() -> None:
    from paper_claims.grounding import compared_name

    text = "Wisp trains faster than existing tuners: 15% on Quill, 3x on Quokka."
    mentions = candidate_mentions(text, find_quantities(text))
    marks = name_marks(text, mentions)
    got = {m.text: (b.text if (b := compared_name(text, m, marks)) else None) for m in mentions}
    assert got == {"15%": "tuners", "3x": "tuners"}


def test_without_we_propose_the_system_is_the_name_that_opens_the_clauses() -> None:
    text = ("Speech models need labels. wav9vec 3.0 masks the input and learns units. With one hour of labels, "
            "wav9vec 3.0 reaches 4.8 WER on Quokka.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Quokka"], c={M["4.8 WER"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.system == "wav9vec 3.0"


def test_a_name_compared_with_in_any_claim_is_not_a_claims_model() -> None:
    text = "Our Wisp-9B surpasses Heron-9B by 7.8% and Kite-9B by 15.1% on Quill."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(c={M["7.8%"]: "improvement", M["15.1%"]: "improvement"})
    by = {c.evidence: (c.model, c.baseline) for c in ground(text, mentions, labels).claims}
    assert by == {"7.8%": ("Wisp-9B", "Heron-9B"), "15.1%": ("Wisp-9B", "Kite-9B")}


def test_a_names_own_description_gives_its_type_over_the_models_label() -> None:
    text = ("We present Wisp, a tuner for speech models. We also release Quokka, a benchmark of 900 spoken questions, "
            "and evaluate on two new suites, Marlow and Tibbet. Wisp lifts Heron-9B by 4 points on Quokka.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Quokka"]: "model", L["Marlow"]: "model",
                                            L["Tibbet"]: "none", L["Heron-9B"]: "model"},
                            c={M["900 spoken questions"]: "scale", M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Heron-9B"]  # "Wisp, a tuner": no model
    assert result.datasets == ["Quokka", "Marlow", "Tibbet"]


def test_an_opening_phrase_with_a_class_noun_types_no_name() -> None:
    text = "On both benchmarks, Wisp-2 gains 4 points. Models such as Heron and Kite lag behind."
    marks = _name_marks(text)
    assert described(text, marks["Wisp-2"]) is None
    assert described(text, marks["Heron"]).value == "model"


def test_a_spelled_out_expansion_or_a_family_of_models_types_the_name() -> None:
    text = "We build a family of language models named Tolu. Tolu (Tiny Open Language Model) gains 4 points."
    marks = _name_marks(text)
    assert described(text, marks["Tolu"]).value == "model"
    assert _system_type(text, "Tolu").value == "model"


def test_plain_capitalised_words_are_no_dataset_on_the_models_word_alone() -> None:
    text = ("We present Wisp, a tutor. Wisp answers 71% of questions in Music, Law and Cooking, "
            "and 64% on Quill-QA and on Harbor Trace.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Music"]: "dataset", L["Law"]: "dataset", L["Cooking"]: "dataset",
                                            L["Quill-QA"]: "dataset", L["Harbor Trace"]: "dataset"},
                            c={M["71%"]: "accuracy", M["64%"]: "accuracy"})
    # "Harbor Trace" stands right after "64% on ... and on": measured on, so a dataset
    assert ground(text, mentions, labels).datasets == ["Quill-QA", "Harbor Trace"]


def test_a_system_with_no_description_is_no_model_on_the_models_word_alone() -> None:
    text = "We introduce Wisp, which ranks adapters. Wisp lifts Heron-9B by 4 points. We also present Tolu-7B."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Heron-9B"]: "model"},
                            c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.system == "Wisp" and result.models == ["Heron-9B", "Tolu-7B"]
    text = "We fine-tune a pre-trained Tolu model. Tolu reaches 4.8 WER. Tolu is small."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Tolu"], e={L["Tolu"]: "model"}, c={M["4.8 WER"]: "accuracy"})
    assert ground(text, mentions, labels).models == ["Tolu"]


def test_a_parameter_count_is_on_no_dataset_and_no_device() -> None:
    text = "We present Wisp, a speech model. On the BirdCall benchmark, Wisp has 7 billion parameters on 8 Z900 GPUs."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model"}, c={M["7 billion parameters"]: "scale"})
    claim = next(c for c in ground(text, mentions, labels).claims if c.evidence == "7 billion parameters")
    assert claim.dataset is None and claim.hardware is None and claim.model == "Wisp"


def test_the_baseline_keeps_its_qualifier_and_the_names_listed_with_it() -> None:
    text = ("Wisp-2 uses 3.1x less SRAM and 2.2x less Flash compared to pruned Heron-2 and Kite-XL. "
            "Wisp-2 is 1.5/2.1 higher than Corvid-B. "
            "Wisp-2 follows the topology rather than per-layer rules, cutting memory by 4.8x, "
            "and speeding up decoding by 1.7x compared to Tern-Micro.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(c={M[k]: "efficiency" for k in M})
    by = {c.evidence: c.baseline for c in ground(text, mentions, labels).claims}
    assert by["3.1x"] == by["2.2x"] == "pruned Heron-2 and Kite-XL"
    assert by["1.5"] == "Corvid-B"
    assert by["4.8x"] == by["1.7x"] == "Tern-Micro"  # "rather than" compares no number


def test_the_models_system_letter_counts_only_for_a_name_the_abstract_repeats() -> None:
    text = "We propose a benchmark of riddles. We tested Heron-9B and Kite. The best model solves 58% of them."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Kite"], e={L["Heron-9B"]: "model", L["Kite"]: "model"}, c={M["58%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.system is None and result.claims[0].model is None
    assert result.models == ["Heron-9B"]  # Kite: the model's own guess at the contribution, nothing calls it a model


def test_an_acronym_is_what_the_text_says_its_long_name_is() -> None:
    text = ("We develop a simple algorithm, Quiet Action Tokens (QAT), for robots. "
            "QAT lifts success by 40% over Heron-9B.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Quiet Action Tokens (QAT)"], e={L["QAT"]: "model", L["Heron-9B"]: "model"},
                            c={M["40%"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Heron-9B"] and result.claims[0].model is None


def test_numbers_with_respectively_go_to_the_names_in_order() -> None:
    text = ("We present Wisp, a tuner. On the Quill-10 and Quill-20 datasets Wisp reaches 91.2% "
            "(92.0% with an ensemble) and 64.5%, respectively.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Quill-10"]: "dataset", L["Quill-20 datasets"]: "dataset"},
                            c={M["91.2%"]: "accuracy", M["92.0%"]: "accuracy", M["64.5%"]: "accuracy"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"91.2%": "Quill-10", "92.0%": "Quill-10", "64.5%": "Quill-20 datasets"}


def test_a_description_before_a_name_counts_after_an_introducing_verb_not_in_an_opening_phrase() -> None:
    text = ("Applied to a strong speech model, Tern halves the error by 50%. We propose a new scheduler, Wisp. "
            "A smaller version of the network, Fast Kite, runs 3x faster.")
    marks = _name_marks(text)
    assert described(text, marks["Tern"]) is None
    assert described(text, marks["Wisp"]).value == "none"
    assert described(text, marks["Fast Kite"]).value == "model"


def test_a_device_word_that_modifies_another_noun_or_a_real_robot_is_no_hardware() -> None:
    text = ("We present Wisp, a trainer. Wisp cuts single-GPU training time by 40% on 8 Z900 GPUs, "
            "covers six core skills, and runs 2x faster on physical robots and high-end GPUs than Heron-9B.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k not in ("Wisp", "Heron-9B")},
                            c={M["40%"]: "speedup", M["2x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["8 Z900 GPUs"]


def test_a_singular_device_word_before_a_noun_modifies_it_also_where_the_model_did_not_read() -> None:
    text = ("We present Wisp, a low-latency robot controller, and we size the elastic cluster pool by hand. "
            "Wisp reaches 2x on a mobile robot that picks boxes, and on the Zeta chip with 3 arms.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["2x"]: "speedup"})
    hardware = ground(text, mentions, labels).hardware
    assert "mobile robot" in hardware and "Zeta chip" in hardware  # a verb or a function word follows
    assert not any("controller" in h or h.endswith("robot") and "low-latency" in h or "cluster" in h for h in hardware)
    unread = "We present Wisp, a low-latency robot controller for the Zeta chip."
    assert ground(unread, [], DocumentLabels()).hardware == ["Zeta chip"]


def test_a_counted_device_before_a_noun_or_a_phrase_led_by_a_function_word_is_no_hardware() -> None:
    from paper_claims.grounding import counted_devices

    text = ("Wisp gives a 5x speedup relative to a 4 core edge computer with only a small loss. "
            "It runs on 8 Z900 GPUs, even if fewer cores are free.")
    mentions = candidate_mentions(text, find_quantities(text))
    assert [(text[m.start:m.end], counted_devices(text, m)) for m in mentions if m.unit != "x"] == [
        ("4 core", None), ("8 Z900 GPUs", "8 Z900 GPUs")]
    _, L, M = _setup(text)
    labels = DocumentLabels(e={L[k]: "hardware" for k in L if "cores" in k}, c={M["5x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["8 Z900 GPUs"]


def test_a_plural_or_a_kind_of_field_model_is_no_model() -> None:
    text = "We present Wisp, a speech model. Wisp beats LSTMs, Recurrers and a user-VLM by 4 points, and Heron-9B by 2 points."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "model" for k in L}, c={M["4 points"]: "improvement", M["2 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["Wisp", "Heron-9B"]


def test_names_listed_after_a_plural_noun_are_of_its_kind() -> None:
    text = ("We present Wisp, a speech model. Wisp beats other decoding methods, including Tern and Kite, by 4 points, "
            "and serving engines like Quokka by 2x.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Tern"]: "dataset", L["Kite"]: "dataset",
                                            L["Quokka"]: "model"},
                            c={M["4 points"]: "improvement", M["2x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.datasets == [] and result.models == ["Wisp"]


def test_a_hyphenated_gerund_names_a_method() -> None:
    text = "We present Wisp, a speech model. Trained with Z-learning and Size-controlling, Wisp reaches 91.2% on Quill."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Z-learning"]: "dataset",
                                            L["Size-controlling"]: "model", L["Quill"]: "dataset"},
                            c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["Quill"] and result.models == ["Wisp"]


def test_a_speedup_is_on_the_device_the_system_is_introduced_for() -> None:
    text = ("We present Wisp, an update system for microcontroller-based Z9 devices. "
            "Wisp cuts update time by up to 40x. We asked 30 users.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["microcontroller-based Z9 devices"]: "hardware"},
                            c={M["up to 40x"]: "speedup", M["30 users"]: "scale"})
    by = {c.evidence: c.hardware for c in ground(text, mentions, labels).claims}
    assert by == {"up to 40x": "microcontroller-based Z9 devices", "30 users": None}  # a count: no fallback


def test_a_number_that_counts_devices_names_them_with_the_count() -> None:
    text = "We present Wisp, a trainer. Wisp reaches 55% utilization on up to 1024 Zeta TPUv9 cores and on 2--4 Q7s."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], c={M[k]: "scale" for k in M})
    result = ground(text, mentions, labels)
    assert "1024 Zeta TPUv9 cores" in result.hardware
    by = {c.evidence: c.hardware for c in result.claims}
    assert by["up to 1024 Zeta TPUv9 cores"] == "1024 Zeta TPUv9 cores"


def test_a_devices_memory_and_a_description_of_a_later_name_are_no_hardware() -> None:
    text = ("We evaluate a custom ASIC---called a Zeta Processing Unit (ZPU)---that cuts reads of GPU memory by 3x "
            "and runs 2x faster on 8 Z900 GPUs.")
    mentions, L, M = _setup(text)
    labels = DocumentLabels(e={L[k]: "hardware" for k in L}, c={M["3x"]: "efficiency", M["2x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["8 Z900 GPUs"]  # not "custom ASIC", not "GPU"


def test_a_name_before_nets_or_networks_is_a_model() -> None:
    text = "We present Wisp, a tuner. Wisp trains nets 8x deeper than Kestrel nets and reaches 3.6% error on Quill."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Kestrel"]: "dataset", L["Quill"]: "dataset"},
                            c={M["8x"]: "scale", M["3.6%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.models == ["Kestrel"] and result.datasets == ["Quill"]


def test_a_name_in_an_opening_phrase_is_not_described_by_what_follows_the_comma() -> None:
    text = "On Quill, a small model reaches 71%. We release Tern, a benchmark of riddles."
    marks = _name_marks(text)
    assert described(text, marks["Quill"]) is None
    assert described(text, marks["Tern"]).value == "dataset"


def test_a_singular_name_ending_in_s_and_a_versioned_device_before_a_noun_are_kept() -> None:
    text = "We present Wisp, a speech model. Wisp beats Atlas by 4 points and trains 2x faster on Zeta-v9 pods."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Atlas"]: "model", L["Zeta-v9"]: "hardware"},
                            c={M["4 points"]: "improvement", M["2x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.models == ["Wisp", "Atlas"]


def test_a_device_is_listed_with_the_group_word_after_it() -> None:
    text = "We present Wisp, a trainer. Wisp trains in 76 minutes on a Zeta TPUv9 pod."
    mentions, L, M = _setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Zeta TPUv9"]: "hardware"}, c={M["76 minutes"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["Zeta TPUv9 pod"]


def test_pointers_number_formats_and_cited_authors_are_no_names() -> None:
    text = ("Frameworks for it (Tarrow and Finch, 2004) are slow. Kestrel-2 runs 3x faster in FP16 than "
            "the INT8 baseline on BirdSet (see Sec 4.2), and Tarrow-XL reaches 91.2%.")
    mentions, L, M = _setup(text)
    assert {"Tarrow", "FP16", "INT8", "Sec 4.2"} <= set(L)
    labels = DocumentLabels(e={L[k]: "model" for k in L if k != "BirdSet"} | {L["BirdSet"]: "dataset"},
                            c={M["3x"]: "speedup", M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.models == ["Kestrel-2", "Tarrow-XL"] and result.datasets == ["BirdSet"]


def test_an_optimizer_is_no_model_whatever_the_model_says() -> None:
    text = "We present Wisp, which trains Quokka-7B with minibatch SGD 2.1x faster than with AdamW."
    mentions = find_quantities(text)
    marks = {m.text: m.letter for m in name_marks(text, mentions)}
    labels = DocumentLabels(e={letter: "model" for letter in marks.values()}, c={"1": "speedup"})
    models = ground(text, mentions, labels).models
    assert "Quokka-7B" in models and not {"SGD", "minibatch SGD", "AdamW"} & set(models)


def test_a_gain_in_a_sentence_claiming_a_new_state_of_the_art_is_over_it() -> None:
    text = ("We present Wisp. Wisp sets new state-of-the-art results on four tasks, pushing the Quokka "
            "score to 71.2 (3.4 point absolute improvement). Wisp also doubles the recall of state-of-the-art "
            "retrievers.")
    mentions = find_quantities(text)
    n = {m.text: str(i) for i, m in enumerate(mentions, start=1)}
    claims = ground(text, mentions, DocumentLabels(c={n["3.4 point"]: "improvement", n["doubles"]: "improvement"})).claims
    baselines = {c.evidence: c.baseline for c in claims}
    assert baselines["3.4 point"] == "new state-of-the-art results"
    assert baselines["doubles"] is None  # there it only describes the retrievers
