"""Tests of the scorer, extract/evaluation/: perfect, partial and edge-case outputs."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Optional

import pytest

from paper_claims.parse.canonical import canonical_hardware
from paper_claims.errors import InputError
from paper_claims.model.prompt_files import prompt_version
from paper_claims.settings import EMBEDDED_MODEL
from paper_claims.evaluation import (
    append_results,
    evaluate,
    format_report,
    fuzzy_similarity,
    normalise_unit,
    parse_numbers,
    values_match,
)

GOLD_DIR = Path(__file__).resolve().parents[1] / "eval" / "gold"
TEXT = (
    "We evaluate on 12 metrics across 12 domains. Our method reaches 97% accuracy on "
    "CIFAR-10 and is up to 4.3x faster than vLLM on A100 GPUs, scaling beyond 600 billion "
    "parameters."
)


def gold_claim(evidence: str, value: float, **fields: Any) -> dict[str, Any]:
    """A gold claim with defaults for the fields a test does not care about."""
    base = {"kind": "scale", "value": value, "value_high": None, "unit": None,
            "qualifier": None, "metric": None, "dataset": None, "hardware": None,
            "model": None, "baseline": None, "evidence": evidence}
    base.update(fields)
    return base


def pred_claim(doc_id: str, text: str, evidence: str, value: Any, *, at: Optional[int] = None,
               **fields: Any) -> dict[str, Any]:
    """A predicted claim row, its offsets found in ``text`` (or placed at ``at``)."""
    start = text.find(evidence) if at is None else at
    row = gold_claim(evidence, value, **fields)
    row.update(doc_id=doc_id, start=start, end=start + len(evidence),
               hardware_canonical=canonical_hardware(row["hardware"]))
    return row


def write_case(tmp_path: Path, gold_docs: list[dict[str, Any]], pred_claims: list[dict[str, Any]],
               out_docs: Optional[list[dict[str, Any]]] = None) -> tuple[Path, Path]:
    """Write gold.jsonl and an output directory; output documents default to the gold ids."""
    gold_path = tmp_path / "gold.jsonl"
    gold_path.write_text("".join(json.dumps({"datasets": [], "hardware": [], "models": [], **g}) + "\n"
                                 for g in gold_docs))
    out = tmp_path / "out"
    out.mkdir()
    if out_docs is None:
        out_docs = [{"doc_id": g["id"], "datasets": g.get("datasets", []),
                     "hardware": g.get("hardware", []), "models": g.get("models", []),
                     "status": "ok", "text": g.get("_text", TEXT)} for g in gold_docs]
    (out / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in out_docs))
    (out / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in pred_claims))
    return gold_path, out


def dev_as_predictions(tmp_path: Path, *, with_text: bool = True, gold_set: str = "dev") -> Path:
    """The dev (or dev2) gold written back as a perfect extraction output."""
    base = GOLD_DIR if gold_set == "dev" else GOLD_DIR / gold_set
    gold = [json.loads(line) for line in (base / f"{gold_set}.jsonl").open()]
    texts = {r["id"]: r["text"] for r in map(json.loads, (base / f"{gold_set}_inputs.jsonl").open())}
    out = tmp_path / "perfect"
    out.mkdir()
    with (out / "claims.jsonl").open("w") as fc, (out / "documents.jsonl").open("w") as fd:
        for g in gold:
            text = texts[g["id"]]
            for c in g["claims"]:
                fc.write(json.dumps(pred_claim(g["id"], text, c["evidence"], c["value"],
                                               **{k: v for k, v in c.items()
                                                  if k not in {"evidence", "value"}})) + "\n")
            fd.write(json.dumps({"doc_id": g["id"], "datasets": g["datasets"],
                                 "hardware": g["hardware"], "models": g["models"],
                                 "status": "ok", "n_claims": len(g["claims"]),
                                 "text": text if with_text else None}) + "\n")
    return out


# --------------------------------------------------------------------------- whole dev set


@pytest.mark.parametrize("with_text", [True, False])
def test_perfect_predictions_score_one(tmp_path: Path, with_text: bool) -> None:
    report = evaluate(GOLD_DIR / "dev.jsonl", dev_as_predictions(tmp_path, with_text=with_text))
    assert report.n_gold_claims == report.n_pred_claims == report.n_matched == 91
    assert (report.claims.precision, report.claims.recall, report.claims.f1) == (1.0, 1.0, 1.0)
    assert all(s.f1 == 1.0 for s in report.per_kind.values())
    assert report.kind_accuracy == report.unit_accuracy == report.qualifier_accuracy == 1.0
    for name, score in report.attributes.items():
        assert (score.precision, score.recall, score.f1, score.accuracy) == (1, 1, 1, 1), name
        assert score.tp > 0 and score.fp == score.fn == 0
    assert all(s.f1 == 1.0 and s.tp > 0 for s in report.doc_lists.values())
    # texts come from documents.jsonl, or else from dev_inputs.jsonl next to dev.jsonl
    assert report.grounded_share == 1.0 and report.value_parsed_share == 1.0
    assert report.missing_docs == report.error_docs == report.extra_docs == []
    assert report.false_negatives == report.false_positives == []


def test_perfect_dev2_predictions_score_one_per_kind(tmp_path: Path) -> None:
    report = evaluate(GOLD_DIR / "dev2" / "dev2.jsonl", dev_as_predictions(tmp_path, gold_set="dev2"))
    assert report.n_gold_claims == report.n_matched == 134 and report.claims.f1 == 1.0
    assert report.claims_typed.f1 == 1.0 and len(report.per_kind) == 6
    assert all(s.f1 == s.kind_accuracy == s.typed.f1 == 1.0 for s in report.per_kind.values())
    assert all(set(row) == {k} for k, row in report.kind_confusion.items())
    assert report.grounded_share == 1.0 and report.missing_docs == []


def test_report_is_json_and_formats(tmp_path: Path) -> None:
    report = evaluate(GOLD_DIR / "dev.jsonl", dev_as_predictions(tmp_path))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["claims"]["f1"] == 1.0 and data["doc_lists"]["hardware"]["tp"] == 17
    table = format_report(report)
    assert "claims" in table and "100.0" in table and "missing documents (0)" in table


def test_confidence_is_checked_against_every_field_as_a_reliability_table(tmp_path: Path) -> None:
    """With confidences in the output, ``claims eval`` sets each claim's against whether every
    field is right (kind, unit, dataset, hardware, model, baseline; a claim the annotations lack is
    wrong): the bands that hold claims, their mean confidence and share right, the expected
    calibration error, and each decision's own confidence against its field."""
    gold = [{"id": "d#0", "claims": [gold_claim("12 metrics", 12, unit="metrics"),
                                     gold_claim("97%", 97, unit="%", kind="accuracy", dataset="CIFAR-10"),
                                     gold_claim("up to 4.3x", 4.3, unit="x", kind="speedup", hardware="A100 GPUs")]}]
    preds = [pred_claim("d#0", TEXT, "12 metrics", 12, unit="metrics", confidence=0.8, kind_confidence=0.8),
             pred_claim("d#0", TEXT, "97%", 97, unit="%", kind="accuracy", dataset="ImageNet", confidence=0.85,
                        kind_confidence=0.6, dataset_confidence=0.7),  # the wrong dataset
             pred_claim("d#0", TEXT, "4.3x", 4.3, unit="x", kind="speedup", hardware="A100", confidence=0.15),
             pred_claim("d#0", TEXT, "600 billion", 6e11, unit="parameters", confidence=0.05)]  # not annotated
    report = evaluate(*write_case(tmp_path, gold, preds))
    found = report.confidence
    assert found is not None and found.claims == 4 and found.right == 0.5
    assert [(b.low, b.claims, b.right) for b in found.bins] == [(0.0, 1, 0.0), (0.1, 1, 1.0), (0.8, 2, 0.5)]
    assert found.bins[2].confidence == pytest.approx(0.825)
    # |0.05 - 0| / 4 + |0.15 - 1| / 4 + |0.825 - 0.5| * 2 / 4
    assert found.ece == pytest.approx(0.05 / 4 + 0.85 / 4 + 0.325 / 2)
    assert found.decisions["kind"] == pytest.approx((0.2 + 0.4) / 2)  # both kinds right
    assert found.decisions["dataset"] == pytest.approx(0.7) and "model" not in found.decisions
    table = format_report(report)
    assert f"expected calibration error {found.ece:.3f}" in table and "  0.8-0.9" in table
    assert json.loads(json.dumps(report.to_dict()))["confidence"]["bins"][0]["claims"] == 1
    for row in preds:
        del row["confidence"]
    (tmp_path / "out" / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in preds))
    unrated = evaluate(tmp_path / "gold.jsonl", tmp_path / "out")
    assert unrated.confidence is None and "calibration" not in format_report(unrated)


