"""A claim's kind from its unit and the words around it, where those decide it.

GUIDELINES.md defines the kinds by what the number measures; the unit and the cue words of
the clause usually say it (a count of nouns is a scale, "faster" a speedup, "less memory"
an efficiency gain). Where the cues are silent or conflict, the model's kind stands. A
number the model let go is still a claim when its words make it one (``rescued_kind``).
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.units import dimension
from paper_claims.parse.vocab import LazyPattern, alternation, words
from paper_claims.rules.devices import counted_devices
from paper_claims.schemas import Kind, Mention

_SPEED = LazyPattern(lambda: rf"\b(?:{alternation('speed_words')})\b", re.I)
_EFFICIENCY = LazyPattern(lambda: rf"\b(?:{alternation('efficiency_words')}|\$)\b", re.I)
_GAIN = LazyPattern(lambda: rf"\b(?:{alternation('gain_words')}|"
                            r"errors?\s+(?:rate\s+)?reduc\w*|reduc\w*\s+(?:the\s+)?errors?)\b", re.I)


def _metrics(*left_out: str) -> str:
    """The metric names (vocab/metric_names.txt) as an alternation, but those ``left_out``."""
    return alternation("metric_names", without=left_out)


# score words; not AUROC: a score word right after a percentage makes it a score, which
# "outperforms RoBERTa ... by 39% AUROC" is not (a gain, 001#55)
_SCORE = LazyPattern(lambda: rf"\b(?:{_metrics('AUROC')}|{alternation('score_words')}|pass@\d+|top-\d)\b", re.I)
_SCORE_NOUN = LazyPattern(lambda: rf"\b(?:{_metrics()}|{alternation('score_nouns')}|pass@\d+)\b", re.I)
_ERROR_DOWN = LazyPattern(lambda: rf"\b(?:{alternation('error_words')})\b", re.I)


def _under_a_second() -> frozenset[str]:
    """The canonical units of a time under a second (parse.units): the second's prefixed symbols."""
    return words("second_units", base=True, without=("s",))


_CLAUSE_BREAK = LazyPattern(lambda: rf"[.;:!?]\s|,\s(?:{alternation('clause_joiners')})\s")


def _clause(doc: ParsedDocument, mention: Mention) -> tuple[str, str]:
    """Words before and after the mention within its clause (bounded, punctuation-aware);
    the words after stop at a comma, a parenthesis or the next number."""
    text = doc.text
    left = text[max(0, mention.start - 90) : mention.start]
    right = text[mention.end : mention.end + 60]
    left = _CLAUSE_BREAK.split(left)[-1]
    right = re.split(r"[.;!?]\s|[;,]\s|\s\(|(?<![\w-])\d", right)[0]  # "top-5 accuracy" goes on
    return left, right


_HEAD_SPEED = LazyPattern(lambda: rf"(?:{alternation('speed_heads')})\b", re.I)
_HEAD_EFFICIENCY = LazyPattern(lambda: rf"(?:{alternation('efficiency_heads')}|"
                                       rf"(?:{alternation('decrease_words')})\s+(?!{alternation('unsaved_words')})\w+|"
                                       r"(?:\w+\s)?efficiency)\b", re.I)
_HEAD_ERROR = re.compile(r"(?:(?:top-\d\s+)?(?:\w+\s)?error(?:\s+rate)?)\b", re.I)
_PER_WATT = re.compile(r"/\s?W(?:att)?\b|\bper\s+(?:watt|joule)\b", re.I)
_TIME_IN = LazyPattern(lambda: rf"\b(?:in|within)\s+(?:(?:{alternation('time_budget_words')})\s+)?$", re.I)


_PER = r"(?:/|\s+per\s+)"
# items per time, also per resource-time ("queries/core-second", "tokens per GPU-hour"); units lower-cased
_PER_TIME = LazyPattern(lambda: rf"{_PER}(?:[a-z0-9]+[- ])?(?i:{alternation('time_units')})$")
_PER_ENERGY = LazyPattern(lambda: rf"{_PER}(?i:{alternation('energy_units', 'currencies')})\b")
_TIME_PER_ITEM = LazyPattern(lambda: rf"^(?i:{alternation('time_units')}){_PER}")
_FLOP_RATE = LazyPattern(lambda: rf"^[kmgtpe]?flop/?s?{_PER}|^(?:{alternation('si_prefixes')})flops?{_PER}")


