"""Features of the learned decisions, computed on the parsed document, the model's labels and the
rules' votes: general features (where a name stands relative to a number, the words between,
the types the model and the rules give it, the claim's kind and unit, how many names of a type
the abstract has), never a list of particular names. Each feature is a name and a number; the
decision files list the names they were trained on, so a feature a file does not know is 0.

Words enter only as the words themselves ("between:on", "before:than"): which of them matter
is learned (``decisions/model``'s vocabulary is the words seen while training).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Optional, Sequence

from paper_claims.decisions.paper import system_model_features
from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import NameMark
from paper_claims.parse.name_words import base_name, class_code, data_name, known_hardware, looks_like_hardware
from paper_claims.parse.units import dimension
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.rules.baselines import baseline_phrase
from paper_claims.rules.devices import counted_devices, with_group
from paper_claims.rules.votes import ClaimVote, Votes
from paper_claims.schemas import DocumentLabels, Kind, Mention, NameCode, PaperClaim

Features = dict[str, float]
ATTRIBUTES = tuple(name for name in PaperClaim.model_fields if name != "kind")  # the names a claim is about
TYPES = tuple(code for code in NameCode if code != NameCode.none)  # what a name may be
LISTS = {"datasets": NameCode.dataset, "hardware": NameCode.hardware, "models": NameCode.model}
_WORD = re.compile(r"[A-Za-z]+(?:[-'][A-Za-z]+)*|\d+(?:[.,]\d+)*")
_CLAUSE_BREAK = LazyPattern(lambda: rf"[;:]|,\s+(?:{alternation('clause_joiners')})\b|\s[-–—]\s")
_WINDOW = 6  # words read on either side of a number or a name


def unit_class(unit: Optional[str]) -> str:
    """A coarse class of a (canonical) unit: a factor, a percentage, points, what a physical
    unit measures, a rate, a counted noun."""
    unit = (unit or "").strip()
    if not unit:
        return "none"
    if unit in ("x", "orders of magnitude"):
        return "factor"
    if unit in ("%", "points"):
        return "percent" if unit == "%" else "points"
    measured = dimension(unit)
    if measured is not None:
        return measured
    if "/" in unit or " per " in unit:
        return "rate"
    return "symbol" if len(unit) <= 4 and not unit.islower() else "noun"


@dataclass(frozen=True)
class Candidate:
    """A name a claim's attribute may be: the words that would stand in the table, where the
    name stands in the text, its mark (None for a phrase the rules made)."""

    value: str
    spans: tuple[tuple[int, int], ...]
    mark: Optional[NameMark] = None


class Reading:
    """What every feature of one document reads: its words with their offsets, the model's
    labels, the rules' votes (computed once per document)."""

    def __init__(self, doc: ParsedDocument, labels: DocumentLabels, votes: Votes,
                 system_model: Optional[float] = None) -> None:
        self.doc, self.labels, self.votes = doc, labels, votes
        self.text = doc.text
        self.system_model = system_model  # decisions.paper: whether the paper's system is a model

    @cached_property
    def words(self) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(0).lower()) for m in _WORD.finditer(self.text)]

    @cached_property
    def _word_starts(self) -> list[int]:
        return [start for start, _, _ in self.words]

    def word_index(self, offset: int) -> int:
        return bisect.bisect_left(self._word_starts, offset)

    def words_between(self, a: int, b: int) -> list[str]:
        return [w for s, e, w in self.words[self.word_index(a):self.word_index(b)] if s >= a and e <= b]

    def word_before(self, offset: int, back: int = 1) -> str:
        i = self.word_index(offset) - back
        return self.words[i][2] if i >= 0 else "^"

    def word_after(self, offset: int, ahead: int = 0) -> str:
        i = self.word_index(offset) + ahead
        return self.words[i][2] if i < len(self.words) else "$"

    @cached_property
    def label_of(self) -> dict[str, str]:
        """The model's type of each name letter."""
        return {letter: code.value for letter, code in self.labels.e.items()}

    @cached_property
    def marked_kind(self) -> dict[int, str]:
        """The model's label of each marked number, by its start."""
        kinds: dict[int, str] = {}
        for label in self.labels.claims():
            if 1 <= label.n <= len(self.doc.mentions):
                kinds[self.doc.mentions[label.n - 1].start] = label.k.value
        return kinds

    @cached_property
    def typed_count(self) -> dict[str, int]:
        return {code.value: len(marks) for code, marks in self.votes.typed.items()}

    @cached_property
    def introduced(self) -> Optional[tuple[int, int]]:
        """The sentence that introduces the paper's contribution, if any."""
        from paper_claims.parse.marks import INTRODUCES

        for a, b in self.doc.sentences:
            if INTRODUCES.search(self.text[a:b]):
                return a, b
        return None

    def kind_of(self, mark: NameMark) -> Optional[NameCode]:
        """What a name is by its own words, else by the rules (once per name)."""
        found = self._kinds.get(mark.letter, False)
        if found is False:
            own = self.facts(mark.text)[0]
            code = self.votes.codes.get(mark.letter, NameCode.none)
            found = self._kinds[mark.letter] = own if own is not None else (code if code != NameCode.none else None)
        return found  # type: ignore[return-value]

    def facts(self, value: str) -> tuple[Optional[NameCode], bool, bool]:
        """What a name's own words say (once per spelling): its class, whether its words are a
        device's, whether it is a known accelerator."""
        found = self._facts.get(value)
        if found is None:
            found = self._facts[value] = (class_code(value), looks_like_hardware(value), known_hardware(value))
        return found

    @cached_property
    def _kinds(self) -> dict[str, Any]:
        return {}

    @cached_property
    def _facts(self) -> dict[str, tuple[Optional[NameCode], bool, bool]]:
        return {}

    def clause_broken(self, a: int, b: int) -> bool:
        return _CLAUSE_BREAK.search(self.text, a, b) is not None

    def near(self, mention: Mention, spans: Sequence[tuple[int, int]]) -> Optional[tuple[int, int]]:
        """The span of ``spans`` nearest the mention (same sentence first)."""
        if not spans:
            return None
        sentence = self.doc.sentence_index(mention.start)
        return min(spans, key=lambda span: (abs(self.doc.sentence_index(span[0]) - sentence),
                                             _gap(mention.start, mention.end, *span)))