# --------------------------------------------------------------------------- claim matching


def test_one_of_two_plus_spurious_is_half(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("12 metrics", 12, unit="metrics"),
                                     gold_claim("97%", 97, unit="%", kind="accuracy")]}]
    preds = [pred_claim("d#0", TEXT, "12 metrics", 12, unit="metrics"),
             pred_claim("d#0", TEXT, "4.3x", 4.3, unit="x", kind="speedup")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    c = report.claims
    assert (c.tp, c.fp, c.fn) == (1, 1, 1)
    assert (c.precision, c.recall, c.f1) == (0.5, 0.5, 0.5)
    assert report.per_kind["accuracy"].recall == 0.0
    assert report.per_kind["speedup"].precision == 0.0
    assert report.per_kind["scale"].f1 == 1.0
    assert [f["evidence"] for f in report.false_negatives] == ["97%"]
    assert [f["evidence"] for f in report.false_positives] == ["4.3x"]


@pytest.mark.parametrize("value, unit", [
    ("600 billion", "parameters"),       # magnitude word in a string value
    (600, "billion parameters"),          # magnitude word at the head of the unit
    (6.0e11, "parameters"),
    (6.04e11, "parameters"),              # within 1%
])
def test_magnitude_equivalence(tmp_path: Path, value: Any, unit: str) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("beyond 600 billion parameters", 6e11,
                                                unit="parameters", qualifier="over")]}]
    preds = [pred_claim("d#0", TEXT, "beyond 600 billion parameters", value, unit=unit,
                        qualifier="over")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert report.claims.f1 == 1.0
    assert report.unit_accuracy == 1.0


def test_percent_matches_fraction_but_unit_counts_wrong(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("97%", 97, unit="%", kind="accuracy")]}]
    preds = [pred_claim("d#0", TEXT, "97%", 0.97, unit=None, kind="accuracy")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert report.claims.tp == 1 and report.claims.f1 == 1.0
    assert report.unit_accuracy == 0.0
    assert report.value_parsed_share == 1.0  # 0.97 is read back from "97%"


@pytest.mark.parametrize("gold, gold_unit, pred, pred_unit, expected", [
    (97, "%", 0.97, None, True),
    (0.97, None, 97, "%", True),
    (1 / 3, "x", 0.33, "x", True),        # rounding to the precision written
    (84.4, "%", 84.41, "%", True),
    (94.6, "%", 95.6, "%", False),
    (2.0, "x", 200, "%", False),          # a factor is not a percentage
    (0.88, "kappa", 0.9, "kappa", False),  # one significant digit is not a rounding
    (5e11, "tokens", 5.0e11, "tokens", True),
])
def test_values_match(gold: float, gold_unit: Optional[str], pred: float,
                      pred_unit: Optional[str], expected: bool) -> None:
    assert values_match(gold, gold_unit, pred, pred_unit) is expected


def test_value_high_must_agree_when_both_present(tmp_path: Path) -> None:
    text = "It is 4-15x faster and uses 2-3x less memory."
    gold = [{"id": "d#0", "_text": text, "claims": [
        gold_claim("4-15x", 4, value_high=15, unit="x", kind="speedup"),
        gold_claim("2-3x", 2, value_high=3, unit="x", kind="efficiency")]}]
    preds = [pred_claim("d#0", text, "4-15x", 4, value_high=16, unit="x", kind="speedup"),
             pred_claim("d#0", text, "2-3x", 2, unit="x", kind="efficiency")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert (report.claims.tp, report.claims.fp, report.claims.fn) == (1, 1, 1)
    assert report.false_negatives[0]["evidence"] == "4-15x"


def test_one_to_one_duplicate_prediction_is_a_false_positive(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("97%", 97, unit="%", kind="accuracy")]}]
    preds = [pred_claim("d#0", TEXT, "97%", 97, unit="%", kind="accuracy")] * 2
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert (report.claims.tp, report.claims.fp, report.claims.fn) == (1, 1, 0)
    assert report.claims.precision == 0.5 and report.claims.recall == 1.0


