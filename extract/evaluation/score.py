"""Score an extraction output directory against hand annotations (``eval/gold/*.jsonl``).

A predicted claim matches a gold claim of the same document when their values agree up to
rounding (1% relative tolerance, or equality at the precision written), magnitude words
("600 billion" = 6e11) and percent/fraction ("97%" = 0.97); value_high must agree too when
both give one.  Matching is one-to-one (an optimal assignment per document) and, among
equal values, prefers the prediction whose span overlaps the gold evidence in the text.

Attribute scores (dataset, hardware, model, baseline, metric) on matched claims count a pair as
TP when both are non-null and match fuzzily, FP when the prediction is non-null and does
not match, FN when the gold is non-null and not matched (a wrong non-null value is both
FP and FN); both null is a correct negative (``tn``), outside precision and recall but
inside ``accuracy``.  A metric matches when, lower-cased with punctuation removed, one
contains the other or the names' fuzzy match holds.  Everywhere, a ratio with an empty denominator is 1.0 when nothing
was expected and nothing predicted, else 0.0.

Per kind (``per_kind``): detection precision/recall/F1 (a gold claim of kind k counts as
found when any prediction matches it; a prediction of kind k counts as right when it matches
any gold claim), the kind accuracy on the matched gold claims of kind k, and a strict
``typed`` P/R/F1 where a match counts only when both sides have kind k.  ``claims_typed``
sums the strict counts over kinds; ``kind_confusion`` counts matched pairs by gold kind and
predicted kind.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from paper_claims.evaluation.figures import DOC_LISTS, PRF, SCORED, AttributeScore, EvalReport, KindScore, ratio
from paper_claims.evaluation.matching import ScoredClaim, agrees, claims_by_document, list_matches, match_claims
from paper_claims.evaluation.reading import PathLike, load
from paper_claims.evaluation.reliability import reliability
from paper_claims.evaluation.values import coerce_value, parse_numbers, values_match
from paper_claims.outputs.table import read_manifest


class _Tally:
    """Running counts while documents are scored."""

    def __init__(self) -> None:
        self.gold_kind: dict[str, int] = {}
        self.pred_kind: dict[str, int] = {}
        self.hit_gold_kind: dict[str, int] = {}
        self.hit_pred_kind: dict[str, int] = {}
        self.pairs: list[tuple[ScoredClaim, ScoredClaim]] = []
        self.fns: list[dict[str, Any]] = []
        self.fps: list[dict[str, Any]] = []
        self.unmatched: list[ScoredClaim] = []  # output claims no annotated claim matches
        self.lists = {name: [0, 0, 0] for name in DOC_LISTS}

    def add_claims(self, doc_id: str, golds: list[ScoredClaim], preds: list[ScoredClaim]) -> None:
        """Match one document's claims and count them."""
        for c in golds:
            self.gold_kind[c.kind or "?"] = self.gold_kind.get(c.kind or "?", 0) + 1
        for c in preds:
            self.pred_kind[c.kind or "?"] = self.pred_kind.get(c.kind or "?", 0) + 1
        pairs = match_claims(golds, preds)
        for i, j in pairs:
            g, p = golds[i], preds[j]
            self.pairs.append((g, p))
            self.hit_gold_kind[g.kind or "?"] = self.hit_gold_kind.get(g.kind or "?", 0) + 1
            self.hit_pred_kind[p.kind or "?"] = self.hit_pred_kind.get(p.kind or "?", 0) + 1
        matched_g, matched_p = {i for i, _ in pairs}, {j for _, j in pairs}
        self.fns += [g.summary(doc_id) for i, g in enumerate(golds) if i not in matched_g]
        self.fps += [p.summary(doc_id) for j, p in enumerate(preds) if j not in matched_p]
        self.unmatched += [p for j, p in enumerate(preds) if j not in matched_p]

    def add_lists(self, gold_doc: dict[str, Any], out_doc: Optional[dict[str, Any]]) -> None:
        """Count one document's datasets/hardware/models lists."""
        for name in DOC_LISTS:
            gold_items = [str(x) for x in gold_doc.get(name) or []]
            pred_items = [str(x) for x in (out_doc or {}).get(name) or []]
            tp = list_matches(gold_items, pred_items, hardware=name == "hardware")
            counts = self.lists[name]
            counts[0] += tp
            counts[1] += len(pred_items) - tp
            counts[2] += len(gold_items) - tp


def _attribute_score(pairs: Sequence[tuple[ScoredClaim, ScoredClaim]], name: str) -> AttributeScore:
    """Score one attribute over matched pairs (TP/FP/FN over non-null, TN both null)."""
    tp = fp = fn = tn = 0
    for g, p in pairs:
        gv = (str(g.row.get(name) or "")).strip() or None
        pv = (str(p.row.get(name) or "")).strip() or None
        if agrees(g, p, name):
            tn += gv is None
            tp += gv is not None
        else:
            fp += pv is not None
            fn += gv is not None
    accuracy = ratio(tp + tn, len(pairs), empty=1.0)
    return AttributeScore.from_counts(tp, fp, fn, tn=tn, accuracy=accuracy)


def _grounding(claims: list[dict[str, Any]], texts: dict[str, str]) -> tuple[int, float, float]:
    """(n, share with evidence == text[start:end], share whose value parses from evidence)."""
    grounded = parsed = 0
    for row in claims:
        text, evidence = texts.get(str(row.get("doc_id"))), row.get("evidence") or ""
        try:
            start, end = int(row.get("start")), int(row.get("end"))  # type: ignore[arg-type]
            grounded += bool(text is not None and evidence and text[start:end] == evidence
                             and 0 <= start <= end)
        except (TypeError, ValueError):
            pass
        numbers = parse_numbers(evidence)
        wanted = [v for v in (row.get("value"), row.get("value_high")) if v not in (None, "")]
        values = [coerce_value(v) for v in wanted]
        unit = row.get("unit")
        parsed += bool(values) and all(
            v is not None and any(values_match(n, "%" if "%" in evidence else unit, v, unit)
                                  for n in numbers) for v in values)
    n = len(claims)
    return n, ratio(grounded, n, empty=1.0), ratio(parsed, n, empty=1.0)


