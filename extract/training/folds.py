"""Leave one annotated set out: for each set, the decisions are learned on the others and the
set is extracted with them (answers from the answer cache), written as a run writes it and
scored by ``claims eval``; the in-sample figures (learned on every set) beside them. This is the
one honest estimate of what the project does on abstracts nobody read."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from paper_claims.decisions.decide import Choice, confidence_columns
from paper_claims.decisions.features import ATTRIBUTES
from paper_claims.decisions.model import DecisionModels
from paper_claims.evaluation import EvalReport, evaluate
from paper_claims.evaluation.reliability import calibration_error
from paper_claims.outputs.table import TableWriter
from paper_claims.schemas import Document, DocumentResult
from paper_claims.schemas.claims import certainty, uncertain
from paper_claims.sources.inputs import iter_inputs
from paper_claims.tasks import Task
from paper_claims.tasks.claims import ClaimsTask
from paper_claims.text import read_jsonl
from paper_claims.training.examples import DocumentExamples, set_examples
from paper_claims.training.learn import (Scored, attribute_score, chosen_right, confidence_row, decided, fit_decisions,
                                         list_score, score)

Answer = Callable[[Any], Any]
Outcome = tuple[str, float, dict[str, Choice], bool]  # a claim as ``learn.decided`` decides it


@dataclass(frozen=True)
class AnnotatedSet:
    """An annotated set: its name (the fold), its texts and its annotations."""

    name: str
    inputs: Path
    gold: Path

    def annotations(self) -> dict[str, dict[str, Any]]:
        return {str(g["id"]): g for g in read_jsonl(self.gold, strict=True)}


def _annotated_sets() -> dict[str, AnnotatedSet]:
    """The annotated sets of this checkout: dev and dev2 ship in ``eval/gold``; dev3 and dev4 are
    read where they live (``../shared/gold``: their texts are never copied into the project)."""
    root = Path(__file__).resolve().parents[2]
    shared = root.parent / "shared" / "gold"
    return {"dev": AnnotatedSet("dev", root / "eval/gold/dev_inputs.jsonl", root / "eval/gold/dev.jsonl"),
            "dev2": AnnotatedSet("dev2", root / "eval/gold/dev2/dev2_inputs.jsonl", root / "eval/gold/dev2/dev2.jsonl"),
            "dev3": AnnotatedSet("dev3", shared / "dev3/dev3_inputs.jsonl", shared / "dev3/dev3.jsonl"),
            "dev4": AnnotatedSet("dev4", shared / "dev4/dev4_inputs.jsonl", shared / "dev4/dev4.jsonl")}


ANNOTATED_SETS = _annotated_sets()
UNREAD = "dev4"  # the one annotated set no rule was written on


@dataclass
class Fold:
    """One held-out set's figures: ``claims eval``'s report and the calibration of the confidence."""

    name: str
    report: EvalReport
    calibration: dict[str, float] = field(default_factory=dict)


def examples_of(sets: Sequence[AnnotatedSet], task: Task, answer: Answer) -> list[DocumentExamples]:
    """The examples of every set (each document parsed, asked from the cache and voted once)."""
    found: list[DocumentExamples] = []
    for annotated in sets:
        found += set_examples(task, iter_inputs(str(annotated.inputs)), annotated.annotations(), annotated.name, answer)
    return found


def extract_set(task: Task, annotated: AnnotatedSet, answer: Answer, out: Path,
                task_of: Optional[Callable[[Document], Task]] = None) -> Path:
    """The set extracted with ``task`` as a run would write it (answers from ``answer``;
    ``task_of``: the task of each document, when they differ)."""
    writer = TableWriter(out, schema=task.schema)
    for document in iter_inputs(str(annotated.inputs)):
        if document.error:
            writer.add(DocumentResult.failed(document, document.error))
            continue
        grounding = task_of(document) if task_of is not None else task
        request = grounding.prepare(document)
        labels = answer(request) if request.needs_model else request.empty_answer()
        writer.add(grounding.ground(request, labels, 0))
    writer.close()
    return out


def rank_auc(score: np.ndarray, truth: np.ndarray) -> float:
    """How well ``score`` orders the right claims above the wrong ones (area under the ROC curve,
    ties counted half; 0.5 is chance, nan when every claim is right or every claim wrong)."""
    from scipy.stats import rankdata  # with scikit-learn (the train extra)

    positives = np.asarray(truth, dtype=bool)
    n_right, n_wrong = int(positives.sum()), int((~positives).sum())
    if not n_right or not n_wrong:
        return float("nan")
    ranks = rankdata(score)  # equal scores share their mean rank
    return float((ranks[positives].sum() - n_right * (n_right + 1) / 2) / (n_right * n_wrong))


def calibration(scored: Sequence[Scored], thresholds: dict[str, float], confident: float,
                confidence: np.ndarray, bins: int = 10) -> dict[str, float]:
    """Expected calibration error of the confidence against "every field right", how well it
    orders right claims above wrong ones (AUC), and the precision and share of claims kept at the
    confidence the training sets chose."""
    outcomes = [decided(one, thresholds) for one in scored]
    right = np.asarray([outcome[3] for outcome in outcomes], dtype=float)
    if not len(right):
        return {}
    ece = calibration_error(confidence, right.astype(bool), bins)
    kept = confidence >= confident
    rows = output_rows(outcomes, confidence)
    marked = np.asarray([uncertain(row) for row in rows], dtype=bool)
    return {"ece": float(ece), "auc": rank_auc(confidence, right), "review_auc": rank_auc(review_order(rows), right),
            "marked": float(marked.mean()), "right_marked": float(right[marked].mean()) if marked.any() else float("nan"),
            "right_unmarked": float(right[~marked].mean()) if (~marked).any() else float("nan"),
            "right": float(right.mean()), "threshold": confident,
            "kept": float(kept.mean()), "precision": float(right[kept].mean()) if kept.any() else float("nan"),
            "claims": float(len(right)), **field_orders(scored, outcomes), **field_errors(scored, outcomes)}


def output_rows(outcomes: Sequence[Outcome], confidence: np.ndarray) -> list[dict[str, float]]:
    """The confidence columns of each claim as the outputs would write them
    (``decisions.decide.confidence_columns``)."""
    return [confidence_columns(float(c), p, choices) for (_, p, choices, _), c in zip(outcomes, confidence)]


def review_order(rows: Sequence[dict[str, float]]) -> np.ndarray:
    """Where each claim stands in the order ``claims review`` shows claims (``schemas.claims.
    certainty`` of its row), as a rank (equal rows share one)."""
    keys = [certainty(row) for row in rows]
    rank = {key: i for i, key in enumerate(sorted(set(keys)))}
    return np.asarray([rank[key] for key in keys], dtype=float)


def field_orders(scored: Sequence[Scored], outcomes: Sequence[Outcome]) -> dict[str, float]:
    """How well each decision's own confidence (the kind's, each attribute's) orders its right
    decisions above its wrong ones, over the claims the annotations have (``auc:kind``, …);
    ``outcomes``: each claim as ``decided`` decided it."""
    found: dict[str, tuple[list[float], list[bool]]] = {name: ([], []) for name in ("kind", *ATTRIBUTES)}
    for one, (kind, p, choices, _) in zip(scored, outcomes):
        claim = one.claim
        if claim.gold_kind is None:
            continue
        found["kind"][0].append(p)
        found["kind"][1].append(kind == claim.gold_kind)
        for attribute, choice in choices.items():
            if attribute in claim.fixed:  # a GUIDELINES rule, not a learned decision
                continue
            found[attribute][0].append(choice.probability)
            found[attribute][1].append(chosen_right(claim, attribute, choice))
    return {f"auc:{name}": rank_auc(np.asarray(p), np.asarray(r)) for name, (p, r) in found.items()}


FIELDS = ("not a claim", "kind", "unit", *ATTRIBUTES)


def field_errors(scored: Sequence[Scored], outcomes: Sequence[Outcome]) -> dict[str, float]:
    """What keeps claims from being right in every field: the share of claims wrong in each field
    (``wrong:kind``, …; "not a claim": a number the annotations do not have, its fields not
    counted), and the share wrong in that field alone (``only:kind``, …)."""
    wrong = {name: 0 for name in FIELDS}
    only = dict(wrong)
    for one, (kind, _, choices, _) in zip(scored, outcomes):
        claim = one.claim
        if claim.gold_kind is None:
            fields = ["not a claim"]
        else:
            fields = ["kind"] * (kind != claim.gold_kind) + ["unit"] * (not claim.unit_right)
            fields += [a for a, choice in choices.items() if not chosen_right(claim, a, choice)]
        for name in fields:
            wrong[name] += 1
        if len(fields) == 1:
            only[fields[0]] += 1
    n = max(len(outcomes), 1)
    return {**{f"wrong:{name}": wrong[name] / n for name in FIELDS}, **{f"only:{name}": only[name] / n for name in FIELDS}}


def leave_one_set_out(sets: Sequence[AnnotatedSet], task: ClaimsTask, answer: Answer,
                      out: Optional[Path] = None, say: Callable[[str], None] = print,
                      examples: Optional[Sequence[DocumentExamples]] = None) -> tuple[list[Fold], list[Fold]]:
    """The held-out figures of every set, and the in-sample ones (decisions learned on all);
    ``examples``: the sets' examples when already made."""
    examples = list(examples) if examples is not None else examples_of(sets, task, answer)
    work = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="claims-folds-"))
    folds, in_sample = [], []
    everything = fit_decisions(examples)
    for annotated in sets:
        say(f"fold {annotated.name}: learning on {', '.join(s.name for s in sets if s is not annotated)}")
        held = [e for e in examples if e.group == annotated.name]
        learned = fit_decisions([e for e in examples if e.group != annotated.name])
        for decisions, kept, where in ((learned, folds, "held-out"), (everything, in_sample, "in-sample")):
            models = DecisionModels.from_dict(decisions)
            fold_task = ClaimsTask(task.settings, task.schema, task.endpoint, decisions=models)
            report = evaluate(annotated.gold, extract_set(fold_task, annotated, answer, work / where / annotated.name),
                              inputs_path=annotated.inputs)
            scored, _ = score(decisions, held)
            kept.append(Fold(annotated.name, report, calibration(scored, decisions["about"]["thresholds"],
                                                                 decisions["about"]["confident"],
                                                                 calibrated_confidence(models, decisions, scored))))
    return folds, in_sample


