"""paper_claims.rules.attributes: what a claim is measured on (invented abstracts)."""

from __future__ import annotations

from paper_claims.rules.attributes import nearest_name
from paper_claims.schemas import DocumentLabels
from paper_claims.parse.document import parse_text
from tests.invented import CORVID_LM, CORVID, LEDGER, setup, ground, marked


def test_the_system_is_the_model_of_its_claims_when_it_is_a_model() -> None:
    mentions, L, M = setup(CORVID_LM)
    labels = DocumentLabels(s=L["Corvid"], e={L["Corvid"]: "model", L["DenseMix"]: "model", L["8 H100 GPUs"]: "none"},
                            c={M["91.2%"]: "accuracy", M["40%"]: f"efficiency {L['DenseMix']}"})
    acc, memory = ground(CORVID_LM, mentions, labels).claims
    assert acc.model == memory.model == "Corvid"


def test_a_contributed_benchmark_is_the_dataset_of_claims_that_name_none() -> None:
    mentions, L, M = setup(LEDGER)
    assert list(M) == ["1,200 accounting questions", "47%", "6 hours"]
    labels = DocumentLabels(s=L["Ledger"], e={L["Ledger"]: "dataset", L["Heron-9B"]: "model",
                                              L["single TPU v5e chip"]: "hardware"},
                            c={M["47%"]: "accuracy", M["6 hours"]: "speedup"})
    score, time = ground(LEDGER, mentions, labels).claims
    assert score.dataset == "Ledger" and score.model == "Heron-9B"
    assert time.hardware == "single TPU v5e chip" and time.dataset == "Ledger"


def test_nearest_name_stays_in_the_sentence_and_weighs_names_after_the_number_double() -> None:
    mentions, L, M = setup(CORVID)
    marks = {m.text: m for m in marked(CORVID, mentions).names}
    speed = mentions[int(M["2.5x"]) - 1]
    assert nearest_name(parse_text(CORVID), speed, [marks["DenseMix"], marks["8 H100 GPUs"]]) == "DenseMix"
    memory = mentions[int(M["40%"]) - 1]
    assert nearest_name(parse_text(CORVID), memory, [marks["BirdCall benchmark"]]) is None
    assert nearest_name(parse_text(CORVID), memory, []) is None


def test_claims_of_a_model_the_paper_introduces_are_about_it() -> None:
    text = ("We present Corvid-2, a compact speech model. "
            "Corvid-2 reaches 91.2% accuracy, 4 points above Heron and DenseMix-XL on the BirdCall benchmark.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Corvid-2"], e={L["Corvid-2"]: "model", L["Heron"]: "model", L["DenseMix-XL"]: "model"},
                            c={M["91.2%"]: "accuracy", M["4 points"]: "improvement"})
    result = ground(text, mentions, labels)
    assert [c.model for c in result.claims] == ["Corvid-2", "Corvid-2"]
    assert [c.dataset for c in result.claims] == ["BirdCall benchmark", "BirdCall benchmark"]


def test_a_speedup_does_not_default_to_the_only_dataset() -> None:
    text = "We present Wisp. Wisp reaches 91.2% on the BirdCall benchmark. Separately, Wisp decodes 3x faster."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "none"}, c={M["91.2%"]: "accuracy", M["3x"]: "speedup"})
    by = {c.evidence: c for c in ground(text, mentions, labels).claims}
    assert by["91.2%"].dataset == "BirdCall benchmark" and by["3x"].dataset is None


