"""The whole decisions file from annotated examples: every model, each threshold chosen on the
training sets leave-one-set-out among themselves, the confidence learned from held-out
decisions and calibrated (isotonic), and the confidence a claim needs for every field to be
right nine times in ten on held-out claims.

The paper's words (``decisions.paper``) are stacked: a model candidate's row carries the
probability that the document's system is a model from word weights learned on the other sets
(each set's from the rest), so the trees learn how far that probability holds on abstracts it
was not fitted to; the file keeps the weights learned on every set."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Optional, Sequence

import numpy as np

from paper_claims.decisions.decide import Choice, confidence_features
from paper_claims.decisions.features import ATTRIBUTES, LISTS
from paper_claims.decisions.model import FORMAT, Trees
from paper_claims.decisions.paper import WordScore, system_model_features
from paper_claims.training.examples import ClaimExample, DocumentExamples, Options
from paper_claims.training.fit import (Row, attribute_f1, best_threshold, fit_binary, fit_kinds, groups_of, list_f1)
from paper_claims.training.words import Paper, fit_word_score, held_out_paper, paper_scores

CONFIDENCE_SETTINGS = {"max_iter": 60, "max_depth": 2, "min_samples_leaf": 20}
PRECISION = 0.90  # what the confidence threshold promises: every field right at this precision


def _with_paper(attribute: str, rows: Sequence[Row], probability: Optional[float]) -> list[Row]:
    """An attribute's candidate rows with the paper's features (``decisions.paper``)."""
    extra = system_model_features(attribute, probability)
    return [{**row, **extra} for row in rows] if extra else list(rows)


def fit_core(examples: Sequence[DocumentExamples], thresholds: Optional[dict[str, float]] = None,
             paper: Optional[Paper] = None) -> dict[str, Any]:
    """The kind, attribute and list models (thresholds given, else 0.5; ``paper``: each
    document's probability that its system is a model)."""
    thresholds, paper = thresholds or {}, paper or {}
    matched = [(c, e.weight, paper.get(id(e))) for e in examples for c in e.matched]
    core: dict[str, Any] = {"kind": fit_kinds([c.kind_row for c, _, _ in matched],
                                              [c.gold_kind or "other" for c, _, _ in matched], [w for _, w, _ in matched])}
    core["attributes"] = {}
    for attribute in ATTRIBUTES:
        rows = [row for c, _, p in matched for row in _with_paper(attribute, c.choices[attribute].rows, p)]
        labels = [r for c, _, _ in matched for r in c.choices[attribute].right]
        weights = [w for c, w, _ in matched for _ in c.choices[attribute].rows]
        core["attributes"][attribute] = fit_binary(rows, labels, thresholds.get(attribute, 0.5), weights)
    core["lists"] = {}
    for name in LISTS:
        pairs = [(row, truth, e.weight) for e in examples for row, truth in e.lists[name]]
        core["lists"][name] = fit_binary([r for r, _, _ in pairs], [t for _, t, _ in pairs], thresholds.get(f"list:{name}", 0.5),
                                         [w for _, _, w in pairs])
    return core


@dataclass
class Scored:
    """A claim example with a model's probabilities: its kinds, each attribute's candidates."""

    claim: ClaimExample
    kinds: dict[str, float]
    attributes: dict[str, np.ndarray]
    weight: float = 1.0  # its document's


def score(core: dict[str, Any], examples: Sequence[DocumentExamples], paper: Optional[Paper] = None
          ) -> tuple[list[Scored], dict[str, list[tuple[np.ndarray, list[bool], int, float]]]]:
    """Probabilities of ``core``'s models on ``examples``: per claim, and per document list
    (``paper``: the documents' probabilities, by default by the file's word weights)."""
    if paper is None:
        paper = paper_scores(examples, WordScore.from_dict(core.get("system_model")))
    kind = Trees.from_dict(core["kind"])
    attributes = {a: Trees.from_dict(core["attributes"][a]) for a in ATTRIBUTES}
    lists = {n: Trees.from_dict(core["lists"][n]) for n in LISTS}
    claims = [(c, e.weight, paper.get(id(e))) for e in examples for c in e.claims]
    kinds = kind.probabilities([c.kind_row for c, _, _ in claims]) if claims else np.zeros((0, len(kind.classes)))
    scored = []
    for (claim, weight, probability), p in zip(claims, kinds):
        scored.append(Scored(claim, dict(zip(kind.classes, p.tolist())),
                             {a: attributes[a].probabilities(_with_paper(a, claim.choices[a].rows, probability))
                              for a in ATTRIBUTES}, weight))
    listed = {n: [(lists[n].probabilities([r for r, _ in e.lists[n]]), [t for _, t in e.lists[n]], e.missed[n], e.weight)
                  for e in examples] for n in LISTS}
    return scored, listed


def decided(one: Scored, thresholds: dict[str, float]) -> tuple[str, float, dict[str, Choice], bool]:
    """A scored claim decided as ``decisions.decide`` decides it: its kind and probability, each
    attribute's choice, and whether every field is then right."""
    kind = max(one.kinds, key=one.kinds.get)  # type: ignore[arg-type]
    claim = one.claim
    all_right = claim.gold_kind is not None and claim.gold_kind == kind and claim.unit_right
    choices: dict[str, Choice] = {}
    for attribute in ATTRIBUTES:
        options, p = claim.choices[attribute], one.attributes[attribute]
        if attribute in claim.fixed:  # a GUIDELINES rule settles it
            is_set, is_right = claim.fixed[attribute]
            choices[attribute] = Choice("" if is_set else None, 1.0)
            all_right = all_right and is_right
            continue
        best = int(np.argmax(p)) if len(p) else -1
        chosen = best if best >= 0 and p[best] >= thresholds[attribute] else None
        choices[attribute] = (Choice(options.values[best], float(p[best])) if chosen is not None
                              else Choice(None, float(1 - p[best]) if best >= 0 else 1.0))
        all_right = all_right and option_right(options, chosen)
    return kind, one.kinds[kind], choices, all_right


def option_right(options: Options, chosen: Optional[int]) -> bool:
    """Whether the candidate ``chosen`` (None: none) is the annotated value (none where there is none)."""
    return not options.gold if chosen is None else bool(options.gold) and options.right[chosen]


def chosen_right(claim: ClaimExample, attribute: str, choice: Choice) -> bool:
    """Whether a claim's attribute as ``decided`` chose it is the annotated one (a "from X to Y"
    baseline as the GUIDELINES rule settles it); the choice is found by its value, which the
    candidates of examples made from abstracts hold once each."""
    if attribute in claim.fixed:
        return claim.fixed[attribute][1]
    options = claim.choices[attribute]
    return option_right(options, None if choice.value is None else options.values.index(choice.value))


def confidence_row(one: Scored, thresholds: dict[str, float]) -> tuple[dict[str, float], bool]:
    """A scored claim's confidence features (as ``decisions.decide`` computes them) and whether
    every field of it is right."""
    _, _, choices, all_right = decided(one, thresholds)
    probabilities = {a: p for a, p in one.attributes.items() if a not in one.claim.fixed}
    return confidence_features(one.kinds, one.claim.said, one.claim.rules_kind, choices, probabilities,
                               one.claim.base), all_right


def _confidence_rows(scored: Sequence[Scored], thresholds: dict[str, float]) -> tuple[list[dict[str, float]], list[bool]]:
    pairs = [confidence_row(one, thresholds) for one in scored]
    return [row for row, _ in pairs], [right for _, right in pairs]


def _isotonic(raw: np.ndarray, labels: Sequence[bool]) -> dict[str, list[float]]:
    from sklearn.isotonic import IsotonicRegression

    if not len(raw):
        return {"edges": [], "values": []}
    if len(set(labels)) < 2:  # every claim right, or every one wrong: that, whatever the raw confidence
        share = float(np.mean(labels))
        return {"edges": [0.0, 1.0], "values": [share, share]}
    fitted = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0).fit(raw, np.asarray(labels, dtype=float))
    return {"edges": [round(float(x), 6) for x in fitted.X_thresholds_],
            "values": [round(float(y), 6) for y in fitted.y_thresholds_]}