def _rate_kind(unit: str) -> Optional[Kind]:
    """Kind of a rate unit (lower case): per energy or cost is efficiency; items per time,
    time per item ("ms/token") and compute per device are speed; None for other units."""
    if _PER_ENERGY.search(unit):
        return Kind.efficiency  # "samples/s/W", "tokens per joule"
    if unit in words("rate_units") or _PER_TIME.search(unit) or _TIME_PER_ITEM.match(unit) or _FLOP_RATE.match(unit):
        return Kind.speedup  # throughput, latency per item, "TFLOPs/s", "TFlops/GPU"
    return None


_FACTOR_OF_SCORE = LazyPattern(lambda: rf"(?:the\s+)?(?:\w+\s+)?(?:{_metrics()}|{alternation('factor_score_nouns')})\b",
                               re.I)


_SCORE_CHANGE = LazyPattern(lambda: rf"(?:relative\s+|absolute\s+)?(?:{_metrics()}|score)\s+"
                                   rf"(?:{alternation('score_change_nouns')})\b", re.I)


_DECREASED = LazyPattern(lambda: rf"(?:{alternation('decrease_prefixes')})", re.I)


def _head_kind(unit: str, head: str, near: str) -> Optional[Kind]:
    """The kind the words right after a factor or percentage decide ("4x smaller")."""
    if _PER_WATT.search(near):
        return Kind.efficiency  # performance per watt
    if _SCORE_CHANGE.match(head):
        return Kind.improvement  # "4.3% accuracy boost", "13% relative WER reduction"
    if unit == "x" and _FACTOR_OF_SCORE.match(head):
        return Kind.improvement  # "double the mAP", "halves the error rate"
    if _HEAD_SPEED.match(head):
        return Kind.speedup
    if unit == "%" and _HEAD_ERROR.match(head) and not _DECREASED.match(head):
        return Kind.accuracy  # an absolute error rate is a score
    if _HEAD_EFFICIENCY.match(head):
        return Kind.efficiency
    return None


# a score raised to a value, a share of the test items done right: absolute scores
_SCORE_TO = LazyPattern(lambda: rf"\b(?:{_metrics()}|{alternation('score_targets')}|pass@\d+)\s+(?:\w+\s+)?to\s*$",
                        re.I)
_SHARE_SOLVED = LazyPattern(lambda: rf"\s*of\s+(?:the\s+)?(?:\w+\s+)?(?:{alternation('test_items')})\b", re.I)


# a share of what the hardware could do: utilisation, scaling efficiency, a throughput as a share of
# peak (GUIDELINES: utilization is efficiency)
_UTILISATION_BEFORE = LazyPattern(lambda: rf"\b(?:{alternation('utilisation_words')}|throughputs?)\s+of\s+$", re.I)
_UTILISATION_AFTER = LazyPattern(lambda: rf"\s*(?:(?:(?!and\b|or\b)[\w-]+\s+){{0,2}}(?:{alternation('utilisation_words')})\b|"
                                         r"of\s+(?:the\s+)?(?:\w+\s+)?peak\b)", re.I)


# what a change is a change of: "reduces <X> by 3x", "improves <X> by 5%", "a 45% reduction in <X>"
def _change_verb() -> str:
    """The verbs of change (vocab/change_words, halving_verbs) as an alternation."""
    return alternation("change_words", "halving_verbs")


_OBJECT_BEFORE_BY = LazyPattern(lambda:
    rf"(?:\b(?:{_change_verb()})|,\s*and|;)\s+(?P<object>(?:(?!by\b)[\w/().-]+\s+){{1,7}}?)by\s+"
    rf"(?:(?:{alternation('by_qualifiers')})\s+)?$",
    re.IGNORECASE)
_OBJECT_AFTER = LazyPattern(lambda: rf"(?:\s+(?:{alternation('number_joiners')})\s+[\d.,]+(?:\s*[-–]\s*[\d.,]+)?\s*(?:x|×|%))?"
                                    rf"\s*(?:relative\s+|absolute\s+)?(?:{alternation('change_nouns')})"
                                    r"\s+(?:in|of)\s+(?P<object>(?:[\w/-]+\s+){0,3}[\w/-]+)", re.IGNORECASE)