def test_overlap_preference_picks_prediction_at_gold_span(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("12 domains", 12, unit="domains")]}]
    at_metrics = pred_claim("d#0", TEXT, "12 metrics", 12, unit="domains")
    at_domains = pred_claim("d#0", TEXT, "12 domains", 12, unit="metrics")
    # the unit favours the first prediction; the span must win
    report = evaluate(*write_case(tmp_path, gold, [at_metrics, at_domains]))
    assert report.claims.tp == 1
    assert [f["evidence"] for f in report.false_positives] == ["12 metrics"]
    assert report.unit_accuracy == 0.0  # matched the prediction at the span, unit "metrics"


def test_assignment_maximises_matches_over_greedy(tmp_path: Path) -> None:
    text = "Scores of 100 and 100.9 were reached."
    gold = [{"id": "d#0", "_text": text, "claims": [gold_claim("100", 100.0),
                                                   gold_claim("100.9", 100.9)]}]
    # p1 overlaps gold "100" and is within 1% of both gold values; p2 only fits "100"
    preds = [pred_claim("d#0", text, "100", 100.5), pred_claim("d#0", text, "100.9", 99.5)]
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert report.claims.tp == 2


def test_wrong_kind_and_qualifier_lower_accuracies(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [
        gold_claim("up to 4.3x", 4.3, unit="x", kind="speedup", qualifier="up to"),
        gold_claim("97%", 97, unit="%", kind="accuracy")]}]
    preds = [pred_claim("d#0", TEXT, "up to 4.3x", 4.3, unit="×", kind="efficiency"),
             pred_claim("d#0", TEXT, "97%", 97, unit="%", kind="accuracy")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert report.claims.f1 == 1.0
    assert report.kind_accuracy == 0.5
    assert report.qualifier_accuracy == 0.5
    assert report.unit_accuracy == 1.0  # "×" and "x" are the same unit
    assert report.per_kind["speedup"].recall == 1.0  # by gold kind
    assert report.per_kind["efficiency"].precision == 1.0  # by predicted kind


def test_attribute_scores_count_non_null_values(tmp_path: Path) -> None:
    text = "a 1 b 2 c 3 d 4 e 5"
    ev = ["a 1", "b 2", "c 3", "d 4", "e 5"]
    gold_ds = [None, "CIFAR-10", "MMMU", None, "CIFAR-10"]
    pred_ds = [None, "CIFAR-10 test set", None, "GSM8K", "CIFAR-100"]
    gold = [{"id": "d#0", "_text": text,
             "claims": [gold_claim(e, i + 1, dataset=d) for i, (e, d) in enumerate(zip(ev, gold_ds))]}]
    preds = [pred_claim("d#0", text, e, i + 1, dataset=d) for i, (e, d) in enumerate(zip(ev, pred_ds))]
    score = evaluate(*write_case(tmp_path, gold, preds)).attributes["dataset"]
    assert (score.tp, score.fp, score.fn, score.tn) == (1, 2, 2, 1)
    assert score.precision == pytest.approx(1 / 3) and score.recall == pytest.approx(1 / 3)
    assert score.accuracy == pytest.approx(2 / 5)


def test_hardware_attribute_uses_canonical_names(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("up to 4.3x", 4.3, unit="x", hardware="A100 GPU")]}]
    preds = [pred_claim("d#0", TEXT, "up to 4.3x", 4.3, unit="x", hardware="NVIDIA A100")]
    score = evaluate(*write_case(tmp_path, gold, preds)).attributes["hardware"]
    assert (score.tp, score.fp, score.fn) == (1, 0, 0)