def _gap(a: int, b: int, c: int, d: int) -> int:
    """Characters between two spans (0 when they overlap)."""
    return max(0, c - b, a - d)


def _bucket(n: float, edges: Sequence[float]) -> str:
    for edge in edges:
        if n <= edge:
            return str(edge)
    return f">{edges[-1]}"


def attribute_value(attribute: str, reading: Reading, mark: NameMark, mention: Mention) -> str:
    """What a name would stand as in the table as a claim's attribute."""
    if attribute == "dataset":
        return data_name(mark.text)
    if attribute == "model":
        return base_name(mark.text)
    if attribute == "hardware":
        return with_group(reading.doc, mark)
    near = reading.near(mention, [(s.start, s.end) for s in mark.spans])
    span = next(s for s in mark.spans if (s.start, s.end) == near)
    return baseline_phrase(reading.doc, span, reading.doc.names)


def candidates(attribute: str, reading: Reading, claim: ClaimVote) -> list[Candidate]:
    """What a claim's attribute may be: every marked name (as the table would write it), the
    devices a number counts (hardware), and the rules' own choice when it is none of these."""
    found: dict[str, Candidate] = {}
    for mark in reading.doc.names:
        value = attribute_value(attribute, reading, mark, claim.mention)
        key = value.lower()
        if key not in found:
            found[key] = Candidate(value, tuple((s.start, s.end) for s in mark.spans), mark)
    if attribute == "hardware":
        for mention in reading.doc.mentions:
            counted = counted_devices(reading.doc, mention)
            if counted and counted.lower() not in found:
                found[counted.lower()] = Candidate(counted, ((mention.start, mention.end),))
    voted = rule_vote(attribute, claim)
    if voted and voted.lower() not in found:
        found[voted.lower()] = Candidate(voted, tuple(_places(reading.text, voted)))
    return list(found.values())


def rule_vote(attribute: str, claim: ClaimVote) -> Optional[str]:
    """What the rules chose for the attribute."""
    if attribute == "baseline":
        return claim.baseline_phrase
    return getattr(claim.attributes, attribute)


def _places(text: str, words: str) -> list[tuple[int, int]]:
    places, at = [], text.find(words)
    while at >= 0:
        places.append((at, at + len(words)))
        at = text.find(words, at + 1)
    return places