# the head nouns of what is measured, by kind (the last one in the phrase is its head)
_OBJECT_HEADS = [
    (Kind.improvement, LazyPattern(lambda: rf"\b(?:{alternation('quality_objects')}|{_metrics()})\b", re.IGNORECASE)),
    (Kind.speedup, LazyPattern(lambda: rf"\b(?:{alternation('speed_objects')})\b", re.IGNORECASE)),
    (Kind.efficiency, LazyPattern(lambda: rf"\b(?:{alternation('efficiency_objects')})\b", re.IGNORECASE)),
]


_OBJECT_END = LazyPattern(lambda: rf"\s(?:{alternation('object_ends')})\s")


def _object_kind(doc: ParsedDocument, mention: Mention) -> Optional[Kind]:
    """The kind the measured thing of a change decides: "reduces runtime prediction error by
    4x" (an error: improvement), "improves startup time by 63%" (speed), "a 45% reduction in
    user cost" (efficiency). The head is the last measured word before any "of" ("the memory
    footprint of the activation")."""
    text = doc.text
    before = _OBJECT_BEFORE_BY.search(text[max(0, mention.start - 90):mention.start])
    after = _OBJECT_AFTER.match(text, mention.end)
    phrase = before.group("object") if before else after.group("object") if after else ""
    phrase = _OBJECT_END.split(f" {phrase} ")[0]
    heads = [(found.start(), kind) for kind, pattern in _OBJECT_HEADS for found in pattern.finditer(phrase)]
    return max(heads)[1] if heads else None