# --------------------------------------------------------------------------- documents


def test_document_lists_are_one_to_one_and_fuzzy(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [], "datasets": ["CIFAR-10", "CIFAR-100"],
             "hardware": ["2048 TPU v3 accelerators"], "models": ["Llama-3-70b"]}]
    out_docs = [{"doc_id": "d#0", "status": "ok", "text": TEXT,
                 "datasets": ["cifar-10", "CIFAR-10 test split"],
                 "hardware": ["Cloud TPUv3 cores"], "models": ["Llama-3-8b"]}]
    report = evaluate(*write_case(tmp_path, gold, [], out_docs))
    ds = report.doc_lists["datasets"]
    assert (ds.tp, ds.fp, ds.fn) == (1, 1, 1)
    assert report.doc_lists["hardware"].f1 == 1.0
    assert (report.doc_lists["models"].tp, report.doc_lists["models"].fn) == (0, 1)


def test_missing_and_error_documents(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("97%", 97, unit="%")]},
            {"id": "d#1", "claims": [gold_claim("12 metrics", 12)], "datasets": ["MMMU"]},
            {"id": "d#2", "claims": [gold_claim("12 domains", 12)]}]
    out_docs = [{"doc_id": "d#0", "status": "ok", "text": TEXT},
                {"doc_id": "d#2", "status": "error", "error": "model failed", "text": TEXT},
                {"doc_id": "x#9", "status": "ok", "text": TEXT}]
    preds = [pred_claim("d#0", TEXT, "97%", 97, unit="%"),
             pred_claim("x#9", TEXT, "12 metrics", 12)]  # a document outside the gold
    report = evaluate(*write_case(tmp_path, gold, preds, out_docs))
    assert report.missing_docs == ["d#1"]
    assert report.error_docs == ["d#2"]
    assert report.extra_docs == ["x#9"]
    assert (report.claims.tp, report.claims.fp, report.claims.fn) == (1, 0, 2)
    assert report.doc_lists["datasets"].fn == 1
    assert report.n_checked == 2  # grounding looks at every output claim
    assert "d#1" in format_report(report)