def calibrated_confidence(models: DecisionModels, decisions: dict[str, Any], scored: Sequence[Scored]) -> np.ndarray:
    """The confidence a run with ``decisions`` (``models``: read from them) writes for scored claims."""
    thresholds = decisions["about"]["thresholds"]
    return models.calibration(models.confidence.probabilities([confidence_row(one, thresholds)[0] for one in scored]))


def learner_figures(examples: Sequence[DocumentExamples], held: str, left_out: Optional[int] = None) -> dict[str, float]:
    """The set ``held`` scored as the learner counts when it chooses thresholds
    (``learn.attribute_score``: without the lists' hold on a claim's dataset and hardware;
    ``learn.list_score``) with decisions learned on the other sets; ``left_out``: the index of an
    abstract also left out of the training pool. Figures near ``claims eval``'s, in seconds rather
    than an extraction."""
    decisions = fit_decisions([e for i, e in enumerate(examples) if e.group != held and i != left_out])
    thresholds = decisions["about"]["thresholds"]
    scored, listed = score(decisions, [e for e in examples if e.group == held])
    matched = [s for s in scored if s.claim.gold_kind is not None]
    found = {"kind": float(np.mean([decided(s, thresholds)[0] == s.claim.gold_kind for s in matched]))}
    for attribute in ATTRIBUTES:
        found[attribute] = attribute_score(scored, attribute)(thresholds[attribute])
    for name, documents in listed.items():
        found[f"list:{name}"] = list_score(documents)(thresholds[f"list:{name}"])
    return found


