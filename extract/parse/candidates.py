"""Candidate name spans for the model to label, found by generic text patterns only.

A candidate is a span that could name a dataset, a model, hardware, the paper's system or a
baseline: a name-like token run (inner capitals, digits, hyphens, versions: ``GSM8K``,
``Llama-3-70b``, ``TPU v3``, ``Chatbot Arena`` mid-sentence), a Title Case run with its
acronym (``Visual Haystacks (VHs)``), a short phrase ending in a class word that GUIDELINES.md
names (dataset, benchmark, corpus, GPU, TPU, CPU, FPGA, robot, accelerator, device), with
the count in front of hardware (``8 A100 GPUs``), and the noun phrase a comparison names
(``than standard attention``). No names of particular datasets, models or devices are known
here: the model says what each candidate is.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from paper_claims.parse.families import model_family
from paper_claims.parse.name_words import CORE_HOST
from paper_claims.parse.vocab import LazyPattern, alternation, words
from paper_claims.text import LOST_SPACE, whole_word_spans

__all__ = ["Candidate", "field_term", "find_candidates", "not_a_name"]


@dataclass(frozen=True)
class Candidate:
    """A span of the text that may name something; ``text == source[start:end]``."""

    start: int
    end: int
    text: str
    compared: bool = False  # only a "than X" phrase: a possible baseline, hardly a name

    @property
    def key(self) -> str:
        """What makes two occurrences the same name (case and spacing ignored)."""
        return " ".join(self.text.lower().split())


# a word; a dash pair ("---X---", "--X") sets a word apart like a space, and so does a full stop
# whose space was lost ("costs.TinyNAS")
_WORD = re.compile(rf"(?:(?<![\w\\/.@-])|(?<=--)|{LOST_SPACE})[A-Za-z0-9][A-Za-z0-9]*(?:[-+&_/][A-Za-z0-9]+|\.\d+)*"
                   r"(?:(?![\w@-])|(?=--))")
@lru_cache(maxsize=None)
def _stop() -> frozenset[str]:
    """The generic words (vocab/generic_words: words that look like names but name nothing
    particular) and the metric names but those still proposed as candidates
    (vocab/candidate_metric_names: WER, AUROC, EM, ...)."""
    return words("generic_words") | words("metric_names", without=words("candidate_metric_names"))


# a class phrase ends in a device word or a class of data (or "test set"); not in a benchmark task
# or platform word (vocab/data_tasks.txt): "downstream tasks" would be a candidate in most
# abstracts (72 of the 672 texts' excerpts change), and a named task is found by _named_tasks
_CLASS_WORD = LazyPattern(lambda: rf"\b(?:{_hardware_class()}|{alternation('data_classes')}|test\s+sets?)\b", re.IGNORECASE)
_HARDWARE_WORD = LazyPattern(lambda: rf"^(?:{_hardware_class()})$", re.IGNORECASE)


def _hardware_class() -> str:
    """The device words a hardware phrase ends in."""
    return alternation("device_classes", "device_words")


# a count before a device word: digits with thousands commas ("1,024"), never a number and the
# comma after it ("In 2021, TPU v5e"), or a number word
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
_COUNT = LazyPattern(lambda: rf"(?<![\w.,])(?:{_DIGITS}(?:\s*(?:--|-|–|to)\s*{_DIGITS})?|"
                             + alternation("number_words", "count_words") + r")\s+$", re.IGNORECASE)
# the word before a class word's modifiers: a whole word (not the end of "I/O" or "TPU's"); a
# word that ends its sentence ("quickly.") is not one
_PREVIOUS_WORD = re.compile(r"(?<![\w/'’.])([A-Za-z0-9][\w.+&'-]*)\s+$")
_VERSION = re.compile(r"^(?:v?\d{1,2}(?:\.\d+)?[A-Za-z]?|\d+[xX]\d+[BbMm]|[A-Z]|(?:19|20)\d\d)$")  # a year ends a name: "PASCAL VOC 2012"
_COMPARE = LazyPattern(lambda: rf"\b(?:{alternation('comparison_words', 'comparison_verbs')})\s+", re.IGNORECASE)
_URL = LazyPattern(lambda: rf"(?:https?://|www\.|github\.com|\w+\.(?:{alternation('web_domains')})/)\S*", re.IGNORECASE)
# where a clause starts, so a capital says nothing: a sentence's start, or an enumeration
# marker's ("(2) Aligned with ...", "(ii) Image classification: ...")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*|(?<![\w(])\((?:\d{1,2}|[ivx]{1,4}|[a-h])\)\s+)$")


def field_term(name: str) -> bool:
    """A spelled-out term of the field with its abbreviation, "Large Language Models (LLMs)",
    "Deep Neural Networks (DNNs)": a general word, not a name."""
    match = re.search(r"\(([A-Za-z]+)\)$", name.strip())
    return match is not None and (match.group(1).lower() in _stop() or match.group(1).lower().rstrip("s") in _stop())


# a hyphenated modifier ("IO-aware", "TTL-based", "post-training") describes, it names nothing
_MODIFIER = LazyPattern(lambda: rf"^(?:(?:{alternation('modifier_prefixes')})-\S+|\S+-(?:{alternation('modifier_suffixes')}))$",
                        re.IGNORECASE)


def not_a_name(text: str, start: int, end: int) -> bool:
    """A span that reads as a name but is none: a hyphenated modifier ("IO-aware",
    "Large-batch"), a pronoun, or an author cited as "X et al."."""
    span = text[start:end]
    modifier = _MODIFIER.match(span) is not None and not model_family(span)  # "T5-based" still names T5
    return (modifier or span.lower() in words("pronouns")
            or re.match(r"\s+et\s+al\b", text[end:end + 8]) is not None)


def _name_like(token: str, sentence_start: bool) -> bool:
    """Whether a token reads as (part of) a name rather than an ordinary word."""
    if token.lower() in _stop() or token[0].isdigit():
        return False  # a number with its unit ("4.8x", "128-layer") is the parser's
    inner = token[1:]
    if any(map(str.isupper, inner)) or (any(map(str.isdigit, token)) and any(map(str.isalpha, token))):
        return True
    if "-" in token and token[0].isupper():
        return True
    return token[0].isupper() and not sentence_start and len(token) > 1


def _runs(text: str, avoid: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of name-like tokens joined by single spaces; a version (``2``, ``v3``) may follow."""
    runs: list[tuple[int, int]] = []
    blocked = sorted([m.span() for m in _URL.finditer(text)] + list(avoid))
    ends = [b for _, b in blocked]
    reach = list(itertools.accumulate(ends, max)) if ends else []  # furthest end among the first i spans
    for match in _WORD.finditer(text):
        s, e = match.span()
        i = bisect.bisect_right(blocked, (s, float("inf")))  # the spans starting at or before s
        if i and reach[i - 1] > s:
            continue
        token = match.group(0)
        start = bool(_SENTENCE_START.search(text[max(0, s - 8) : s]))
        joined = runs and text[runs[-1][1] : s] in {" ", "-"}
        if _name_like(token, start):
            if joined:
                runs[-1] = (runs[-1][0], e)
            else:
                runs.append((s, e))
        elif joined and _VERSION.match(token):
            runs[-1] = (runs[-1][0], e)
    return runs