def test_grounding_and_value_parsing_shares(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": []}]
    preds = [pred_claim("d#0", TEXT, "97%", 97, unit="%"),
             pred_claim("d#0", TEXT, "97%", 97, unit="%", at=3),        # offsets off
             pred_claim("d#0", TEXT, "12 metrics", 13, unit="metrics"),  # value not in evidence
             pred_claim("d#0", TEXT, "up to 4.3x", 4.3, unit="x")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    assert report.n_checked == 4
    assert report.grounded_share == 0.75
    assert report.value_parsed_share == 0.75


def test_claims_csv_is_read_without_jsonl(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("97%", 97, unit="%")]}]
    gold_path, out = write_case(tmp_path, gold, [])
    (out / "claims.jsonl").unlink()
    row = pred_claim("d#0", TEXT, "97%", 97, unit="%")
    with (out / "claims.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    report = evaluate(gold_path, out)
    assert report.claims.f1 == 1.0 and report.grounded_share == 1.0


@pytest.mark.parametrize("breakage, needle", [
    ("gold", "gold annotations not found"),
    ("out", "output directory not found"),
    ("documents", "documents.jsonl"),
    ("claims", "claims.jsonl or claims.csv"),
    ("badjson", "not valid JSON"),
])
def test_missing_files_raise_input_error(tmp_path: Path, breakage: str, needle: str) -> None:
    gold_path, out = write_case(tmp_path, [{"id": "d#0", "claims": []}], [])
    if breakage == "gold":
        gold_path = tmp_path / "nope.jsonl"
    elif breakage == "out":
        out = tmp_path / "nope"
    elif breakage == "documents":
        (out / "documents.jsonl").unlink()
    elif breakage == "claims":
        (out / "claims.jsonl").unlink()
    else:
        (out / "claims.jsonl").write_text("{not json\n")
    with pytest.raises(InputError, match=needle):
        evaluate(gold_path, out)


# --------------------------------------------------------------------------- helpers


@pytest.mark.parametrize("evidence, value", [
    ("half a trillion tokens", 5e11),
    ("557-million-parameter", 5.57e8),
    ("up to $16\\times$", 16),
    ("1/3", 1 / 3),
    ("more than a dozen areas", 12),
    ("approximately a million hours", 1e6),
    ("230K real-world conversations", 2.3e5),
    ("\\textbf{30\\%}", 30),
    ("κ = 0.88", 0.88),
    ("twice", 2),
])
def test_parse_numbers_reads_evidence(evidence: str, value: float) -> None:
    assert any(abs(v - value) <= 1e-9 * max(1.0, value) for v in parse_numbers(evidence))


@pytest.mark.parametrize("a, b", [("GPUs", "gpu"), ("×", "x"), ("times", "x"),
                                  ("percent", "%"), ("Points", "point"), ("days", "Day"),
                                  ("seconds", "s"), ("µs", "μs"), ("frames per second", "frames/s"),
                                  ("queries per Joule", "queries/J"), ("h", "hours"), (None, "")])
def test_normalise_unit_equates(a: Optional[str], b: Optional[str]) -> None:
    assert normalise_unit(a) == normalise_unit(b)


@pytest.mark.parametrize("a, b, hardware, matches", [
    ("CIFAR-10", "CIFAR-100", False, False),
    ("Llama-3-70b", "Llama-3-8b", False, False),
    ("GPT-4o", "GPT-4", False, False),
    ("ImageNet-2012", "ImageNet", False, True),
    ("T4 GPU (16GB)", "T4", False, True),
    ("Cloud TPUv3 cores", "TPU v3", True, True),
    ("Visual Haystacks (VHs)", "Visual Haystacks", False, True),
    ("MMMU", None, False, False),
])
def test_fuzzy_similarity(a: str, b: Optional[str], hardware: bool, matches: bool) -> None:
    assert (fuzzy_similarity(a, b, hardware=hardware) >= 0.5) is matches


def test_append_results_writes_header_once(tmp_path: Path) -> None:
    report = evaluate(GOLD_DIR / "dev.jsonl", dev_as_predictions(tmp_path))
    results = tmp_path / "eval" / "RESULTS.md"
    append_results(report, results, model="qwen2.5-7b", prompt_version="v1")
    append_results(report, results, model="qwen2.5-7b", prompt_version="v2", note="a|b")
    lines = results.read_text().splitlines()
    assert sum(line.startswith("| date") for line in lines) == 1
    rows = [line for line in lines if line.startswith("| 20")]
    assert len(rows) == 2
    cells = [c.strip() for c in rows[1].strip("|").split(" | ")]
    assert cells[1:7] == ["dev", "qwen2.5-7b", "v2", "1.000", "1.000", "1.000"]
    assert cells[-2] == "0" and cells[-1] == "a\\|b"
    header = next(line for line in lines if line.startswith("| date"))
    assert len(cells) == header.count(" | ") + 1  # one cell per column
    assert cells[8].startswith("acc 1.00/1.00/1.00 · ")  # recall / kind accuracy / typed F1
    assert cells[9] == "1.00/1.00/1.00/1.00"  # claim dataset/hardware/model/baseline F1


def test_evaluate_with_a_log_appends_the_line_claims_eval_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAIMS_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = dev_as_predictions(tmp_path)
    results = tmp_path / "RESULTS.md"
    report = evaluate(GOLD_DIR / "dev.jsonl", out, log=results, note="first")
    assert report == evaluate(GOLD_DIR / "dev.jsonl", out)  # logging changes no figure
    evaluate(GOLD_DIR / "dev.jsonl", out, log=results, note="second", model="my-model")
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in results.read_text().splitlines()
            if line.startswith("| 20")]
    assert [(row[2], row[-1]) for row in rows] == [(EMBEDDED_MODEL, "first"), ("my-model", "second")]
    assert rows[0][3] == prompt_version()
    assert report.to_text() == format_report(report)