def score(gold_path: PathLike, out_dir: PathLike, *, inputs_path: Optional[PathLike] = None) -> EvalReport:
    """Score the output directory ``out_dir`` against the annotations at ``gold_path``.

    Document texts come from ``documents.jsonl`` (``text``), else from ``inputs_path``
    (default: ``<gold stem>_inputs.jsonl`` next to the gold file).  Raises InputError
    when a file is missing or unreadable.
    """
    gold, documents, claim_rows, texts = load(gold_path, out_dir, inputs_path)
    manifest = read_manifest(out_dir)  # a custom schema: its fields are the attributes, it has no name lists
    attributes = tuple(f["name"] for f in manifest["fields"]) if manifest else SCORED
    doc_lists = () if manifest else DOC_LISTS
    gold_ids = {str(g["id"]) for g in gold}
    tally = _Tally()
    for g, golds, preds in claims_by_document(gold, claim_rows, texts):
        doc_id = str(g["id"])
        tally.add_claims(doc_id, golds, preds)
        tally.add_lists(g, documents.get(doc_id))

    pairs = tally.pairs
    n_gold = sum(tally.gold_kind.values())
    n_pred = sum(tally.pred_kind.values())
    per_kind = _per_kind(tally)
    n_typed = sum(s.typed.tp for s in per_kind.values())
    n_checked, grounded, value_parsed = _grounding(claim_rows, texts)
    error_docs = sorted(d for d, row in documents.items()
                        if d in gold_ids and str(row.get("status") or "ok").lower() == "error")

    def agree(test: Callable[[ScoredClaim, ScoredClaim], bool]) -> float:
        return ratio(sum(1 for g, p in pairs if test(g, p)), len(pairs), empty=1.0)

    return EvalReport(
        gold_path=str(gold_path),
        out_dir=str(out_dir),
        n_gold_docs=len(gold_ids),
        n_output_docs=len(documents),
        n_gold_claims=n_gold,
        n_pred_claims=n_pred,
        n_matched=len(pairs),
        claims=PRF.from_counts(len(pairs), n_pred - len(pairs), n_gold - len(pairs)),
        claims_typed=PRF.from_counts(n_typed, n_pred - n_typed, n_gold - n_typed),
        per_kind=per_kind,
        kind_accuracy=agree(lambda g, p: agrees(g, p, "kind")),
        kind_confusion=_confusion(pairs),
        unit_accuracy=agree(lambda g, p: agrees(g, p, "unit")),
        qualifier_accuracy=agree(lambda g, p: agrees(g, p, "qualifier")),
        attributes={name: _attribute_score(pairs, name) for name in attributes},
        doc_lists={name: PRF.from_counts(*tally.lists[name]) for name in doc_lists},
        n_checked=n_checked,
        grounded_share=grounded,
        value_parsed_share=value_parsed,
        missing_docs=sorted(gold_ids - set(documents), key=_doc_order),
        error_docs=sorted(error_docs, key=_doc_order),
        extra_docs=sorted(set(documents) - gold_ids, key=_doc_order),
        false_negatives=tally.fns,
        false_positives=tally.fps,
        confidence=reliability(pairs, tally.unmatched),
    )


def _per_kind(tally: _Tally) -> dict[str, KindScore]:
    """Detection PRF, kind accuracy and typed PRF for every kind in the gold or the output."""
    scores = {}
    for k in sorted(set(tally.gold_kind) | set(tally.pred_kind)):
        hit_g, hit_p = tally.hit_gold_kind.get(k, 0), tally.hit_pred_kind.get(k, 0)
        n_g, n_p = tally.gold_kind.get(k, 0), tally.pred_kind.get(k, 0)
        p = ratio(hit_p, n_p, empty=1.0 if n_g == 0 else 0.0)
        r = ratio(hit_g, n_g, empty=1.0 if n_p == 0 else 0.0)
        right = sum(1 for g, q in tally.pairs if (g.kind or "?") == k and (q.kind or "?") == k)
        scores[k] = KindScore(
            tp=hit_g, fp=n_p - hit_p, fn=n_g - hit_g, precision=p, recall=r,
            f1=2 * p * r / (p + r) if p + r else 0.0, n_gold=n_g, n_pred=n_p, n_matched=hit_g,
            kind_correct=right, kind_accuracy=ratio(right, hit_g, empty=1.0),
            typed=PRF.from_counts(right, n_p - right, n_g - right))
    return scores


def _confusion(pairs: Sequence[tuple[ScoredClaim, ScoredClaim]]) -> dict[str, dict[str, int]]:
    """Matched pairs counted by gold kind, then predicted kind."""
    table: dict[str, dict[str, int]] = {}
    for g, p in pairs:
        row = table.setdefault(g.kind or "?", {})
        row[p.kind or "?"] = row.get(p.kind or "?", 0) + 1
    return {k: dict(sorted(v.items())) for k, v in sorted(table.items())}


def _doc_order(doc_id: str) -> tuple[str, int, str]:
    """Sort "001#10" after "001#9"."""
    head, _, tail = doc_id.partition("#")
    return (head, int(tail), "") if tail.isdigit() else (head, -1, tail)
