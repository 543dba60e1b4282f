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

import csv
import math
import re
from decimal import Decimal
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from pydantic import BaseModel, Field

from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.units import canonical
from paper_claims.errors import InputError
from paper_claims.outputs.table import read_manifest
from paper_claims.text import read_jsonl

__all__ = [
    "PRF",
    "AttributeScore",
    "KindScore",
    "EvalReport",
    "evaluate",
    "format_report",
    "append_results",
    "values_match",
    "parse_numbers",
    "normalise_unit",
    "fuzzy_similarity",
    "metric_similar",
]

PathLike = Union[str, Path]
ATTRIBUTES = ("dataset", "hardware", "model", "baseline")
SCORED = (*ATTRIBUTES, "metric")
DOC_LISTS = ("datasets", "hardware", "models")
FUZZY_THRESHOLD = 0.5
REL_TOL = 0.01
_PAIR_BASE = 100.0  # weight of any feasible pair: the assignment maximises matches first


# ----------------------------------------------------------------------------- report


def _ratio(num: int, den: int, *, empty: float) -> float:
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
        p = _ratio(tp, tp + fp, empty=1.0 if fn == 0 else 0.0)
        r = _ratio(tp, tp + fn, empty=1.0 if fp == 0 else 0.0)
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

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-able data."""
        return self.model_dump(mode="json")


# ----------------------------------------------------------------------------- numbers

_MAGNITUDES = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9, "t": 1e12, "trillion": 1e12,
}
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "a hundred": 100,
    "dozen": 12, "a dozen": 12, "half": 0.5, "a half": 0.5, "twice": 2, "double": 2,
    "doubles": 2, "triple": 3, "triples": 3, "thrice": 3, "quadruple": 4,
    "a": 1, "an": 1,
}
_WORD_RE = "|".join(sorted((re.escape(w) for w in _WORD_NUMBERS), key=len, reverse=True))
_MAG_RE = r"(?:thousand|million|billion|trillion|bn|mn|[kmbt])(?![a-z])"
_NUMBER = re.compile(
    rf"(?P<num>\d+(?:,\d{{3}})*(?:\.\d+)?|\.\d+)(?:\s*/\s*(?P<den>\d+(?:\.\d+)?))?"
    rf"(?:[\s-]*(?P<mag>{_MAG_RE}))?"
    rf"|\b(?P<word>{_WORD_RE})\b(?:[\s-]+(?:a\s+)?(?P<wmag>thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)


def _clean_latex(text: str) -> str:
    """Undo the LaTeX the corpus carries (``$16\\times$``, ``\\textbf{30\\%}``)."""
    text = re.sub(r"\\times", "×", text)
    text = re.sub(r"\\[a-zA-Z]+\{([^}]*)\}", r"\1", text)
    return text.replace("\\%", "%").replace("$", " ").replace("{", "").replace("}", "")


def parse_numbers(text: str) -> list[float]:
    """Every number a piece of evidence can be read as (with and without magnitudes)."""
    values: list[float] = []
    for m in _NUMBER.finditer(_clean_latex(text)):
        if m.group("num"):
            base = float(m.group("num").replace(",", ""))
            if m.group("den"):
                den = float(m.group("den"))
                if den:
                    values.append(base / den)
            values.append(base)
            if m.group("mag"):
                values.append(base * _MAGNITUDES[m.group("mag").lower()])
        else:
            word = " ".join(m.group("word").lower().split())
            base = float(_WORD_NUMBERS[word])
            if m.group("wmag"):
                values.append(base * _MAGNITUDES[m.group("wmag").lower()])
            elif word not in {"a", "an"}:
                values.append(base)
    return values


def _coerce_value(raw: Any) -> Optional[float]:
    """A claim value as a float: numbers pass, strings like "600 billion" are parsed."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, (int, float)):
        return float(raw) if math.isfinite(float(raw)) else None
    try:
        return float(str(raw).replace(",", ""))
    except ValueError:
        parsed = parse_numbers(str(raw))
        return max(parsed) if parsed else None


