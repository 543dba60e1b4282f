"""paper_claims.rules.metric: what a claim's number measures, from the words of its sentence
(invented sentences)."""

from __future__ import annotations

from typing import Optional

import pytest

from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.metric import metric_of
from paper_claims.parse.document import parse_text


def _metrics(sentence: str, names: tuple[str, ...] = (), candidates: tuple[str, ...] = ()) -> list[tuple[str, Optional[str]]]:
    mentions = find_quantities(sentence)
    spans = [(sentence.index(name), sentence.index(name) + len(name)) for name in names]
    others = [(sentence.index(name), sentence.index(name) + len(name)) for name in candidates]
    return [(m.text, metric_of(parse_text(sentence), m, mentions, spans, spans + others)) for m in mentions]


@pytest.mark.parametrize("sentence, metric", [
    # the words after the number, a comparative grading them
    ("Corvid reaches 91.2% word accuracy on it.", "word accuracy"),
    ("It reaches 2x higher throughput.", "throughput"),
    ("It uses 40% less memory.", "memory"),
    ("It needs 12x fewer FLOPs.", "FLOPs"),
    ("We observe a 60% increase in goodput over the baseline.", "goodput"),
    ("It brings a 13% retrieval performance improvement over the baseline.", "retrieval performance"),
    ("It obtains a 2.5-point gain over the baseline.", "gain"),
    ("Our codec halves the bitrate.", "bitrate"),
    # what follows "of": the measured thing, a share of it
    ("The index uses only 64KB of memory.", "memory"),
    ("It collects 2,000 hours of spoken dialogue.", "spoken dialogue"),
    ("The system answers 64% of the queries.", "share of queries"),
    # the comparative's own noun when nothing follows it
    ("It runs 2.5x faster than the old engine.", "speed"),
    ("The network is 6x smaller than the old one.", "size"),
    # a score unit names the metric
    ("It scores 81.3 BLEU on the test set.", "BLEU"),
    # what a verb of change acts on, actively, passively or intransitively
    ("The cache improves throughput by 3x.", "throughput"),
    ("Our planner reduces the planning time of large graphs by 4x.", "planning time of large graphs"),
    ("On the benchmark, read throughput is increased by 35% when the cache is warm.", "read throughput"),
    ("It speeds up decoding by 3x.", "decoding"),
    ("It lifts the success rate on the hardest task from 40% to 71%.", "success rate"),
    # the noun phrase the number is given for
    ("It attains a macro F1 of 77.1%.", "macro F1"),
    ("It achieves a new state-of-the-art recall of 64.2%.", "recall"),
    ("On the cluster, lookup latencies are under 31 ms.", "lookup latency"),
    # the size of a dataset of counted items
    ("We release Kestrel, a dataset of 12K annotated dialogues.", "dataset size"),
    ("The benchmark comprises 1,200 questions.", "benchmark size"),
    # what the unit measures
    ("The chip draws 310 mW.", "power"),
    ("The model has 3.5 billion parameters.", "model size"),
    ("We train a 96-layer network.", "depth"),
    ("It processes 120 frames per second.", "frame rate"),
    ("The store sustains 90,000 tx/sec.", "throughput"),
    ("It finishes training in 42 minutes.", "training time"),
    ("The detector answers in 25 ms.", "time"),
    # a counted noun as written
    ("We evaluate it across 12 domains.", "domains"),
])
def test_metric_of(sentence: str, metric: str) -> None:
    assert _metrics(sentence)[-1][1] == metric


def test_numbers_listed_together_share_what_the_list_says() -> None:
    assert _metrics("The sorter reaches accuracies of 91.5% (93.0% for the ensemble) and 88.0% on the sets.") == [
        ("91.5%", "accuracy"), ("93.0%", "accuracy"), ("88.0%", "accuracy")]
    assert _metrics("Weak scaling efficiencies of 96% and 93% are observed.") == [
        ("96%", "weak scaling efficiency"), ("93%", "weak scaling efficiency")]
    assert _metrics("It gives speedups of 2x, 3x and 5x on the kernels.") == [
        ("2x", "speedup"), ("3x", "speedup"), ("5x", "speedup")]
    assert _metrics("Edge boards use 38 and 190 mJ per image.") == [
        ("38", "energy"), ("190 mJ per image", "energy")]


def test_a_number_in_brackets_with_words_of_its_own_is_no_member_of_the_list() -> None:
    assert _metrics("It reaches 80.5% top-1 accuracy (4.5% absolute improvement) on it.") == [
        ("80.5%", "top-1 accuracy"), ("4.5%", "absolute improvement")]


def test_each_number_of_a_sentence_takes_its_own_measure() -> None:
    assert _metrics("It shows improvements of 3x in latency and 5x in throughput.") == [
        ("3x", "latency"), ("5x", "throughput")]
    assert _metrics("It cuts cost by 40% and energy by 25%.") == [("40%", "cost"), ("25%", "energy")]
    assert _metrics("It uses 3x less energy and 2x less memory than the baseline.") == [
        ("3x", "energy"), ("2x", "memory")]


def test_a_measure_introduced_once_covers_the_numbers_that_follow_it() -> None:
    assert _metrics("It sets new word error rates on two test sets: 4.1 on the first and 7.9 on the second.")[1:] == [
        ("4.1", "word error rate"), ("7.9", "word error rate")]
    assert _metrics("It improves the serving throughput of Kite-7B by 1.3x on one board; and Kite-70B by 2.2x.",
                    names=("Kite-7B", "Kite-70B")) == [("1.3x", "serving throughput"), ("2.2x", "serving throughput")]
    assert _metrics("It runs models up to twice the size of the device memory.") == [("up to twice", "size")]


def test_the_words_around_a_number_that_describes_a_noun_are_about_the_noun() -> None:
    assert _metrics("We cut the memory cost of a 512-layer network in half.")[0] == ("512-layer", "depth")
    assert _metrics("This ratio is 58%.") == [("58%", None)]


def test_a_name_is_cut_off_and_never_the_metric() -> None:
    assert _metrics("Kite improves the throughput of Bramble-7B by 2x.", names=("Bramble-7B",)) == [
        ("2x", "throughput")]
    assert _metrics("Kite outperforms Bramble-7B by 4%.", names=("Bramble-7B",)) == [("4%", None)]
    assert _metrics("It gains 5% over Bramble-7B of 21%.", names=("Bramble-7B",))[1] == ("21%", None)
    # a candidate name nobody typed still ends the phrase; a share may be of a name
    assert _metrics("It needs 1/100 of the memory of Tiny Flow.", candidates=("Tiny Flow",)) == [("1/100", "memory")]
    assert _metrics("It scales to 87% of Summitron.", names=("Summitron",)) == [("87%", "share of Summitron")]
    assert _metrics("It gains over methods such as Tiny-Clip of 18.3%.", candidates=("Tiny-Clip",)) == [("18.3%", None)]


def test_a_bare_number_or_a_bare_unit_measures_nothing_named() -> None:
    assert _metrics("It was 3x.") == [("3x", None)]
    assert _metrics("Prediction times for the small model are lower than 9 ms.") == [
        ("9 ms", "prediction time for the small model")]
    assert _metrics("Its latency falls to 8 ms.") == [("8 ms", "latency")]
    assert _metrics("It took 8 ms.") == [("8 ms", "time")]
