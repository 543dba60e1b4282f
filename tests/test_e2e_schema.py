"""A custom claim schema end to end, replayed from a cassette recorded against the embedded
model (``python scripts/record_cassettes.py tests/test_e2e_schema.py`` re-records it)."""

from __future__ import annotations

import json

import pytest

from paper_claims.api import extract_claims
from paper_claims.parse.quantities import find_quantities
from paper_claims.schemas import describe, load_schema
from tests.conftest import ROOT
from tests.test_e2e import assert_replayed_all, embedded_endpoint  # noqa: F401  (the recorded endpoint)

pytestmark = pytest.mark.cassette

SCHEMA = str(ROOT / "examples" / "measeval" / "schema.py") + ":Quantity"
PARAGRAPHS = [
    {"id": "geo", "text": "The basalt flow at the northern site is 40 m thick, and its olivine crystals reach 2.5 mm. "
                          "We sampled 12 cores from the upper unit."},
    {"id": "bio", "text": "Mean body mass of the adult voles was 32 g in summer. The colony held about 150 animals, "
                          "of which 18 were juveniles (Fig. 3)."},
    {"id": "chem", "text": "The catalyst converted 85% of the ethanol at 250 °C, and the reaction took 3 h."},
]


@pytest.mark.vcr
def test_a_custom_schema_is_extracted_and_grounded_by_the_embedded_model(vcr) -> None:
    table = extract_claims(PARAGRAPHS, schema=SCHEMA, concurrency=1)
    assert [doc.status.value for doc in table.documents] == ["ok"] * len(PARAGRAPHS)
    assert table.stats.llm_calls == len(PARAGRAPHS)
    texts = {p["id"]: p["text"] for p in PARAGRAPHS}
    rows = table.rows
    assert rows and list(rows[0]) == describe(load_schema(SCHEMA)).columns()
    for row in rows:
        text = texts[row["doc_id"]]
        assert (row["start"], row["end"], row["value"]) in {(m.start, m.end, m.value) for m in find_quantities(text)}
        assert row["kind"] in ("measurement", "count")
        for field in ("entity", "property", "context"):
            if row[field] is not None:
                assert text[row[f"{field}_start"]:row[f"{field}_end"]] == row[field]
    assert any(row["entity"] for row in rows)
    evidence = {(row["doc_id"], row["evidence"]) for row in rows}
    assert ("geo", "40 m") in evidence and ("chem", "85%") in evidence
    body = json.loads(vcr.requests[0].body)
    assert body["response_format"]["type"] == "json_object"
    assert "kind" in body["response_format"]["schema"]["properties"]["c"]["properties"]["1"]["properties"]
    assert_replayed_all(vcr)
