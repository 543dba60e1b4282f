"""End-to-end extraction replayed from cassettes recorded against the embedded model.

Re-record with ``make cassettes`` (it starts the embedded server and sets
CLAIMS_RECORD_BASE_URL / CLAIMS_RECORD_API_KEY); plain runs replay offline.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from paper_claims.api import extract_claims
from paper_claims.cli import main
from paper_claims.parse.quantities import find_quantities
from paper_claims.settings import EMBEDDED_MODEL
from paper_claims.schemas.columns import CLAIM_COLUMNS
from paper_claims.schemas import Document
from tests.conftest import ROOT, read_jsonl

BASE_URL = os.environ.get("CLAIMS_RECORD_BASE_URL", "http://127.0.0.1:9/v1")
API_KEY = os.environ.get("CLAIMS_RECORD_API_KEY", "sk-replay-placeholder")
DEV_IDS = ["000#1", "001#1", "001#2", "001#4", "001#12", "004#3"]
CONTRACT_DOC_COLUMNS = {"doc_id", "source", "title", "system", "datasets", "hardware", "models", "n_claims", "status", "error"}

pytestmark = pytest.mark.cassette


@pytest.fixture(autouse=True)
def embedded_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """Talk to the recorded embedded server the way the embedded backend does."""
    monkeypatch.setenv("OPENAI_BASE_URL", BASE_URL)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("CLAIMS_MODEL", EMBEDDED_MODEL)
    monkeypatch.setenv("CLAIMS_RESPONSE_FORMAT", "grammar")


def assert_replayed_all(cassette) -> None:
    """On replay, every recorded exchange was used exactly once (none missing, none extra)."""
    if cassette.record_mode == "none":
        assert cassette.all_played and cassette.play_count == len(cassette.requests)


def dev_documents() -> list[Document]:
    rows = {row["id"]: row for row in read_jsonl(ROOT / "eval/gold/dev_inputs.jsonl")}
    return [Document(id=doc_id, text=rows[doc_id]["text"], source="dev_inputs.jsonl") for doc_id in DEV_IDS]


@pytest.mark.vcr
def test_dev_abstracts_yield_grounded_claims(vcr) -> None:
    table = extract_claims(dev_documents(), concurrency=1)
    assert [doc.status.value for doc in table.documents] == ["ok"] * len(DEV_IDS)
    assert len(table.rows) >= len(DEV_IDS)
    texts = {doc.doc_id: doc.text for doc in table.documents}
    for row in table.rows:
        text = texts[row["doc_id"]]
        assert text[row["start"] : row["end"]] == row["evidence"]
        spans = {(m.start, m.end, m.value) for m in find_quantities(text)}
        assert (row["start"], row["end"], row["value"]) in spans
    values = {(row["doc_id"], row["value"]) for row in table.rows}
    assert ("001#1", 89.0) in values and ("000#1", 94.6) in values
    assert table.stats.llm_calls == len(DEV_IDS)
    assert_replayed_all(vcr)


@pytest.mark.vcr
def test_requests_use_schema_grammar_and_a_shared_prefix(vcr) -> None:
    extract_claims(dev_documents()[:3], concurrency=1)
    bodies = [json.loads(request.body) for request in vcr.requests]
    assert len(bodies) == 3
    for body in bodies:
        assert body["response_format"]["type"] == "json_object"
        assert {"c", "s"} <= set(body["response_format"]["schema"]["required"])
        marks = len(body["response_format"]["schema"]["properties"]["c"]["properties"])  # one key per mark
        assert f"[{marks}]" in body["messages"][-1]["content"]
    systems = {body["messages"][0]["content"] for body in bodies}
    assert len(systems) == 1, "the static prefix must be byte-identical across documents"
    assert all("[1]" in body["messages"][-1]["content"] for body in bodies)


@pytest.mark.vcr
def test_cli_writes_contract_files_and_rerun_is_cached(vcr, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "abstracts.jsonl"
    source.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in dev_documents()[:3]))
    out = tmp_path / "out"
    assert main(["extract", str(source), "--out", str(out), "--quiet", "--no-report"]) == 0
    assert "3 LLM calls" in capsys.readouterr().err
    with (out / "claims.csv").open() as handle:
        header = next(csv.reader(handle))
    assert header == CLAIM_COLUMNS
    docs = read_jsonl(out / "documents.jsonl")
    assert [d["doc_id"] for d in docs] == DEV_IDS[:3]
    assert all(CONTRACT_DOC_COLUMNS <= set(d) for d in docs)
    assert sum(d["n_claims"] for d in docs) == len(read_jsonl(out / "claims.jsonl"))
    assert main(["extract", str(source), "--out", str(out), "--quiet", "--no-report"]) == 0
    assert "0 LLM calls" in capsys.readouterr().err, "a second identical run must make no model call"
    assert_replayed_all(vcr)