def test_a_speed_takes_no_dataset_named_only_later_in_its_sentence() -> None:
    text = ("We present Wisp. Wisp runs at 5 fps on a GPU, while reaching 71.2% accuracy on the BirdCall benchmark; "
            "on Quokka, Wisp is 2x faster.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "none"},
                            c={M["5 fps"]: "speedup", M["71.2%"]: "accuracy", M["2x"]: "speedup"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by["5 fps"] is None and by["71.2%"] == "BirdCall benchmark"


def test_the_dataset_is_the_name_right_after_on() -> None:
    text = "We present Wisp. Wisp beats Heron by up to 12% on BirdCall and 34% on Quokka."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["BirdCall"]: "dataset", L["Quokka"]: "dataset"},
                            c={M["up to 12%"]: "improvement", M["34%"]: "improvement"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"up to 12%": "BirdCall", "34%": "Quokka"}


def test_a_name_compared_with_in_any_claim_is_not_a_claims_model() -> None:
    text = "Our Wisp-9B surpasses Heron-9B by 7.8% and Kite-9B by 15.1% on Quill."
    mentions, L, M = setup(text)
    labels = DocumentLabels(c={M["7.8%"]: "improvement", M["15.1%"]: "improvement"})
    by = {c.evidence: (c.model, c.baseline) for c in ground(text, mentions, labels).claims}
    assert by == {"7.8%": ("Wisp-9B", "Heron-9B"), "15.1%": ("Wisp-9B", "Kite-9B")}


def test_a_parameter_count_is_on_no_dataset_and_no_device() -> None:
    text = "We present Wisp, a speech model. On the BirdCall benchmark, Wisp has 7 billion parameters on 8 Z900 GPUs."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model"}, c={M["7 billion parameters"]: "scale"})
    claim = next(c for c in ground(text, mentions, labels).claims if c.evidence == "7 billion parameters")
    assert claim.dataset is None and claim.hardware is None and claim.model == "Wisp"


def test_numbers_with_respectively_go_to_the_names_in_order() -> None:
    text = ("We present Wisp, a tuner. On the Quill-10 and Quill-20 datasets Wisp reaches 91.2% "
            "(92.0% with an ensemble) and 64.5%, respectively.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Quill-10"]: "dataset", L["Quill-20 datasets"]: "dataset"},
                            c={M["91.2%"]: "accuracy", M["92.0%"]: "accuracy", M["64.5%"]: "accuracy"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"91.2%": "Quill-10", "92.0%": "Quill-10", "64.5%": "Quill-20 datasets"}


def test_a_speedup_is_on_the_device_the_system_is_introduced_for() -> None:
    text = ("We present Wisp, an update system for microcontroller-based Z9 devices. "
            "Wisp cuts update time by up to 40x. We asked 30 users.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["microcontroller-based Z9 devices"]: "hardware"},
                            c={M["up to 40x"]: "speedup", M["30 users"]: "scale"})
    by = {c.evidence: c.hardware for c in ground(text, mentions, labels).claims}
    assert by == {"up to 40x": "microcontroller-based Z9 devices", "30 users": None}  # a count: no fallback


def test_a_cost_in_another_sentence_takes_no_dataset_a_score_takes_the_last_one_named() -> None:
    text = ("We present Wisp for parsing. Wisp reaches 91.0% on the TreeBank-X benchmark. "
            "It also uses 40% less memory. On harder inputs it still scores 88.5%.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["TreeBank-X benchmark"]: "dataset"},
                            c={M["91.0%"]: "accuracy", M["40%"]: "efficiency", M["88.5%"]: "accuracy"})
    score, memory, later = ground(text, mentions, labels).claims
    assert score.dataset == later.dataset == "TreeBank-X benchmark"
    assert memory.dataset is None  # a saving is measured on no dataset unless its sentence or a scope names one


def test_an_opening_phrase_scopes_the_claims_after_it_until_another_name() -> None:
    text = ("We present Wisp. On the Heron benchmark, Wisp reaches 71% accuracy. It also uses 3x less memory. "
            "Wisp is tested on the Finch-2 benchmark too. It then uses 2x less memory.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Heron benchmark"]: "dataset", L["Finch-2 benchmark"]: "dataset"},
                            c={M["71%"]: "accuracy", M["3x"]: "efficiency", M["2x"]: "efficiency"})
    score, first, second = ground(text, mentions, labels).claims
    assert score.dataset == first.dataset == "Heron benchmark"  # "On X, ..." scopes the next sentence
    assert second.dataset is None  # another dataset was named since: the scope ended


def test_a_result_is_on_the_device_named_right_after_on() -> None:
    text = ("We present Wisp, a serving system. Wisp raises the throughput of Heron-9B by 1.5x on Z900 GPUs, "
            "2.1x on Q700 GPUs, compared to Kite.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Z900 GPUs"]: "hardware", L["Q700 GPUs"]: "hardware",
                                              L["Heron-9B"]: "model"},
                            c={M["1.5x"]: "speedup", M["2.1x"]: "speedup"})
    by = {c.evidence: c.hardware for c in ground(text, mentions, labels).claims}
    assert by == {"1.5x": "Z900 GPUs", "2.1x": "Q700 GPUs"}  # not the nearer device before "2.1x"


