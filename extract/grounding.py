"""Turn model labels plus parser spans into claims and lists that hold nothing not in the text.

Numbers come from the parser's mentions and names from the candidate spans the model was
shown (``paper_claims.parse.marks.name_marks``); the model only chooses among them by mark number
and name letter, so every value is grounded by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.families import optimizer_name
from paper_claims.parse.kinds import rule_kind, settle_kinds
from paper_claims.parse.metric import metric_of
from paper_claims.parse.selection import INTRODUCES
from paper_claims.parse.candidates import Candidate, field_term, not_a_name
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.parse.name_words import class_code, field_word, generic_phrase, is_cloud_provider, known_hardware, looks_like_hardware, merge_names
from paper_claims.parse.marks import NameMark, name_marks
from paper_claims.text import sentence_spans
from paper_claims.schemas import Claim, ClaimLabel, DocumentLabels, Kind, LabelKind, Mention, NameCode


# device words some rules leave out (as before the vocabulary: see its unification)
_NOT_SINGULAR = ("MCU", "hardware", "smartphone", "tablet", "laptop", "machine")
_NOT_COMPOUND = ("ASIC", "accelerator", "robot", "microcontroller", "processor", "device", "chip", "cluster", "hardware",
                 "server", "phone", "smartphone", "tablet", "laptop", "board", "MCU", "machine")
_NOT_COUNTED = ("NPU", "FPGA", "ASIC", "accelerator", "robot", "microcontroller", "cluster", "hardware", "server", "phone",
                "smartphone", "tablet", "laptop", "board", "MCU", "machine")
_NOT_UNIT = ("cluster", "hardware", "smartphone", "tablet", "laptop", "board", "MCU")


@dataclass
class Grounded:
    """Claims and document lists that survived grounding, and how many answers did not."""

    system: Optional[str] = None
    datasets: list[str] = field(default_factory=list)
    hardware: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    dropped: int = 0


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets of the sentence around ``text[start:end]`` (the excerpt's sentence split)."""
    for left, right in sentence_spans(text):
        if left <= start < max(right, left + 1):
            return left, max(right, end)
    return 0, len(text)


def nearest_name(text: str, mention: Mention, marks: Sequence[NameMark]) -> Optional[str]:
    """The occurrence of one of ``marks`` closest to the mention within its sentence, as
    written there. A name after the number counts double its distance; a name holding the
    mention ("8 A100 GPUs") is at distance 0."""
    left, right = _sentence(text, mention.start, mention.end)
    best: Optional[tuple[int, str]] = None
    for mark in marks:
        for span in mark.spans:
            if not (left <= span.start < right):
                continue
            if span.start <= mention.start and span.end >= mention.end:
                distance = 0
            elif span.end <= mention.start:
                distance = mention.start - span.end
            elif span.start >= mention.end:
                distance = (span.start - mention.end) * 2
            else:
                continue  # cuts the number: not about it
            if best is None or distance < best[0]:
                best = (distance, span.text)
    return best[1] if best else None


