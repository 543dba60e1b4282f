"""paper_claims.rules.names: what each marked name is (invented abstracts)."""

from __future__ import annotations

from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.descriptions import described
from paper_claims.rules.selection import candidate_mentions
from paper_claims.schemas import DocumentLabels, NameCode
from paper_claims.parse.document import parse_text
from tests.invented import CORVID, setup, marks_by_text, system_type_of, ground, marked


def test_a_document_the_model_did_not_read_gets_hardware_and_datasets_from_class_words() -> None:
    text = ("We describe a compiler for multicore CPUs and low-power FPGAs, evaluated on two corpora: "
            "the Quill corpus and the Wren challenge.")
    result = ground(text, [], DocumentLabels())
    assert result.hardware == ["multicore CPUs", "low-power FPGAs"]
    # a written name with a data class word is a dataset; the class word alone ("two corpora") names nothing
    assert result.datasets == ["Quill corpus", "Wren challenge"]
    assert result.models == [] and result.system is None


def test_memory_parts_and_cloud_providers_are_not_hardware() -> None:
    text = "We present Corvid, which keeps weights in HBM and runs on AWS with 4x lower latency."
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    letters = {mark.text: mark.letter for mark in marked(text, mentions).names}
    labels = DocumentLabels(e={letters["HBM"]: "hardware", letters["AWS"]: "hardware"}, c={"1": "speedup"})
    assert ground(text, mentions, labels).hardware == []


def test_a_lower_case_dataset_phrase_is_a_description_not_a_name() -> None:
    text = "We present Wren for parsing; tested on public benchmarks and the Harbor benchmark, it gains 3 points."
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    L = {mark.text: mark.letter for mark in marked(text, mentions).names}
    labels = DocumentLabels(e={L["public benchmarks"]: "dataset", L["Harbor benchmark"]: "dataset"}, c={"1": "improvement"})
    assert ground(text, mentions, labels).datasets == ["Harbor benchmark"]


def test_a_name_typed_hardware_without_a_device_word_is_dropped() -> None:
    mentions, L, M = setup(CORVID)
    labels = DocumentLabels(e={L["DenseMix"]: "hardware", L["8 H100 GPUs"]: "hardware"}, c={M["2.5x"]: "speedup"})
    assert ground(CORVID, mentions, labels).hardware == ["8 H100 GPUs"]


def test_a_name_a_number_is_measured_on_is_a_dataset() -> None:
    text = "We present Wren for parsing. Wren reaches 91.0% on TreeBank-X and runs on Z900 GPUs."
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    L = {mark.text: mark.letter for mark in marked(text, mentions).names}
    labels = DocumentLabels(e={L["TreeBank-X"]: "model", L["Z900 GPUs"]: "hardware"}, c={"1": "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["TreeBank-X"] and result.hardware == ["Z900 GPUs"]


def test_names_listed_together_share_the_type_their_words_settle() -> None:
    text = "We present Wisp. Wisp beats Llama-9-300b, Zorblat and Quenta by 4 points on the BirdCall benchmark."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Zorblat"]: "dataset", L["Quenta"]: "hardware"}, c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Llama-9-300b", "Zorblat", "Quenta"]
    assert result.datasets == ["BirdCall benchmark"]


def test_names_listed_together_across_a_parenthesis_share_their_type() -> None:
    text = "We present Wisp. Wisp reaches 61.4% on the Quill-X challenge (long inputs) and Marlow-256 (short inputs)."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Quill-X challenge"]: "dataset", L["Marlow-256"]: "dataset"},
                            c={M["61.4%"]: "accuracy"})
    assert ground(text, mentions, labels).datasets == ["Quill-X challenge", "Marlow-256"]


def test_a_comma_after_an_opening_phrase_is_no_list() -> None:
    text = "On BirdCall, Wisp-2 reaches 91.2% and runs on one Pixel 9 phone."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["BirdCall"]: "dataset", L["Wisp-2"]: "model"}, c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["BirdCall"] and result.models == ["Wisp-2"]


def test_a_spelled_out_name_in_parentheses_is_listed_once() -> None:
    text = "We present Wisp (Wide Sparse Parser), a language model. Wisp reaches 91.2% on the BirdCall benchmark."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Wide Sparse Parser"]: "dataset"},
                            c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.models == ["Wisp"] and result.datasets == ["BirdCall benchmark"]


