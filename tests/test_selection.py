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
from paper_claims.parse.document import parse_text

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
    why = rule_out(parse_text(text), _mention(text, evidence))
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
    assert rule_out(parse_text(text), _mention(text, evidence)) is None


def test_every_snippet_is_real_corpus_text() -> None:
    corpus = " ".join(" ".join(path.read_text(encoding="utf-8").split())
                      for path in sorted((ROOT / "examples" / "abstracts").glob("*.txt")))
    for text, *_ in RULED_OUT + KEPT:
        assert " ".join(text.split()) in corpus, text[:60]


def test_memory_without_a_device_nearby_is_not_a_spec() -> None:
    # constructed: the same "16GB" far from any device word is left to the model
    text = "The released corpus of captions takes 16GB once compressed with our tokenizer."
    assert rule_out(parse_text(text), _mention(text, "16GB")) is None
    # and a device's memory stays a spec however it is written
    spec = "Mixtral 8x7B runs on a single T4 GPU (16GB)."
    assert rule_out(parse_text(spec), _mention(spec, "16GB")) is not None


def test_candidate_mentions_keeps_the_rest_in_order() -> None:
    # 001#3, two sentences
    text = (
        "VisionArena spans 73K unique users, 45 VLMs, and 138 languages. Our dataset contains three "
        "subsets: VisionArena-Chat, 200k single and multi-turn conversations between a user and a VLM; "
        "VisionArena-Battle, 30K conversations comparing two anonymous VLMs with user preference votes"
    )
    mentions = find_quantities(text)
    kept = candidate_mentions(parse_text(text), mentions)
    assert "three subsets" in [m.text for m in mentions]
    assert [m.text for m in kept] == [m.text for m in mentions if m.text != "three subsets"]
    assert all(k in mentions for k in kept)
    assert [m.start for m in kept] == sorted(m.start for m in kept)
    assert candidate_mentions(parse_text(text), []) == []


def test_candidate_mentions_rules_out_every_setting() -> None:
    # 001#14: both temperatures go; the 4X gain and the 0.36 reduction stay
    text = (
        "Quantifiably, we achieve as much as 4X better recall when applied to GPT-4o, and an average "
        "reduction in KL divergence by 0.36 when applied to Llama 3. Furthermore, we show that "
        "SimpleStrat achieves more resampling diversity at temperature T=0 than scaling temperature "
        "to T=1 on creative writing, an open-ended domain."
    )
    assert [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))] == ["as much as 4X", "0.36"]


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
    why = rule_out(parse_text(text), _mention(text, evidence))
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
    assert rule_out(parse_text(text), _mention(text, evidence)) is None


def test_a_repeated_fact_is_one_candidate_the_first() -> None:
    text = ("The suite spans 19 domains and 2,400 prompts. Across all 19 domains, scores rise by 3.1%, "
            "while recall rises by 3.1%. It reaches 71.5% accuracy, and this 71.5% accuracy holds on "
            "the 2,400 prompts.")
    kept = [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))]
    # counted nouns repeat the same fact; a bare % repeats one only with the same word after it
    assert kept == ["19 domains", "2,400 prompts", "3.1%", "3.1%", "71.5%"]
    assert [m.start for m in candidate_mentions(parse_text(text), find_quantities(text))][0] == text.index("19 domains")


def test_the_start_of_a_from_to_change_is_the_baseline() -> None:
    text = "Build time falls from 9 hours to 25 minutes, and we scale from 4 to 128 nodes."
    mentions = find_quantities(text)
    assert [m.text for m in mentions] == ["9 hours", "25 minutes", "4", "128 nodes"]
    assert [m.text for m in candidate_mentions(parse_text(text), mentions)] == ["25 minutes", "128 nodes"]
    # where the start holds may stand between: "from X in A to Y in B"
    moved = "Variance drops from 7% in the old split to only 3% in the new one."
    assert [m.text for m in candidate_mentions(parse_text(moved), find_quantities(moved))] == ["3%"]
    # a range written "ranging from 2 to 5" is one mention and stays
    span = "Sizes ranging from 2 to 5 GB were used."
    assert [m.text for m in candidate_mentions(parse_text(span), find_quantities(span))] == ["2 to 5 GB"]


def test_a_qualified_spelled_count_of_parts_is_still_a_part_count() -> None:
    text = "The design rests on at least four separate modules that share one cache."
    why = rule_out(parse_text(text), _mention(text, "at least four separate modules"))
    assert why is not None and PARTS in why


def test_a_bare_number_after_length_is_the_setting_a_result_was_measured_at() -> None:
    text = "It is 2.1x faster at sequence length 8K and reaches 71% accuracy (context length 32K)."
    assert [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))] == ["2.1x", "71%"]
    # a length with its unit, or one the paper extends to, is no bare setting
    grown = "We extend the context length to 128K tokens."
    assert rule_out(parse_text(grown), _mention(grown, "128K tokens")) is None