def precision_threshold(confidence: np.ndarray, labels: Sequence[bool], precision: float = PRECISION) -> float:
    """The lowest confidence at which the claims at or above it are all-right at ``precision``."""
    truth = np.asarray(labels, dtype=bool)
    for t in sorted(set(np.round(confidence, 4).tolist())):
        kept = confidence >= t
        if kept.any() and truth[kept].mean() >= precision:
            return float(t)
    return 1.0


def attribute_score(scored: Sequence[Scored], attribute: str) -> Callable[[float], float]:
    """The attribute's F1 over the claims of ``scored`` the annotations have, at a threshold, each
    counting as much as its document."""
    matched = [s for s in scored if s.claim.gold_kind is not None]
    options, probs = [s.claim.choices[attribute] for s in matched], [s.attributes[attribute] for s in matched]
    weights = [s.weight for s in matched]
    return lambda t: attribute_f1(options, probs, t, weights)


def list_score(documents: Sequence[tuple[np.ndarray, list[bool], int, float]]) -> Callable[[float], float]:
    """A list's F1 over the documents' names (as ``score`` rates them), at a threshold."""
    scores = np.concatenate([p for p, _, _, _ in documents]) if documents else np.zeros(0)
    truth = [t for _, ts, _, _ in documents for t in ts]
    weights = np.asarray([w for _, ts, _, w in documents for _ in ts])
    missed = sum(m * w for _, _, m, w in documents)
    return lambda t: list_f1(truth, scores, t, missed, weights)