def test_cloud_providers_citation_keys_and_spelled_out_kinds_of_things_are_not_listed() -> None:
    text = "We present Wisp (okafor2021wisp). On Azure, Wisp helps Small Vision Models (SVMs) reach 91.2% on Quill."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Azure"]: "dataset", L["Small Vision Models (SVMs)"]: "model",
                                            L["okafor2021wisp"]: "model",
                                            L["Quill"]: "dataset"}, c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["Quill"] and result.models == [] and result.hardware == []


def test_a_known_model_a_number_is_measured_on_stays_a_model_and_data_of_x_is_a_dataset() -> None:
    text = "We present Wisp. Wisp gives a 3x speed-up on GPT-9 training, using all labeled data of Quokka."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["GPT-9"]: "dataset", L["Quokka"]: "model"}, c={M["3x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.models == ["GPT-9"] and result.datasets == ["Quokka"]


def test_a_document_without_numbers_lists_no_generic_device_phrase() -> None:
    text = "Wisp maps graphs across multiple computational devices and low-power FPGAs."
    result = ground(text, [], DocumentLabels())
    assert result.hardware == ["low-power FPGAs"]


def test_a_generic_phrase_a_number_is_measured_on_is_no_dataset() -> None:
    text = "We present Wisp. Wisp reaches 34.8 BLEU on the entire test set of Quokka."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], c={M["34.8 BLEU"]: "accuracy"})
    assert ground(text, mentions, labels).datasets == ["Quokka"]


def test_a_names_own_description_gives_its_type_over_the_models_label() -> None:
    text = ("We present Wisp, a tuner for speech models. We also release Quokka, a benchmark of 900 spoken questions, "
            "and evaluate on two new suites, Marlow and Tibbet. Wisp lifts Heron-9B by 4 points on Quokka.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Quokka"]: "model", L["Marlow"]: "model",
                                            L["Tibbet"]: "none", L["Heron-9B"]: "model"},
                            c={M["900 spoken questions"]: "scale", M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Heron-9B"]  # "Wisp, a tuner": no model
    assert result.datasets == ["Quokka", "Marlow", "Tibbet"]


def test_a_spelled_out_expansion_or_a_family_of_models_types_the_name() -> None:
    text = "We build a family of language models named Tolu. Tolu (Tiny Open Language Model) gains 4 points."
    marks = marks_by_text(text)
    assert described(parse_text(text), marks["Tolu"]).value == "model"
    assert system_type_of(text, "Tolu").value == "model"


def test_plain_capitalised_words_are_no_dataset_on_the_models_word_alone() -> None:
    text = ("We present Wisp, a tutor. Wisp answers 71% of questions in Music, Law and Cooking, "
            "and 64% on Quill-QA and on Harbor Trace.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Music"]: "dataset", L["Law"]: "dataset", L["Cooking"]: "dataset",
                                            L["Quill-QA"]: "dataset", L["Harbor Trace"]: "dataset"},
                            c={M["71%"]: "accuracy", M["64%"]: "accuracy"})
    # "Harbor Trace" stands right after "64% on ... and on": measured on, so a dataset
    assert ground(text, mentions, labels).datasets == ["Quill-QA", "Harbor Trace"]


def test_a_term_spelled_out_in_plain_capitalised_words_is_no_dataset_on_the_models_word_alone() -> None:
    text = ("We present Wisp, a store for the Metro Area Network (MAN) and Low-Latency Sequencing. "
            "Wisp answers 71% of queries on Quill-QA.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Metro Area Network (MAN)"]: "dataset", L["Low-Latency Sequencing"]: "dataset",
                                            L["Quill-QA"]: "dataset"}, c={M["71%"]: "accuracy"})
    assert ground(text, mentions, labels).datasets == ["Quill-QA"]


