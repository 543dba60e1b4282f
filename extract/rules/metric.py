"""A claim's metric: what its number measures, in a few words of the text (the model is not asked).

Read in this order, the first that says something wins:

1. for a count, the size of the dataset it counts ("a dataset of 230K conversations");
2. the words after the number: "81.2% top-1 accuracy", "2x higher throughput" (a comparative
   grades the noun after it), "a 5x increase in throughput", "9x in throughput", "256KB of
   memory", "70% of the disk bandwidth" ("share of disk bandwidth"), "halves the error rate",
   and the noun a comparative grades when none follows ("3x faster" -> "speed");
3. a score unit that names the metric itself ("28.4 BLEU");
4. the noun phrase a verb of change acts on: "reduces the dollar cost of X by 3x",
   "throughput is increased by 18%", "cutting the gradient size from 97MB to 0.35MB";
5. the noun phrase the number is given for: "a top-1 accuracy of 84.4%", "GPU throughputs of
   38%, 36% and 31%", "prediction times are under 29 ms", "pass@1 accuracy 50.6%";
6. what the unit measures (parse/vocab/unit_quantities: "278 mW" -> "power", "tx/sec" ->
   "throughput", "1.3B parameters" -> "model size", a time -> "latency" or "training time" when
   the sentence says so, else "time"); a counted noun as written ("12 domains").

Numbers listed together ("94.6% (95.6% for the ensemble) and 77.0%", "2.7%/4.3%", "38 and 190
mJ") share what the list says. A metric is never a bare unit, never a marked name (system,
dataset, model, device) on its own, and a name it qualifies is cut off ("the throughput of
Llama-3-8B" -> "throughput").
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.vocab import LazyPattern, alternation, words
from paper_claims.rules.metric_words import (Token, as_phrase, change_noun, change_verb, comparative_nouns,
                                             cut_at_names, data_class_bases, number_index, sentence_tokens,
                                             singulars, stops_phrase, unit_quantities)
from paper_claims.rules.number_lists import listed_together
from paper_claims.schemas import Mention

__all__ = ["metric_of"]

# the word classes of vocab: determiners, phrase_prepositions, auxiliaries, subject_links, pronouns,
# before_number_words (words between a number and what introduces it: "by a relative 30%", "are under 31 ms"),
# ratio_units (units that say nothing of what is measured), counted_quantities (the quantities of counted nouns
# in unit_quantities), ratio_words ("5.0 BLEU points")
_NUMBER_VERB = LazyPattern(lambda: rf"(?:{alternation('multiplying_verbs', 'halving_verbs')})$", re.IGNORECASE)
_SHARE_UNITS = frozenset({"%"})


def _noun_after(tokens: list[Token], i: int) -> tuple[list[Token], int]:
    """The noun phrase starting at ``i`` (up to six words, "per token" included) and where it ends."""
    found: list[Token] = []
    while i < len(tokens) and len(found) < 6:
        token = tokens[i]
        if token.kind != "word":
            break
        if token.low == "per" and found and i + 1 < len(tokens) and tokens[i + 1].kind == "word":
            found += tokens[i:i + 2]
            i += 2
            continue
        if stops_phrase(token.low) or token.low in words("comparatives") or (
                token.low == "relative" and i + 1 < len(tokens) and tokens[i + 1].low == "to"):
            break
        found.append(token)
        i += 1
    return found, i


def _object(tokens: list[Token], i: int, share: bool = False) -> Optional[str]:
    """The noun phrase after a preposition at ``i`` ("of the disk bandwidth", "in throughput"),
    determiners skipped, names cut off; a share may be of a name ("87% of Frontier")."""
    if i < len(tokens) and tokens[i].low == "terms" and i + 1 < len(tokens) and tokens[i + 1].low == "of":
        i += 2  # "in terms of X"
    while i < len(tokens) and tokens[i].low in words("determiners"):
        i += 1
    if i < len(tokens) and tokens[i].name and not share:
        return None
    found: list[Token] = []
    while i < len(tokens) and len(found) < 8:
        token = tokens[i]
        if token.kind != "word" or token.low in words("result_verbs") or token.low in words("comparison_words") or (
                token.low == "relative" and i + 1 < len(tokens) and tokens[i + 1].low == "to"):
            break
        coordinated = token.low in {"and", "or"} and found and i + 1 < len(tokens) and tokens[i + 1].kind == "word" \
            and not stops_phrase(tokens[i + 1].low) and not change_verb(tokens[i + 1].low) \
            and tokens[i + 1].low not in words("evaluative_words")  # "of multilingual and multitask supervision"
        if token.low in words("function_words") and not (token.low in words("phrase_prepositions", "determiners") and found) \
                and not coordinated:
            break
        found.append(token)
        i += 1
    if share:
        return as_phrase([token._replace(name=False) for token in found])
    return as_phrase(cut_at_names(found))


def _after(tokens: list[Token], i: int, unit: Optional[str], verb: bool) -> Optional[str]:
    """What the words after a number (or a list of numbers) at ``i`` say it measures."""
    if verb or unit == "x":  # "halves the error rate", "double the mAP", "twice the size of"
        while i < len(tokens) and tokens[i].low in words("determiners"):
            i += 1
    graded = None
    if i < len(tokens) and (tokens[i].low in words("comparatives") or tokens[i].low in comparative_nouns()):
        graded = tokens[i].low
        i += 1
    noun, j = _noun_after(tokens, i)
    following = tokens[j].low if j < len(tokens) else ""
    if noun and change_noun(noun[-1].low) and following in {"in", "of"}:
        return _object(tokens, j + 1) or as_phrase(noun)  # "a 5x increase in throughput"
    if noun and [t.low for t in noun] == ["worth"] and following == "of":
        return _object(tokens, j + 1)  # "10 minutes worth of demonstrations"
    if len(noun) > 1 and change_noun(noun[-1].low) and (
            noun[-2].low in words("measures") or noun[-2].low in words("metric_names")):
        noun = noun[:-1]  # "13% performance improvement" measures performance
    if noun:
        return as_phrase(cut_at_names(noun))
    if graded is not None:
        return comparative_nouns().get(graded)
    if following == "in":
        return _object(tokens, j + 1)  # "2-5x in latency", "by 9% in terms of accuracy"
    if following == "of" and unit in _SHARE_UNITS:
        share = _object(tokens, j + 1, share=True)
        return f"share of {share}" if share else None  # "70% of the disk bandwidth", "87% of Frontier"
    if following == "of" and unit is not None:
        return _object(tokens, j + 1)  # "256KB of memory", "1/3 of the energy", "8,700 lines of C code"
    return None


def _subject(tokens: list[Token], k: int) -> Optional[str]:
    """The noun phrase ending before ``k`` that a verb or "is" states the number of
    ("the sensitivity of model scores to prompt variations decreased from ...")."""
    return as_phrase(cut_at_names(_subject_words(tokens, k)))


def _subject_words(tokens: list[Token], k: int) -> list[Token]:
    """The words of :func:`_subject`, prepositional phrases included."""
    while k > 0 and tokens[k - 1].low in words("auxiliaries"):
        k -= 1
    found: list[Token] = []
    while k > 0 and len(found) < 8:
        token = tokens[k - 1]
        if token.kind == "num" and k > 1 and tokens[k - 2].low in words("phrase_prepositions"):
            found.insert(0, token)  # "perplexities on two data sets: 57.3 on A"
            k -= 1
            continue
        if token.kind != "word" or token.low in words("result_verbs") or token.low in words("comparison_verbs") \
                or token.low in words("evaluative_words"):  # "sets new error rates on ...:" starts at "error"
            break
        if token.low in words("determiners"):
            if k > 1 and tokens[k - 2].low in words("phrase_prepositions"):
                found.insert(0, token)
                k -= 1
                continue
            if token.low in words("demonstratives"):
                return []  # "this statistic is 58%" points back to what an earlier sentence measured
            break
        if token.low in words("function_words") and token.low not in words("phrase_prepositions"):
            break
        if token.low.endswith("ed") and token.low not in singulars() and not found[:1]:
            break
        found.insert(0, token)
        k -= 1
    return found


def _changed(tokens: list[Token], k: int) -> Optional[str]:
    """What a verb of change acts on when ``tokens[k]`` ("by", "to", "from") introduces its
    number: "reduces the KV cache by 93%", "throughput is increased by 18%"."""
    if tokens[k].low == "to":  # "from 97MB to 0.35MB": the verb stands before "from"
        for j in range(k - 1, max(-1, k - 12), -1):
            if tokens[j].low == "from" and any(t.kind == "num" for t in tokens[j:k]):
                k = j
                break
    for v in range(k - 1, max(-1, k - 15), -1):
        token = tokens[v]
        if token.low in {"and", ",", ";"} and (by := _earlier_by(tokens, v)) is not None and (said := _changed(tokens, by)):
            # "reduces X by 2x and Y by 3x"; "improves the throughput of A by 1.2x and B by 2.4x"
            return as_phrase(cut_at_names(tokens[v + 1:k])) or said
        if token.kind == "num" or token.text in {";", ":", "(", ")", ".", ","}:
            return None
        phrasal = token.low == "up" and v > 0 and change_verb(f"{tokens[v - 1].low} up")
        if change_verb(token.low) or phrasal:
            if v == k - 1:
                return _subject(tokens, v - phrasal)  # passive or intransitive: "X is increased by"
            return as_phrase(cut_at_names(tokens[v + 1:k]))
        if change_noun(token.low) and tokens[v + 1].low in {"in", "of"}:
            return _object(tokens[:k], v + 2)  # "an average reduction in KL divergence by 0.36"
        if token.low in words("comparison_verbs"):
            return None
    return None


def _earlier_by(tokens: list[Token], v: int) -> Optional[int]:
    """The "by" of an earlier number a conjunction at ``v`` follows ("by 2x on A, 3x on B; and")."""
    for j in range(v - 1, max(-1, v - 12), -1):
        if tokens[j].low == "by" and j + 1 < v and tokens[j + 1].kind == "num":
            return j
        if tokens[j].low in {".", "(", ")"}:
            return None
    return None


def _before(tokens: list[Token], k: int, count: bool) -> Optional[str]:
    """What the words before a number (or a list of numbers) starting at ``k`` say it measures
    (for a count, only a measure: "a depth of 152 layers", "a context length of 128K tokens")."""
    while k > 0 and tokens[k - 1].low in words("before_number_words"):
        k -= 1
        if tokens[k].low == "than" and k > 0 and tokens[k - 1].low in words("comparatives"):
            k -= 1  # "are lower than 10 ms"
    if k > 1 and tokens[k - 1].low in {"and", "or", ","} and tokens[k - 2].low in words("number_words"):
        k -= 2  # "speedups of six and ten times"
    if k == 0:
        return None
    connector = tokens[k - 1].low
    if connector in words("change_links") and not count:
        changed = _changed(tokens, k - 1)
        if changed or connector == "by":
            return changed
    if connector in words("measure_links", "subject_links") or connector == ":":
        # "X is 5%", "perplexities on two data sets: 57.3 on A and 65.8 on B": the phrase with its
        # prepositions; "a top-1 accuracy of 84.4%": the noun phrase right before
        subject = connector in words("subject_links") or connector == ":"
        noun = _subject_words(tokens, k - 1) if subject else _noun_before(tokens, k - 1)
        if not noun or noun[-1].low in words("not_measures"):
            return None
        start = k - 1 - len(noun)
        if start > 0 and tokens[start - 1].low in words("comparison_words"):
            return None  # "improvements over X of 39%": X is the baseline
        if count and noun[-1].low not in words("measures"):
            return None
        if all(token.candidate for token in noun):
            return None  # "methods such as X of 18.3%": the figure of a name, not a measure
        return as_phrase(cut_at_names(noun))
    noun = _noun_before(tokens, k)
    if noun and (noun[-1].low in words("measures") or noun[-1].low in words("metric_names")):
        return as_phrase(noun)  # "pass@1 accuracy 50.6%"
    if not count and tokens[k - 1].kind == "word":
        object_ = _changed(tokens, k)  # "speeds up motion planning 45x"
        return object_ if object_ and not change_verb(tokens[k - 1].low) else None
    return None


def _noun_before(tokens: list[Token], k: int) -> list[Token]:
    """The noun phrase ending before ``k`` (up to five words; "per image" included)."""
    found: list[Token] = []
    while k > 0 and len(found) < 5:
        token = tokens[k - 1]
        if token.kind != "word":
            break
        if token.low == "per" and found and k > 1 and tokens[k - 2].kind == "word":
            found.insert(0, token)
            k -= 1
            continue
        if stops_phrase(token.low) or change_verb(token.low) or (token.low.endswith("ed") and token.low not in singulars()):
            break
        found.insert(0, token)
        k -= 1
    return found


def _dataset_size(tokens: list[Token], k: int) -> Optional[str]:
    """"a dataset of 230K conversations", "the benchmark comprises 817 questions": the size of
    the data class word right before the count."""
    for j in range(k - 1, max(-1, k - 6), -1):
        token = tokens[j]
        if token.kind != "word":
            return None
        if token.low in data_class_bases():
            return f"{data_class_bases()[token.low]} size"
        # without "span": "a corpus spanning 100 languages" counts languages, not the corpus
        if not (token.low in words("function_words") or token.low in words("result_verbs", without=("span",))):
            return None
    return None


def _unit_apart(tokens: list[Token], i: int) -> Optional[str]:
    """A unit written after a number the parser read without one ("170,000 tx/sec", "3 tokens
    per second"): the words, when they measure a quantity that is not a count."""
    noun, _ = _noun_after(tokens, i)
    if not noun:
        return None
    unit = " ".join(token.text for token in noun)
    return unit if _unit_quantity(unit, "") not in {None, *words("counted_quantities")} else None


def _unit_quantity(unit: str, sentence: str) -> Optional[str]:
    """What a unit measures: "mW" power, "frames/s" throughput, a time latency or training time
    when the sentence says so."""
    low = unit.lower().strip()
    parts = re.split(r"\s*/\s*|\s+per\s+", low)
    if len(parts) > 1 and low not in unit_quantities():
        if unit_quantities().get(parts[-1]) == "time":
            return "throughput"
        low = parts[0]
    quantity = unit_quantities().get(low)
    if quantity == "time":
        said = {word.lower() for word in re.findall(r"[A-Za-z]+", sentence)}
        if "latency" in said:
            return "latency"
        if said & words("training_verbs"):
            return "training time"
    return quantity


def metric_of(doc: ParsedDocument, mention: Mention, mentions: Sequence[Mention] = (),
              names: Sequence[tuple[int, int]] = (), candidates: Sequence[tuple[int, int]] = ()) -> Optional[str]:
    """What the number measures, in a few words of the text, or None.

    ``mentions`` are the document's numbers (to read a list of them as one), ``names`` the
    spans of the names typed dataset, hardware or model, the system's and the compared names'
    (never a metric on their own), ``candidates`` the spans of every candidate name (a phrase is
    cut before one: "the memory of Py Torch")."""
    text = doc.text
    left, right = doc.sentence_around(mention.start, mention.end)
    near = [m for m in mentions if left <= m.start < right]
    group = listed_together(doc, mention, near)
    tokens = sentence_tokens(doc, left, right, [mention, *near], names, candidates)
    own, first, last = (number_index(tokens, m.start) for m in (mention, group[0], group[-1]))
    unit = mention.unit or next((m.unit for m in reversed(group) if m.unit and m.start > mention.start), None)
    apart = _unit_apart(tokens, last + 1) if unit is None else None
    unit = unit or apart  # a unit the parser left apart: "170,000 tx/sec", "45 and 70 mJ"
    count = unit not in {None, *words("ratio_units")} and unit_quantities().get(unit.lower()) in {None, *words("counted_quantities")}
    if (count or unit is None) and mention.value >= 1 and (size := _dataset_size(tokens, first)):
        return size  # "a dataset of 230K conversations"
    # "a 5-bit quantizer", "the memory of a 1,000-layer network": the words around such a number
    # are about the noun it describes, not about what the number measures
    compound = unit not in words("ratio_units") and re.search(r"\d-[A-Za-z]+$", mention.text) is not None
    if not count and apart is None:
        verb = _NUMBER_VERB.search(mention.text) is not None
        if not compound and (found := _after(tokens, own + 1, unit, verb)):
            return found
        if last != own and (found := _after(tokens, last + 1, unit, verb)):
            return found
    if unit and unit.lower() in words("metric_names"):
        return unit  # "28.4 BLEU"
    if not compound and (found := _before(tokens, first, count)):
        return found
    if unit is None or unit in words("ratio_units"):
        return None
    return _unit_quantity(unit, text[left:right]) or (unit if count and unit.lower() not in unit_quantities() else None)