def parts_of(ids: Sequence[str], parts: int) -> dict[str, int]:
    """Each document's part: the documents dealt out in their order, one to each part in turn."""
    return {doc_id: i % parts for i, doc_id in enumerate(ids)}


def learned_without(examples: Sequence[DocumentExamples], unread: str, part_of: dict[str, int],
                    part: int) -> list[DocumentExamples]:
    """The examples to learn from when ``part`` of the set ``unread`` is scored: every other
    set, and the other parts of ``unread`` as one more set."""
    return [e for e in examples if e.group != unread] + \
        [replace(e, group=f"{unread}/rest") for e in examples if e.group == unread and part_of.get(e.doc_id) != part]


def unread_in_parts(unread: AnnotatedSet, task: ClaimsTask, answer: Answer, examples: Sequence[DocumentExamples],
                    parts: int = 3, out: Optional[Path] = None, say: Callable[[str], None] = print) -> Fold:
    """The figures of a set no rule was written on when others like it are among those learned
    from, as the packaged decisions learn from it: the set in ``parts``, each part extracted with
    decisions learned on the other sets and the other parts, scored together."""
    part_of = parts_of([d.id for d in iter_inputs(str(unread.inputs)) if not d.error], parts)
    tasks = []
    for part in range(parts):
        say(f"{unread.name} part {part + 1} of {parts}: learning on the other sets and parts")
        decisions = DecisionModels.from_dict(fit_decisions(learned_without(examples, unread.name, part_of, part)))
        tasks.append(ClaimsTask(task.settings, task.schema, task.endpoint, decisions=decisions))
    where = (Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="claims-parts-"))) / "in-parts" / unread.name
    extract_set(task, unread, answer, where, task_of=lambda document: tasks[part_of[document.id]])
    return Fold(f"{unread.name} in {parts} parts", evaluate(unread.gold, where, inputs_path=unread.inputs))