def fit_decisions(examples: Sequence[DocumentExamples], about: Optional[dict[str, Any]] = None,
                  calibrate_on: Collection[str] = ()) -> dict[str, Any]:
    """The decisions file of ``examples`` (at least two annotated sets: thresholds and confidence
    are learned on the sets left out in turn). ``calibrate_on``: the sets whose held-out claims
    alone calibrate the confidence and choose the confident threshold (default every set)."""
    if not examples:
        raise ValueError("learning the decisions needs annotated examples")
    groups = groups_of(examples)
    if len(groups) < 2:  # one set: its halves stand in for the sets left out in turn
        examples = [replace(e, group=f"{e.group}/{i % 2}") for i, e in enumerate(examples)]
        groups = groups_of(examples)
    held_out: list[Scored] = []
    lists: dict[str, list[tuple[np.ndarray, list[bool], int, float]]] = {n: [] for n in LISTS}
    per_group: dict[str, list[Scored]] = {}
    paper = held_out_paper(examples)
    for group in groups:
        core = fit_core([e for e in examples if e.group != group], paper=paper)
        scored, listed = score(core, [e for e in examples if e.group == group], paper)
        per_group[group] = scored
        held_out += scored
        for name in LISTS:
            lists[name] += listed[name]
    thresholds: dict[str, float] = {}
    # each threshold by the held-out F1, every example counting as much as its document (yours more)
    for attribute in ATTRIBUTES:
        thresholds[attribute] = best_threshold(attribute_score(held_out, attribute))
    for name in LISTS:
        thresholds[f"list:{name}"] = best_threshold(list_score(lists[name]))
    # the confidence: learned from held-out decisions, calibrated on held-out confidences
    rows, labels = _confidence_rows(held_out, thresholds)
    raw = np.zeros(len(rows))
    start = 0
    for group in groups:
        n = len(per_group[group])
        train_rows = rows[:start] + rows[start + n:]
        train_labels = labels[:start] + labels[start + n:]
        model = Trees.from_dict(fit_binary(train_rows, train_labels, **CONFIDENCE_SETTINGS))
        raw[start:start + n] = model.probabilities(rows[start:start + n])
        start += n
    # calibrated on the held-out claims of the sets asked for (every set by default)
    kept = np.asarray([not calibrate_on or group in calibrate_on for group in groups for _ in per_group[group]],
                      dtype=bool)
    kept_raw, kept_labels = raw[kept], [label for label, keep in zip(labels, kept) if keep]
    calibration = _isotonic(kept_raw, kept_labels)
    calibrated = np.interp(kept_raw, calibration["edges"], calibration["values"]) if calibration["edges"] else kept_raw
    final = fit_core(examples, thresholds, paper)
    words = fit_word_score(examples)
    if words is not None:
        final["system_model"] = words.to_dict()
    final.update({
        "format": FORMAT,
        "confidence": fit_binary(rows, labels, **CONFIDENCE_SETTINGS),
        "calibration": calibration,
        "about": {**(about or {}), "groups": groups, "thresholds": thresholds,
                  "confident": precision_threshold(calibrated, kept_labels),
                  "documents": len(examples), "claims": sum(len(e.claims) for e in examples)},
    })
    return final