# --------------------------------------------------------------------------- per kind


KIND_TEXT = "It is 3x faster, uses 40% less memory, reaches 91.5% accuracy and adds 2.1 points."


def kind_case(tmp_path: Path) -> Any:
    """Four gold claims of four kinds; the output finds three (one with a wrong kind) and
    adds one spurious speedup."""
    gold = [{"id": "k#0", "_text": KIND_TEXT, "claims": [
        gold_claim("3x", 3, unit="x", kind="speedup"),
        gold_claim("40%", 40, unit="%", kind="efficiency"),
        gold_claim("91.5%", 91.5, unit="%", kind="accuracy"),
        gold_claim("2.1 points", 2.1, unit="points", kind="improvement")]}]
    preds = [pred_claim("k#0", KIND_TEXT, "3x", 3, unit="x", kind="speedup"),
             pred_claim("k#0", KIND_TEXT, "40%", 40, unit="%", kind="speedup"),
             pred_claim("k#0", KIND_TEXT, "91.5%", 91.5, unit="%", kind="accuracy"),
             pred_claim("k#0", KIND_TEXT, "It", 7, unit="x", kind="speedup")]
    return evaluate(*write_case(tmp_path, gold, preds))


def test_per_kind_detection_kind_accuracy_and_typed_scores(tmp_path: Path) -> None:
    report = kind_case(tmp_path)
    assert (report.claims.tp, report.claims.fp, report.claims.fn) == (3, 1, 1)
    k = report.per_kind
    assert sorted(k) == ["accuracy", "efficiency", "improvement", "speedup"]
    # speedup: 1 gold (found, right kind); 3 predicted, 2 of them match some gold claim
    assert (k["speedup"].n_gold, k["speedup"].n_pred, k["speedup"].n_matched) == (1, 3, 1)
    assert k["speedup"].recall == 1.0 and k["speedup"].precision == pytest.approx(2 / 3)
    assert k["speedup"].kind_accuracy == 1.0
    assert (k["speedup"].typed.tp, k["speedup"].typed.fp, k["speedup"].typed.fn) == (1, 2, 0)
    assert k["speedup"].typed.f1 == pytest.approx(0.5)
    # efficiency: found, but labelled speedup; nothing predicted as efficiency
    assert k["efficiency"].recall == 1.0 and k["efficiency"].kind_accuracy == 0.0
    assert (k["efficiency"].typed.tp, k["efficiency"].typed.fn) == (0, 1)
    assert k["efficiency"].typed.f1 == 0.0
    # accuracy: all right; improvement: missed, so no kind accuracy to speak of (empty ratio)
    assert k["accuracy"].f1 == k["accuracy"].kind_accuracy == k["accuracy"].typed.f1 == 1.0
    assert k["improvement"].recall == 0.0 and k["improvement"].n_matched == 0
    assert k["improvement"].kind_accuracy == 1.0
    assert report.kind_confusion == {"accuracy": {"accuracy": 1}, "efficiency": {"speedup": 1},
                                     "speedup": {"speedup": 1}}
    # typed totals: 2 of 4 predictions right with their kind, 2 of 4 gold claims found so
    assert (report.claims_typed.tp, report.claims_typed.fp, report.claims_typed.fn) == (2, 2, 2)
    assert report.kind_accuracy == pytest.approx(2 / 3)