def _with_acronym(text: str, s: int, e: int) -> tuple[int, int]:
    """Extend a run by an acronym in parentheses right after it: ``Long Arena (LA)``."""
    m = re.match(r" \(([A-Z][A-Za-z0-9-]{1,12})\)", text[e:])
    return (s, e + m.end()) if m else (s, e)


_TITLE_RUN = LazyPattern(lambda: rf"(?<![\w-])[A-Z][a-z]+(?:[ -](?:(?:{alternation('title_joiners')})\s)?[A-Z][a-z]+){{0,5}}"
                                  r"\s?\([A-Z][A-Za-z0-9]+\)")


def _title_run(text: str) -> list[tuple[int, int]]:
    """Title Case word runs followed by their acronym, small joining words allowed:
    ``Visual Haystacks (VHs)``, ``Mixture of Experts (MoE)``."""
    found = []
    for m in _TITLE_RUN.finditer(text):
        found.append(m.span())
    return found


# a plain lower-case word ending in -s, -ly or -ed: a verb or an adverb ("requires", "typically", "used")
_VERB_FORM = re.compile(r"[a-z]+(?<!s)s|[a-z]+ly|[a-z]+ed")
# a named benchmark task (GUIDELINES.md lists benchmark tasks as datasets): a name, up to three
# more words (a year, a lower-case word, another name) and "task", "challenge" or "competition",
# a year after it ("ILSVRC 2015 classification task", "ISBI cell tracking challenge 2015")
_TASK_TAIL = LazyPattern(lambda: r"(?:\s(?:(?:19|20)\d\d|[a-z]+|[A-Z][\w]*(?:-[\w]+)+)(?![\w-])){0,3}"
                                 rf"\s(?:{alternation('task_heads', base=True)})(?:\s(?:19|20)\d\d)?(?![\w-])")
