"""Training examples from annotated abstracts: each document is parsed and asked exactly as a run
does (its answer from the answer cache), the rules vote, and every decision the learned models
make is labelled from the annotation: a claim's kind, whether each name is its dataset,
hardware, model or baseline, whether each name is in the document's lists. Claims are matched
to the annotated ones as ``claims eval`` matches them (value, unit and place)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from paper_claims.decisions.features import (ATTRIBUTES, LISTS, Reading, candidates, claim_features, kind_features,
                                             list_features, list_value, pair_features)
from paper_claims.decisions.paper import paper_words
from paper_claims.evaluation.matching import ScoredClaim, list_pairs, match_claims
from paper_claims.parse.same_name import same_name
from paper_claims.evaluation.values import normalise_unit
from paper_claims.rules.votes import ClaimVote, vote
from paper_claims.schemas import Document, DocumentLabels
from paper_claims.tasks import Request, Task

Row = dict[str, float]
# the lists labelled one-to-one as the scorer matches them (DEVELOPERS.md "The learned decisions": on
# datasets and models it lowered a held-out set's list, on hardware it raised every set's)
ONE_TO_ONE_LISTS = ("hardware",)


@dataclass
class Options:
    """One decision among candidates: their feature rows, which of them are right (none may be)."""

    rows: list[Row]
    right: list[bool]
    values: list[str]
    gold: Optional[str]  # the annotated value (None: the claim has none)


@dataclass
class ClaimExample:
    """One claim the rules keep: its kind features and annotated kind (None: the annotations
    have no such claim), whether its unit is right, and each attribute's choice among names."""

    kind_row: Row
    base: Row  # what the claim is, whatever the name (decisions.features.claim_features)
    said: str  # the model's label
    rules_kind: str
    gold_kind: Optional[str]
    unit_right: bool
    choices: dict[str, Options]
    fixed: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # attributes a GUIDELINES rule settles: (set, right)


@dataclass
class DocumentExamples:
    """Everything one annotated document teaches."""

    doc_id: str
    group: str  # the annotated set it comes from (the fold)
    claims: list[ClaimExample] = field(default_factory=list)
    lists: dict[str, list[tuple[Row, bool]]] = field(default_factory=lambda: {name: [] for name in LISTS})
    missed: dict[str, int] = field(default_factory=lambda: {name: 0 for name in LISTS})  # annotated names no name matches
    annotated: int = 0  # annotated claims
    weight: float = 1.0  # how much its examples count (a lab's own corrections may count more)
    words: tuple[str, ...] = ()  # its words written in lower case (decisions.paper)
    system_model: Optional[bool] = None  # annotated: its system is one of its models (None: it has no system)

    @property
    def matched(self) -> list[ClaimExample]:
        return [c for c in self.claims if c.gold_kind is not None]


def claim_row(claim: ClaimVote, text: str) -> dict[str, Any]:
    """A claim of the rules as ``claims eval`` reads a predicted row."""
    m = claim.mention
    return {"kind": claim.kind.value, "value": m.value, "value_high": m.value_high, "unit": m.unit,
            "qualifier": m.qualifier.value if m.qualifier else None, "evidence": text[m.start:m.end],
            "start": m.start, "end": m.end}


def match(votes_claims: list[ClaimVote], gold_claims: list[dict[str, Any]], text: str) -> list[tuple[ClaimVote, dict[str, Any]]]:
    """The rules' claims paired with annotated ones, one to one, as ``claims eval`` pairs them."""
    golds = [ScoredClaim(g, text, gold=True) for g in gold_claims]
    preds = [ScoredClaim(claim_row(c, text), text, gold=False) for c in votes_claims]
    return [(votes_claims[j], gold_claims[i]) for i, j in match_claims(golds, preds)]


def right(value: str, gold: Optional[str], attribute: str) -> bool:
    """Whether a value would be scored right against the annotated one."""
    return bool(gold) and same_name(value, gold, hardware=attribute == "hardware")