def test_an_acronym_is_what_the_text_says_its_long_name_is() -> None:
    text = ("We develop a simple algorithm, Quiet Action Tokens (QAT), for robots. "
            "QAT lifts success by 40% over Heron-9B.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Quiet Action Tokens (QAT)"], e={L["QAT"]: "model", L["Heron-9B"]: "model"},
                            c={M["40%"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == ["Heron-9B"] and result.claims[0].model is None


def test_an_acronym_is_what_the_head_noun_of_its_long_name_says() -> None:
    text = ("We release Quill-Data, a dataset of 1600 annotated traces. We build the first Quill Agent Failure Taxonomy (QFT). "
            "We study QFT and Quill-Data on 150 traces.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Quill-Data"], e={L["Quill-Data"]: "dataset", L["QFT"]: "dataset"},
                            c={M["1600 annotated traces"]: "scale", M["150 traces"]: "scale"})
    assert ground(text, mentions, labels).datasets == ["Quill-Data"]


def test_a_plural_or_a_kind_of_field_model_is_no_model() -> None:
    text = "We present Wisp, a speech model. Wisp beats LSTMs, Recurrers and a user-VLM by 4 points, and Heron-9B by 2 points."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "model" for k in L}, c={M["4 points"]: "improvement", M["2 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["Wisp", "Heron-9B"]


def test_names_listed_after_a_plural_noun_are_of_its_kind() -> None:
    text = ("We present Wisp, a speech model. Wisp beats other decoding methods, including Tern and Kite, by 4 points, "
            "and serving engines like Quokka by 2x.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Tern"]: "dataset", L["Kite"]: "dataset",
                                            L["Quokka"]: "model"},
                            c={M["4 points"]: "improvement", M["2x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.datasets == [] and result.models == ["Wisp"]


def test_a_hyphenated_gerund_names_a_method() -> None:
    text = "We present Wisp, a speech model. Trained with Z-learning and Size-controlling, Wisp reaches 91.2% on Quill."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Z-learning"]: "dataset",
                                            L["Size-controlling"]: "model", L["Quill"]: "dataset"},
                            c={M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["Quill"] and result.models == ["Wisp"]


def test_a_hardware_label_without_a_device_word_gets_no_vote_in_a_list() -> None:
    text = "We present Wisp. Wisp beats Zorblat and Quenta by 4 points on the BirdCall benchmark."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Zorblat"]: "model", L["Quenta"]: "hardware"},
                            c={M["4 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["Zorblat", "Quenta"]


def test_a_name_before_nets_or_networks_is_a_model() -> None:
    text = "We present Wisp, a tuner. Wisp trains nets 8x deeper than Kestrel nets and reaches 3.6% error on Quill."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Kestrel"]: "dataset", L["Quill"]: "dataset"},
                            c={M["8x"]: "scale", M["3.6%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.models == ["Kestrel"] and result.datasets == ["Quill"]


def test_a_coined_one_word_name_the_model_calls_a_dataset_is_one_unless_a_model_variant() -> None:
    text = ("We present Wisp. Our best Kestrel agent solves 14.4% of the tasks, and Kestrel-D7 solves 20%. "
            "QuillArena can measure such progress.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["QuillArena"]: "dataset", L["Kestrel"]: "model", L["Kestrel-D7"]: "dataset"},
                            c={M["14.4%"]: "accuracy", M["20%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["QuillArena"]
    text = "We present Wisp. Wisp solves 14.4% of the tasks. Quill-Hard can measure such progress."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Quill-Hard"]: "dataset"}, c={M["14.4%"]: "accuracy"})
    assert ground(text, mentions, labels).datasets == []  # no capital inside a word: the words around must say it


def test_a_name_before_code_library_or_framework_is_software() -> None:
    text = "Our Kestrel code runs 4.3x faster than real time on Quill, and the Wren framework reaches 91% on Tern."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Kestrel"]: "dataset", L["Wren"]: "model", L["Quill"]: "dataset",
                               L["Tern"]: "dataset"}, c={M["4.3x"]: "speedup", M["91%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.datasets == ["Quill", "Tern"] and result.models == []
    assert described(parse_text(text), marks_by_text(text)["Kestrel"]) == NameCode.none


def test_a_singular_name_ending_in_s_and_a_versioned_device_before_a_noun_are_kept() -> None:
    text = "We present Wisp, a speech model. Wisp beats Atlas by 4 points and trains 2x faster on Zeta-v9 pods."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Atlas"]: "model", L["Zeta-v9"]: "hardware"},
                            c={M["4 points"]: "improvement", M["2x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.models == ["Wisp", "Atlas"]


def test_pointers_number_formats_and_cited_authors_are_no_names() -> None:
    text = ("Frameworks for it (Tarrow and Finch, 2004) are slow. Kestrel-2 runs 3x faster in FP16 than "
            "the INT8 baseline on BirdSet (see Sec 4.2), and Tarrow-XL reaches 91.2%.")
    mentions, L, M = setup(text)
    assert {"Tarrow", "FP16", "INT8", "Sec 4.2"} <= set(L)
    labels = DocumentLabels(e={L[k]: "model" for k in L if k != "BirdSet"} | {L["BirdSet"]: "dataset"},
                            c={M["3x"]: "speedup", M["91.2%"]: "accuracy"})
    result = ground(text, mentions, labels)
    assert result.models == ["Kestrel-2", "Tarrow-XL"] and result.datasets == ["BirdSet"]


def test_an_optimizer_is_no_model_whatever_the_model_says() -> None:
    text = "We present Wisp, which trains Quokka-7B with minibatch SGD 2.1x faster than with AdamW."
    mentions = find_quantities(text)
    marks = {m.text: m.letter for m in marked(text, mentions).names}
    labels = DocumentLabels(e={letter: "model" for letter in marks.values()}, c={"1": "speedup"})
    models = ground(text, mentions, labels).models
    assert "Quokka-7B" in models and not {"SGD", "minibatch SGD", "AdamW"} & set(models)


def test_the_models_word_alone_makes_no_dataset_the_words_around_a_name_must_say_it_is_data() -> None:
    text = ("We present Wisp. Wisp outperforms Kestrel-2 by 4 points on the Harbor benchmark, "
            "and reaches 81% accuracy on Finch-3, Robin-QA and QuailSet.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Kestrel-2"]: "dataset", L["Harbor benchmark"]: "dataset", L["Finch-3"]: "dataset",
                               L["Robin-QA"]: "dataset", L["QuailSet"]: "dataset"},
                            c={M["4 points"]: "improvement", M["81%"]: "accuracy"})
    # Kestrel-2 is compared with, nothing says it is data; Finch-3 stands after "on" and the names
    # listed with it are data too
    assert ground(text, mentions, labels).datasets == ["Harbor benchmark", "Finch-3", "Robin-QA", "QuailSet"]


def test_a_dataset_is_named_by_the_measure_taken_on_it() -> None:
    text = "We present Wisp. Wisp lifts the Tern-QA F1 to 71.0 and the Gull-9 accuracy to 88%."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Tern-QA"]: "dataset", L["Gull-9"]: "dataset"}, c={"1": "accuracy", "2": "accuracy"})
    assert ground(text, mentions, labels).datasets == ["Tern-QA", "Gull-9"]


def test_names_set_against_each_other_with_vs_are_of_one_type() -> None:
    text = "We present Wisp, which tells apart datasets (e.g., Finch-A vs. Finch-B), and gains 3 points."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Finch-A"]: "dataset", L["Finch-B"]: "model"}, c={M["3 points"]: "improvement"})
    assert ground(text, mentions, labels).datasets == ["Finch-A", "Finch-B"]


def test_a_term_spelled_out_in_plain_capitalised_words_is_no_model_on_the_models_word_alone() -> None:
    text = ("We present Wisp, built on Maximum Inner Product Search (MIPS) and Sparsely-Gated Mixture-of-Experts, "
            "which beats Heron-9B and Gorilla by 4 points.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Maximum Inner Product Search (MIPS)"]: "model", L["Sparsely-Gated Mixture-of-Experts"]: "model",
                               L["Heron-9B"]: "model", L["Gorilla"]: "model"}, c={M["4 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["Heron-9B", "Gorilla"]


def test_software_and_abbreviations_of_a_field_are_no_models_or_datasets() -> None:
    text = "We present Wisp, written in Py Torch with MPI+OpenMP; a GAN baseline on TensorFlow is 4 points worse."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Py Torch"]: "model", L["MPI+OpenMP"]: "model", L["GAN"]: "model",
                               L["TensorFlow"]: "dataset"}, c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.models == [] and result.datasets == []


def test_languages_and_data_formats_are_no_datasets() -> None:
    text = "We present Wisp, whose queries in T-SQL and outputs in JSON run 4x faster on the Kestrel benchmark."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["T-SQL"]: "dataset", L["JSON"]: "dataset", L["Kestrel benchmark"]: "dataset"},
                            c={M["4x"]: "speedup"})
    assert ground(text, mentions, labels).datasets == ["Kestrel benchmark"]


def test_a_document_the_model_did_not_read_lists_data_the_words_say_is_data_and_known_models() -> None:
    text = ("Wisp is tested on Atari, OpenGym-X and Key-to-Door tasks, and on the Cora, "
            "Citeseer and Pubmed citation datasets, beside BERT and PyTorch.")
    result = ground(text, [], DocumentLabels())
    assert result.datasets == ["Atari", "OpenGym-X", "Key-to-Door", "Cora", "Citeseer", "Pubmed datasets"]  # describing words left off
    assert result.models == ["BERT"]  # a known model family; software is no model


def test_a_name_in_parentheses_after_a_task_or_a_data_class_is_data() -> None:
    text = ("We present Wisp. On question answering (QuailQA) and two benchmarks (FinchWorld and RobinShop), "
            "Wisp gains 4 points.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["QuailQA"]: "dataset", L["FinchWorld"]: "dataset", L["RobinShop"]: "dataset"},
                            c={M["4 points"]: "improvement"})
    assert ground(text, mentions, labels).datasets == ["QuailQA", "FinchWorld", "RobinShop"]


def test_a_model_named_in_a_modifier_is_listed_by_its_own_name() -> None:
    from paper_claims.parse.name_words import base_name

    assert base_name("BERT-based") == "BERT" and base_name("GPT-4-powered") == "GPT-4"
    assert base_name("Heron-9B") == "Heron-9B"
    text = "We present Wisp, which beats BERT-based retrievers and BERT by 4 points."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["BERT-based"]: "model", L["BERT"]: "model"}, c={M["4 points"]: "improvement"})
    assert ground(text, mentions, labels).models == ["BERT"]


def test_metric_names_protocols_and_interconnects_are_no_datasets_or_models() -> None:
    text = "We present Wisp over InfiniBand and gRPC, which gains 4 points of box AP and 2 points of mIoU."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["InfiniBand"]: "dataset", L["gRPC"]: "model", L["AP"]: "dataset",
                               L["mIoU"]: "dataset"}, c={M["4 points"]: "improvement", M["2 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert result.datasets == [] and result.models == []


def test_evaluative_words_before_a_device_word_name_no_device() -> None:
    from paper_claims.parse.name_words import generic_phrase

    for phrase in ("newest GPUs", "common robot", "contemporary robot", "underlying hardware", "energy-hungry accelerators"):
        assert generic_phrase(phrase), phrase
    assert not generic_phrase("low-power embedded CPUs") and not generic_phrase("Zeta TPU pods")


def test_a_unit_of_computation_is_no_model_or_dataset() -> None:
    from paper_claims.rules.names import operation

    text = ("We present Wren, a kernel library. Wren speeds up W8A8 GEMM by 2.1x on Z900 GPUs and needs "
            "0.02 DRAM access/MAC for Heron-9B.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wren"], e={L[k]: "model" for k in L if k not in ("Wren", "Z900 GPUs")},
                            c={M["2.1x"]: "speedup", M["0.02 DRAM"]: "efficiency"})
    result = ground(text, mentions, labels)
    assert result.models == ["Heron-9B"]
    assert operation("GEMMs") and operation("FLOPs") and not operation("MACE")


def test_an_acronym_of_a_term_or_method_is_no_model() -> None:
    from paper_claims.rules.names import spelled_out

    text = ("We present Wisp, which uses chain-of-thought (CoT) prompting and Sparse Gradient Folding (SGF). "
            "With CoT and SGF, Wisp beats the Quill Vision Network (QVN) and QVN-2 by 4 points.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "model" for k in L if k != "Wisp"}, c={M["4 points"]: "improvement"})
    models = ground(text, mentions, labels).models
    assert "CoT" not in models and "SGF" not in models
    assert any("QVN" in m for m in models)  # a network: a model
    marks = marks_by_text(text)
    assert spelled_out(parse_text(text), marks["CoT"]) == "chain-of-thought"


def test_an_acronym_of_models_is_no_dataset_on_the_models_word_alone() -> None:
    text = ("Quill vision models (QVMs) serve many users. We present Wisp, for the training of large QVMs; "
            "Wisp trains QVM models of QVM data 3x faster on the BirdCall benchmark.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["QVMs"]: "dataset", L["QVM"]: "dataset",
                                            L["BirdCall benchmark"]: "dataset"}, c={M["3x"]: "speedup"})
    assert ground(text, mentions, labels).datasets == ["BirdCall benchmark"]


def test_software_or_a_vendor_a_number_is_measured_on_is_no_dataset() -> None:
    text = "We present Wisp. Wisp cuts latency by 30% on Linux and gets a 2x speedup on both Zorblat and Quark GPUs."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Zorblat"]: "hardware", L["Quark GPUs"]: "hardware"},
                            c={M["30%"]: "speedup", M["2x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert result.datasets == [] and result.hardware == ["Quark GPUs"]


def test_a_variant_of_a_model_the_text_names_is_a_model() -> None:
    text = ("We present Wisp, a family of language models. Our Wisp-XL gains 4 points on the BirdCall benchmark "
            "over Heron-9B.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", L["Wisp-XL"]: "dataset", L["Heron-9B"]: "model"},
                            c={M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert "Wisp-XL" in result.models and "Wisp-XL" not in result.datasets


def test_an_attention_mechanism_is_no_model() -> None:
    text = ("We present Wisp, a 9B language model with Sparse Ring Attention (SRA) and BlurAttention. "
            "Wisp beats Heron-9B by 4 points, and SRA halves memory.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "model" for k in L}, c={M["4 points"]: "improvement"})
    models = ground(text, mentions, labels).models
    assert "Heron-9B" in models and not any("Attention" in m or m == "SRA" for m in models)


def test_section_labels_of_a_structured_abstract_are_no_names() -> None:
    text = ("MOTIVATION: Aligning reads is slow. RESULTS: We present Heron, which aligns 3x faster than "
            "Kestrel on the Quill set. AVAILABILITY AND IMPLEMENTATION: Heron runs on any CPU. "
            "We compare against the RESULTS model.")
    mentions, L, M = setup(text)
    assert {"MOTIVATION", "IMPLEMENTATION"} <= set(L)
    labels = DocumentLabels(s=L["Heron"], e={L["MOTIVATION"]: "dataset", L["IMPLEMENTATION"]: "model",
                                             L["Quill"]: "dataset"} | ({L["AVAILABILITY"]: "dataset"} if "AVAILABILITY" in L else {}),
                            c={M["3x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert "IMPLEMENTATION" not in result.models and "MOTIVATION" not in result.datasets
    assert "AVAILABILITY" not in result.datasets and "Quill" in result.datasets


def test_a_name_after_gains_over_is_compared_against_not_data() -> None:
    text = ("We present Heron 2. Tested on the Quill benchmark, Heron 2 shows large improvements over "
            "Kestrel-1 and runs with a speedup over Tarrow-XL.")
    result = ground(text, [], DocumentLabels())
    assert result.datasets == ["Quill benchmark"]
    text = "Heron reaches 91.2% on Quill, with large gains over Kestrel-1."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Quill"]: "dataset", L["Kestrel-1"]: "dataset"}, c={M["91.2%"]: "accuracy"})
    assert ground(text, mentions, labels).datasets == ["Quill"]


def test_an_acronym_of_a_field_of_work_is_no_dataset_on_the_models_word_alone() -> None:
    text = ("Federated learning (FL) and semi-supervised federated learning (SSFL) leak labels. We present Wisp; "
            "in FL and SSFL, Wisp gains 3 points on the Mostly Quill Python Programming (MQPP) benchmark and on BirdCall.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "dataset" for k in L if k != "Wisp"}, c={M["3 points"]: "improvement"})
    datasets = ground(text, mentions, labels).datasets
    assert "FL" not in datasets and "SSFL" not in datasets
    assert "BirdCall" in datasets and any("MQPP" in d for d in datasets)  # a programming benchmark stays data