def test_a_count_takes_a_device_only_when_it_is_made_on_one() -> None:
    text = ("We present Wisp, a tagger. Wisp is trained for 3 days on 8 Z900 GPUs. "
            "Using a multicore Q7 CPU, Wisp tags 2 million sentences among 40K classes in 40 seconds.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["multicore Q7 CPU"]: "hardware"},
                            c={M["3 days"]: "scale", M["8 Z900 GPUs"]: "scale", M["2 million sentences"]: "scale",
                               M["40K classes"]: "scale", M["40 seconds"]: "speedup"})
    by = {c.evidence: c.hardware for c in ground(text, mentions, labels).claims}
    assert by["3 days"] == by["8 Z900 GPUs"] == "8 Z900 GPUs"  # counted, or counted right after "on"
    assert by["2 million sentences"] is None and by["40K classes"] is None  # counts of data: no device
    assert by["40 seconds"] == "multicore Q7 CPU"  # the speed is measured on it


def test_numbers_with_respectively_go_to_the_names_listed_after_them() -> None:
    text = ("We present Wisp, a loader. Wisp runs models up to twice the size of memory, "
            "with 3x and 12x higher throughput on Z900 CPUs and Q700 GPUs, respectively.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Z900 CPUs"]: "hardware", L["Q700 GPUs"]: "hardware"},
                            c={M["up to twice"]: "scale", M["3x"]: "speedup", M["12x"]: "speedup"})
    by = {c.evidence: c.hardware for c in ground(text, mentions, labels).claims}
    assert by["3x"] == "Z900 CPUs" and by["12x"] == "Q700 GPUs"  # the last two numbers, in order


def test_a_sentence_opening_with_experiments_on_a_dataset_scopes_the_claims_after_it() -> None:
    text = ("We present Wisp, a speech synthesiser. Experiments on the Quill-5 dataset show that Wisp matches "
            "slower models. Most importantly, Wisp speeds up synthesis by 40x.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Quill-5 dataset"]: "dataset"}, c={M["40x"]: "speedup"})
    assert [c.dataset for c in ground(text, mentions, labels).claims] == ["Quill-5 dataset"]


def test_a_count_takes_the_only_dataset_named_before_it() -> None:
    text = ("We study large batches on the Quill-1K dataset. We train with batches of up to 8192 images "
            "and no loss of accuracy. Wisp also cuts memory by 30%.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Quill-1K dataset"]: "dataset"},
                            c={M["up to 8192 images"]: "scale", M["30%"]: "efficiency"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"up to 8192 images": "Quill-1K dataset", "30%": None}  # a saving still takes none


def test_an_item_of_an_enumeration_takes_no_dataset_of_another_item() -> None:
    text = ("We show Wisp on two tasks: (i) parsing: Wisp reaches 91.5% on Quill-1K, (ii) translation: "
            "Wisp trains a 128-layer model over 100 languages.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Quill-1K"]: "dataset"},
                            c={M["91.5%"]: "accuracy", M["128-layer"]: "scale", M["over 100 languages"]: "scale"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"91.5%": "Quill-1K", "128-layer": None, "over 100 languages": None}


def test_a_count_before_the_only_dataset_is_named_takes_none() -> None:
    text = "We collect 50 demonstrations per task. Wisp then reaches 91% on the Quill benchmark."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["Quill benchmark"]: "dataset"},
                            c={M["50 demonstrations per task"]: "scale", M["91%"]: "accuracy"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"50 demonstrations per task": None, "91%": "Quill benchmark"}


def test_a_dataset_named_in_the_claims_sentence_comes_before_a_contributed_one() -> None:
    text = ("We release Quill, a benchmark of 900 puzzles. The Finch-2 dataset, a harder companion, "
            "contains 4,000 puzzles. On Quill, the best model solves 61% of the puzzles.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Quill"], e={L["Quill"]: "dataset", L["Finch-2 dataset"]: "dataset"},
                            c={M["900 puzzles"]: "scale", M["4,000 puzzles"]: "scale", M["61%"]: "accuracy"})
    by = {c.evidence: c.dataset for c in ground(text, mentions, labels).claims}
    assert by == {"900 puzzles": "Quill", "4,000 puzzles": "Finch-2 dataset", "61%": "Quill"}