def test_per_kind_table_and_results_cell(tmp_path: Path) -> None:
    report = kind_case(tmp_path)
    table = format_report(report)
    eff = next(line for line in table.splitlines() if line.strip().startswith("efficiency"))
    assert eff.split()[1:3] == ["1", "0"] and eff.rstrip().endswith("speedup 1")
    assert "claims, right kind" in table and "claims (kind ignored)" in table


def test_the_tables_say_which_figures_ignore_the_kind(tmp_path: Path) -> None:
    """A kind whose claims were all found but half labelled another kind shows P = R = 100 in
    the per-kind table: the table must say those figures ignore the kind."""
    report = kind_case(tmp_path)
    lines = format_report(report).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("per kind"))
    assert lines[header].split()[4:7] == ["P%*", "R%*", "F1%*"]
    note = next(line for line in lines[header:] if line.strip().startswith("*"))
    assert "ignore the kind" in note and "typed F1% count only the right kind" in note
    eff = next(line for line in lines if line.strip().startswith("efficiency"))
    assert eff.split()[3:5] == ["0.0", "100.0"]  # found (R 100) though labelled speedup: kind acc 0
    results = tmp_path / "RESULTS.md"
    append_results(report, results, model="m", prompt_version="p", set_name="toy")
    assert "| per kind R (kind ignored) / kind acc / typed F1 |" in results.read_text()