def introduced(text: str, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """The name (not hardware) right after "we propose/introduce/present ..." (within 40
    characters), if any."""
    for left, right in sentence_spans(text):
        verb = INTRODUCES.search(text, left, right)
        if verb is None:
            continue
        after = [(span.start, mark) for mark in marks if not mark.compared and not known_hardware(mark.text)
                 for span in mark.spans if verb.end() <= span.start < min(right, verb.end() + 40)]
        if after:
            return min(after, key=lambda pair: pair[0])[1]
    return _subject(text, marks)


def _subject(text: str, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """With no "we propose": the name that opens two or more sentences or clauses ("X masks
    the input. ..., X outperforms ..."), the paper's subject."""
    starts = {m.end() for m in re.finditer(r"(?:^|[.!?]\s+|,\s+)", text)}
    counts = [(sum(1 for span in mark.spans if span.start in starts), mark) for mark in marks
              if not mark.compared and not looks_like_hardware(mark.text)]
    best = max(counts, key=lambda pair: pair[0], default=(0, None))
    return best[1] if best[0] >= 2 else None


_MODEL_NOUN = re.compile(r"\b(?:models?|LLMs?|LMs?|networks?|nets|transformers?|architectures?|encoders?|decoders?|"
                         r"checkpoints?|classifiers?|detectors?|policy|policies|agents?)\b", re.IGNORECASE)
_DATA_NOUN = LazyPattern(lambda: rf"\b(?:{alternation('data_classes')}|collections?|test\s+sets?|evaluations?|arenas?)\b", re.IGNORECASE)
_OTHER_NOUN = re.compile(r"\b(?:systems?|frameworks?|library|libraries|methods?|techniques?|approach(?:es)?|algorithms?|"
                         r"engines?|compilers?|schedulers?|optimizers?|tools?|platforms?|pipelines?|strategy|strategies|"
                         r"taxonomy|protocols?|interfaces?|modules?|services?|runtime|mechanisms?|stores?|alternatives?|solutions?|"
                         r"designs?|abstractions?|paradigms?|procedures?|schemes?|extensions?|toolkits?|packages?|"
                         r"simulators?|databases?|indexes|formats?)\b", re.IGNORECASE)


_AFTER = re.compile(r"[}$*\"'”’]*\s*(?:\(([^)]*)\))?\s*(?:,|:|[-–—]+|\s+is|\s+was)?\s*(?:an?|the)\s+([^.;:()]{0,80})", re.IGNORECASE)
_BEFORE = re.compile(r"\b(?:an?|the)\s+((?:[\w-]+\s+){0,5}[\w-]+)\s*(?:,\s*(?:called|named|dubbed|termed|the)|"
                     r"(?:called|named|dubbed|termed))\s+(?:the\s+)?$", re.IGNORECASE)
_CUT = re.compile(r"(?<![\w-])(?:that|which|who|whose|where|for|to|with|of|in|on|from|by|using|via|designed|based|built|"
                  r"trained)(?![\w-])",
                  re.IGNORECASE)


def _head_code(phrase: str) -> Optional[NameCode]:
    """The type of a description by its head, the last class noun before a relative clause
    or preposition ("an LLM serving system for ..." is no model; "a 7B language model" is;
    "a family of language models": the head follows "family/series/suite of")."""
    phrase = re.sub(r"^(?:[\w-]+\s+){0,2}?(?:family|families|series|suite|collection|set|class|version|variant|kind|type|form)\s+of\s+(?:the\s+|an?\s+)?", "", phrase.strip(),
                    flags=re.IGNORECASE)
    phrase = _CUT.split(phrase, maxsplit=1)[0]
    nouns = [(m.start(), code) for pattern, code in ((_MODEL_NOUN, NameCode.model), (_DATA_NOUN, NameCode.dataset),
                                                     (_OTHER_NOUN, NameCode.none)) for m in pattern.finditer(phrase)]
    return max(nouns, key=lambda pair: pair[0])[1] if nouns else None


def _system_code(text: str, system: NameMark) -> Optional[NameCode]:
    """What the paper says its system is: "X, a framework for ..." or "X is a system" is no
    model; "X, a 7B language model", "X (Generalist Language Model)" and "a network
    architecture called X" are models; "X: a new benchmark" a dataset. Else None."""
    for span in system.spans:
        if re.match(r"\s+(?:model|network|architecture)\b(?!s)", text[span.end:]):
            return NameCode.model  # "a pre-trained X model"
        after = _AFTER.match(text, span.end)
        if after:
            code = _head_code(after.group(2))
            if code is None and after.group(1):
                code = _head_code(after.group(1))
            if code is not None:
                return code
        before = _BEFORE.search(text[max(0, span.start - 80):span.start])
        if before and (code := _head_code(before.group(1))) is not None:
            return code
    return None


_DESCRIBED_AFTER = re.compile(r"[}$*\"'”’]*\s*(?:\([^)]*\))?\s*(?:,|:|\s*[-–—]+|\s+is|\s+was)\s*(?:an?)\s+([^.;:()]{0,80})",
                              re.IGNORECASE)
# "we propose a new X system, Y", "A smaller version of the network, Y" (not "Applied to a
# model, Y ...": an opening phrase)
_DESCRIBED_BEFORE = LazyPattern(lambda: r"(?:(?:^|[.!?]\s+)|\b(?:we|us|to|and)\s+(?:\w+\s+)?"
                                       rf"(?:{alternation('introduce_verbs')}|design|evolve|train|create|call)(?:s|d|ed)?\s+)"
                                       r"(?:an?)\s+((?:[\w-]+\s+){0,5}[\w-]+)\s*(?:,|[-–—]+|\s(?:called|named|dubbed|termed))\s*$",
                                 re.IGNORECASE)
_CLASS_LIST = re.compile(r"\b([A-Za-z]+s|corpora)\s*"
                         r"(?:,\s*(?:such\s+as|like|including|e\.g\.,?|namely)?|:|\s+(?:such\s+as|like|including|e\.g\.,?|namely))"
                         r"\s*(?:the\s+)?$", re.IGNORECASE)
_OPENING = re.compile(r"^\s*(?:on|in|across|for|with|over|under|among|from|to|at|by)\b", re.IGNORECASE)


def described(text: str, mark: NameMark) -> Optional[NameCode]:
    """The type a name's own description gives it, by the head noun of the description: an
    appositive ("X, a benchmark of ...", "X is a framework ...", "a new model, X", "an image
    classifier---X---") or the class noun of a list it stands in ("benchmarks such as X and
    Y", "two new benchmarks, X and Y"), the opening phrase of a sentence ("On both
    benchmarks, X ...") aside. None when no such description stands next to it."""
    for span in mark.spans:
        if re.match(r"\s+(?:nets|networks)\b", text[span.end:]):
            return NameCode.model  # "VGG nets": networks of that name
        expansion = re.match(r"\s*\(([^)]*)\)", text[span.end:])
        if expansion and (code := _head_code(expansion.group(1))) is not None:
            return code  # "GLaM (Generalist Language Model)"
        after = _DESCRIBED_AFTER.match(text, span.end)
        left = _sentence(text, span.start, span.end)[0]
        opening = _OPENING.match(text[left:span.start]) is not None and "," not in text[left:span.start]
        if after and not (opening and text[span.end:after.start(1)].lstrip(" }$*\"'”’").startswith(",")) and \
                (code := _head_code(after.group(1))) is not None:
            return code  # not "On X, a small model reaches ...": X opens the sentence, it is not described
        head = text[max(0, span.start - 80):span.start]
        before = _DESCRIBED_BEFORE.search(text[max(0, span.start - 120):span.start])
        if before and (code := _head_code(before.group(1))) is not None:
            return code
        listed = _CLASS_LIST.search(head)
        if listed:
            opening = text[left:span.start - len(head) + listed.end(1)]
            if not (_OPENING.match(opening) and "," not in opening) and \
                    (code := _head_code(listed.group(1))) is not None:
                return code
    return None


_ON_AFTER_NUMBER = re.compile(r"\d[^.;,]{0,40}?\b(?:on|across)\s+(?:the\s+)?(?:\w+\s+){0,1}$|"
                              r"\b(?:data|datasets?|subsets?|splits?|test\s+sets?)\s+(?:of|from)\s+(?:the\s+)?$", re.IGNORECASE)


def _evaluated_on(text: str, mark: NameMark) -> bool:
    """A name a number is measured on, or whose data is used: "84.4% on X", "a 6-point gain
    on the X", "the labeled data of X"."""
    return any(_ON_AFTER_NUMBER.search(text[max(0, span.start - 60):span.start]) for span in mark.spans)


_LINK = re.compile(r"\s*(?:,\s*(?:and|or)?|and|or|/|&)\s*")
_LAST_LINK = re.compile(r"(?:\band|\bor|/|&)\s*$")


def _coordinated(text: str, marks: Sequence[NameMark]) -> list[list[NameMark]]:
    """Groups of two or more names listed together: "X, Y, and Z", "X or Y", "X/Y" (commas
    alone may only end an opening phrase: "On X, Y reaches ...")."""
    spans = sorted((span.start, span.end, mark) for mark in marks if not mark.compared for span in mark.spans)
    runs: list[list[tuple[int, int, NameMark]]] = []
    for span in spans:
        if runs and _LINK.fullmatch(text[runs[-1][-1][1]:span[0]]):
            runs[-1].append(span)
        else:
            runs.append([span])
    groups = []
    for run in runs:
        names = list(dict.fromkeys(mark for _, _, mark in run))
        if len(names) >= 2 and _LAST_LINK.search(text[run[-2][1]:run[-1][0]]):
            groups.append(names)
    return groups


def _aliases(text: str, marks: Sequence[NameMark]) -> set[str]:
    """Letters of names that stand only in parentheses right after another name, as its other
    spelling: "GLaM (Generalist Language Model)" is one name."""
    ends = {span.end for mark in marks for span in mark.spans}
    return {mark.letter for mark in marks
            if all((m := re.search(r"\s*\(\s*$", text[max(0, span.start - 4):span.start])) and
                   span.start - len(m.group(0)) in ends and text[span.end:span.end + 1] == ")" for span in mark.spans)}


def _acronyms(marks: Sequence[NameMark]) -> list[tuple[NameMark, NameMark]]:
    """(long name, acronym) pairs: a mark "Long Name (LN)" and a mark "LN" elsewhere."""
    by_text = {m.text: m for m in marks}
    pairs = []
    for mark in marks:
        found = re.search(r"\s\(([A-Za-z][\w-]*)\)$", mark.text)
        if found and found.group(1) in by_text and by_text[found.group(1)] is not mark:
            pairs.append((mark, by_text[found.group(1)]))
    return pairs


# "Large Multimodal Models (LMMs)", "Multi-Agent Systems (MAS)": a kind of thing, spelled out
_FIELD_PLURAL = re.compile(r"\b(?:Models|Networks|Systems|Agents|Machines|Transformers)\s*\([A-Z][A-Za-z]*\)$")


# a pointer into the paper ("Sec 4.2", "Table 3") or a number format ("INT8", "FP16", "bfloat16")
_REFERENCE = re.compile(r"(?:Sec|Section|Fig|Figure|Table|Tab|Eq|Equation|Appendix|App|Alg|Algorithm)\.?\s*[A-Z]?\d[\d.]*"
                        r"|(?:U?INT|FP|BF|TF)\d{1,2}|b?float\d{1,2}", re.IGNORECASE)
# a parenthetical citation with its year: "(Dean and Ghemawat, 2004)", "(Smith et al. 2019; Lee 2020)"
_CITATION = re.compile(r"\([^()]{0,120}?\b(?:19|20)\d\d[a-z]?\)")


def _cited(text: str, mark: NameMark) -> bool:
    """Every occurrence of the name stands in a parenthetical citation: an author."""
    return all(any(m.start() < span.start and span.end < m.end()
                   for m in _CITATION.finditer(text, max(0, span.start - 120), span.end + 130))
               for span in mark.spans)


def _no_name(text: str, mark: NameMark) -> bool:
    """A candidate that is no name of a dataset, model or device: a term of the field ("Large
    Language Models (LLMs)"), a cloud provider (GUIDELINES: not hardware, nor data or a
    model), a citation key ("smith2019deep"), a pointer into the paper or a number format
    ("Sec 4.2", "INT8"), an author in a citation, a modifier, pronoun or cited author."""
    return (field_term(mark.text) or field_word(mark.text) or _FIELD_PLURAL.search(mark.text) is not None
            or _REFERENCE.fullmatch(mark.text.strip()) is not None or _cited(text, mark)
            or is_cloud_provider(mark.text) or re.fullmatch(r"[a-z]+\d{4}[a-z]*", mark.text) is not None
            or re.fullmatch(r"\S+-[a-z]+ing", mark.text) is not None  # "Q-learning", "Length-controlling": a method
            or all(not_a_name(text, span.start, span.end) for span in mark.spans))


def _count_word() -> str:
    """A count before a device word (not eleven, thirty-two or sixty-four, as before: see the
    vocabulary's unification)."""
    return rf"(?:\d+|{alternation('number_words', without=('eleven', 'thirty-two', 'sixty-four'))}|single|dual|multi)"


# a singular device word (not MCU, hardware, smartphone, tablet, laptop or machine, as before)
_SINGULAR_DEVICE = LazyPattern(lambda: rf"\b(?:{alternation('device_classes', 'device_words', base=True, without=_NOT_SINGULAR)})$",
                               re.IGNORECASE)
_NOT_A_NOUN = frozenset("""and or nor but with without in on at to for of by as from into via per than that which who
while when where whereas is are was were be been being has have had can could may might will would shall should must
do does did not also only so if then thus yet""".split())


def _noun_after(text: str, end: int) -> bool:
    """A plain lower-case noun right after ``end`` ("controller", "-level", "size"): not a function
    word, and no -s, -ed or -ing form, which may be a verb ("picks", "performing")."""
    word = re.match(r"(?: |-)([a-z]+)\b(?!-)", text[end:end + 30])
    return word is not None and word.group(1) not in _NOT_A_NOUN and re.search(r"(?:s|ed|ing)$", word.group(1)) is None


# the device words of a compound ("single-GPU", "CPU-GPU-I/O") and of a count ("8 GPU setup"), as before
_COMPOUND_DEVICE = LazyPattern(lambda: rf"{alternation('device_classes', 'device_words', without=_NOT_COMPOUND)}|I/O|IO", re.IGNORECASE)
_COUNT_WORD = LazyPattern(_count_word, re.IGNORECASE)
_COUNTED_DEVICE = LazyPattern(lambda: rf"{_count_word()}[\s-]+(?:{alternation('device_classes', 'device_words', base=True, without=_NOT_COUNTED)})",
                              re.IGNORECASE)


def _device_modifier(text: str, mark: NameMark) -> bool:
    """A device word used as a modifier of the noun after it, not a device: a hyphenated
    compound ("single-GPU training", "CPU-GPU-I/O pipelining"), a count with a singular
    device word ("six core disciplines", "8 GPU setup"), a device's memory ("GPU memory"),
    or a description of the name that follows ("a custom ASIC---called a TPU")."""
    name = mark.text.strip()
    parts = name.split("-")
    devices = [p for p in parts if _COMPOUND_DEVICE.fullmatch(p)]
    compound = len(parts) >= 2 and " " not in name and devices and (
        len(devices) >= 2 or _COUNT_WORD.fullmatch(parts[0]) is not None)
    counted = _COUNTED_DEVICE.fullmatch(name) is not None
    if (compound or counted) and all(re.match(r"\s+[a-z]", text[span.end:span.end + 3]) for span in mark.spans):
        return True
    if _SINGULAR_DEVICE.search(name) and all(_noun_after(text, span.end) for span in mark.spans):
        return True  # "robot controller", "chip-level", "CPU minutes": the device word modifies a noun
    # "GPU memory", "GPU high bandwidth memory (HBM)": a part of a device, not a device (GUIDELINES:
    # the memory of a GPU is a spec); "a custom ASIC---called a TPU": a description of the name after it
    return all(re.match(r"[\s-]+(?:(?:high[\s-]bandwidth\s+|on-chip\s+|main\s+)?(?:memory|SRAM|DRAM|HBM|VRAM|RAM|caches?))\b",
                        text[span.end:span.end + 30], re.IGNORECASE)
               or re.match(r"\W{0,3}\s*(?:,\s*)?(?:called|named|dubbed|termed)\b", text[span.end:span.end + 16], re.IGNORECASE)
               for span in mark.spans)


def _no_device(text: str, mark: NameMark) -> bool:
    """A device word that modifies another noun (``_device_modifier``), or a phrase led by a
    function word ("if fewer cores"): no hardware name."""
    return _device_modifier(text, mark) or mark.text.split()[0].lower() in _NOT_A_NOUN


def _plural_kind(name: str) -> bool:
    """A plural that names a kind of model, not a model: "LSTMs", "MLPs", "Transformers"."""
    return re.fullmatch(r"[A-Z][A-Za-z0-9]*[A-Z]s|[A-Z][a-z]+(?:er|or|net|model|network)s", name.strip()) is not None


def _plain_title(name: str) -> bool:
    """Only capitalised ordinary-looking words ("Image Classification", "Health & Medicine"):
    no digit, inner capital, hyphen or acronym that marks a name."""
    return re.fullmatch(r"[A-Z][a-z]+(?:\s+(?:&|and|of|for|the)?\s*[A-Z][a-z]+)*", name.strip()) is not None


def _written(name: str) -> bool:
    """A written name has a capital or a digit; "public benchmarks" is a description."""
    return re.search(r"[A-Z0-9]", name) is not None


def _codes(labels: DocumentLabels, marks: Sequence[NameMark], answered: bool,
           text: str = "") -> tuple[dict[str, NameCode], int]:
    """Each name letter's type, and how many of the model's letters name no mark. A name's own
    words (``class_code``) come first, then its own description (``described``: "X, a
    benchmark of ...", "models such as X"), then the type shared by the names it is listed with,
    then the model's label; what is no name, hardware without a device word and lower-case
    dataset descriptions get none, and so do plain capitalised words the model alone calls a
    dataset ("Image Classification"); "84.4% on X" makes a dataset. A document the model did
    not read gets hardware by class words only."""
    letters = {mark.letter for mark in marks}
    ruled = {m.letter: class_code(m.text) or (described(text, m) if answered else None) for m in marks
             if not m.compared and not generic_phrase(m.text) and not _no_name(text, m)}
    by_text = {m.letter: m.text for m in marks}
    by_letter = {mark.letter: mark for mark in marks}
    if not answered:  # class words are reliable on a written name; "two datasets" and the like are not
        return {letter: code for letter, code in ruled.items()
                if code == NameCode.hardware and not _no_device(text, by_letter[letter])
                or code == NameCode.dataset and _written(by_letter[letter].text)}, 0
    # a run of plain capitalised words ("Image Classification", "Humanities") is as often a
    # field or a concept as a dataset: the model's word alone does not make it one
    said = {letter: None if labels.e.get(letter) == NameCode.dataset and _plain_title(by_text[letter])
            or labels.e.get(letter) == NameCode.model and _plural_kind(by_text[letter])
            else labels.e.get(letter) for letter in ruled}
    chosen = {letter: ruled[letter] or said[letter] for letter in ruled}
    for group in _coordinated(text, marks):
        # names listed together ("X, Y and Z") are of one type: the one their own words
        # settle, else the one the model gave most of them
        votes = [ruled[m.letter] for m in group if ruled.get(m.letter)] or \
                [said[m.letter] for m in group if said.get(m.letter) not in (None, NameCode.none)]
        top = max(set(votes), key=votes.count) if votes else None
        if top is not None and votes.count(top) * 2 > len(votes):
            for m in group:
                if m.letter in chosen and not ruled[m.letter]:
                    chosen[m.letter] = top
    codes: dict[str, NameCode] = {}
    for letter, code in chosen.items():
        name = by_letter[letter].text
        if code is None or code == NameCode.none or _no_name(text, by_letter[letter]):
            continue
        if code == NameCode.hardware and (not looks_like_hardware(name) or _no_device(text, by_letter[letter])):
            continue  # a hardware name has a device word, and is no modifier of another noun
        if code == NameCode.dataset and not _written(name):
            continue  # "public benchmarks", "a new dataset": a description, not a named dataset
        if code == NameCode.model and optimizer_name(name):
            continue  # "SGD", "AdamW": an optimizer is a method, not a model
        codes[letter] = code
    for mark in marks:
        if mark.letter not in ruled or looks_like_hardware(mark.text) or ruled[mark.letter]:
            continue  # its own words settled it ("a speed-up on BERT-large" is on a model)
        if codes.get(mark.letter) != NameCode.hardware and _evaluated_on(text, mark):
            codes[mark.letter] = NameCode.dataset  # "84.4% on X": X is what it is measured on
    return codes, sum(1 for letter in labels.e if letter not in letters)


def respective(text: str, mentions: Sequence[Mention], names: Sequence[NameMark]) -> dict[int, str]:
    """"On A and B it reaches 94.6% (95.6% for X) and 77.0%, respectively": the numbers of a
    sentence with "respectively" go, in order, to the names of one type listed before them
    (a number in parentheses goes with the one before it). Mention start -> name."""
    found: dict[int, str] = {}
    for left, right in sentence_spans(text):
        if not re.search(r"\brespectively\b", text[left:right]):
            continue
        numbers = sorted((m for m in mentions if left <= m.start < right), key=lambda m: m.start)
        if len(numbers) < 2:
            continue
        listed = sorted((span.start, span.text) for mark in names for span in mark.spans
                        if left <= span.start < numbers[0].start)
        inside = [m for m in numbers if text.rfind("(", left, m.start) > text.rfind(")", left, m.start)]
        primary = [m for m in numbers if m not in inside]
        if len(listed) != len(primary):
            continue
        for number, (_, name) in zip(primary, listed):
            found[number.start] = name
        for number in inside:
            before = [m for m in primary if m.start < number.start]
            if before:
                found[number.start] = found[before[-1].start]
    return found


def _attribute(text: str, mention: Mention, code: NameCode, typed: dict[NameCode, list[NameMark]],
               baseline: Optional[NameMark], system: Optional[NameMark], kind: Kind,
               mentions: Sequence[Mention] = (), host: Optional[NameMark] = None) -> Optional[str]:
    """A claim's dataset, hardware or model: for a dataset, the name right after "N% on";
    else the paper's system when it is of that type (its claims are about it: the model that
    is measured, the benchmark that is released; not a speed-up's dataset); else the nearest
    such name in the claim's sentence that is not its baseline; else, for a result that is
    not a speed-up (speed is rarely measured on a dataset), the document's only dataset."""
    names = [mark for mark in typed[code] if mark is not baseline]
    dataset = code == NameCode.dataset
    paired = respective(text, mentions, names).get(mention.start)
    if paired is not None:
        return paired
    on = re.match(r"[^.;,]{0,30}?\s(?:on|in)\s+(?:the\s+)?", text[mention.end:mention.end + 40])
    if dataset and on:  # "34% on X": the name right after "on" is what it is measured on
        after = [m for m in names for span in m.spans if span.start == mention.end + on.end()]
        if after:
            return after[0].text
    if system in names and code != NameCode.hardware and not (dataset and kind == Kind.speedup):
        return system.text
    near = nearest_name(text, mention, names)
    if near is not None:
        return near
    if dataset and len(names) == 1 and kind != Kind.speedup:
        return names[0].text
    if code == NameCode.hardware and host is not None:
        # "We present X, a system for microcontroller-based IoT devices": the device the
        # system is introduced for, when the claim's own sentence names none
        left, right = _sentence(text, host.spans[0].start, host.spans[0].end)
        there = {mark.text for mark in names for span in mark.spans if left <= span.start < right
                 and re.search(r"\b(?:for|on)\s+(?:the\s+|an?\s+)?$", text[max(0, span.start - 12):span.start])}
        if len(there) == 1:
            return there.pop()
    return None


# the comparison words, "outperform..." and "surpass..." in any form, "beat(s)" (not "exceed", as before)
_COMPARE_BEFORE = LazyPattern(lambda: rf"\b(?:{alternation('comparison_words')}|"
                                      rf"(?:{alternation('comparison_verbs', base=True, without=('beat', 'exceed'))})\w*|beats?)\s+"
                                      r"(?:(?:the|a|an|all|both)\s+)?(?P<qualifier>(?:(?:any|prior|previous|existing|other)\s+){0,2}"
                                      r"(?:(?!(?:on|in|at|for|with|by|to|of|and|or|from|using|running)\s)[a-z][a-z-]+\s+)?)$",
                              re.IGNORECASE)


_BY = re.compile(r"(?:,[^,.;]{0,30}?)?\s+by\s+(?:[^;]{0,60}?(?:\band\s+|/))?|\s+on\s+")
_CUE = LazyPattern(lambda: rf"\b(?:(?:{alternation('comparison_verbs', base=True)})\w*|improv\w*|better|(?<!rather )than|over|compared|"
                           r"versus|vs\.?|against|relative)\b", re.IGNORECASE)


def _joined(between: str) -> bool:
    """The words between a number and the name it is compared with: no clause break, and
    other numbers only joined by "and" ("4.3x smaller and 5.5x faster than X")."""
    if re.search(r"[;:]|[.!?]\s", between) or len(between) > 100:
        return False
    if re.match(r"/\d[\d.]*\s*(?:%|x|×|points?)?\s+(?:\w+er|less|more|fewer)\b", between):
        between = between[re.match(r"/\d[\d.]*", between).end():]  # "1.5/2.1 higher than X"
    # a parallel clause: "reducing memory by 4.8x, and accelerating inference by 1.7x compared to X"
    parallel = re.match(r",?\s*and\s+\w+ing\s+(?:[\w-]+\s+){0,3}by\s+(?:up\s+to\s+)?\d[\d.,]*(?:\s*[-–]\s*\d[\d.]*)?\s*(?:x|×|%)?\s+", between)
    if parallel and not re.search(r"\d", between[parallel.end():]):
        return True
    return not re.search(r"\d", between) or (
        re.match(r"\s*(?:(?:\w+er|less|more|fewer)\s+(?:[\w-]+\s+){0,2})?and\s+\S*\d", between) is not None
        and "," not in between)


def compared_name(text: str, mention: Mention, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """The name a number is compared with in its own clause: "3x faster than X", "12% over
    X", "4.3x smaller and 5.5x faster than X", "outperforms X by 5%", "surpasses X by 7.8%
    and Y by 6.3%", "beats X by 12% on A and 34% on B", "outperforms X on 6 of the games",
    "faster than X: 3x on A, 2.4x on B"."""
    found = _compared_span(text, mention, marks)
    return found[0] if found else None


def _compared_span(text: str, mention: Mention, marks: Sequence[NameMark]) -> Optional[tuple[NameMark, Candidate]]:
    """The compared name of :func:`compared_name` and the place it stands."""
    left, right = _sentence(text, mention.start, mention.end)
    found: list[tuple[int, NameMark, Candidate]] = []
    for mark in marks:
        for span in mark.spans:
            if not (left <= span.start < right):
                continue
            if span.start >= mention.end:
                if _COMPARE_BEFORE.search(text[max(0, span.start - 40):span.start]) and _joined(text[mention.end:span.start]):
                    found.append((span.start - mention.end, mark, span))
            elif span.end <= mention.start and _BY.fullmatch(text[span.end:mention.start]):
                clause = re.split(r"[;.]\s", text[left:span.start])[-1]
                if _CUE.search(clause):
                    found.append((mention.start - span.end, mark, span))
            elif span.end <= mention.start and re.match(r"\s*:", text[span.end:span.end + 3]) and \
                    _COMPARE_BEFORE.search(text[max(0, span.start - 40):span.start]):
                found.append((len(text), mark, span))  # "faster than X: 3x on A, 2.4x on B", if nothing nearer
    if not found:
        return None
    _, mark, span = min(found, key=lambda item: item[0])
    return mark, span


def baseline_phrase(text: str, span: Candidate, marks: Sequence[NameMark]) -> str:
    """What a number is compared against, as written: the compared name with the words that
    qualify it in front ("than quantized X", "over existing open-source X") and the names
    listed with it ("compared to X and Y", "X or Y")."""
    start, end = span.start, span.end
    lead = _COMPARE_BEFORE.search(text[max(0, start - 40):start])
    if lead and lead.group("qualifier"):
        start -= len(text[max(0, start - 40):start]) - lead.start("qualifier")
    spans = sorted((c.start, c.end) for mark in marks for c in mark.spans)
    while True:
        link = re.match(r"\s*,?\s*(?:and|or)\s+", text[end:])
        nxt = next(((a, b) for a, b in spans if link and a == end + link.end()), None)
        if nxt is None:
            break
        end = nxt[1]
    return text[start:end]


def _claim(kind: Kind, mention: Mention, text: str, typed: dict[NameCode, list[NameMark]],
           by_letter: dict[str, NameMark], system: Optional[NameMark], compared: set[str] = frozenset(),
           claimed: Sequence[Mention] = ()) -> Claim:
    # the comparison in the claim's own clause; the model's baseline letters were worse than
    # this rule on both dev sets (baseline F1 dev 0.08 vs 0.41, dev2 0.13 vs 0.33)
    found = _compared_span(text, mention, list(by_letter.values()))
    baseline = found[0] if found else None
    # a gain in a sentence that claims a new state of the art is a gain over that state of the art
    record = _state_of_the_art(text, mention) if found is None and kind == Kind.improvement else None
    # a score is not measured on a device: only speed, efficiency and scale results have one
    # a parameter count is a model's size: it is measured on no dataset and no device
    size = re.fullmatch(r"(?:\w+\s+)?param(?:eter)?s?", (mention.unit or "").strip(), re.IGNORECASE) is not None
    hardware = counted_devices(text, mention) or _attribute(
        text, mention, NameCode.hardware, typed, baseline, None, kind, claimed,
        system if kind in (Kind.speedup, Kind.efficiency) else None) \
        if kind in (Kind.speedup, Kind.efficiency, Kind.scale) and not size else None
    claim = Claim(
        kind=kind,
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=metric_of(text, mention),
        dataset=None if size else _attribute(text, mention, NameCode.dataset, typed, baseline, system, kind, claimed),
        hardware=hardware,
        hardware_canonical=canonical_hardware(hardware),
        # a name compared with in any claim is a baseline, not the model measured
        model=_attribute(text, mention, NameCode.model,
                         {**typed, NameCode.model: [m for m in typed[NameCode.model] if m.letter not in compared]},
                         baseline, system, kind, claimed),
        baseline=baseline_phrase(text, found[1], list(by_letter.values())) if found else record,
        evidence=text[mention.start : mention.end],
        start=mention.start,
        end=mention.end,
    )
    claim.check_grounded(text)
    return claim


_STATE_OF_THE_ART = re.compile(r"(?:(?:the\s+)?(?:previous|prior|current|existing|best)\s+)?(?:new\s+)?"
                               r"(?:state[- ]of[- ]the[- ]art|SOTA)(?:\s+(?:results?|performance|methods?|models?|systems?|"
                               r"approach(?:es)?|baselines?|accuracy|scores?))?", re.IGNORECASE)
# a word after it that is not a function word: the phrase describes that noun
_NOUN_NEXT = re.compile(r"\s+(?!(?:on|in|at|for|of|by|with|and|or|to|while|across|over)\b)[\w-]")


def _state_of_the_art(text: str, mention: Mention) -> Optional[str]:
    """The state of the art a gain is measured against when its sentence claims a new one
    ("obtains new state-of-the-art results ..., pushing X to 80.5% (7.7 point absolute
    improvement)"), as written; None when the sentence names none."""
    left, right = _sentence(text, mention.start, mention.end)
    for found in _STATE_OF_THE_ART.finditer(text, left, right):
        if found.group(0).lower().endswith(("art", "sota")) and _NOUN_NEXT.match(text, found.end()):
            continue  # "state-of-the-art QP solvers": it describes another noun
        return found.group(0)
    return None


_GROUP = LazyPattern(lambda: rf" (?:{alternation('device_groups')})\b")


def _with_group(text: str, mark: NameMark) -> str:
    """A device name with the group word right after it, as written ("TPUv3 pod", "GPU cards")."""
    for span in mark.spans:
        group = _GROUP.match(text, span.end)
        if group:
            return text[span.start:group.end()]
    return mark.text


def counted_devices(text: str, mention: Mention) -> Optional[str]:
    """A number that counts devices is a device name with its count ("2--4 T4s", "up to 2048
    Cloud TPUv3 cores" -> "2048 Cloud TPUv3 cores"): its words after any qualifier, when its
    unit is a device."""
    unit = (mention.unit or "").strip()
    if not unit or not (_DEVICE_UNIT.search(unit) or known_hardware(unit)):
        return None
    words = text[mention.start:mention.end]
    words = re.sub(r"^(?:up\s+to|over|more\s+than|about|around|nearly|almost|at\s+least|as\s+many\s+as|on)\s+", "",
                   words, flags=re.IGNORECASE)
    counted = _COUNTED.match(words)
    # "a 4 core edge computer": the count and device word describe the noun after them
    return words if counted and looks_like_hardware(words) and not _noun_after(text, mention.end) else None


# a count of devices (no cluster, hardware, smartphone, tablet, laptop, board or MCU, as before)
_DEVICE_UNIT = LazyPattern(lambda: rf"^(?:{alternation('device_classes', 'device_words', without=_NOT_UNIT)})$", re.IGNORECASE)
_COUNTED = LazyPattern(lambda: rf"[\d]|(?:{alternation('number_words', without=('eleven', 'twelve', 'thirty-two', 'sixty-four'))})\b",
                       re.IGNORECASE)


def _factor_result(text: str, mention: Mention) -> Optional[Kind]:
    """A factor the words right after it make a speed or efficiency result ("15x - 30x
    faster", "30x higher performance per watt") even when the model let it go."""
    if (mention.unit or "") != "x":
        return None
    kind = rule_kind(text, mention)
    head = text[mention.end:mention.end + 40]
    if kind in (Kind.speedup, Kind.efficiency) and re.match(r"\s*(?:faster|higher|smaller|cheaper|less|fewer|lower|more)\b", head, re.I):
        return kind
    return None


def _devices_used(text: str, mention: Mention) -> Optional[Kind]:
    """A count of devices ("eight GPUs", "256 TPUv3 chips") is scale, the GPUs a paper used
    (GUIDELINES.md), even when the model let it go."""
    return Kind.scale if counted_devices(text, mention) else None


def ground(text: str, mentions: Sequence[Mention], labels: DocumentLabels) -> Grounded:
    """Claims whose numbers, offsets and evidence come from the parser's mentions, and
    names that are candidate spans of the text.

    The model chooses which marks are results, and the type of each marked name; the kind
    the unit and cue words decide (paper_claims.parse.kinds) wins over the model's. A document the
    model did not read (no marks) gets its hardware list from class words.
    A label that points at no mark or no name letter is dropped and counted.
    """
    marks = name_marks(text, mentions)
    by_letter = {mark.letter: mark for mark in marks}
    answered = bool(labels.c or labels.e or labels.s)
    codes, dropped = _codes(labels, marks, answered, text)
    result = Grounded(dropped=dropped)
    # the model's system letter counts only for a name the abstract repeats: a paper names
    # its own system more than once, a name it mentions once is rarely that system
    guess = by_letter.get(labels.s or "")
    system = introduced(text, marks) or (guess if guess is not None and len(guess.spans) >= 2 else None)
    if guess is not None and system is None and codes.get(guess.letter) == NameCode.model and \
            class_code(guess.text) is None and described(text, guess) is None and _system_code(text, guess) is None:
        codes.pop(guess.letter)  # the model's own contribution, and nothing says it is a model
    if system is not None:
        result.system = system.text
        said = _system_code(text, system)
        if said is None and class_code(system.text) is None and described(text, system) is None \
                and codes.get(system.letter) == NameCode.model:
            # nothing in the text says the system is a model ("We introduce X, which ranks
            # ..."): most such systems are methods, which the model calls "model" all the same
            codes.pop(system.letter, None)
        if said == NameCode.none:
            codes.pop(system.letter, None)  # "X, a framework for ...": not a model or dataset
        elif said is not None:
            codes[system.letter] = said
    if labels.s and labels.s not in by_letter:
        result.dropped += 1
    # a name and its other spelling in parentheses are one name: the first is listed
    for letter in _aliases(text, marks):
        codes.pop(letter, None)
    # "Action Chunking with Transformers (ACT)" and a later "ACT" are one name: what the text
    # says the long name is, the acronym is
    for long, short in _acronyms(marks):
        code = said if long is system and said is not None else class_code(long.text) or described(text, long)
        if code == NameCode.none:
            codes.pop(short.letter, None)
        elif code is not None:
            codes[short.letter] = code
    typed = {code: [m for m in marks if codes.get(m.letter) == code] for code in NameCode if code != NameCode.none}
    result.datasets = merge_names([m.text for m in typed[NameCode.dataset]])
    result.hardware = merge_names([_with_group(text, m) for m in typed[NameCode.hardware]],
                                  [name for m in mentions if (name := counted_devices(text, m))])
    result.models = merge_names([m.text for m in typed[NameCode.model]])
    compared = {b.letter for m in mentions if (b := compared_name(text, m, list(by_letter.values())))}
    kept: list[ClaimLabel] = []
    for label in labels.claims():
        if not 1 <= label.n <= len(mentions):
            result.dropped += 1
            continue
        if label.b is not None and label.b not in by_letter:
            result.dropped += 1
        if label.k == LabelKind.none:
            rescued = _factor_result(text, mentions[label.n - 1]) or _devices_used(text, mentions[label.n - 1])
            if rescued is None:
                continue
            label = ClaimLabel(n=label.n, k=LabelKind(rescued.value))
        kept.append(label)
    kept.sort(key=lambda label: mentions[label.n - 1].start)
    claimed = [mentions[label.n - 1] for label in kept]
    kinds = settle_kinds(text, claimed, [Kind(label.k.value) for label in kept])
    for mention, kind in zip(claimed, kinds):
        result.claims.append(_claim(kind, mention, text, typed, by_letter, system, compared, claimed))
    result.claims.sort(key=lambda claim: claim.start)
    return result

