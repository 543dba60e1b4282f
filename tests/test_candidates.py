"""paper_claims.parse.candidates: name spans found by generic text patterns (invented sentences)."""

from __future__ import annotations

import pytest

from paper_claims.parse.candidates import find_candidates
from paper_claims.parse.quantities import find_quantities


def texts(text: str, with_mentions: bool = True) -> list[str]:
    avoid = [(m.start, m.end) for m in find_quantities(text)] if with_mentions else []
    return [c.text for c in find_candidates(text, avoid)]


@pytest.mark.parametrize("sentence, expected", [
    ("It is evaluated on BirdSet-2 and on QuillQA.", ["BirdSet-2", "QuillQA"]),  # inner capitals, digits
    ("We fine-tune Heron-9b and Kestrel 2 with it.", ["Heron-9b", "Kestrel 2"]),  # versions
    ("Results on the Harbor Ridge suite improve.", ["Harbor Ridge suite"]),  # Title Case run with a class word
    ("We build the Sparrow Vision Set (SVS) for it.", ["Sparrow Vision Set (SVS)"]),  # acronym in parentheses
    ("It runs on a mobile robot arm and edge devices.", ["mobile robot", "edge devices"]),
    ("Tests used the noisy street dataset only.", ["noisy street dataset"]),
])
def test_generic_patterns(sentence: str, expected: list[str]) -> None:
    assert texts(sentence) == expected


def test_hardware_phrase_keeps_its_count_and_may_hold_the_count_mention() -> None:
    sentence = "Training uses 16 Z900 GPUs and two custom FPGA accelerators."
    assert [m.text for m in find_quantities(sentence)] == ["16 Z900 GPUs", "two custom FPGA accelerators"]
    assert texts(sentence) == ["16 Z900 GPUs", "two custom FPGA accelerators"]


def test_comparison_phrases_are_candidates_for_baselines() -> None:
    assert texts("It is 3x faster than standard attention kernels on long inputs.") == [
        "standard attention kernels"]
    assert texts("Accuracy rises 4 points compared to greedy decoding, while cost falls.") == ["greedy decoding"]


def test_ordinary_words_numbers_and_urls_are_not_candidates() -> None:
    assert texts("The method is simple. However, it works well in practice.") == []
    assert texts("We reach 4.8x and 12% with 128-layer stacks.") == []
    assert texts("Code is at https://github.com/SomeOrg/SomeRepo today.") == []
    assert texts("We study LLMs and GPU memory with AI.") == ["GPU"]  # field words are not names


def test_a_sentence_initial_name_is_found_when_it_also_stands_elsewhere() -> None:
    text = "We propose Wren for parsing. Wren beats Finch by 4 points."
    found = find_candidates(text, [(m.start, m.end) for m in find_quantities(text)])
    assert [(c.text, text[c.start:c.end]) for c in found] == [("Wren", "Wren"), ("Wren", "Wren"), ("Finch", "Finch")]
    assert found[0].key == found[1].key == "wren"


def test_candidates_never_start_inside_a_number_mention() -> None:
    text = "It needs 40% less memory than Corvid-XL on 4 nodes."
    mentions = [(m.start, m.end) for m in find_quantities(text)]
    for c in find_candidates(text, mentions):
        assert not any(a < c.start < b for a, b in mentions)
        assert text[c.start:c.end] == c.text


def test_comparison_only_phrases_are_flagged_and_possessives_dropped() -> None:
    text = "With Wren's cache it is 3x faster than naive paging on Z900 GPUs."
    found = find_candidates(text, [(m.start, m.end) for m in find_quantities(text)])
    assert [(c.text, c.compared) for c in found] == [("Wren", False), ("naive paging", True), ("Z900 GPUs", False)]


def test_generic_hyphenated_phrases_are_not_names() -> None:
    assert texts("State-of-the-art systems use off-the-shelf parts.") == []


def test_a_spelled_out_term_of_the_field_is_no_name() -> None:
    from paper_claims.parse.candidates import field_term

    assert field_term("Large Language Models (LLMs)") and field_term("Deep Neural Networks (DNNs)")
    assert not field_term("Wide Sparse Parser (WSP)") and not field_term("Corvid")


def test_modifiers_pronouns_and_cited_authors_are_no_names() -> None:
    from paper_claims.parse.candidates import not_a_name

    text = "An IO-aware, TTL-based cache. She cites Okonkwo et al. and a T5-based model; Large-batch runs of Wisp-2."
    def check(word: str) -> bool:
        start = text.index(word)
        return not_a_name(text, start, start + len(word))
    assert check("IO-aware") and check("TTL-based") and check("She") and check("Okonkwo") and check("Large-batch")
    assert not check("T5-based") and not check("Wisp-2")