def test_per_kind_results_cell(tmp_path: Path) -> None:
    report = kind_case(tmp_path)
    results = tmp_path / "RESULTS.md"
    append_results(report, results, model="m", prompt_version="p", set_name="toy")
    row = results.read_text().splitlines()[-1]
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[1] == "toy"
    assert cells[8] == "acc 1.00/1.00/1.00 · eff 1.00/.00/.00 · imp .00/1.00/.00 · spd 1.00/1.00/.50"


def test_results_with_old_columns_get_a_new_table(tmp_path: Path) -> None:
    report = kind_case(tmp_path)
    results = tmp_path / "RESULTS.md"
    results.write_text("# Evaluation results\n\n| date (UTC) | model | note |\n|---|---|---|\n"
                       "| 2020-01-01 | m | old |\n")
    append_results(report, results, model="m", prompt_version="p")
    append_results(report, results, model="m", prompt_version="p")
    lines = results.read_text().splitlines()
    assert lines[:5] == ["# Evaluation results", "", "| date (UTC) | model | note |",
                         "|---|---|---|", "| 2020-01-01 | m | old |"]
    assert lines[5] == "" and lines[6].startswith("| date (UTC) | set |")
    assert sum(line.startswith("| date") for line in lines) == 2
    assert [c.strip() for c in lines[-1].strip("|").split(" | ")][1] == "gold"


def test_metric_matches_by_containment_or_shared_words() -> None:
    from paper_claims.evaluation import metric_similar

    assert metric_similar("top-1 accuracy", "Accuracy")  # one contains the other
    assert metric_similar("end-to-end latency", "latency")
    assert metric_similar("decoding throughput", "throughput of decoding")  # most words shared
    assert not metric_similar("throughput", "Gbps")  # a unit is not what is measured
    assert not metric_similar("accuracy", "inaccuracy")  # words, not substrings
    assert not metric_similar(None, "accuracy")


def test_metric_is_scored_on_matched_claims(tmp_path: Path) -> None:
    gold = [{"id": "d#0", "claims": [gold_claim("97% accuracy", 97, unit="%", kind="accuracy", metric="accuracy"),
                                     gold_claim("4.3x faster", 4.3, unit="x", kind="speedup", metric="inference speed")]}]
    preds = [pred_claim("d#0", TEXT, "97% accuracy", 97, unit="%", kind="accuracy", metric="top-1 accuracy"),
             pred_claim("d#0", TEXT, "4.3x faster", 4.3, unit="x", kind="speedup", metric="A100 GPUs")]
    report = evaluate(*write_case(tmp_path, gold, preds))
    metric = report.attributes["metric"]
    assert (metric.tp, metric.fp, metric.fn) == (1, 1, 1)
    assert "metric" in format_report(report)
