"""The figures of one evaluation (``EvalReport``) and the terminal table ``claims eval`` prints.

Everywhere, a ratio with an empty denominator is 1.0 when nothing was expected and nothing
predicted, else 0.0.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field

ATTRIBUTES = ("dataset", "hardware", "model", "baseline")
SCORED = (*ATTRIBUTES, "metric")
DOC_LISTS = ("datasets", "hardware", "models")


def ratio(num: int, den: int, *, empty: float) -> float:
    """``num / den``, or ``empty`` when ``den`` is 0."""
    return num / den if den else empty


class PRF(BaseModel):
    """Counts and precision/recall/F1 (empty denominators: see the module docstring)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    precision: float = 1.0
    recall: float = 1.0
    f1: float = 1.0

    @classmethod
    def from_counts(cls, tp: int, fp: int, fn: int, **extra: Any) -> "PRF":
        """Build the scores from the counts."""
        p = ratio(tp, tp + fp, empty=1.0 if fn == 0 else 0.0)
        r = ratio(tp, tp + fn, empty=1.0 if fp == 0 else 0.0)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return cls(tp=tp, fp=fp, fn=fn, precision=p, recall=r, f1=f1, **extra)


class AttributeScore(PRF):
    """PRF over non-null values of one claim attribute, plus both-null correct negatives."""

    tn: int = 0
    accuracy: float = 1.0  # share of matched pairs that agree (match or both null)


class KindScore(PRF):
    """One kind: detection PRF (counts by gold kind for recall, by predicted kind for
    precision), kind accuracy on its matched gold claims, and the strict ``typed`` PRF."""

    n_gold: int = 0
    n_pred: int = 0
    n_matched: int = 0  # gold claims of this kind that some prediction matches
    kind_correct: int = 0  # of those, predicted with this kind
    kind_accuracy: float = 1.0
    typed: PRF = Field(default_factory=PRF)


class ReliabilityBin(BaseModel):
    """Output claims whose confidence falls in [low, high): how many, their mean confidence, and
    the share of them right in every field."""

    low: float
    high: float
    claims: int
    confidence: float
    right: float


class Reliability(BaseModel):
    """The output's confidences against the annotations (``evaluation.reliability``): each claim's
    against whether it is right in every field, and each decision's own against its field."""

    claims: int  # output claims with a confidence
    right: float  # the share of them right in every field
    ece: float  # expected calibration error over ``bins``
    bins: list[ReliabilityBin]
    decisions: dict[str, float] = Field(default_factory=dict)  # each decision's ECE on the matched claims


