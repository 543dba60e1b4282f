"""The learned decisions applied to one document: each claim's kind, its dataset, hardware, model
and baseline (one of the names, or none), the document's lists, and a calibrated confidence per
claim, from the rules' votes and the features of ``decisions.features``. What the rules settle
as GUIDELINES facts stays theirs: the numbers, the metric, a "from X to Y" baseline; and a claim's
dataset and hardware are names of the document's lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from paper_claims.decisions.features import (ATTRIBUTES, LISTS, Candidate, Reading, candidates, claim_features,
                                             kind_features, list_features, list_value, pair_features)
from paper_claims.decisions.model import DecisionModels
from paper_claims.parse.name_words import merge_names
from paper_claims.parse.same_name import same_name
from paper_claims.rules.baselines import from_start
from paper_claims.rules.devices import counted_devices
from paper_claims.rules.votes import ClaimVote, Votes
from paper_claims.schemas import Kind


@dataclass
class Choice:
    """What an attribute was decided to be (None: nothing), and the probability that this is right."""

    value: Optional[str]
    probability: float


@dataclass
class Decided:
    """One claim as decided: its kind (and its probability), each attribute's choice, and the
    calibrated probability that every field of the claim is right."""

    vote: ClaimVote
    kind: Kind
    kind_probability: float
    attributes: dict[str, Choice] = field(default_factory=dict)
    confidence: float = 1.0


@dataclass
class DecidedLists:
    datasets: list[str]
    hardware: list[str]
    models: list[str]


def attribute_choice(models: DecisionModels, attribute: str, reading: Reading, claim: ClaimVote,
                     base: dict[str, float]) -> tuple[Choice, list[Candidate], np.ndarray]:
    """The candidate the attribute's model rates highest, if it clears the model's threshold."""
    found = candidates(attribute, reading, claim)
    trees = models.attributes[attribute]
    if not found:
        return Choice(None, 1.0), found, np.zeros(0)
    p = trees.probabilities([pair_features(attribute, reading, claim, c, base) for c in found])
    best = int(np.argmax(p))
    if p[best] >= trees.threshold:
        return Choice(found[best].value, float(p[best])), found, p
    return Choice(None, float(1.0 - p[best])), found, p


# the attributes whose name must stand in the document's list of its kind: a claim's dataset is one
# of the document's datasets, its hardware one of its hardware (GUIDELINES); a claim's model is not
# held to the models list (DEVELOPERS.md "The learned decisions": there it lowered dev2)
LISTED_ATTRIBUTES = {"dataset": "datasets", "hardware": "hardware"}


def in_list(value: str, listed: list[str], *, hardware: bool) -> bool:
    """Whether a name stands in a document list: the same name as ``claims eval`` tells names apart
    (``parse.same_name``: their words overlap, their numbers agree; a device by its canonical name),
    so a bare "GPU" is not "8 MI250X GPUs"."""
    return any(same_name(value, other, hardware=hardware) for other in listed)


def decide_claims(models: DecisionModels, reading: Reading, lists: Optional[DecidedLists] = None) -> list[Decided]:
    """Every claim the rules keep, decided; with the document's ``lists``, a claim's dataset or
    hardware that its list leaves out is none."""
    votes = reading.votes
    if not votes.claims:
        return []
    kinds = models.kind.probabilities([kind_features(reading, claim) for claim in votes.claims])
    decided, rows = [], []
    for claim, p in zip(votes.claims, kinds):
        best = int(np.argmax(p))
        one = Decided(claim, Kind(models.kind.classes[best]), float(p[best]))
        base = claim_features(reading, claim)
        probabilities: dict[str, np.ndarray] = {}
        for attribute in ATTRIBUTES:
            if attribute == "baseline" and from_start(reading.doc, claim.mention) is not None and claim.baseline is None:
                one.attributes[attribute] = Choice(claim.baseline_phrase, 1.0)  # GUIDELINES: "from X to Y", X is the baseline
                continue
            choice, _, rated = attribute_choice(models, attribute, reading, claim, base)
            if lists is not None and choice.value is not None and attribute in LISTED_ATTRIBUTES:
                listed = getattr(lists, LISTED_ATTRIBUTES[attribute])
                if not in_list(choice.value, listed, hardware=attribute == "hardware"):
                    choice = Choice(None, 1.0 - choice.probability)  # the list says it is not one
            one.attributes[attribute], probabilities[attribute] = choice, rated
        decided.append(one)
        rows.append(confidence_features(dict(zip(models.kind.classes, p.tolist())), claim.label.value, claim.kind.value,
                                        one.attributes, probabilities, base))
    confidence = models.confidence.probabilities(rows)
    for one, p in zip(decided, models.calibration(confidence)):
        one.confidence = float(p)
    return decided


def confidence_columns(confidence: float, kind_probability: float, attributes: dict[str, Choice]) -> dict[str, float]:
    """A decided claim's confidence columns as every output writes them (4 decimals): the
    confidence, the kind's probability, each attribute's."""
    return {"confidence": round(confidence, 4), "kind_confidence": round(kind_probability, 4),
            **{f"{name}_confidence": round(choice.probability, 4) for name, choice in attributes.items()}}


def confidence_features(kinds: dict[str, float], said: str, rules_kind: str, choices: dict[str, Choice],
                        probabilities: dict[str, np.ndarray], base: dict[str, float]) -> dict[str, float]:
    """What the confidence of a claim is learned from: how sure each of its decisions was (the
    probability of the choice, its margin over the next one, how many there were to choose
    from) and what the claim is (``base``: its kind, unit, place, the document's names)."""
    ranked = sorted(kinds.values(), reverse=True)
    kind = max(kinds, key=kinds.get)  # type: ignore[arg-type]
    f = {**base, "kind_p": ranked[0], "kind_margin": ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0),
         f"decided:{kind}": 1.0, "agrees": float(kind == said), "rules_agree": float(kind == rules_kind)}
    for attribute, choice in choices.items():
        p = np.sort(probabilities.get(attribute, np.zeros(0)))[::-1]
        f[f"{attribute}_p"] = choice.probability
        f[f"{attribute}_set"] = float(choice.value is not None)
        f[f"{attribute}_margin"] = float(p[0] - (p[1] if len(p) > 1 else 0.0)) if len(p) else 1.0
        f[f"{attribute}_options"] = float(min(len(p), 12))
    f["min_p"] = min([ranked[0], *(c.probability for c in choices.values())])
    return f


def decide_lists(models: DecisionModels, reading: Reading) -> DecidedLists:
    """The document's lists: each name the list's model rates at or above its threshold (and the
    devices the numbers count, which are hardware by their own words)."""
    votes: Votes = reading.votes
    listed = {"datasets": votes.datasets, "hardware": votes.hardware, "models": votes.models}
    listed = {name: [v.lower() for v in values] for name, values in listed.items()}
    marks = list(reading.doc.names)
    chosen: dict[str, list[str]] = {name: [] for name in LISTS}
    if marks:
        rows = [list_features(reading, mark, listed) for mark in marks]
        for name, trees in models.lists.items():
            p = trees.probabilities(rows)
            chosen[name] = [list_value(name, reading, mark) for mark, q in zip(marks, p) if q >= trees.threshold]
    counted = [name for m in reading.doc.mentions if (name := counted_devices(reading.doc, m))]
    return DecidedLists(merge_names(chosen["datasets"]), merge_names(chosen["hardware"], counted),
                        merge_names(chosen["models"]))