_NAMED_SCORE = LazyPattern(lambda: rf"\b(?:scored|(?:scores?|ratings?)\s+(?:{alternation('score_links')}))\s+$", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+([0-9][0-9,]*(?:\.[0-9]+)?)\s*[A-Za-z]*\s+to\s+$", re.IGNORECASE)


def _shrunk(left: str, mention: Mention) -> bool:
    """Whether the mention is the smaller end of "from X to Y" (GUIDELINES: Y is the claim)."""
    found = _FROM_TO.search(left)
    return found is not None and mention.value < float(found.group(1).replace(",", ""))


_GAIN_HEAD = LazyPattern(lambda: rf"(?:{alternation('gain_heads')})\b", re.I)
_GRADED_SCORE = LazyPattern(lambda: rf"\b(?:{alternation('score_comparatives')})\b", re.I)
_SCALE_HEAD = LazyPattern(lambda: rf"(?:{alternation('scale_comparatives')})\b", re.I)
_IMPROVEMENT_HEAD = LazyPattern(lambda: rf"(?:{alternation('improvement_heads')})\b", re.I)
_RESOURCE_SHARE = LazyPattern(lambda: rf"\s*of\s+(?:the\s+)?(?:\w+\s+)?(?:{alternation('resources')})\b", re.I)
_COST_NEAR = LazyPattern(lambda: rf"\b(?:{alternation('cost_nouns')})\b", re.I)
_TIME_DOWN = LazyPattern(lambda: rf"\b(?:{alternation('decrease_verbs')})\b", re.I)
_ERROR_DECREASED = LazyPattern(lambda: alternation("error_decrease_words"), re.I)
_TIME_SPEED = LazyPattern(lambda: rf"\bfrom\b.*\bto\b|{alternation('time_speed_words')}", re.I)
_BARE_GAIN = LazyPattern(lambda: rf"\b(?:{alternation('bare_gain_words')})\b", re.I)
_MEMORY_SAVING = LazyPattern(lambda: rf"\b(?:{alternation('memory_saving_words')})\b", re.I)
_LIMITED = LazyPattern(lambda: rf"\b(?:{alternation('result_limiters')})\b", re.I)


def rule_kind(doc: ParsedDocument, mention: Mention) -> Optional[Kind]:
    """The kind the unit and cue words decide, or None when they do not."""
    unit = (mention.unit or "").lower()
    left, right = _clause(doc, mention)
    near = f"{left} {right}"
    head = " ".join(right.split()[:3])  # the words right after the number
    if unit == "points":
        return Kind.improvement
    if unit in words("metric_names"):  # a metric name as the unit ("28.4 BLEU"): a score
        gain = re.search(r"\bby\s*$", left) or _GAIN_HEAD.match(head) \
            or _GRADED_SCORE.search(mention.text)  # "0.7 better perplexity"
        return Kind.improvement if gain else Kind.accuracy
    if re.match(r"\s*=", right) is None and re.search(r"(?:κ|kappa)\s*=?\s*$", left, re.I):
        return Kind.accuracy
    if unit == "%" and (_SCORE_TO.search(left) or _SHARE_SOLVED.match(right)):
        return Kind.accuracy  # "raises accuracy to 86%", "truthful on 58% of the questions"
    if unit == "%" and (_UTILISATION_BEFORE.search(left) or _UTILISATION_AFTER.match(right)):
        return Kind.efficiency  # "scaling efficiencies of 89%", "62% compute utilization", "9.7% of peak"
    if unit in _FACTOR_UNITS:
        unit = "x"  # an order of magnitude is a factor of ten
    if unit in {"x", "%"}:
        return _ratio_kind(doc, mention, unit, right, head, near)
    measures = dimension((mention.unit or "").split("/")[0])  # a rate's numerator: "mJ/image" is energy
    if measures == "energy":
        return Kind.efficiency  # power and energy (GUIDELINES: less energy is efficiency)
    rate = _rate_kind(unit)
    if rate is not None:
        return rate
    measures = dimension(mention.unit)
    if measures == "frequency":
        return Kind.speedup  # "runs at 62 Hz": a rate of work per second
    if measures == "time":
        return _time_kind(unit, left, near)
    if not unit:
        return _bare_number_kind(mention, left, right, near)
    return _count_kind(mention, unit, left, right, near)


def _ratio_kind(doc: ParsedDocument, mention: Mention, unit: str, right: str, head: str, near: str) -> Optional[Kind]:
    """A factor ("x") or a percentage: the size of the paper's model, what the sentence says
    changed, the words right after the number, then the cue words of the clause."""
    if unit == "x" and _SCALE_HEAD.match(head):
        return Kind.scale  # "7x larger than X", "8x deeper": the size of the paper's model
    if not _PER_WATT.search(near) and (changed := _object_kind(doc, mention)) is not None:
        return changed
    if (decided := _head_kind(unit, head, near)) is not None:
        return decided
    if _IMPROVEMENT_HEAD.match(head) and not _SPEED.match(head.split(" ", 1)[-1] or "") \
            and not re.match(r"(?:higher|more)\s+(?:throughput|speed)", head, re.I):
        return Kind.improvement
    if re.search(r"utiliz|utilis", near, re.I) or _RESOURCE_SHARE.match(right):
        return Kind.efficiency
    if unit == "%" and _SCORE.match(head) and not _GAIN.match(head):
        return Kind.accuracy
    if unit == "x":
        if _SPEED.search(near) and not _COST_NEAR.search(near):
            return Kind.speedup
        if _EFFICIENCY.search(near):
            return Kind.efficiency
        return None  # a gain or score word alone ("outperforms", "achieves") leaves a factor to the model
    if _SPEED.search(near) and (_GAIN.search(near) or _TIME_DOWN.search(near)):
        return Kind.speedup
    if _EFFICIENCY.search(near) and not _ERROR_DOWN.search(near) and not _SCORE.search(near):
        return Kind.efficiency
    if _GAIN.search(near) or (_ERROR_DOWN.search(near) and _ERROR_DECREASED.search(near)):
        return Kind.improvement
    if _SCORE.search(near):
        return Kind.accuracy
    return None


def _time_kind(unit: str, left: str, near: str) -> Optional[Kind]:
    """A time: a speed with a speed word or under a second, else the paper's budget (scale)."""
    if _TIME_SPEED.search(near):
        return Kind.speedup
    if unit in _under_a_second():
        return Kind.speedup  # a time under a second is how long a step takes, not a budget
    if _TIME_IN.search(left):
        return None  # "trains in 4 days": the paper's time (speed) or its budget (scale)
    return Kind.scale


def _bare_number_kind(mention: Mention, left: str, right: str, near: str) -> Optional[Kind]:
    """A number without a unit: a score when a score word names it, a gain with a gain word."""
    if _NAMED_SCORE.search(left):
        return Kind.accuracy  # "X scored 244.0", "a score of 1287": a score at any size
    if _BARE_GAIN.search(right) or re.search(r"\bby\s*$", left):
        return Kind.improvement if _SCORE_NOUN.search(near) else None
    if "=" not in mention.text and mention.value <= 100 and _SCORE_NOUN.search(near) and not _SPEED.search(near) \
            and not _EFFICIENCY.search(near):
        return Kind.accuracy
    return None


def _count_kind(mention: Mention, unit: str, left: str, right: str, near: str) -> Optional[Kind]:
    """A number with another unit: a memory saving, a cost or a bit rate, else a count of
    things (scale) unless it is a result ("9 of the 14 tasks")."""
    if unit in words("data_units") and (_MEMORY_SAVING.search(near) or _shrunk(left, mention)):
        return Kind.efficiency  # "compressed to less than 0.5MB", "from 488MB to 0.74MB": a memory saving
    if unit in words("currencies"):
        return Kind.efficiency  # an amount of money is a cost (GUIDELINES: cost is efficiency)
    if unit in words("bit_rates"):  # throughput with a speed word, else network use (GUIDELINES: efficiency)
        return Kind.speedup if _SPEED.search(near) else Kind.efficiency
    if re.search(r"\sof\s", mention.text) or _LIMITED.search(left) \
            or re.search(r"\b(?:only|instead)\b", right, re.I):
        return None  # "9 of the 14 tasks", "only 8599 iterations": a result, not a size
    return Kind.scale  # a count of things: examples, parameters, GPUs, languages


_FACTOR_UNITS = {"x", "orders of magnitude"}
_PARTITIVE = LazyPattern(lambda: rf"\s(?:out\s+)?of\s+(?:{alternation('partitive_words')})\b", re.IGNORECASE)
# a share of something: "of" right after a percentage ("50% of Summit", "1% of the labels")
_SHARE_OF = re.compile(r"%\W{0,3}\s*of\b", re.IGNORECASE)


def _counted_noun(unit: Optional[str]) -> bool:
    """Whether a unit is a counted noun ("prompts", "GPUs"), not a factor, share, score name,
    physical unit, rate, size in bytes or currency."""
    low = (unit or "").lower()
    return bool(low) and low not in _FACTOR_UNITS | _LISTED_UNITS | words("data_units", "currencies") \
        and low not in words("metric_names") and dimension(unit) is None and _rate_kind(low) is None \
        and low not in words("bit_rates") and re.fullmatch(r"[a-z][a-z -]*", low) is not None


def _fits_unit(mention: Mention, model_kind: Kind) -> Kind:
    """The model's kind, unless the mention's unit rules it out: a time is no score, gain or
    saving (GUIDELINES counts time as speed, or as scale when it is a budget); a factor is no
    absolute score (GUIDELINES: accuracy is "an absolute score"), so the model's accuracy is the
    gain in a score; a bare number above 100 is no score ("the batch size to 65536"); a count of
    some of the items ("10 of the 23 tasks") is another result, not a speed or a size, and a
    count of other things is no score (GUIDELINES: accuracy is a score)."""
    unit = (mention.unit or "").lower()
    if dimension(mention.unit) == "time" and model_kind in (Kind.accuracy, Kind.improvement, Kind.efficiency):
        return Kind.speedup
    if unit in _FACTOR_UNITS and model_kind == Kind.accuracy:
        return Kind.improvement
    if model_kind == Kind.accuracy and _counted_noun(mention.unit) and not _PARTITIVE.search(mention.text):
        return Kind.scale  # "1,000 curated prompts": a count of things is no score
    if not unit and mention.value > 100 and model_kind in (Kind.accuracy, Kind.improvement):
        return Kind.scale
    if unit and _PARTITIVE.search(mention.text) and model_kind != Kind.accuracy:
        return Kind.other
    return model_kind


# what may stand between two numbers of one list ("12% on A, 20% on B and 51% on C", "by 89x
# compared to X, and up to 73x compared to Y"): a short phrase of where, then a comma or "and"
_LIST_GAP = LazyPattern(lambda: rf"\s*(?:(?:{alternation('list_gap_words')})"
                                r"\s+[^,;.:()\d]{1,60}?)?\s*(?:,\s*(?:and\s+)?|\s+and\s+|/)(?:by\s+)?", re.IGNORECASE)
# numbers with nothing but commas, "and" or "/" between them share the words after the last one
# ("up to 4.86x and 2.18x speedup", "nearly 2x, 183x, and 8x speedups", "2.7%/4.3% accuracy boost")
_BARE_GAP = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|/)\s*", re.IGNORECASE)
_LISTED_UNITS = {"x", "%", "points"}


