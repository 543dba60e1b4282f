"""Gold and predicted claims paired: a claim with its value, unit and span normalised, the
weight of a gold/predicted pair, the one-to-one matches of a document's claims and of two lists
of names."""

from __future__ import annotations

from typing import Any, Iterator, Optional

from paper_claims.evaluation.assignment import max_weight_assignment
from paper_claims.evaluation.names import FUZZY_THRESHOLD, fuzzy_similarity, metric_similar, same_name
from paper_claims.evaluation.reading import PathLike, load
from paper_claims.evaluation.values import coerce_value, normalise_unit, split_magnitude, values_match

PAIR_BASE = 100.0  # weight of any feasible pair: the assignment maximises matches first


def normalise_qualifier(q: Optional[str]) -> Optional[str]:
    """A qualifier lower-cased, with spaces for underscores; None when empty."""
    s = " ".join((q or "").replace("_", " ").lower().split())
    return s or None


class ScoredClaim:
    """A claim with normalised value and unit, and its span in the text (if known)."""

    def __init__(self, row: dict[str, Any], text: Optional[str], *, gold: bool) -> None:
        self.row = row
        self.value, self.unit = split_magnitude(coerce_value(row.get("value")), row.get("unit"))
        self.value_high = split_magnitude(coerce_value(row.get("value_high")), row.get("unit"))[0]
        self.kind = (row.get("kind") or "").strip().lower() or None
        self.span = self._locate(row, text, gold)

    @staticmethod
    def _locate(row: dict[str, Any], text: Optional[str], gold: bool) -> Optional[tuple[int, int]]:
        evidence = row.get("evidence") or ""
        if not gold:
            try:
                start, end = int(row["start"]), int(row["end"])
                if 0 <= start <= end:
                    return start, end
            except (KeyError, TypeError, ValueError):
                pass
        if text and evidence:
            at = text.find(evidence)
            if at >= 0:
                return at, at + len(evidence)
        return None

    def matches(self, other: "ScoredClaim") -> bool:
        """Values (and both value_highs, when present) agree; self is the gold side."""
        if self.value is None or other.value is None:
            return False
        if not values_match(self.value, self.unit, other.value, other.unit):
            return False
        if self.value_high is not None and other.value_high is not None:
            return values_match(self.value_high, self.unit, other.value_high, other.unit)
        return True

    def summary(self, doc_id: str) -> dict[str, Any]:
        """A short description for the FN/FP lists."""
        return {"doc_id": doc_id, "kind": self.kind, "value": self.value,
                "value_high": self.value_high, "unit": self.row.get("unit"),
                "evidence": self.row.get("evidence")}


def agrees(gold: ScoredClaim, pred: ScoredClaim, name: str) -> bool:
    """Whether a matched claim has the annotated kind, unit, qualifier, metric or attribute: both
    empty, or the same (names fuzzily, devices by their canonical names, metrics by their words)."""
    if name == "kind":
        return gold.kind == pred.kind
    if name == "unit":
        return normalise_unit(gold.unit) == normalise_unit(pred.unit)
    if name == "qualifier":
        return normalise_qualifier(gold.row.get("qualifier")) == normalise_qualifier(pred.row.get("qualifier"))
    g = str(gold.row.get(name) or "").strip() or None
    p = str(pred.row.get(name) or "").strip() or None
    if g is None or p is None:
        return g == p
    return metric_similar(g, p) if name == "metric" else same_name(g, p, hardware=name == "hardware")


def pair_weight(g: ScoredClaim, p: ScoredClaim) -> Optional[float]:
    """Weight of a gold/predicted pair: None if values differ; span overlap weighs most."""
    if not g.matches(p):
        return None
    weight = PAIR_BASE
    if g.span and p.span and max(g.span[0], p.span[0]) < min(g.span[1], p.span[1]):
        weight += 10
    if g.value_high is not None and p.value_high is not None:
        weight += 2
    weight += (g.kind == p.kind) + (normalise_unit(g.unit) == normalise_unit(p.unit))
    weight += 0.5 * (normalise_qualifier(g.row.get("qualifier")) == normalise_qualifier(p.row.get("qualifier")))
    return weight


def match_claims(golds: list[ScoredClaim], preds: list[ScoredClaim]) -> list[tuple[int, int]]:
    """The one-to-one matches (gold index, predicted index) of one document's claims."""
    return max_weight_assignment([[pair_weight(g, p) for p in preds] for g in golds])


def list_pairs(gold: list[str], pred: list[str], *, hardware: bool) -> list[tuple[int, int]]:
    """The one-to-one fuzzy matches (gold index, predicted index) between two lists of names."""
    weights = [[(PAIR_BASE + s) if (s := fuzzy_similarity(g, p, hardware=hardware)) >= FUZZY_THRESHOLD
                else None for p in pred] for g in gold]
    return max_weight_assignment(weights) if gold and pred else []


def list_matches(gold: list[str], pred: list[str], *, hardware: bool) -> int:
    """Number of one-to-one fuzzy matches between two lists of names."""
    return len(list_pairs(gold, pred, hardware=hardware))


def claims_by_document(gold: list[dict[str, Any]], claim_rows: list[dict[str, Any]], texts: dict[str, str]) -> Iterator[
        tuple[dict[str, Any], list[ScoredClaim], list[ScoredClaim]]]:
    """Each gold document with its gold claims and the output's claims of it, in the gold's order."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for row in claim_rows:
        by_doc.setdefault(str(row.get("doc_id")), []).append(row)
    for g in gold:
        doc_id = str(g["id"])
        text = texts.get(doc_id)
        golds = [ScoredClaim(c, text, gold=True) for c in g.get("claims") or []]
        preds = [ScoredClaim(c, text, gold=False) for c in by_doc.get(doc_id, [])]
        yield g, golds, preds


def matched_pairs(gold_path: PathLike, out_dir: PathLike,
                  inputs_path: Optional[PathLike] = None) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """The matched (document id, gold claim row, predicted claim row) of an output, matched as
    ``evaluate`` matches them."""
    gold, _documents, claim_rows, texts = load(gold_path, out_dir, inputs_path)
    return [(str(g["id"]), golds[i].row, preds[j].row)
            for g, golds, preds in claims_by_document(gold, claim_rows, texts)
            for i, j in match_claims(golds, preds)]