def _split_magnitude(value: Optional[float], unit: Optional[str]) -> tuple[Optional[float], str]:
    """Move a magnitude word at the head of the unit into the value ("billion parameters")."""
    unit = (unit or "").strip()
    words = unit.split()
    if words and value is not None:
        head = words[0].lower()
        if head in _MAGNITUDES and (len(head) > 2 or len(words) > 1):
            return value * _MAGNITUDES[head], " ".join(words[1:])
    return value, unit


def _precision(x: float) -> tuple[int, int]:
    """(decimal places, significant digits) of a float as written: 84.4 -> (1, 3)."""
    digits = Decimal(repr(x)).normalize().as_tuple()
    return -int(digits.exponent), len(digits.digits)


def _close(a: float, b: float) -> bool:
    """Equal within REL_TOL, or equal once the longer is rounded to the shorter's precision."""
    if math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-9):
        return True
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
        return False
    short, long_ = sorted((a, b), key=lambda v: _precision(v)[0])
    decimals, significant = _precision(short)
    # a single significant digit ("0.9", "6e11") is too coarse to call a rounding
    return significant >= 2 and round(long_, decimals) == short


def values_match(gold: float, gold_unit: Optional[str], pred: float, pred_unit: Optional[str]) -> bool:
    """Whether two claim values agree (rounding, and 97% vs 0.97 across a %/fraction pair)."""
    candidates = [pred]
    gu, pu = normalise_unit(gold_unit), normalise_unit(pred_unit)
    if (gu == "%") != (pu == "%") and "x" not in (gu, pu):
        candidates.append(pred * 100 if gu == "%" else pred / 100)
    return any(_close(gold, c) for c in candidates)


# ----------------------------------------------------------------------------- strings


def normalise_unit(unit: Optional[str]) -> str:
    """Case-insensitive, singular, "×"/"times" -> "x", "percent" -> "%", "pp" -> "point", and one
    spelling of a physical unit or rate (``parse.units.canonical``: "seconds" -> "s", "frames per
    second" -> "frames/s", "µs" -> "μs")."""
    s = " ".join((canonical(unit) or "").replace("×", "x").replace("\\times", "x").lower().split())
    s = {"times": "x", "fold": "x", "factor": "x", "percent": "%", "percentage": "%",
         "pct": "%", "percentage points": "point", "percentage point": "point", "pp": "point",
         "pts": "point", "$": "usd", "dollars": "usd"}.get(s, s)
    words = s.split()
    if words:
        last = words[-1]
        if last.endswith("ies") and len(last) > 4:
            last = last[:-3] + "y"
        elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
            last = last[:-1]
        s = " ".join([*words[:-1], last])
    return s


def _norm_qualifier(q: Optional[str]) -> Optional[str]:
    s = " ".join((q or "").replace("_", " ").lower().split())
    return s or None