def _after_kind(doc: ParsedDocument, mention: Mention) -> Optional[Kind]:
    """The kind the words right after a factor or percentage decide, those alone ("speedup",
    "accuracy boost", "fewer FLOPs"), or None."""
    unit = (mention.unit or "").lower()
    unit = "x" if unit in _FACTOR_UNITS else unit
    if unit not in {"x", "%"}:
        return None
    _, right = _clause(doc, mention)
    return _head_kind(unit, " ".join(right.split()[:3]), right)


def settle_kinds(doc: ParsedDocument, mentions: Sequence[Mention], model_kinds: Sequence[Kind]) -> list[Kind]:
    """The kind of each claimed mention: what its unit and cue words decide, else the model's
    as far as the unit allows it. Numbers listed together with one unit ("12% on A, 20% on B
    and 51% on C") are one kind. When only commas, "and" or "/" stand between them, it is the one
    the words after the last decide ("2.7%/4.3% accuracy boost"), else the one the words before
    the first decide ("efficiencies of 89% and 87%"); otherwise the one the cues decide for any of
    them, else the one the model gives most of them (the first on a tie). A percentage left a size
    that is no share of something is a score (``_bare_percentage``)."""
    text = doc.text
    decided = [rule_kind(doc, m) for m in mentions]
    kinds = [d if d is not None else _fits_unit(m, k) for m, d, k in zip(mentions, decided, model_kinds)]
    groups: list[list[int]] = []
    for i, m in enumerate(mentions):
        unit = (m.unit or "").lower()
        prev = mentions[i - 1] if i else None
        if prev is not None and unit in _LISTED_UNITS and (prev.unit or "").lower() == unit \
                and _LIST_GAP.fullmatch(text, prev.end, m.start) is not None:
            groups[-1].append(i)
        else:
            groups.append([i])
    for group in (g for g in groups if len(g) > 1):
        if all(_BARE_GAP.fullmatch(text, mentions[a].end, mentions[b].start) for a, b in zip(group, group[1:])):
            # "4.86x and 2.18x speedup": the words after the last say what all measure, else the
            # words before the first do ("strong scaling efficiencies of 89% and 87%")
            shared_kind = _after_kind(doc, mentions[group[-1]]) or decided[group[0]]
            if shared_kind is not None:
                for i in group:
                    kinds[i] = shared_kind
                continue
        ruled = [decided[i] for i in group if decided[i] is not None]
        votes = [kinds[i] for i in group]
        shared = ruled[0] if ruled else max(votes, key=lambda k: (votes.count(k), -votes.index(k)))
        for i in group:
            if decided[i] is None:
                kinds[i] = shared
    return [Kind.accuracy if kind == Kind.scale and decided[i] is None and _bare_percentage(doc, mentions[i]) else kind
            for i, kind in enumerate(kinds)]