_NAME_PART = LazyPattern(lambda: rf"\b(?:{alternation('name_part_links')})\s+$")


def _named_tasks(text: str, runs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """A name run with the words that make it a benchmark task ("WMT 2014 English-to-German
    translation task"); a function word or a verb between them makes no task name, and a run
    after "to", "and", "or", "of" is only part of a name. A task needs a year or another name
    in its words ("X question answering task" names X); a challenge or competition does not."""
    found = []
    for s, e in runs:
        m = _TASK_TAIL.match(text, e)
        if not m or _NAME_PART.search(text[max(0, s - 5):s]):
            continue  # "English to French translation task": the run is half a name
        words = m.group(0).split()[:-1]
        if m.group(0).split()[-1] == "task" and all(re.fullmatch(r"[a-z]+", w) for w in words) \
                and not re.search(r"\b(?:19|20)\d\d\b", text[s:e]):
            continue  # "SQuAD question answering task": the name alone names the benchmark
        if not any(w.lower() in _phrase_stop() or _VERB_FORM.fullmatch(w) for w in words):
            found.append((s, m.end()))
    return found


def _class_phrases(text: str) -> list[tuple[int, int]]:
    """Up to three modifiers and a class word; a hardware phrase keeps its count. A plain
    lower-case word ending in -s, -ly or -ed ends the modifiers (a verb or adverb)."""
    found = []
    for m in _CLASS_WORD.finditer(text):
        s, e = m.span()
        cursor, kept = s, 0
        while kept < 3:
            prev = _PREVIOUS_WORD.search(text, max(0, cursor - 40), cursor)
            if not prev or prev.group(1).lower() in words("modifier_stops", "common_adjectives") \
                    or prev.group(1).lower() in words("number_words", "count_words") \
                    or prev.group(1).endswith(".") or prev.group(1).lower() in words("use_verbs"):
                break  # a sentence's end, or a verb of use ("using GPUs", "deploy modern robots")
            word = prev.group(1)
            if re.fullmatch(r"\d+", word) and re.search(r"\b[A-Z]{2,}\s+$", text[max(0, cursor - len(prev.group(0)) - 12):cursor - len(prev.group(0))]):
                cursor -= len(prev.group(0))  # a model number after its series ("RTX 4090 GPUs")
                continue
            if re.fullmatch(r"[\d,.]+", word) or _VERB_FORM.fullmatch(word):
                break  # a verb or adverb ("requires", "typically", "used"), not a modifier
            cursor -= len(prev.group(0))
            kept += 1
        hardware = _HARDWARE_WORD.match(m.group(0)) is not None
        if hardware:
            count = _COUNT.search(text, max(0, cursor - 30), cursor)
            if count:
                cursor -= len(count.group(0))
        if kept or (hardware and cursor < s):
            found.append((cursor, e))
    return found


def _core_hosts(text: str) -> list[tuple[int, int]]:
    """The computers a count of cores describes ("8-core machine", "4 core edge computer"):
    "machine" and "computer" end no class phrase, since alone they name other things."""
    return [m.span() for m in CORE_HOST.finditer(text)]


_PHRASE_WORD = re.compile(r"\s*([A-Za-z][\w+&'/.-]*[\w+]|[A-Za-z])")


def _phrase_stop() -> frozenset[str]:
    """The words that end a compared phrase, a task name or a device example."""
    return words("modifier_stops", "phrase_stops")


_COMPARED_LEAD = LazyPattern(lambda: rf"(?:{alternation('compared_leads')})\s+", re.IGNORECASE)


def _compared(text: str, avoid: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The noun phrase right after ``than``/``over``/``compared to``: up to four words,
    ending at punctuation, a function word, a verb or a number."""
    found = []
    for m in _COMPARE.finditer(text):
        cursor, start, end, words = m.end(), None, None, 0
        lead = _COMPARED_LEAD.match(text[cursor:])
        if lead:
            cursor += lead.end()
        while words < 4:
            w = _PHRASE_WORD.match(text, cursor)
            if not w or (words and text[cursor:w.start(1)] != " "):
                break
            token = w.group(1)
            if token.lower() in _phrase_stop() or any(a <= w.start(1) < b for a, b in avoid):
                break
            start = w.start(1) if start is None else start
            end, cursor, words = w.end(1), w.end(1), words + 1
        if start is not None and end is not None and text[start:end].lower() not in _stop():
            found.append((start, end))
    return found


# a class of devices and the words that give examples of it: "mobile devices such as phones
# and tablets", "tiny IoT devices (e.g., a microcontroller with ...)"
_DEVICE_EXAMPLES = LazyPattern(lambda: rf"\b(?:{_hardware_class()})\s*(?:,\s*|\(\s*|--\s*|—\s*)?"
                                       rf"(?:e\.g\.,|{alternation('example_markers')})\s+", re.IGNORECASE)
_ITEM_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+)")


def _device_examples(text: str) -> list[tuple[int, int]]:
    """The examples a class of devices is given ("devices such as phones and tablets"): each
    item of the list after it that ends in a device word, up to three words without its article
    and without a verb or adverb ("custom designed ASICs"); a number, a function word or
    punctuation ends an item, and the list."""
    found = []
    for m in _DEVICE_EXAMPLES.finditer(text):
        cursor = m.end()
        for _ in range(6):
            lead = re.match(r"(?:an?|the)\s+", text[cursor:], re.IGNORECASE)
            cursor += lead.end() if lead else 0
            start, end, count = cursor, None, 0
            while count < 3:
                w = _PHRASE_WORD.match(text, cursor)
                if not w or (count and text[cursor:w.start(1)] != " ") or w.group(1).lower() in _phrase_stop() \
                        or w.group(1).lower() in words("function_words"):
                    break
                end, cursor, count = w.end(1), w.end(1), count + 1
            if end is None:
                break
            item = text[start:end].split()
            if _HARDWARE_WORD.match(item[-1]) and not any(_VERB_FORM.fullmatch(w) for w in item[:-1]):
                found.append((start, end))  # a device by its own words; a name is found as a name
            join = _ITEM_JOIN.match(text, end)
            if not join:
                break
            cursor = join.end()
    return found


def find_candidates(text: str, avoid: Sequence[tuple[int, int]] = ()) -> list[Candidate]:
    """Every candidate name span of ``text``, in order, without overlaps (longest wins).

    ``avoid`` holds spans (the number mentions) that a candidate may contain or follow but
    must not start inside, so a number mark and a name mark never cut each other.
    """
    runs = _runs(text, avoid)
    spans = [_with_acronym(text, s, e) for s, e in runs] + _title_run(text) + _named_tasks(text, runs)
    # a hardware phrase may hold the count mention ("8 A100 GPUs"), never cut one
    spans += [(s, e) for s, e in _class_phrases(text) + _device_examples(text) + _core_hosts(text)
              if not any(a <= s < b and e < b or a < s < b for a, b in avoid)]
    named = [(s, e) for s, e in spans if e > s]
    # a compared phrase that holds a name is that name ("surpasses powerful X": X)
    spans = named + [(s, e) for s, e in _compared(text, avoid) if not any(a < e and s < b for a, b in named)]
    spans = [(s, e) for s, e in spans if e > s and not any(a < s < b for a, b in avoid)
             and not any(a == s and (s, e) not in named for a, _ in avoid)]
    spans.sort(key=lambda span: (span[0], -(span[1] - span[0])))
    chosen: list[tuple[int, int]] = []
    for s, e in spans:
        if chosen and s < chosen[-1][1]:
            if e > chosen[-1][1] and s == chosen[-1][0]:
                chosen[-1] = (s, e)
            elif e > chosen[-1][1]:
                chosen[-1] = (chosen[-1][0], e)  # overlapping phrases: their union
            continue
        chosen.append((s, e))
    out = []
    for s, e in chosen:
        piece = text[s:e]
        stripped = piece.rstrip(" .,;:")
        if len(stripped) >= 2 and not not_a_name(text, s, s + len(stripped)) and not field_term(stripped):
            compared = not any(a < e and s < b for a, b in named)
            out.append(Candidate(s, s + len(stripped), stripped, compared))
    return _repeats(text, out, avoid)


def _repeats(text: str, found: list[Candidate], avoid: Sequence[tuple[int, int]]) -> list[Candidate]:
    """Add the other whole-word occurrences of each name (a sentence-initial "Corvid" too)."""
    taken = [(c.start, c.end) for c in found] + list(avoid)
    extra = []
    for name in dict.fromkeys(c.text for c in found if not c.compared):
        for start, end in whole_word_spans(text, name):
            if not any(a < end and start < b for a, b in taken):
                extra.append(Candidate(start, end, name))
                taken.append((start, end))
    return sorted(found + extra, key=lambda c: c.start)