def test_a_device_compared_against_is_not_where_a_result_is_measured() -> None:
    text = ("We present the Z9 chip. The Z9 chip is about 15x faster than its contemporary GPU or CPU, "
            "while its energy per query is about 30x lower. Wisp runs 2x faster than Kite on Q700 GPUs.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L["contemporary GPU"]: "hardware", L["CPU"]: "hardware", L["Q700 GPUs"]: "hardware"},
                            c={M["about 15x"]: "speedup", M["about 30x"]: "efficiency", M["2x"]: "speedup"})
    by = {c.evidence: c.hardware for c in ground(text, mentions, labels).claims}
    assert by["about 15x"] == by["about 30x"] == "Z9 chip"  # not the GPU or CPU it is compared with
    assert by["2x"] == "Q700 GPUs"  # "than Kite on Q700 GPUs": both run there


def test_a_model_compared_against_is_not_the_model_measured() -> None:
    text = ("We present Wisp, a self-supervised method. A classifier trained on Wisp features reaches 76.5% "
            "accuracy, matching the performance of a supervised Heron-50. Wisp-L then improves upon the strong "
            "Kite-2 baseline by 3 points.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Heron-50"]: "model", L["Kite-2"]: "model", L["Wisp-L"]: "model"},
                            c={M["76.5%"]: "accuracy", M["3 points"]: "improvement"})
    by = {c.evidence: c.model for c in ground(text, mentions, labels).claims}
    assert by == {"76.5%": None, "3 points": "Wisp-L"}  # the names after "matching", "improves upon" are compared


def test_a_claim_on_names_listed_together_is_on_the_whole_list() -> None:
    text = ("We present Wisp, a pruner. Wisp removes up to 30% of the weights for Heron-9B, Kite-7B and Finch-2 "
            "models. On Z900 and Q700 GPUs it keeps 98% and 91% of the accuracy.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Heron-9B"]: "model", L["Kite-7B"]: "model", L["Finch-2"]: "model"},
                            c={M["up to 30%"]: "efficiency", M["98%"]: "other", M["91%"]: "other"})
    by = {c.evidence: c.model for c in ground(text, mentions, labels).claims}
    assert by["up to 30%"] == "Heron-9B, Kite-7B and Finch-2"


def test_a_number_listed_with_others_is_on_one_name_of_a_list_not_the_whole_list() -> None:
    text = "We present Wisp. Wisp keeps 98% and 91% of the accuracy of Heron-9B and Kite-7B."
    mentions, L, M = setup(text)
    marks = {m.text: m for m in marked(text, mentions).names}
    first = mentions[int(M["98%"]) - 1]
    assert nearest_name(parse_text(text), first, [marks["Heron-9B"], marks["Kite-7B"]]) == "Heron-9B"


def test_a_count_of_models_is_no_models_result() -> None:
    text = ("We present Quill, a benchmark. We evaluate 12 open-source LLMs as well as the proprietary Heron-9B "
            "on Quill. Heron-9B reaches 41% accuracy.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Quill"], e={L["Quill"]: "dataset", L["Heron-9B"]: "model"},
                            c={M["12 open-source LLMs"]: "scale", M["41%"]: "accuracy"})
    by = {c.evidence: c.model for c in ground(text, mentions, labels).claims}
    assert by == {"12 open-source LLMs": None, "41%": "Heron-9B"}


def test_a_sentence_opening_with_this_goes_on_about_the_dataset_of_the_one_before() -> None:
    text = ("We present Wisp, a detector. Wisp outperforms prior detectors on the bird's eye view Quokka benchmarks. "
            "This detection performance is achieved while running at 62 Hz. A smaller version runs at 105 Hz.")
    mentions, L, M = setup(text)
    dataset = next(letter for name, letter in L.items() if "Quokka" in name)
    labels = DocumentLabels(s=L["Wisp"], e={L["Wisp"]: "model", dataset: "dataset"},
                            c={M["62 Hz"]: "speedup", M["105 Hz"]: "speedup"})
    result = ground(text, mentions, labels)
    continued, other = result.claims
    # named as the list names it, without the words that describe it in front
    assert continued.dataset == "Quokka benchmarks" and result.datasets == ["Quokka benchmarks"]
    assert other.dataset is None  # "A smaller version ..." does not go on about the sentence before