def list_labels(name: str, rows: list[Row], values: list[str], gold: list[str]) -> list[tuple[Row, bool]]:
    """Each name's row of a document list and whether it is listed. For the hardware list, as
    ``claims eval`` counts it: each annotated device is one name's (a name that matches a device
    another name already matches teaches nothing and is left out; in the annotated sets a quarter
    of the names that match a device do so, as counts, groups and chips render one device several
    ways); for the other lists, any name that matches an annotated one (there about one in
    seventeen matches one matched already)."""
    if name not in ONE_TO_ONE_LISTS:
        return [(row, any(right(value, g, name) for g in gold)) for row, value in zip(rows, values)]
    matched = {j for _, j in list_pairs(gold, values, hardware=name == "hardware")}
    spelled = {values[j].lower() for j in matched}  # a name written again is one name in the list
    return [(row, value.lower() in spelled) for row, value in zip(rows, values)
            if value.lower() in spelled or not any(right(value, g, name) for g in gold)]


def system_is_model(gold: dict[str, Any]) -> Optional[bool]:
    """Whether an annotated document's system is among its models, or names one of them ("X" and
    "X-7B"; None: it has no system)."""
    system = gold.get("system")
    if not system:
        return None
    return any(right(system, name, "model") or system.lower() in name.lower() or name.lower() in system.lower()
               for name in gold.get("models") or [])


def document_examples(request: Request, labels: DocumentLabels, gold: dict[str, Any], group: str) -> DocumentExamples:
    """The examples of one annotated document, from its request (the parsed, marked document) and
    the model's answer."""
    from paper_claims.rules.baselines import from_start

    doc = request.doc
    votes = vote(doc, labels)
    reading = Reading(doc, labels, votes)
    found = DocumentExamples(doc.id, group, annotated=len(gold.get("claims") or []), words=paper_words(doc.text),
                             system_model=system_is_model(gold))
    paired = {id(claim): annotated for claim, annotated in match(votes.claims, list(gold.get("claims") or []), doc.text)}
    for claim in votes.claims:
        annotated = paired.get(id(claim))
        base = claim_features(reading, claim)
        choices = {}
        for attribute in ATTRIBUTES:
            options = candidates(attribute, reading, claim)
            value = annotated.get(attribute) if annotated else None
            choices[attribute] = Options([pair_features(attribute, reading, claim, c, base) for c in options],
                                        [right(c.value, value, attribute) for c in options], [c.value for c in options],
                                        value)
        fixed = {}
        if claim.baseline is None and from_start(doc, claim.mention) is not None:
            gold_baseline = annotated.get("baseline") if annotated else None
            phrase = claim.baseline_phrase
            fixed["baseline"] = (phrase is not None, right(phrase or "", gold_baseline, "baseline") if gold_baseline
                                 else phrase is None)
        unit_right = bool(annotated) and normalise_unit(annotated.get("unit")) == normalise_unit(claim.mention.unit)
        found.claims.append(ClaimExample(kind_features(reading, claim), base, claim.label.value, claim.kind.value,
                                         str(annotated.get("kind") or "other") if annotated else None, unit_right,
                                         choices, fixed))
    listed = {name: [v.lower() for v in values] for name, values in
              (("datasets", votes.datasets), ("hardware", votes.hardware), ("models", votes.models))}
    rows = [list_features(reading, mark, listed) for mark in doc.names]
    for name in LISTS:
        values = [list_value(name, reading, mark) for mark in doc.names]
        found.lists[name] = list_labels(name, rows, values, list(gold.get(name) or []))
        found.missed[name] = sum(1 for g in gold.get(name) or [] if not any(right(v, g, name) for v in values))
    return found


def set_examples(task: Task, documents: Iterable[Document], gold: dict[str, dict[str, Any]], group: str,
                 answer: Any) -> list[DocumentExamples]:
    """The examples of an annotated set: ``answer(request)`` gives the model's labels of a request
    (from the answer cache; empty labels when the model was not asked)."""
    examples = []
    for document in documents:
        if document.error or document.id not in gold:
            continue
        request = task.prepare(document)
        labels = answer(request) if request.needs_model else request.empty_answer()
        examples.append(document_examples(request, labels, gold[document.id], group))
    return examples