BACKGROUND = ("Serving large models is costly: a single request can take over 30 seconds on 8 GPUs. "
              "Prior caches cut this by only 10%. ")


def test_figures_before_the_contribution_is_introduced_are_background() -> None:
    text = BACKGROUND + "We propose Kestrel, a cache that is 3.2x faster than vLLM on 2 GPUs."
    assert background_end(parse_text(text)) == len(BACKGROUND) - 1
    assert [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))] == ["3.2x", "2 GPUs"]


@pytest.mark.parametrize("text", [
    # the authors already speak before the introducing sentence
    "Here, we measure that requests take 30 seconds on 8 GPUs. We propose Kestrel, a cache 3.2x faster.",
    # the abstract opens on the contribution: its name comes before "this paper describes"
    "Kestrel is a cache that answers in 30 seconds on 8 GPUs. This paper describes Kestrel and its 3.2x gains.",
    # nothing is introduced: no background to tell apart
    "Requests take 30 seconds on 8 GPUs with the method, 3.2x faster than before.",
])
def test_no_background_when_the_authors_or_their_system_speak_first(text: str) -> None:
    assert background_end(parse_text(text)) == 0
    assert "30 seconds" in [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))]


@pytest.mark.parametrize(("text", "evidence"), [
    ("Judges rate each answer on a 1-5 scale.", "1-5"),
    ("Raters used a 7-point Likert scale.", "7-point"),
])
def test_the_range_of_a_rating_scale_is_a_setting(text: str, evidence: str) -> None:
    why = rule_out(parse_text(text), _mention(text, evidence))
    assert why is not None and SETTING in why


# --- lists a count announces, counts of named items, specs written as modifiers ---------------

LISTED = "count that announces a list"


@pytest.mark.parametrize(("text", "evidence"), [
    # named items right after a comma, as many as the count
    ("We port two popular databases, Redis and Cassandra, to the new allocator.", "two popular databases"),
    # "including" followed by every item (a fused "and" still counts three items)
    ("It ranks first on all three tracks of the challenge, including parsing, tagging, andchunking.",
     "three tracks"),
    # items in parentheses
    ("On two robotic suites (Reach and Stack), the policy wins most episodes.", "two robotic suites"),
    # items between dashes, each a clause
    ("We design two planners – Greedy Plan searches locally and Beam Plan keeps k paths – that share a cache.",
     "two planners"),
    # a digit count before a colon and its enumerated items
    ("Failures fall into 3 groups: (i) timeouts, (ii) crashes, and (iii) wrong answers.", "3 groups"),
    # the next sentence enumerates the counted items
    ("We add three simple tricks to the trainer. First, we warm up. Second, we clip. Third, we average.",
     "three simple tricks"),
])
def test_a_count_whose_items_follow_only_announces_the_list(text: str, evidence: str) -> None:
    why = rule_out(parse_text(text), _mention(text, evidence))
    assert why is not None and LISTED in why


@pytest.mark.parametrize(("text", "evidence"), [
    # fewer items than the count: examples, the count is the evaluation's breadth
    ("The suite spans 40 domains, including law, medicine and finance.", "40 domains"),
    ("We test on twelve languages, including Swahili, Tamil and Welsh.", "twelve languages"),
    # a comma followed by no named items
    ("We evaluate on two benchmarks, and the model wins on both.", "two benchmarks"),
    # no list at all
    ("The agent solves six household tasks with one policy.", "six household tasks"),
    # an enumeration that is not the count's: "First" is not followed by a "second"
    ("We collect 5 datasets. First results are promising.", "5 datasets"),
])
def test_a_count_without_its_full_list_stays(text: str, evidence: str) -> None:
    assert rule_out(parse_text(text), _mention(text, evidence)) is None


def test_a_count_after_these_or_those_counts_items_already_named() -> None:
    text = "The loss has a contrastive part and a masked part; we weigh these two parts equally."
    assert rule_out(parse_text(text), _mention(text, "two parts")) is not None
    named = "Both runs used pruning and distillation, and those three tricks cut cost."
    assert rule_out(parse_text(named), _mention(named, "three tricks")) is not None
    # a plain count is left to the model
    plain = "We release three checkpoints."
    assert rule_out(parse_text(plain), _mention(plain, "three checkpoints")) is None


@pytest.mark.parametrize(("text", "evidence"), [
    ("The kernel stores 4-bit keys and 8-bit values.", "4-bit"),
    ("The kernel stores 4-bit keys and 8-bit values.", "8-bit"),
    ("All runs use a 64-core workstation.", "64-core"),
    ("It learns 5-digit multiplication from examples.", "5-digit"),
])
def test_a_format_or_device_build_written_as_a_modifier_is_a_spec(text: str, evidence: str) -> None:
    why = rule_out(parse_text(text), _mention(text, evidence))
    assert why is not None and "spec" in why