class EvalReport(BaseModel):
    """Every figure of one evaluation; ``to_dict()`` gives plain JSON-able data."""

    gold_path: str
    out_dir: str
    n_gold_docs: int
    n_output_docs: int
    n_gold_claims: int
    n_pred_claims: int  # predicted claims on documents of the gold
    n_matched: int
    claims: PRF
    claims_typed: PRF  # a match counts only with the right kind
    per_kind: dict[str, KindScore]
    kind_accuracy: float
    kind_confusion: dict[str, dict[str, int]]  # gold kind -> predicted kind -> matched pairs
    unit_accuracy: float
    qualifier_accuracy: float
    attributes: dict[str, AttributeScore]  # dataset, hardware, model, baseline, metric
    doc_lists: dict[str, PRF]  # datasets, hardware, models (document level, micro)
    n_checked: int  # all predicted claims of the output, for the two shares below
    grounded_share: float  # evidence == text[start:end]
    value_parsed_share: float  # value (and value_high) read back from the evidence
    missing_docs: list[str] = Field(default_factory=list)
    error_docs: list[str] = Field(default_factory=list)
    extra_docs: list[str] = Field(default_factory=list)  # output documents not in the gold
    false_negatives: list[dict[str, Any]] = Field(default_factory=list)
    false_positives: list[dict[str, Any]] = Field(default_factory=list)
    confidence: Optional[Reliability] = None  # when the output's claims carry a confidence

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-able data."""
        return self.model_dump(mode="json")

    def to_text(self) -> str:
        """The readable terminal table ``claims eval`` prints (``format_report``)."""
        return format_report(self)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}"


def _kind_lines(report: EvalReport) -> list[str]:
    """The per-kind table: counts, detection P/R/F1, kind accuracy, typed F1, confusions."""
    lines = [f"{'per kind':<22}{'gold':>6}{'pred':>6}{'P%*':>7}{'R%*':>7}{'F1%*':>7}"
             f"{'kind acc%':>11}{'typed F1%':>11}  matched gold labelled as"]
    for k, s in report.per_kind.items():
        confused = ", ".join(f"{q} {n}" for q, n in report.kind_confusion.get(k, {}).items() if q != k)
        lines.append(f"  {k:<20}{s.n_gold:>6}{s.n_pred:>6}{_pct(s.precision):>7}{_pct(s.recall):>7}"
                     f"{_pct(s.f1):>7}{_pct(s.kind_accuracy):>11}{_pct(s.typed.f1):>11}"
                     f"  {confused or '-'}")
    lines.append(KIND_IGNORED_NOTE)
    return lines


KIND_IGNORED_NOTE = (
    "  * P%, R% and F1% per kind ignore the kind the output gave: R counts the gold claims of the kind that "
    "some output claim matches, P the output claims of the kind that match some gold claim, whatever its "
    "kind; kind acc% and typed F1% count only the right kind")


def format_report(report: EvalReport) -> str:
    """A readable terminal table of the report."""
    lines = [
        f"gold {report.gold_path}  vs  output {report.out_dir}",
        f"documents: {report.n_gold_docs} gold, {report.n_output_docs} in output; "
        f"claims: {report.n_gold_claims} gold, {report.n_pred_claims} predicted, "
        f"{report.n_matched} matched",
        "",
        f"{'':<22}{'P%':>7}{'R%':>7}{'F1%':>7}{'TP':>6}{'FP':>6}{'FN':>6}",
    ]

    def row(label: str, s: PRF) -> str:
        return (f"{label:<22}{_pct(s.precision):>7}{_pct(s.recall):>7}{_pct(s.f1):>7}"
                f"{s.tp:>6}{s.fp:>6}{s.fn:>6}")

    lines.append(row("claims (kind ignored)", report.claims))
    lines.append(row("claims, right kind", report.claims_typed))
    lines.append("attributes (matched)")
    lines += [row(f"  {k}", s) + f"   tn {s.tn}, acc {_pct(s.accuracy).strip()}%"
              for k, s in report.attributes.items()]
    lines.append("document lists")
    lines += [row(f"  {k}", s) for k, s in report.doc_lists.items()]
    lines += ["", *_kind_lines(report)]
    lines += [
        "",
        f"on {report.n_matched} matched claims: kind {_pct(report.kind_accuracy).strip()}%, "
        f"unit {_pct(report.unit_accuracy).strip()}%, "
        f"qualifier {_pct(report.qualifier_accuracy).strip()}%",
        f"on {report.n_checked} output claims: grounded {_pct(report.grounded_share).strip()}%, "
        f"value in evidence {_pct(report.value_parsed_share).strip()}%",
        f"missing documents ({len(report.missing_docs)}): {', '.join(report.missing_docs) or '-'}",
        f"error documents ({len(report.error_docs)}): {', '.join(report.error_docs) or '-'}",
    ]
    if report.confidence is not None:
        lines += ["", *_reliability_lines(report.confidence)]
    return "\n".join(lines)


def _reliability_lines(found: Reliability) -> list[str]:
    """The reliability table: per band of confidence, the claims and the share right in every field."""
    lines = ["confidence against the annotations (right: the annotated kind, unit, dataset, hardware, model and "
             "baseline; an output claim the annotations lack is wrong)",
             f"  {'confidence':<12}{'claims':>8}{'mean':>8}{'right':>8}"]
    lines += [f"  {b.low:.1f}-{b.high:.1f}{'':<5}{b.claims:>8}{b.confidence:>8.3f}{b.right:>8.3f}" for b in found.bins]
    lines.append(f"  {found.claims} claims, {_pct(found.right).strip()}% right in every field, "
                 f"expected calibration error {found.ece:.3f}")
    if found.decisions:
        lines.append("  each decision's own confidence against its field on the matched claims, expected calibration "
                     "error: " + ", ".join(f"{name} {ece:.3f}" for name, ece in found.decisions.items()))
    return lines
