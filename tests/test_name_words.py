"""paper_claims.parse.name_words: what class words and general knowledge settle about a candidate name."""

from __future__ import annotations

import pytest

from paper_claims.parse.name_words import class_code, is_cloud_provider, known_hardware, merge_names
from paper_claims.schemas import NameCode


@pytest.mark.parametrize("name", [
    "8 A100 GPUs", "H100", "TPU v4", "2048 TPU v5p chips", "multicore CPUs", "low-power FPGAs",
    "graphics processors (GPUs)", "a quadruped robot", "custom accelerators", "ARM microcontrollers",
])
def test_hardware_by_class_word_or_known_family(name: str) -> None:
    assert known_hardware(name)
    assert class_code(name) == NameCode.hardware


@pytest.mark.parametrize("name", ["BirdCall benchmark", "the Quill corpus", "three new datasets", "Tern Arena",
                                  "the Kite leaderboard", "Heron Suite", "the Quill Control Environment"])
def test_datasets_by_class_word(name: str) -> None:
    assert class_code(name) == NameCode.dataset


@pytest.mark.parametrize("name", ["VGG-19", "Tacotron 3", "DeepSpeech 4", "DeepLabv4", "AlexNet", "LSTM", "GRU"])
def test_a_vision_or_audio_family_makes_a_model_for_the_rules_only(name: str) -> None:
    from paper_claims.parse.families import model_family

    assert class_code(name) == NameCode.model
    assert not model_family(name)  # the candidates read the transformers families alone: the request stays


@pytest.mark.parametrize("name", ["YOLOv9", "YOLO12 Nano", "EfficientDet-D3", "Xception-71", "NASNetMobile"])
def test_a_family_of_other_model_zoos_makes_a_model_for_the_rules_only(name: str) -> None:
    from paper_claims.parse.families import model_family

    assert class_code(name) == NameCode.model
    assert not model_family(name)  # read by the rules only: the request stays


@pytest.mark.parametrize("name", ["SSD", "Inception Score", "Raft", "Wide Area Network", "OpenAI Gym"])
def test_ambiguous_torch_builders_make_no_model(name: str) -> None:
    assert class_code(name) != NameCode.model


@pytest.mark.parametrize("name", ["Corvid", "DenseMix-XL", "Heron", "SRAM", "AWS", "Google Cloud", "Azure"])
def test_names_the_words_do_not_settle(name: str) -> None:
    assert class_code(name) is None


def test_a_cloud_provider_is_not_hardware() -> None:
    assert is_cloud_provider("AWS") and is_cloud_provider("Microsoft Azure") and is_cloud_provider("Google Cloud")
    assert not known_hardware("AWS")
    assert not is_cloud_provider("Cloud TPU v3 pods") and known_hardware("Cloud TPU v3 pods")


def test_merge_names_drops_repeats_and_names_inside_longer_ones() -> None:
    assert merge_names(["Quill"], ["Quill corpus (QC)"]) == ["Quill corpus (QC)"]
    assert merge_names(["H100 GPU", "8 H100 GPU"]) == ["8 H100 GPU"]
    assert merge_names(["Heron", "heron", "Corvid"]) == ["Heron", "Corvid"]
    # two spellings of one name (hyphens, spaces, case): the first stays
    assert merge_names(["Tern-bot Arena", "Corvid", "Ternbot Arena", "Kite 2", "Kite-2"]) == ["Tern-bot Arena", "Corvid", "Kite 2"]
    # a version after a name makes another name: "Heron" is not part of "Heron 2"
    assert merge_names(["Heron 2", "Heron", "Kite v3", "Kite"]) == ["Heron 2", "Heron", "Kite v3", "Kite"]
    # another word makes another name; counts, class words, parts and acronyms do not
    assert merge_names(["Quill-Bench Hard (QBH)", "Quill-Bench", "Kite Ultra", "Kite"]) == \
        ["Quill-Bench Hard (QBH)", "Quill-Bench", "Kite Ultra", "Kite"]
    assert merge_names(["Quill test set", "Quill", "Tern Arena (TA)", "TA", "tiny IoT devices", "IoT devices"]) == \
        ["Quill test set", "Tern Arena (TA)", "tiny IoT devices"]
    assert merge_names(["static Quill datasets", "Quill", "Quill object detection dataset"]) == \
        ["static Quill datasets", "Quill object detection dataset"]
    assert merge_names() == [] and merge_names([], []) == []


def test_merge_names_keeps_names_that_only_share_a_prefix() -> None:
    assert merge_names(["Bird-10", "Bird-100"]) == ["Bird-10", "Bird-100"]
    assert merge_names(["Heron-7B", "Heron-7Bx"]) == ["Heron-7B", "Heron-7Bx"]


def test_memory_parts_are_not_hardware() -> None:
    from paper_claims.parse.name_words import is_memory

    for name in ("SRAM", "HBM", "HBM3e", "GDDR6", "on-chip SRAM", "Flash"):
        assert is_memory(name) and not known_hardware(name)
    assert not is_memory("A100")


def test_a_hardware_name_has_a_device_word_or_a_known_family() -> None:
    from paper_claims.parse.name_words import looks_like_hardware

    for name in ("8 H100 GPUs", "a quadruped robot", "edge devices", "Pixel-9 phone", "TPU v5p pod", "commodity hardware"):
        assert looks_like_hardware(name), name
    for name in ("Heron-9B", "BirdCall", "HBM", "Corvid", "Cloud Robotics"):  # robotics is a field, not a robot
        assert not looks_like_hardware(name), name
    assert looks_like_hardware("robotic arms") and class_code("Mist Robotics") is None