def claim_features(reading: Reading, claim: ClaimVote) -> Features:
    """What a claim is, whatever the name: its kinds (the model's, the rules'), its unit, where
    it stands, the words around it."""
    mention, doc = claim.mention, reading.doc
    sentence = doc.sentence_index(mention.start)
    f: Features = {
        f"kind:{claim.kind.value}": 1.0,
        f"said:{claim.label.value}": 1.0,
        f"unit:{unit_class(mention.unit)}": 1.0,
        "range": float(mention.value_high is not None),
        "qualified": float(mention.qualifier is not None),
        "sentence": min(sentence, 8) / 8,
        "last_sentence": float(sentence == len(doc.sentences) - 1),
        "intro_sentence": float(reading.introduced is not None and reading.introduced[0] <= mention.start < reading.introduced[1]),
        "numbers_in_sentence": float(sum(1 for m in doc.mentions if doc.sentence_index(m.start) == sentence)),
        "claims": float(len(reading.votes.claims)),
        "has_system": float(reading.votes.system is not None),
    }
    for code in TYPES:
        f[f"typed:{code.value}"] = float(min(reading.typed_count.get(code.value, 0), 4))
    return f


def pair_features(attribute: str, reading: Reading, claim: ClaimVote, candidate: Candidate,
                  base: Features) -> Features:
    """A claim and one name its attribute may be: where the name stands from the number (same
    clause, same sentence, sentences apart, words apart, before or after, how many names of its
    kind stand nearer), the words between and right before it, its types, whether it is the
    system or compared against, the names of its kind the document and the claim's sentence
    have, and the rules' votes; for a model, whether the paper's words say its system is one."""
    doc, mention = reading.doc, claim.mention
    f = dict(base)
    near = reading.near(mention, candidate.spans)
    sentence = doc.sentence_index(mention.start)
    own, hardware_words, known = reading.facts(candidate.value)
    code = reading.votes.codes.get(candidate.mark.letter, NameCode.none) if candidate.mark is not None else NameCode.none
    kind = own or (code if code != NameCode.none else None)
    if near is not None:
        apart = doc.sentence_index(near[0]) - sentence
        f["sentences_apart"] = float(max(-3, min(3, apart)))
        f["same_sentence"] = float(apart == 0)
        f["before_number"] = float(near[1] <= mention.start)
        f["holds_number"] = float(near[0] <= mention.start and near[1] >= mention.end)
        left, right = (near[1], mention.start) if near[1] <= mention.start else (mention.end, near[0])
        between = [w for w in reading.words_between(left, right) if w.isalpha()] if right > left else []
        f["words_apart"] = math.log1p(len(reading.words_between(left, right))) if apart == 0 else math.log1p(60)
        if apart == 0:
            f["same_clause"] = float(not reading.clause_broken(min(left, right), max(left, right)))
            for word in set(between[:_WINDOW] + between[-_WINDOW:]):
                f[f"between:{word}"] = 1.0
            f["numbers_between"] = float(sum(1 for m in doc.mentions if left <= m.start < right))
        f[f"prev:{reading.word_before(near[0])}"] = 1.0
        f[f"prev2:{reading.word_before(near[0], 2)}"] = 1.0
        f[f"next:{reading.word_after(near[1])}"] = 1.0
        f["first_sentence"] = float(doc.sentence_index(near[0]) == 0)
        f["in_intro"] = float(reading.introduced is not None and reading.introduced[0] <= near[0] < reading.introduced[1])
        gap = _gap(mention.start, mention.end, *near)
        closer = [other for other in doc.names if other is not candidate.mark and any(
            doc.sentence_index(s.start) == sentence and _gap(mention.start, mention.end, s.start, s.end) < gap
            for s in other.spans)]
        f["names_closer"] = float(min(len(closer), 4))
        f["same_kind_closer"] = float(min(sum(1 for o in closer if kind is not None and reading.kind_of(o) == kind), 3))
    else:
        f["not_in_text"] = 1.0
    f["occurrences"] = float(min(len(candidate.spans), 5))
    if kind is not None:
        same = [m for m in doc.names if reading.kind_of(m) == kind]
        f["of_its_kind"] = float(min(len(same), 4))
        f["of_its_kind_in_sentence"] = float(min(sum(1 for m in same if any(doc.sentence_index(s.start) == sentence
                                                                            for s in m.spans)), 3))
    mark = candidate.mark
    if mark is not None:
        f[f"label:{reading.label_of.get(mark.letter, 'unlabelled')}"] = 1.0
        f[f"code:{code.value}"] = 1.0
        f["system"] = float(reading.votes.system is not None and mark.letter == reading.votes.system.letter)
        f["compared"] = float(mark.letter in reading.votes.compared)
        f["only_compared"] = float(mark.compared)
        f["said_baseline"] = float(claim.baseline is not None and claim.baseline.letter == mark.letter)
    else:
        f["phrase"] = 1.0
    f[f"own:{own.value if own else 'none'}"] = 1.0
    f["hardware_words"] = float(hardware_words)
    f["known_hardware"] = float(known)
    f["capital"] = float(any(c.isupper() for c in candidate.value))
    f["digit"] = float(any(c.isdigit() for c in candidate.value))
    f["name_words"] = float(min(len(candidate.value.split()), 6))
    value = candidate.value.lower()
    for other in ATTRIBUTES:
        voted = rule_vote(other, claim)
        f[f"vote:{other}"] = float(bool(voted) and _same(voted, value))
    f["vote_none"] = float(not rule_vote(attribute, claim))
    f.update(system_model_features(attribute, reading.system_model))
    return f