@pytest.mark.parametrize("sentence, expected", [
    # a spelled-out name may hold small joining words
    ("We present Mixture of Gliders (MoG) for routing.", ["Mixture of Gliders (MoG)"]),
    # a comparing verb names the baseline phrase; a name inside it stays the name
    ("Wisp outperforms the best prior tuners by 4%.", ["best prior tuners"]),
    ("Wisp surpasses powerful Heron-7B on BirdSet.", ["Heron-7B", "BirdSet"]),
    # a model number after its series belongs to the device
    ("It answers on 2 ZX 4090 GPUs.", ["2 ZX 4090 GPUs"]),
    # modifiers and terms of the field are no names
    ("An IO-aware kernel helps Large Language Models (LLMs) on Quill.", ["Quill"]),
    # a dash pair sets a name apart like a space
    ("Here we evolve a classifier---Kestrel-B---that beats hand designs.", ["Kestrel-B", "hand designs"]),
    # "including", "like" introduce the names, they do not describe them
    ("It runs on many devices, including multicore CPUs.", ["many devices", "multicore CPUs"]),
])
def test_more_generic_patterns(sentence: str, expected: list[str]) -> None:
    assert texts(sentence) == expected


@pytest.mark.parametrize("sentence, expected", [
    # a name, a year or another name, and "task": the benchmark task as written
    ("It scores 31.0 on the QRT 2019 Wren-to-Finch summary task today.", ["QRT 2019 Wren-to-Finch summary task"]),
    # a challenge or a competition is named by its words, and may carry its year
    ("We won the Kestrel cell counting challenge 2021 by a margin.", ["Kestrel cell counting challenge 2021"]),
    ("It ranks first on the Heron challenge for parsing.", ["Heron challenge"]),
    # a task of plain words only describes the named benchmark
    ("On the BirdSet v2 question answering task, it reaches 90.0.", ["BirdSet v2"]),
    # a verb or a function word between the name and the class word makes no task name
    ("We find that Wren enables emergent task transfer.", ["Wren"]),
    ("It helps Wren on an English to Finch translation task.", ["Wren", "English", "Finch"]),
])
def test_named_benchmark_tasks(sentence: str, expected: list[str]) -> None:
    assert texts(sentence) == expected


@pytest.mark.parametrize("sentence, expected", [
    # a name stays inside its sentence and starts at a word: not "quickly. Z900 GPUs", "O devices", "s Zeta pods"
    ("It converges quickly. Z900 GPUs then serve it.", ["Z900 GPUs"]),
    ("It bypasses the kernel for I/O devices.", []),
    ("It scales to Zeta’s fast GPUs.", ["Zeta", "fast GPUs"]),
    # a year and its comma are no count: not "2021, Zeta chips"
    ("In 2021, Zeta chips were new.", ["Zeta chips"]),
    ("It trains on 1,024 Zeta chips.", ["1,024 Zeta chips"]),
    # a verb of use leads no name
    ("We run it using Zeta GPUs and deploy modern robots.", ["Zeta GPUs", "modern robots"]),
])
def test_names_stay_inside_a_sentence_and_start_at_no_year_or_verb(sentence: str, expected: list[str]) -> None:
    assert texts(sentence) == expected


def test_a_year_after_a_name_belongs_to_it() -> None:
    assert texts("It reaches 71.0% mAP on QUAIL VOC 2012 and Finch-X.") == ["QUAIL VOC 2012", "Finch-X"]


def test_the_devices_a_class_of_devices_is_given_as_examples_are_candidates() -> None:
    text = "It ranges from handheld devices such as phones and tablets up to servers with eight GPUs."
    assert {"phones", "tablets"} <= set(texts(text))
    text = "Learning on small sensor devices (e.g., a microcontroller with 2 MB of memory) is hard."
    assert "microcontroller" in texts(text)
    # an item that is no device by its own words is none ("enables them"), nor one with a verb form
    text = "Dedicated hardware, such as the Kestrel FPGA or custom designed ASICs, enables them to run."
    found = texts(text)
    assert "enables them" not in found and "custom designed ASICs" not in found


def test_a_capital_after_an_enumeration_marker_or_a_lost_space_is_read_as_a_start() -> None:
    # "(2) Aligned with ...": an enumerated clause's first word, like a sentence's, is no name
    assert texts("It has two merits: (1) Faster training on Wren-2. (2) Aligned outputs.") == ["Wren-2"]
    # "costs.Kestrel": the name after a full stop that lost its space is still found
    assert "Kestrel-7B" in texts("We cut the costs.Kestrel-7B is co-designed with it.")