def _bare_percentage(doc: ParsedDocument, mention: Mention) -> bool:
    """A percentage that is no share of something: GUIDELINES' sizes and counts are shares only
    with what they are of ("50% of Summit", "1% of the labels"); without it, a percentage is a
    score ("won 55% matches", "65% versus DaVinci003")."""
    text = doc.text
    share = _SHARE_OF.search(text, mention.start, mention.end + 12)
    return (mention.unit or "") == "%" and not (share is not None and share.start() < mention.end)


_RESULT_COMPARATIVE = LazyPattern(lambda: rf"\s*(?:{alternation('result_comparatives')})\b", re.I)


def _factor_result(doc: ParsedDocument, mention: Mention) -> Optional[Kind]:
    """A factor the words right after it make a speed or efficiency result ("15x - 30x
    faster", "30x higher performance per watt") even when the model let it go."""
    text = doc.text
    if (mention.unit or "") not in _FACTOR_UNITS:
        return None  # a factor, or orders of magnitude ("two orders-of-magnitude faster")
    kind = rule_kind(doc, mention)
    head = text[mention.end:mention.end + 40]
    if kind in (Kind.speedup, Kind.efficiency) and _RESULT_COMPARATIVE.match(head):
        return kind
    return None


def _devices_used(doc: ParsedDocument, mention: Mention) -> Optional[Kind]:
    """A count of devices ("eight GPUs", "256 TPUv3 chips") is scale, the GPUs a paper used
    (GUIDELINES.md), even when the model let it go."""
    return Kind.scale if counted_devices(doc, mention) else None


def rescued_kind(doc: ParsedDocument, mention: Mention) -> Optional[Kind]:
    """The kind of a number the model let go that is a claim all the same: a factor stated
    faster or smaller, or a count of the devices used; None for any other."""
    return _factor_result(doc, mention) or _devices_used(doc, mention)