def _same(a: str, b: str) -> bool:
    a = a.lower()
    return a == b or a in b or b in a


def list_features(reading: Reading, mark: NameMark, listed: dict[str, list[str]]) -> Features:
    """One name and the document's lists: its types, how often and where it stands, whether it is
    the system, compared against, or some claim's attribute by the rules."""
    doc = reading.doc
    first = mark.spans[0]
    f: Features = {
        f"label:{reading.label_of.get(mark.letter, 'unlabelled')}": 1.0,
        f"code:{reading.votes.codes.get(mark.letter, NameCode.none).value}": 1.0,
        "occurrences": float(min(len(mark.spans), 5)),
        "first_sentence": float(doc.sentence_index(first.start) == 0),
        "sentence": min(doc.sentence_index(first.start), 8) / 8,
        "system": float(reading.votes.system is not None and mark.letter == reading.votes.system.letter),
        "compared": float(mark.letter in reading.votes.compared),
        "only_compared": float(mark.compared),
        "hardware_words": float(looks_like_hardware(mark.text)),
        "known_hardware": float(known_hardware(mark.text)),
        "capital": float(any(c.isupper() for c in mark.text)),
        "digit": float(any(c.isdigit() for c in mark.text)),
        "name_words": float(min(len(mark.text.split()), 6)),
        "in_intro": float(reading.introduced is not None and reading.introduced[0] <= first.start < reading.introduced[1]),
        "answered": float(bool(reading.labels.c or reading.labels.e or reading.labels.s)),
        f"prev:{reading.word_before(first.start)}": 1.0,
        f"prev2:{reading.word_before(first.start, 2)}": 1.0,
        f"next:{reading.word_after(first.end)}": 1.0,
    }
    own = class_code(mark.text)
    f[f"own:{own.value if own else 'none'}"] = 1.0
    for name, values in listed.items():
        f[f"listed:{name}"] = float(any(_same(v, mark.text.lower()) for v in values))
    for attribute in ATTRIBUTES:
        f[f"attribute:{attribute}"] = float(sum(1 for c in reading.votes.claims
                                                if (v := rule_vote(attribute, c)) and _same(v, mark.text.lower())))
    numbers = [m for m in doc.mentions if any(doc.sentence_index(m.start) == doc.sentence_index(s.start) for s in mark.spans)]
    f["numbers_near"] = float(min(len(numbers), 6))
    return f


def kind_features(reading: Reading, claim: ClaimVote) -> Features:
    """What decides a claim's kind: the model's label, the rules' kind, the unit, the words
    around the number in its clause."""
    f = claim_features(reading, claim)
    mention = claim.mention
    for i in range(1, 3):
        f[f"before{i}:{reading.word_before(mention.start, i)}"] = 1.0
        f[f"after{i}:{reading.word_after(mention.end, i - 1)}"] = 1.0
    return f


def list_value(name: str, reading: Reading, mark: NameMark) -> str:
    """What a name stands as in a document list."""
    if name == "datasets":
        return data_name(mark.text)
    if name == "models":
        return base_name(mark.text)
    return with_group(reading.doc, mark)


KINDS = [kind.value for kind in Kind]