@pytest.mark.parametrize(("text", "evidence"), [
    # what the paper builds or reaches, written as a modifier, is a size claim
    ("We train a 200-layer network without normalization.", "200-layer"),
    ("A 16-machine cluster serves 2 million requests per second.", "16-machine"),
    # a width reached, not a modifier
    ("Weights are compressed to 3 bits on average.", "3 bits"),
])
def test_other_hyphenated_sizes_stay(text: str, evidence: str) -> None:
    assert rule_out(parse_text(text), _mention(text, evidence)) is None


@pytest.mark.parametrize(("text", "evidence"), [
    ("Our tagger reaches 91% accuracy, while the previous best system only solves 62% of the items.", "62%"),
    ("Existing samplers suffer from large overheads (30-70%) on long prompts.", "30-70%"),
    ("The baseline model needs 2 million steps to converge, whereas ours needs 40K.", "2 million steps"),
    ("It beats the prior state-of-the-art parser that achieves 88.1 F1.", "88.1 F1"),
])
def test_a_figure_of_earlier_work_is_not_a_claim(text: str, evidence: str) -> None:
    why = rule_out(parse_text(text), _mention(text, evidence))
    assert why is not None and "other work" in why


@pytest.mark.parametrize(("text", "evidence"), [
    ("Our tagger outperforms existing systems by up to 12x on long inputs.", "up to 12x"),
    ("Compared to prior methods, it achieves 45% higher recall.", "45%"),
    ("Our strongest baseline achieving 39% accuracy still trails humans.", "39%"),
])
def test_the_papers_own_figure_near_earlier_work_stays(text: str, evidence: str) -> None:
    assert rule_out(parse_text(text), _mention(text, evidence)) is None


def test_background_without_an_introducing_verb_ends_where_the_authors_speak() -> None:
    # no "we propose": the first sentence where the authors speak ends the background
    text = ("Training large models takes 3 months on 4,000 GPUs. "
            "This study explores pipeline schedules, and we cut training time by 2.5x on 64 GPUs.")
    assert background_end(parse_text(text)) == text.index(" This study")
    assert [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))] == ["2.5x", "64 GPUs"]
    # "us" is the authors too: nothing before it is cut
    us = "Our toolkit grew to 12 modules. It enabled us to train 3 models at once."
    assert background_end(parse_text(us)) == 0


@pytest.mark.parametrize("text", [
    # the authors never speak: nothing tells the paper's own figures apart
    "The engine serves 40,000 queries per second on 8 nodes. It is 3x faster than its predecessor.",
    # with nothing introduced, the authors first speak of something of theirs: what came
    # before may be the contribution itself
    "Kestrel answers 40,000 queries per second on 8 nodes. Our cache is 3x faster than vLLM.",
])
def test_no_background_cut_where_the_abstract_may_open_on_its_contribution(text: str) -> None:
    assert background_end(parse_text(text)) == 0
    assert "8 nodes" in [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))]


def test_a_large_value_written_again_bare_is_the_same_fact() -> None:
    text = ("We train with batches of up to 16384 images. The system trains the network with a batch "
            "size of 16384 on 512 GPUs, and 16384 bare again.")
    kept = [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))]
    assert kept.count("16384") == 0 and "up to 16384 images" in kept
    # small values recur by chance: "30 subjects ... 30 image types" are two facts
    small = "It spans 30 subjects and, comprising 30 varied image types, many formats."
    assert len([m for m in candidate_mentions(parse_text(small), find_quantities(small)) if m.value == 30]) == 2


@pytest.mark.parametrize(("text", "evidence"), [
    ("The planner is prompted with only one or two demonstrations.", "two demonstrations"),
    ("Merging two or more adapters keeps quality.", "two or more adapters"),
    ("It unties knots of two or three ropes.", "three ropes"),
])
def test_a_vague_few_is_no_measured_count(text: str, evidence: str) -> None:
    why = rule_out(parse_text(text), _mention(text, evidence))
    assert why is not None and "vague" in why


def test_a_range_of_digits_or_a_single_count_stays() -> None:
    text = "Each node hosts 3 or 4 GPUs per node, and we add two adapters."
    assert rule_out(parse_text(text), _mention(text, "3 or 4 GPUs per node")) is None
    assert rule_out(parse_text(text), _mention(text, "two adapters")) is None


def test_the_figure_compared_against_is_the_baselines() -> None:
    text = "Our ranker scores 71.2 compared to 64.0 by the runner-up, and runs at 9 ms versus 30 ms."
    kept = [m.text for m in candidate_mentions(parse_text(text), find_quantities(text))]
    assert kept == ["71.2", "9 ms"]
    # a qualifier is no comparison: "more than 400" and "over 100" stay claims
    qualified = "It covers more than 400 languages and over 100 tasks."
    assert [m.text for m in candidate_mentions(parse_text(qualified), find_quantities(qualified))] == [
        "more than 400 languages", "over 100 tasks"]