def _tokens(s: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", s.lower()))


def fuzzy_similarity(a: Optional[str], b: Optional[str], *, hardware: bool = False) -> float:
    """Token-set overlap F1 of two names; 0 when their numeric tokens disagree.

    Numeric tokens ("10" in CIFAR-10, "70b" in Llama-3-70b) of one side must all appear on
    the other, so CIFAR-10 does not match CIFAR-100.  With ``hardware`` two names with the
    same :func:`canonical_hardware` are identical (1.0).
    """
    if not a or not b:
        return 0.0
    if a.strip().lower() == b.strip().lower():
        return 1.0
    if hardware and canonical_hardware(a) == canonical_hardware(b):
        return 1.0
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.0
    da = {t for t in ta if any(c.isdigit() for c in t)}
    db = {t for t in tb if any(c.isdigit() for c in t)}
    if not (da <= db or db <= da):
        return 0.0
    overlap = len(ta & tb)
    return 2 * overlap / (len(ta) + len(tb))


def _words(s: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", s.lower()))


def metric_similar(a: Optional[str], b: Optional[str]) -> bool:
    """Two metrics agree when, lower-cased with punctuation removed, one contains the other
    ("accuracy" in "top-1 accuracy") or their words match as names do."""
    wa, wb = _words(a or ""), _words(b or "")
    if not wa or not wb:
        return False
    if f" {wa} " in f" {wb} " or f" {wb} " in f" {wa} ":
        return True
    return fuzzy_similarity(wa, wb) >= FUZZY_THRESHOLD


# ----------------------------------------------------------------------------- assignment


def _max_weight_assignment(weights: Sequence[Sequence[Optional[float]]]) -> list[tuple[int, int]]:
    """Pairs (row, col) of a maximum-weight one-to-one assignment (None = not allowed)."""
    n_rows = len(weights)
    n_cols = len(weights[0]) if n_rows else 0
    size = max(n_rows, n_cols)
    if not n_rows or not n_cols:
        return []
    cost = [[-(weights[i][j] or 0.0) if i < n_rows and j < n_cols else 0.0
             for j in range(size)] for i in range(size)]
    # Hungarian algorithm with potentials (1-based), minimising cost.
    inf = float("inf")
    u, v, p, way = [0.0] * (size + 1), [0.0] * (size + 1), [0] * (size + 1), [0] * (size + 1)
    for i in range(1, size + 1):
        p[0], j0 = i, 0
        minv, used = [inf] * (size + 1), [False] * (size + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, size + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(size + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    pairs = [(p[j] - 1, j - 1) for j in range(1, size + 1) if p[j]]
    return sorted((i, j) for i, j in pairs
                  if i < n_rows and j < n_cols and weights[i][j] is not None)


# ----------------------------------------------------------------------------- loading


def _read_claims(out: Path) -> list[dict[str, Any]]:
    """claims.jsonl, or claims.csv when there is no jsonl."""
    if (out / "claims.jsonl").is_file():
        return read_jsonl(out / "claims.jsonl", strict=True)
    if (out / "claims.csv").is_file():
        with (out / "claims.csv").open(encoding="utf-8", newline="") as fh:
            return [{k: (v if v != "" else None) for k, v in row.items()}
                    for row in csv.DictReader(fh)]
    raise InputError(f"no claims.jsonl or claims.csv in output directory {out}")


def _load(gold_path: PathLike, out_dir: PathLike, inputs_path: Optional[PathLike]) -> tuple[
        list[dict[str, Any]], dict[str, dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """Gold documents, output documents by id, predicted claims, and document texts."""
    gold_file, out = Path(gold_path), Path(out_dir)
    if not gold_file.is_file():
        raise InputError(f"gold annotations not found: {gold_file}")
    if not out.is_dir():
        raise InputError(f"output directory not found: {out}")
    if not (out / "documents.jsonl").is_file():
        raise InputError(f"no documents.jsonl in output directory {out}")
    gold = read_jsonl(gold_file, strict=True)
    documents = {str(d.get("doc_id")): d for d in read_jsonl(out / "documents.jsonl", strict=True)}
    claims = _read_claims(out)
    texts: dict[str, str] = {}
    inputs = Path(inputs_path) if inputs_path else gold_file.with_name(f"{gold_file.stem}_inputs.jsonl")
    if inputs.is_file():
        texts.update({str(r["id"]): r["text"] for r in read_jsonl(inputs, strict=True) if r.get("text")})
    texts.update({k: d["text"] for k, d in documents.items() if d.get("text")})
    return gold, documents, claims, texts


# ----------------------------------------------------------------------------- claims


class _Claim:
    """A claim with normalised value and unit, and its span in the text (if known)."""

    def __init__(self, row: dict[str, Any], text: Optional[str], *, gold: bool) -> None:
        self.row = row
        self.value, self.unit = _split_magnitude(_coerce_value(row.get("value")), row.get("unit"))
        self.value_high = _split_magnitude(_coerce_value(row.get("value_high")), row.get("unit"))[0]
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

    def matches(self, other: "_Claim") -> bool:
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


def _pair_weight(g: _Claim, p: _Claim) -> Optional[float]:
    """Weight of a gold/predicted pair: None if values differ; span overlap weighs most."""
    if not g.matches(p):
        return None
    weight = _PAIR_BASE
    if g.span and p.span and max(g.span[0], p.span[0]) < min(g.span[1], p.span[1]):
        weight += 10
    if g.value_high is not None and p.value_high is not None:
        weight += 2
    weight += (g.kind == p.kind) + (normalise_unit(g.unit) == normalise_unit(p.unit))
    weight += 0.5 * (_norm_qualifier(g.row.get("qualifier")) == _norm_qualifier(p.row.get("qualifier")))
    return weight


class _Tally:
    """Running counts while documents are scored."""

    def __init__(self) -> None:
        self.gold_kind: dict[str, int] = {}
        self.pred_kind: dict[str, int] = {}
        self.hit_gold_kind: dict[str, int] = {}
        self.hit_pred_kind: dict[str, int] = {}
        self.pairs: list[tuple[_Claim, _Claim]] = []
        self.fns: list[dict[str, Any]] = []
        self.fps: list[dict[str, Any]] = []
        self.lists = {name: [0, 0, 0] for name in DOC_LISTS}

    def add_claims(self, doc_id: str, golds: list[_Claim], preds: list[_Claim]) -> None:
        """Match one document's claims and count them."""
        for c in golds:
            self.gold_kind[c.kind or "?"] = self.gold_kind.get(c.kind or "?", 0) + 1
        for c in preds:
            self.pred_kind[c.kind or "?"] = self.pred_kind.get(c.kind or "?", 0) + 1
        weights = [[_pair_weight(g, p) for p in preds] for g in golds]
        pairs = _max_weight_assignment(weights)
        for i, j in pairs:
            g, p = golds[i], preds[j]
            self.pairs.append((g, p))
            self.hit_gold_kind[g.kind or "?"] = self.hit_gold_kind.get(g.kind or "?", 0) + 1
            self.hit_pred_kind[p.kind or "?"] = self.hit_pred_kind.get(p.kind or "?", 0) + 1
        matched_g, matched_p = {i for i, _ in pairs}, {j for _, j in pairs}
        self.fns += [g.summary(doc_id) for i, g in enumerate(golds) if i not in matched_g]
        self.fps += [p.summary(doc_id) for j, p in enumerate(preds) if j not in matched_p]

    def add_lists(self, gold_doc: dict[str, Any], out_doc: Optional[dict[str, Any]]) -> None:
        """Count one document's datasets/hardware/models lists."""
        for name in DOC_LISTS:
            gold_items = [str(x) for x in gold_doc.get(name) or []]
            pred_items = [str(x) for x in (out_doc or {}).get(name) or []]
            tp = _list_matches(gold_items, pred_items, hardware=name == "hardware")
            counts = self.lists[name]
            counts[0] += tp
            counts[1] += len(pred_items) - tp
            counts[2] += len(gold_items) - tp


def _list_matches(gold: list[str], pred: list[str], *, hardware: bool) -> int:
    """Number of one-to-one fuzzy matches between two lists of names."""
    weights = [[(_PAIR_BASE + s) if (s := fuzzy_similarity(g, p, hardware=hardware)) >= FUZZY_THRESHOLD
                else None for p in pred] for g in gold]
    return len(_max_weight_assignment(weights))


def _attribute_score(pairs: Sequence[tuple[_Claim, _Claim]], name: str) -> AttributeScore:
    """Score one attribute over matched pairs (TP/FP/FN over non-null, TN both null)."""
    tp = fp = fn = tn = 0
    for g, p in pairs:
        gv = (str(g.row.get(name) or "")).strip() or None
        pv = (str(p.row.get(name) or "")).strip() or None
        if gv is None and pv is None:
            tn += 1
        elif gv and pv and (metric_similar(gv, pv) if name == "metric" else
                            fuzzy_similarity(gv, pv, hardware=name == "hardware") >= FUZZY_THRESHOLD):
            tp += 1
        else:
            fp += pv is not None
            fn += gv is not None
    accuracy = _ratio(tp + tn, len(pairs), empty=1.0)
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
        values = [_coerce_value(v) for v in wanted]
        unit = row.get("unit")
        parsed += bool(values) and all(
            v is not None and any(values_match(n, "%" if "%" in evidence else unit, v, unit)
                                  for n in numbers) for v in values)
    n = len(claims)
    return n, _ratio(grounded, n, empty=1.0), _ratio(parsed, n, empty=1.0)


# ----------------------------------------------------------------------------- evaluate


def evaluate(
    gold_path: PathLike, out_dir: PathLike, *, inputs_path: Optional[PathLike] = None
) -> EvalReport:
    """Score the output directory ``out_dir`` against the annotations at ``gold_path``.

    Document texts come from ``documents.jsonl`` (``text``), else from ``inputs_path``
    (default: ``<gold stem>_inputs.jsonl`` next to the gold file).  Raises InputError
    when a file is missing or unreadable.
    """
    gold, documents, claim_rows, texts = _load(gold_path, out_dir, inputs_path)
    manifest = read_manifest(out_dir)  # a custom schema: its fields are the attributes, it has no name lists
    attributes = tuple(f["name"] for f in manifest["fields"]) if manifest else SCORED
    doc_lists = () if manifest else DOC_LISTS
    gold_ids = {str(g["id"]) for g in gold}
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for row in claim_rows:
        by_doc.setdefault(str(row.get("doc_id")), []).append(row)

    tally = _Tally()
    for g in gold:
        doc_id = str(g["id"])
        text = texts.get(doc_id)
        golds = [_Claim(c, text, gold=True) for c in g.get("claims") or []]
        preds = [_Claim(c, text, gold=False) for c in by_doc.get(doc_id, [])]
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

    def agree(test: Callable[[_Claim, _Claim], bool]) -> float:
        return _ratio(sum(1 for g, p in pairs if test(g, p)), len(pairs), empty=1.0)

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
        kind_accuracy=agree(lambda g, p: g.kind == p.kind),
        kind_confusion=_confusion(pairs),
        unit_accuracy=agree(lambda g, p: normalise_unit(g.unit) == normalise_unit(p.unit)),
        qualifier_accuracy=agree(lambda g, p: _norm_qualifier(g.row.get("qualifier"))
                                 == _norm_qualifier(p.row.get("qualifier"))),
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
    )


def _per_kind(tally: _Tally) -> dict[str, KindScore]:
    """Detection PRF, kind accuracy and typed PRF for every kind in the gold or the output."""
    scores = {}
    for k in sorted(set(tally.gold_kind) | set(tally.pred_kind)):
        hit_g, hit_p = tally.hit_gold_kind.get(k, 0), tally.hit_pred_kind.get(k, 0)
        n_g, n_p = tally.gold_kind.get(k, 0), tally.pred_kind.get(k, 0)
        p = _ratio(hit_p, n_p, empty=1.0 if n_g == 0 else 0.0)
        r = _ratio(hit_g, n_g, empty=1.0 if n_p == 0 else 0.0)
        right = sum(1 for g, q in tally.pairs if (g.kind or "?") == k and (q.kind or "?") == k)
        scores[k] = KindScore(
            tp=hit_g, fp=n_p - hit_p, fn=n_g - hit_g, precision=p, recall=r,
            f1=2 * p * r / (p + r) if p + r else 0.0, n_gold=n_g, n_pred=n_p, n_matched=hit_g,
            kind_correct=right, kind_accuracy=_ratio(right, hit_g, empty=1.0),
            typed=PRF.from_counts(right, n_p - right, n_g - right))
    return scores


def _confusion(pairs: Sequence[tuple[_Claim, _Claim]]) -> dict[str, dict[str, int]]:
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


# ----------------------------------------------------------------------------- output


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
    return "\n".join(lines)


_RESULTS_COLUMNS = (
    "| date (UTC) | set | model | prompt | claim P | claim R | claim F1 | kind acc "
    "| per kind R (kind ignored) / kind acc / typed F1 | claim dataset/hardware/model/baseline F1 | metric F1 "
    "| unit acc | datasets F1 "
    "| hardware F1 | models F1 | grounded | missing docs | note |"
)
_RESULTS_HEADER = (
    "# Evaluation results\n\n" + _RESULTS_COLUMNS + "\n"
    "|" + "---|" * _RESULTS_COLUMNS.count(" | ") + "---|\n"
)
_KIND_ABBREV = {"accuracy": "acc", "efficiency": "eff", "improvement": "imp", "scale": "scl",
                "speedup": "spd", "other": "oth"}


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _per_kind_cell(report: EvalReport) -> str:
    """"acc .91/.88/.80 · …": recall, kind accuracy and typed F1 of each gold kind."""
    def short(x: float) -> str:
        return f"{x:.2f}".removeprefix("0")

    return " · ".join(f"{_KIND_ABBREV.get(k, k)} {short(s.recall)}/{short(s.kind_accuracy)}"
                      f"/{short(s.typed.f1)}"
                      for k, s in report.per_kind.items() if s.n_gold)


def _set_of(gold_path: PathLike) -> str:
    """The annotation set a gold file holds: its file stem ("dev", "dev2")."""
    return Path(gold_path).stem


def append_results(report: EvalReport, results_path: PathLike, *, model: str,
                   prompt_version: str, note: str = "", set_name: Optional[str] = None) -> None:
    """Append one markdown table line for ``report`` to ``results_path``.

    The header is written when the file is new, and again (a new table) when the file's
    tables have other columns.  The set defaults to the gold file's stem.
    """
    path = Path(results_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    builtin = "metric" in report.attributes  # a custom schema's report scores its own fields
    missing = str(len(report.missing_docs))
    if report.error_docs:
        missing += f" (+{len(report.error_docs)} error)"
    cells = [
        datetime.now(timezone.utc).isoformat(timespec="seconds"),
        _cell(set_name or _set_of(report.gold_path)),
        _cell(model), _cell(prompt_version),
        f"{report.claims.precision:.3f}", f"{report.claims.recall:.3f}", f"{report.claims.f1:.3f}",
        f"{report.kind_accuracy:.3f}", _per_kind_cell(report),
        ("/".join(f"{report.attributes[name].f1:.2f}" for name in ATTRIBUTES) if builtin
         else "/".join(f"{score.f1:.2f}" for score in report.attributes.values())),  # a custom schema's fields
        f"{report.attributes['metric'].f1:.3f}" if builtin else "-", f"{report.unit_accuracy:.3f}",
        *(f"{report.doc_lists[name].f1:.3f}" if name in report.doc_lists else "-" for name in DOC_LISTS),
        f"{report.grounded_share:.3f}", missing, _cell(note),
    ]
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    with path.open("a", encoding="utf-8") as fh:
        if not old.strip():
            fh.write(_RESULTS_HEADER)
        elif _RESULTS_COLUMNS not in old:
            fh.write(("\n" if old.endswith("\n") else "\n\n") + _RESULTS_HEADER.split("\n", 2)[2])
        fh.write("| " + " | ".join(cells) + " |\n")
