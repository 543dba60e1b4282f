"""paper_claims.rules.selection: the guideline rules that rule a mention out before the model sees it.

The tables' snippets are copied from examples/abstracts (the dev set ids are given where they
belong to eval/gold/dev_inputs.jsonl); eval/gold/GUIDELINES.md "What is not a claim" says why.
The tests at the end use invented sentences for rules that must hold beyond the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import background_end, candidate_mentions, rule_out
from paper_claims.schemas import Mention

ROOT = Path(__file__).resolve().parent.parent
SETTING = "setting"
PARTS = "part"
LIST = "list"
SPEC = "hardware spec"


def _mention(text: str, evidence: str) -> Mention:
    found = [m for m in find_quantities(text) if m.text == evidence]
    assert found, f"the parser found no {evidence!r} in {text!r}"
    return found[0]


# (snippet, mention text, a word the reason must hold)
RULED_OUT = [
    # 001#14: the sampling temperature is an experimental condition
    ("Furthermore, we show that SimpleStrat achieves more resampling diversity at temperature T=0 "
     "than scaling temperature to T=1 on creative writing, an open-ended domain.", "T=0", SETTING),
    ("Furthermore, we show that SimpleStrat achieves more resampling diversity at temperature T=0 "
     "than scaling temperature to T=1 on creative writing, an open-ended domain.", "T=1", SETTING),
    # 001#13: a count of the design's advantages that opens an enumeration
    ("WorldModelBench offers two key advantages: (1) Against to nuanced world modeling violations: "
     "By incorporating instruction-following and physics-adherence dimensions", "two key advantages", PARTS),
    # 001#3: a count that announces the list of subsets
    ("Our dataset contains three subsets: VisionArena-Chat, 200k single and multi-turn conversations "
     "between a user and a VLM; VisionArena-Battle, 30K conversations", "three subsets", PARTS),
    # 001#11: a count of reasons, not a result
    ("Despite its prominence, there did not exist a standard benchmark to evaluate function calling "
     "abilities, due to two reasons – the challenging nature of evaluating when a function call is "
     "valid, and the challenge of acquiring diverse, real-world functions.", "two reasons", PARTS),
    # 001#15: a count of paradigms of prior work that opens a list
    ("Existing hallucination mitigation methods typically follow one of two paradigms: generation "
     "adjustment, which modifies decoding behavior to align text with visual inputs", "two paradigms", PARTS),
    # 004#10: "two different tasks ...: (i) ..., (ii) ..." only announces the list
    ("We demonstrate the advantages of GPipe by training large-scale neural networks on two different "
     "tasks with distinct network architectures: (i) Image Classification", "two different tasks", LIST),
    # 001: "three datasets: PASCAL VOC, COCO and LVIS" announces named items
    ("We revise the evaluation protocols by sampling multiple groups of training examples to obtain "
     "stable comparisons and build new benchmarks based on three datasets: PASCAL VOC, COCO and LVIS.",
     "three datasets", LIST),
    # 001: "namely" opens the list of methods
    ("We benchmark the proposed MVLPT using three representative prompt tuning methods, namely text "
     "prompt tuning, visual prompt tuning, and the unified vision-language prompt tuning.",
     "three representative prompt tuning methods", LIST),
    # 001: a count of the design's mechanisms
    ("We identify three mechanisms that can be used by AVs to safely leverage the cloud for accuracy "
     "enhancements", "three mechanisms", PARTS),
    # 001#2: the memory of the GPU is a hardware spec, not a result
    ("MoE-Lightning can achieve up to (10.3x) higher throughput than state-of-the-art offloading-enabled "
     "LLM inference systems for Mixtral 8x7B on a single T4 GPU (16GB).", "16GB", SPEC),
]


@pytest.mark.parametrize(("text", "evidence", "reason"), RULED_OUT, ids=[case[1] for case in RULED_OUT])
def test_rule_out_gives_the_guideline_reason(text: str, evidence: str, reason: str) -> None:
    why = rule_out(text, _mention(text, evidence))
    assert why is not None and reason in why


KEPT = [
    # 004#3: a count of evaluation tasks is a scale claim
    ("It consumes only 1/3 of the energy used to train GPT-3 and requires half of the computation flops "
     "for inference, while still achieving better overall zero-shot and one-shot performance across "
     "29 NLP tasks.", "29 NLP tasks"),
    # 001#1: a factor is a result even next to "compared to"
    ("Minerva reduces model update time by up to 89× compared to a full DFU, and up to 73× compared to "
     "a state-of-the-art embedded OS", "up to 89×"),
    ("Minerva reduces model update time by up to 89× compared to a full DFU, and up to 73× compared to "
     "a state-of-the-art embedded OS", "up to 73×"),
    # 001#3: digits are never a spelled-out part count, even before a list
    ("VisionArena spans 73K unique users, 45 VLMs, and 138 languages. Our dataset contains three subsets: "
     "VisionArena-Chat", "138 languages"),
    ("VisionArena spans 73K unique users, 45 VLMs, and 138 languages. Our dataset contains three subsets: "
     "VisionArena-Chat", "45 VLMs"),
    # 001#12: a Greek variable with a value is an agreement score, not a setting
    ("We develop MAST through rigorous analysis of 150 traces, guided closely by expert human annotators "
     "andvalidated by high inter-annotator agreement (κ = 0.88).", "κ = 0.88"),
    ("We introduce MAST-Data, a comprehensive dataset of 1600+ annotated traces collected across "
     "7 popular MAS frameworks.", "1600+ annotated traces"),
    # 001: a spelled-out small word that is a size, not a count of parts
    ("In this paper, we introduce LMSYS-Chat-1M, a large-scale dataset containing one million real-world "
     "conversations with 25 state-of-the-art LLMs.", "one million real-world conversations"),
    # 001: "five orders of magnitude" is a result, though spelled out
    ("Our evaluation shows that Helen can achieve up to five orders of magnitude of performance "
     "improvement when compared to training using an existing state-of-the-art secure multi-party "
     "computation framework.", "up to five orders of magnitude"),
    # 001#9: bits of memory per token is not a device's memory
    ("HashAttention reduces tokens used by up to $16\\times$ with minimal quality loss, requiring only "
     "32 bits of auxiliary memory per token.", "32 bits"),
    # 001#2: a number of GPUs next to GPU words is a count, not a memory spec
    ("MoE-Lightning also supports efficient batch inference for much larger MoEs (e.g., Mixtral 8x22B "
     "and DBRX) on multiple low-cost GPUs (e.g., 2--4 T4s).", "2--4 T4s"),
]


@pytest.mark.parametrize(("text", "evidence"), KEPT, ids=[case[1] for case in KEPT])
def test_rule_out_leaves_results_to_the_model(text: str, evidence: str) -> None:
    assert rule_out(text, _mention(text, evidence)) is None


def test_every_snippet_is_real_corpus_text() -> None:
    corpus = " ".join(" ".join(path.read_text(encoding="utf-8").split())
                      for path in sorted((ROOT / "examples" / "abstracts").glob("*.txt")))
    for text, *_ in RULED_OUT + KEPT:
        assert " ".join(text.split()) in corpus, text[:60]


def test_memory_without_a_device_nearby_is_not_a_spec() -> None:
    # constructed: the same "16GB" far from any device word is left to the model
    text = "The released corpus of captions takes 16GB once compressed with our tokenizer."
    assert rule_out(text, _mention(text, "16GB")) is None
    # and a device's memory stays a spec however it is written
    spec = "Mixtral 8x7B runs on a single T4 GPU (16GB)."
    assert rule_out(spec, _mention(spec, "16GB")) is not None


def test_candidate_mentions_keeps_the_rest_in_order() -> None:
    # 001#3, two sentences
    text = (
        "VisionArena spans 73K unique users, 45 VLMs, and 138 languages. Our dataset contains three "
        "subsets: VisionArena-Chat, 200k single and multi-turn conversations between a user and a VLM; "
        "VisionArena-Battle, 30K conversations comparing two anonymous VLMs with user preference votes"
    )
    mentions = find_quantities(text)
    kept = candidate_mentions(text, mentions)
    assert "three subsets" in [m.text for m in mentions]
    assert [m.text for m in kept] == [m.text for m in mentions if m.text != "three subsets"]
    assert all(k in mentions for k in kept)
    assert [m.start for m in kept] == sorted(m.start for m in kept)
    assert candidate_mentions(text, []) == []


def test_candidate_mentions_rules_out_every_setting() -> None:
    # 001#14: both temperatures go; the 4X gain and the 0.36 reduction stay
    text = (
        "Quantifiably, we achieve as much as 4X better recall when applied to GPT-4o, and an average "
        "reduction in KL divergence by 0.36 when applied to Llama 3. Furthermore, we show that "
        "SimpleStrat achieves more resampling diversity at temperature T=0 than scaling temperature "
        "to T=1 on creative writing, an open-ended domain."
    )
    assert [m.text for m in candidate_mentions(text, find_quantities(text))] == ["as much as 4X", "0.36"]


# --- invented sentences: patterns that must hold beyond the corpus ---------------------------

CONDITION = "model size modifier"


@pytest.mark.parametrize(("text", "evidence"), [
    ("Pruning a 12B parameter model to half its width keeps most of its quality.", "12B parameter"),
    ("On a 34B model the cache hit rate doubles.", "34B model"),
    ("The adapter lifts a 3B-parameter student by 4 points.", "3B-parameter"),
    ("It beats every open 8B LLM on the suite.", "8B LLM"),
    ("We compare against two 65B models.", "65B models"),
])
def test_a_model_size_modifier_is_a_condition(text: str, evidence: str) -> None:
    why = rule_out(text, _mention(text, evidence))
    assert why is not None and CONDITION in why


@pytest.mark.parametrize(("text", "evidence"), [
    # the size of the model the paper trains is the scale of its contribution
    ("We pre-train a 5B-parameter encoder on public speech.", "5B-parameter"),
    ("By training a single 2.2 billion parameter network we close the gap.", "2.2 billion parameter"),
    # a parameter count that is not a modifier is a scale claim for the model to label
    ("The released checkpoint has 11B parameters.", "11B parameters"),
    ("The corpus holds 40B tokens.", "40B tokens"),
])
def test_a_size_that_is_the_contribution_or_a_count_stays(text: str, evidence: str) -> None:
    assert rule_out(text, _mention(text, evidence)) is None


def test_a_repeated_fact_is_one_candidate_the_first() -> None:
    text = ("The suite spans 19 domains and 2,400 prompts. Across all 19 domains, scores rise by 3.1%, "
            "while recall rises by 3.1%. It reaches 71.5% accuracy, and this 71.5% accuracy holds on "
            "the 2,400 prompts.")
    kept = [m.text for m in candidate_mentions(text, find_quantities(text))]
    # counted nouns repeat the same fact; a bare % repeats one only with the same word after it
    assert kept == ["19 domains", "2,400 prompts", "3.1%", "3.1%", "71.5%"]
    assert [m.start for m in candidate_mentions(text, find_quantities(text))][0] == text.index("19 domains")


def test_the_start_of_a_from_to_change_is_the_baseline() -> None:
    text = "Build time falls from 9 hours to 25 minutes, and we scale from 4 to 128 nodes."
    mentions = find_quantities(text)
    assert [m.text for m in mentions] == ["9 hours", "25 minutes", "4", "128 nodes"]
    assert [m.text for m in candidate_mentions(text, mentions)] == ["25 minutes", "128 nodes"]
    # where the start holds may stand between: "from X in A to Y in B"
    moved = "Variance drops from 7% in the old split to only 3% in the new one."
    assert [m.text for m in candidate_mentions(moved, find_quantities(moved))] == ["3%"]
    # a range written "ranging from 2 to 5" is one mention and stays
    span = "Sizes ranging from 2 to 5 GB were used."
    assert [m.text for m in candidate_mentions(span, find_quantities(span))] == ["2 to 5 GB"]


def test_a_qualified_spelled_count_of_parts_is_still_a_part_count() -> None:
    text = "The design rests on at least four separate modules that share one cache."
    why = rule_out(text, _mention(text, "at least four separate modules"))
    assert why is not None and PARTS in why


def test_a_bare_number_after_length_is_the_setting_a_result_was_measured_at() -> None:
    text = "It is 2.1x faster at sequence length 8K and reaches 71% accuracy (context length 32K)."
    assert [m.text for m in candidate_mentions(text, find_quantities(text))] == ["2.1x", "71%"]
    # a length with its unit, or one the paper extends to, is no bare setting
    grown = "We extend the context length to 128K tokens."
    assert rule_out(grown, _mention(grown, "128K tokens")) is None


BACKGROUND = ("Serving large models is costly: a single request can take over 30 seconds on 8 GPUs. "
              "Prior caches cut this by only 10%. ")


def test_figures_before_the_contribution_is_introduced_are_background() -> None:
    text = BACKGROUND + "We propose Kestrel, a cache that is 3.2x faster than vLLM on 2 GPUs."
    assert background_end(text) == len(BACKGROUND) - 1
    assert [m.text for m in candidate_mentions(text, find_quantities(text))] == ["3.2x", "2 GPUs"]


@pytest.mark.parametrize("text", [
    # the authors already speak before the introducing sentence
    "Here, we measure that requests take 30 seconds on 8 GPUs. We propose Kestrel, a cache 3.2x faster.",
    # the abstract opens on the contribution: its name comes before "this paper describes"
    "Kestrel is a cache that answers in 30 seconds on 8 GPUs. This paper describes Kestrel and its 3.2x gains.",
    # nothing is introduced: no background to tell apart
    "Requests take 30 seconds on 8 GPUs with the method, 3.2x faster than before.",
])
def test_no_background_when_the_authors_or_their_system_speak_first(text: str) -> None:
    assert background_end(text) == 0
    assert "30 seconds" in [m.text for m in candidate_mentions(text, find_quantities(text))]


@pytest.mark.parametrize(("text", "evidence"), [
    ("Judges rate each answer on a 1-5 scale.", "1-5"),
    ("Raters used a 7-point Likert scale.", "7-point"),
])
def test_the_range_of_a_rating_scale_is_a_setting(text: str, evidence: str) -> None:
    why = rule_out(text, _mention(text, evidence))
    assert why is not None and SETTING in why