def test_a_parameter_count_in_billions_makes_a_model() -> None:
    assert class_code("Heron-9B") == NameCode.model
    assert class_code("Kestrel 70b") == NameCode.model and class_code("Mix 8x7B") == NameCode.model
    assert class_code("ChatLog-1M") is None  # millions: often a dataset's size


@pytest.mark.parametrize("name", ["Llama-9-300b", "Qwen7.5-Coder", "GPT-11o", "BERT_HUGE", "whisper-tiny.en",
                                  "MobileNetV9", "T5-derived"])
def test_a_known_model_family_makes_a_model(name: str) -> None:
    from paper_claims.parse.families import model_family

    assert model_family(name)
    assert class_code(name) == NameCode.model


@pytest.mark.parametrize("name", ["Corvid", "DenseMix-XL", "Transformer", "BirdCall", "Tx-4", "ImageNet-Q"])
def test_other_names_are_no_known_family(name: str) -> None:
    from paper_claims.parse.families import model_family

    assert not model_family(name)


def test_counting_words_before_a_device_word_name_nothing() -> None:
    from paper_claims.parse.name_words import generic_phrase

    for name in ("single accelerator", "multiple devices", "8 separate GPUs", "the same hardware", "parallel devices",
                 "whole chip"):
        assert generic_phrase(name), name
    for name in ("GPU", "low-power microcontrollers", "Pixel 9 phone", "8 H100 GPUs", "edge devices"):
        assert not generic_phrase(name), name


def test_a_factor_in_front_is_a_saving_not_a_device() -> None:
    from paper_claims.parse.name_words import looks_like_hardware

    assert not looks_like_hardware("2-3x less CPU") and not looks_like_hardware("5x fewer GPUs")
    assert looks_like_hardware("4x H100") and looks_like_hardware("8 Z900 GPUs")


def test_generic_or_field_words_before_a_data_word_name_nothing() -> None:
    from paper_claims.parse.name_words import generic_phrase

    assert generic_phrase("the entire test set") and generic_phrase("the same dataset") and generic_phrase("NLP datasets")
    assert not generic_phrase("BirdCall dataset") and not generic_phrase("noisy street dataset")


def test_abbreviations_of_the_field_are_general_words() -> None:
    from paper_claims.parse.name_words import field_word

    assert field_word("LMMs") and field_word("LLM-as-a-Judge") and field_word("GNN-based")
    assert field_word("DL") and field_word("DL-based")  # deep learning
    assert not field_word("MAST") and not field_word("Llama") and not field_word("Masked")


@pytest.mark.parametrize("name", ["tiny IoT devices", "a Pixel 9 phone", "edge servers", "commodity hardware"])
def test_a_name_ending_in_a_device_word_is_hardware(name: str) -> None:
    assert class_code(name) == NameCode.hardware


def test_describing_words_before_a_written_dataset_name_are_left_off() -> None:
    from paper_claims.parse.name_words import data_name

    assert data_name("knowledge-heavy QuizSet benchmark") == "QuizSet benchmark"
    assert data_name("existing static Heron datasets") == "Heron datasets"
    assert data_name("human genome") == "human genome"  # no written word after them: the name as written
    assert data_name("semantic relatedness (SR)") == "semantic relatedness (SR)"


def test_describing_words_between_a_one_word_name_and_its_class_word_are_left_off() -> None:
    from paper_claims.parse.name_words import data_name

    assert data_name("QuizSet multi-hop QA benchmark") == "QuizSet benchmark"
    assert data_name("Heron citation graph datasets") == "Heron datasets"
    assert data_name("Heron Bird Call dataset") == "Heron Bird Call dataset"  # written words: all of the name
    assert data_name("Quill 2014 translation task") == "Quill 2014 translation task"  # not a data class word


def test_a_field_word_and_a_class_word_after_describing_words_name_nothing() -> None:
    from paper_claims.parse.name_words import generic_phrase

    assert generic_phrase("open-domain QA benchmarks") and generic_phrase("many NLP datasets")
    assert not generic_phrase("knowledge-heavy QuizSet benchmark")


def test_an_acronym_with_its_class_word_is_its_long_name() -> None:
    assert merge_names(["Broad Quiz Suite (BQS)", "BQS benchmark"]) == ["Broad Quiz Suite (BQS)"]
    assert merge_names(["Broad Quiz Suite (BQS)", "BQS-Hard benchmark"]) == ["Broad Quiz Suite (BQS)", "BQS-Hard benchmark"]


def test_a_bare_device_class_beside_a_named_device_of_that_class_is_listed_once() -> None:
    assert merge_names(["GPU", "8 Z900 GPUs"]) == ["8 Z900 GPUs"]
    assert merge_names(["CPUs", "Quark Q9 CPU"]) == ["Quark Q9 CPU"]
    assert merge_names(["GPUs", "block-sparse GPU"]) == ["GPUs", "block-sparse GPU"]  # no device named


def test_evaluative_words_before_a_class_word_name_nothing() -> None:
    from paper_claims.parse.name_words import generic_phrase

    assert generic_phrase("state-of-the-art robot") and generic_phrase("new accelerator")
    assert not generic_phrase("recent GPU") and not generic_phrase("Zeta robot")
