"""Every claim's confidence where users meet it: --min-confidence keeps the claims at or above it,
the review shows the least certain documents first with each claim's confidence, and the report
marks the uncertain ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paper_claims.outputs.report import write_report
from paper_claims.outputs.review.state import ReviewState
from paper_claims.run.runner import Collect, ConfidentOnly
from paper_claims.schemas import Claim, DocumentResult, Kind
from paper_claims.text import jsonl_text

TEXT = "It runs 3.1x faster and reaches 91.2% accuracy."


def claim(evidence: str, confidence: float | None, kind: Kind = Kind.speedup) -> Claim:
    start = TEXT.index(evidence)
    return Claim(kind=kind, value=float(evidence.rstrip("x%")), unit=evidence[-1], evidence=evidence, start=start,
                 end=start + len(evidence), confidence=confidence)


def test_only_the_claims_at_or_above_the_confidence_reach_the_outputs() -> None:
    kept = Collect()
    sink = ConfidentOnly(kept, 0.6)
    sink.add(DocumentResult(doc_id="a", text=TEXT, claims=[claim("3.1x", 0.9), claim("91.2%", 0.3, Kind.accuracy)]))
    sink.add(DocumentResult(doc_id="b", text=TEXT, claims=[claim("3.1x", 0.6), claim("91.2%", None, Kind.accuracy)]))
    assert [[c.evidence for c in r.claims] for r in kept.results] == [["3.1x"], ["3.1x", "91.2%"]]  # none: kept


def _folder(tmp_path: Path, confidences: dict[str, list[float]]) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    docs, claims = [], []
    for doc_id, values in confidences.items():
        docs.append({"doc_id": doc_id, "text": TEXT, "status": "ok", "n_claims": len(values), "datasets": [],
                     "hardware": [], "models": []})
        for evidence, confidence in zip(("3.1x", "91.2%"), values):
            row: dict[str, Any] = claim(evidence, confidence).model_dump(mode="json")
            claims.append({"doc_id": doc_id, **row})
    (out / "documents.jsonl").write_text(jsonl_text(docs))
    (out / "claims.jsonl").write_text(jsonl_text(claims))
    return out


def test_review_shows_the_least_certain_documents_first(tmp_path: Path) -> None:
    out = _folder(tmp_path, {"sure": [0.95, 0.9], "unsure": [0.9, 0.2], "middle": [0.55], "none": []})
    state = ReviewState.load(out)
    assert list(state.docs) == ["unsure", "middle", "sure", "none"]
    shown = state.docs["unsure"].to_json()["claims"]
    assert [c["confidence"] for c in shown] == [0.9, 0.2]


def test_review_orders_documents_of_equal_confidence_by_their_least_sure_decision(tmp_path: Path) -> None:
    """The calibrated confidence takes few values: among documents whose least certain claims have
    the same, the one whose weakest decision (a kind, dataset, hardware, model or baseline
    probability) is least sure comes first."""
    out = _folder(tmp_path, {"a": [0.39], "b": [0.39], "c": [0.39], "d": [0.2]})
    rows = [json.loads(line) for line in (out / "claims.jsonl").read_text().splitlines()]
    weakest = {"a": {"kind_confidence": 0.9, "dataset_confidence": 0.7}, "b": {"kind_confidence": 0.9, "model_confidence": 0.3},
               "c": {}, "d": {"kind_confidence": 0.99}}
    for row in rows:
        row.update(weakest[row["doc_id"]])
    (out / "claims.jsonl").write_text(jsonl_text(rows))
    assert list(ReviewState.load(out).docs) == ["d", "b", "a", "c"]  # 0.2 first; then 0.3, 0.7, none (1)


def test_the_report_marks_uncertain_claims(tmp_path: Path) -> None:
    out = _folder(tmp_path, {"d": [0.9, 0.2]})
    page = write_report(out).read_text(encoding="utf-8")
    marks = [line for line in page.split("<mark") if 'class="claim' in line]
    assert sum("uncertain" in m for m in marks) == 1
    assert 'data-start="32"' in next(m for m in marks if "uncertain" in m)  # the 91.2% at 0.2, not the 3.1x
    assert json.dumps(0.2) in page  # its confidence in the claims table


def test_a_claim_is_marked_uncertain_when_one_of_its_decisions_is_below_even_odds(tmp_path: Path) -> None:
    """Both claims share the confidence most claims of a run have (0.39, under 0.5); the report
    and the review mark only the one whose dataset was chosen at 0.3."""
    out = _folder(tmp_path, {"d": [0.39, 0.39]})
    rows = [json.loads(line) for line in (out / "claims.jsonl").read_text().splitlines()]
    rows[0].update(kind_confidence=0.9, dataset_confidence=0.8, model_confidence=0.7)  # the 3.1x
    rows[1].update(kind_confidence=0.9, dataset_confidence=0.3, model_confidence=0.7)  # the 91.2%
    (out / "claims.jsonl").write_text(jsonl_text(rows))
    page = write_report(out).read_text(encoding="utf-8")
    marks = [line for line in page.split("<mark") if 'class="claim' in line]
    assert [("uncertain" in m, 'data-start="32"' in m) for m in marks if "uncertain" in m] == [(True, True)]
    shown = ReviewState.load(out).docs["d"].to_json()["claims"]
    assert [(c["claim"]["evidence"], c["uncertain"]) for c in shown] == [("3.1x", False), ("91.2%", True)]


def test_a_decisions_file_that_cannot_be_read_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    from paper_claims.cli import main

    (tmp_path / "in.jsonl").write_text('{"id": "a", "text": "It runs 3.1x faster."}\n')
    (tmp_path / "bad.json").write_text("{not json")
    for decisions in ("bad.json", "missing.json"):
        code = main(["extract", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"), "--base-url",
                     "http://127.0.0.1:9/v1", "--decisions", str(tmp_path / decisions), "--quiet"])
        assert code == 2 and not (tmp_path / "out" / "claims.csv").exists()
