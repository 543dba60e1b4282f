"""Claim schemas of your own: checked before the run, asked for and grounded through the same
path as the built-in schema, written with their own columns (API, CLI, Extractor)."""

from __future__ import annotations

import csv
import enum
import json
import subprocess
import sys
from pathlib import Path
from typing import Literal, Optional

import pytest
from pydantic import Field

from paper_claims import ClaimSchema, Extractor, SchemaError, Span, extract_claims, write_claims
from paper_claims.model.schema_prompt import SchemaAnswer, answer_schema, system_prompt
from paper_claims.rules.fields import schema_claims
from paper_claims.parse.document import parse_text
from paper_claims.parse.quantities import find_quantities
from paper_claims.schemas import PaperClaim, describe, load_schema
from paper_claims.settings import Settings
from tests.conftest import ROOT, read_jsonl
from tests.fakeserver import FakeServer

TEXTS = [
    {"id": "p1", "text": "The mean grain size of the quartz sand was 2.5 mm at 12 sites. The basalt layer is 40 m thick."},
    {"id": "p2", "text": "We counted 274 participants aged 58 to 70 in the cohort."},
    {"id": "p3", "text": "No numbers stand in this paragraph."},
]


class Measurement(ClaimSchema):
    """A measured quantity in a geology paragraph."""

    kind: Literal["measurement", "count"] = Field(description="measurement: an amount with a unit; count: things")
    entity: Optional[Span] = Field(None, description="the thing that is measured")
    property: Optional[Span] = Field(None, description="what about it is measured")
    mean: bool = Field(False, description="the number is a mean")

    examples = [{"text": "The sand was 2.5 mm.", "claims": [{"number": "2.5 mm", "kind": "measurement",
                                                                 "entity": "sand"}]}]


def _settings(server: FakeServer, tmp_path: Path, **extra: object) -> Settings:
    return Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False,
                    concurrency=4, backoff_base=0.01, backoff_cap=0.05, schema=extra.pop("schema", Measurement),
                    **extra)  # type: ignore[arg-type]


def test_a_schema_is_described_by_its_class() -> None:
    info = describe(Measurement)
    assert info.kind.values == ("measurement", "count")
    assert [(f.name, f.span) for f in info.fields] == [("entity", True), ("property", True), ("mean", False)]
    assert info.columns() == ["doc_id", "kind", "value", "value_high", "unit", "qualifier", "entity", "entity_start",
                              "entity_end", "property", "property_start", "property_end", "mean", "evidence", "start",
                              "end", "sentence", "sentence_start", "sentence_end"]
    prompt = system_prompt(info)
    assert "A measured quantity in a geology paragraph." in prompt
    assert "the thing that is measured" in prompt and '"measurement", "count"' in prompt
    assert "[1]2.5 mm" in prompt and '"entity":"sand"' in prompt  # the few-shot example, marked and answered
    schema = answer_schema(info, 2)
    mark = schema["properties"]["c"]["properties"]["2"]
    assert mark["required"] == ["kind", "entity", "property", "mean"]
    assert mark["properties"]["kind"] == {"enum": ["measurement", "count", "none"]}
    assert mark["properties"]["mean"] == {"enum": [True, False]}


def test_the_builtin_schema_is_an_instance_of_the_same_mechanism() -> None:
    info = describe(PaperClaim)
    assert info.builtin and info.kind.values == ("speedup", "efficiency", "accuracy", "improvement", "scale", "other")
    assert info.columns()[:3] == ["doc_id", "kind", "value"] and "hardware_canonical" in info.columns()


class NoKind(ClaimSchema):
    entity: Optional[Span] = None


class BadField(ClaimSchema):
    kind: Literal["a"]
    tags: list[str] = []


class ParserField(ClaimSchema):
    kind: Literal["a"]
    unit: Optional[Span] = None


class Colour(enum.Enum):
    red = "red"
    blue = "blue"


class EnumKinds(ClaimSchema):
    kind: Colour
    bright: Optional[Literal["yes", "no"]] = None


@pytest.mark.parametrize("cls, says", [
    (NoKind, "NoKind has no kind field"),
    (BadField, "BadField.tags: list[str] is not a field the toolkit can fill or ground"),
    (ParserField, "ParserField.unit: the parser fills unit"),
])
def test_a_schema_that_cannot_work_fails_with_one_line_naming_the_field(cls: type, says: str) -> None:
    with pytest.raises(SchemaError) as raised:
        describe(cls)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_enum_kinds_and_optional_literals_are_accepted() -> None:
    info = describe(EnumKinds)
    assert info.kind.values == ("red", "blue") and info.fields[0].choices == ("yes", "no") and info.fields[0].optional


def test_grounding_keeps_words_of_the_text_and_drops_the_rest() -> None:
    text = TEXTS[0]["text"]
    mentions = find_quantities(text)
    answer = SchemaAnswer.model_validate({"c": {
        "1": {"kind": "measurement", "entity": "quartz sand", "property": "grain size", "mean": True},
        "2": {"kind": "count", "entity": "invented words", "property": None, "mean": False},
        "3": {"kind": "none", "entity": None, "property": None, "mean": False},
        "9": {"kind": "count", "entity": None, "property": None, "mean": False},
    }})
    claims, dropped = schema_claims(describe(Measurement), parse_text(text, mentions), answer.c)
    first, second = claims
    assert (first.kind, first.evidence, first.entity, first.property, first.mean) == (
        "measurement", "2.5 mm", "quartz sand", "grain size", True)
    assert text[first.entity_start:first.entity_end] == "quartz sand"
    assert second.evidence == "12 sites" and second.entity is None  # words not in the text: dropped
    assert dropped == 2  # the invented entity and the label of a mark that does not exist


def test_extract_claims_with_a_custom_schema_writes_its_columns(tmp_path: Path) -> None:
    with FakeServer() as server:
        table = extract_claims(TEXTS, out=tmp_path / "out", settings=_settings(server, tmp_path))
    rows = read_jsonl(tmp_path / "out" / "claims.jsonl")
    assert rows and all(set(row) == set(describe(Measurement).columns()) for row in rows)
    for row in rows:
        text = next(t["text"] for t in TEXTS if t["id"] == row["doc_id"])
        assert text[row["start"]:row["end"]] == row["evidence"]
        if row["entity"] is not None:
            assert text[row["entity_start"]:row["entity_end"]] == row["entity"]
    assert {row["kind"] for row in rows} == {"measurement"}  # the fake model's first kind
    with (tmp_path / "out" / "claims.csv").open(encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == describe(Measurement).columns()
    frame = table.claims_df()
    assert list(frame.columns) == describe(Measurement).columns() and list(frame["kind"].cat.categories) == [
        "measurement", "count"]
    documents = read_jsonl(tmp_path / "out" / "documents.jsonl")
    assert [d["status"] for d in documents] == ["ok", "ok", "ok"]
    import sqlite3

    with sqlite3.connect(tmp_path / "out" / "claims.db") as db:  # claims.db with the schema's columns and types
        columns = [(row[1], row[2]) for row in db.execute("pragma table_info(claims)")]
        stored = db.execute("select entity, entity_start, mean from claims order by doc_id, start").fetchall()
    assert [name for name, _ in columns] == describe(Measurement).columns()
    assert dict(columns)["entity_start"] == "INTEGER" and dict(columns)["mean"] == "INTEGER"
    assert stored == [(r["entity"], r["entity_start"], int(r["mean"])) for r in sorted(rows, key=lambda r: (r["doc_id"], r["start"]))]


def test_a_schema_run_and_a_builtin_run_never_share_answers_or_results(tmp_path: Path) -> None:
    with FakeServer() as server:
        extract_claims(TEXTS[:2], settings=_settings(server, tmp_path))
        asked = server.total_requests
        builtin = extract_claims(TEXTS[:2], settings=_settings(server, tmp_path, schema=None))
        assert server.total_requests > asked  # the built-in schema asks again
        again = extract_claims(TEXTS[:2], settings=_settings(server, tmp_path))
    assert all(type(c).__name__ == "Claim" for d in builtin.documents for c in d.claims)
    assert all(type(c).__name__ == "SchemaClaim" for d in again.documents for c in d.claims)


def test_extractor_and_write_claims_take_a_schema_spec(tmp_path: Path) -> None:
    schema_file = tmp_path / "geo.py"
    schema_file.write_text("from typing import Literal, Optional\nfrom paper_claims import ClaimSchema, Span\n"
                           "class Geo(ClaimSchema):\n    kind: Literal['measurement']\n"
                           "    entity: Optional[Span] = None\n", encoding="utf-8")
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps(t) + "\n" for t in TEXTS), encoding="utf-8")
    with FakeServer() as server:
        options = dict(base_url=server.base_url, cache_dir=str(tmp_path / "cache"))
        stats = write_claims([str(inputs)], tmp_path / "out", schema=f"{schema_file}:Geo", progress=False,
                             report=False, **options)
        with Extractor(schema=f"{schema_file}:Geo", progress=False, **options) as extractor:
            table = extractor.extract(TEXTS)
    assert stats.errors == 0 and len(table) == len(read_jsonl(tmp_path / "out" / "claims.jsonl")) > 0
    assert "entity_start" in read_jsonl(tmp_path / "out" / "claims.jsonl")[0]


def test_load_schema_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="does not exist"):
        load_schema(str(tmp_path / "missing.py") + ":X")
    with pytest.raises(SchemaError, match="has no Nope"):
        load_schema("examples/measeval/schema.py:Nope")
    with pytest.raises(SchemaError, match="package.module:Class"):
        load_schema("just_a_name")


def test_cli_extract_with_a_schema_file_and_a_bad_schema(tmp_path: Path) -> None:
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps(t) + "\n" for t in TEXTS), encoding="utf-8")
    bad = tmp_path / "bad.py"
    bad.write_text("from paper_claims import ClaimSchema\nclass Bad(ClaimSchema):\n    note: str = ''\n", encoding="utf-8")
    with FakeServer() as server:
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test", "CLAIMS_CACHE_DIR": str(tmp_path / "c"),
               "PATH": "/usr/bin:/bin"}
        ok = subprocess.run([sys.executable, "-m", "paper_claims", "extract", str(inputs), "--out", str(tmp_path / "out"),
                             "--schema", "examples/measeval/schema.py:Quantity", "--quiet"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        failed = subprocess.run([sys.executable, "-m", "paper_claims", "extract", str(inputs), "--out",
                                 str(tmp_path / "out2"), "--schema", f"{bad}:Bad"],
                                cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert read_jsonl(tmp_path / "out" / "claims.jsonl")[0].keys() >= {"entity", "property", "context"}
    assert failed.returncode == 2 and failed.stderr.strip() == "claims: error: Bad has no kind field: add kind: " \
        "Literal[...] (or an Enum) with the kinds of claim"


def test_the_report_shows_a_custom_schema_kinds_and_fields(tmp_path: Path) -> None:
    from paper_claims.outputs.report import write_report

    with FakeServer() as server:
        extract_claims(TEXTS, out=tmp_path / "out", settings=_settings(server, tmp_path))
    manifest = json.loads((tmp_path / "out" / "schema.json").read_text(encoding="utf-8"))
    assert manifest["kinds"] == ["measurement", "count"] and manifest["name"] == "Measurement"
    html = write_report(tmp_path / "out").read_text(encoding="utf-8")
    assert 'value="measurement"' in html and 'value="count"' in html and 'value="speedup"' not in html
    assert "<th>entity</th>" in html and "<th>dataset</th>" not in html
    assert ".k-measurement.claim" in html  # a color of its own


def test_claims_eval_scores_a_custom_schema_against_gold_in_its_shape(tmp_path: Path) -> None:
    from paper_claims.evaluation import evaluate

    with FakeServer() as server:
        extract_claims(TEXTS, out=tmp_path / "out", settings=_settings(server, tmp_path))
    predicted = read_jsonl(tmp_path / "out" / "claims.jsonl")
    first = next(row for row in predicted if row["doc_id"] == "p1")
    gold = [{"id": "p1", "claims": [
                {"kind": "measurement", "value": 2.5, "unit": "mm", "evidence": "2.5 mm", "entity": first["entity"],
                 "property": "grain size", "mean": True},
                {"kind": "count", "value": 7, "unit": "cores", "evidence": "7 cores", "entity": None, "property": None,
                 "mean": False}]},
            {"id": "p3", "claims": []}]
    gold_file = tmp_path / "gold.jsonl"
    gold_file.write_text("".join(json.dumps(g) + "\n" for g in gold), encoding="utf-8")
    report = evaluate(gold_file, tmp_path / "out")
    assert set(report.attributes) == {"entity", "property", "mean"} and report.doc_lists == {}
    assert report.n_matched == 1 and report.claims.fn == 1 and report.kind_accuracy == 1.0
    assert report.attributes["entity"].tp == 1 and report.attributes["property"].fn == 1
    assert report.attributes["mean"].tp == 1  # the fake model answers a bool field's first choice, True


@pytest.mark.parametrize("spec", ["examples/measeval/schema.py:Quantity", "examples/energy/schema.py:EnergyFigure"])
def test_the_example_schemas_work(spec: str) -> None:
    info = describe(load_schema(str(ROOT / spec)))
    prompt = system_prompt(info)
    examples = prompt.split("Example:")[1:]
    assert examples and all('"kind":"none"' not in e.split("\n")[2] or "[" in e for e in examples)
    for example in info.examples:  # every number an example names is a number the parser marks
        marked = [m.text for m in find_quantities(example["text"])]
        assert all(any(c["number"] in words or words in c["number"] for words in marked) for c in example["claims"])


@pytest.mark.parametrize("schema", [Measurement, None])
def test_filling_through_instructor_grounds_every_number_and_span_or_drops_it(tmp_path: Path, schema: object) -> None:
    """--fill instructor: the model lists claims with the words of their numbers (the fake one
    every figure of the text, plus one number no text has); each kept claim stands on a parser
    number, its spans are words of the text, the invented number is dropped and counted."""
    from tests.fakeserver import INVENTED_NUMBER

    with FakeServer() as server:
        table = extract_claims(TEXTS, out=tmp_path / "out", settings=_settings(server, tmp_path, schema=schema,
                                                                               fill="instructor"))
        systems = {record.system for record in server.records}
    assert any("Extract every claim of the text" in s for s in systems)
    texts = {t["id"]: t["text"] for t in TEXTS}
    rows = read_jsonl(tmp_path / "out" / "claims.jsonl")
    assert {row["evidence"] for row in rows if row["doc_id"] == "p1"} == {"2.5 mm", "12 sites", "40 m"}
    for row in rows:
        assert texts[row["doc_id"]][row["start"]:row["end"]] == row["evidence"]
        assert INVENTED_NUMBER not in row["evidence"]
    documents = {d["doc_id"]: d for d in read_jsonl(tmp_path / "out" / "documents.jsonl")}
    assert documents["p1"]["dropped"] >= 1 and documents["p3"]["dropped"] == 0  # p3 has no number: not asked
    if schema is None:  # the built-in schema filled directly: Claim rows, names as written
        assert all("hardware_canonical" in row for row in rows)
        names = [row[name] for row in rows for name in ("dataset", "hardware", "model", "baseline") if row[name]]
        assert names and all(any(name in text for text in texts.values()) for name in names)
    else:
        spans = [(row, "entity") for row in rows if row["entity"] is not None]
        assert spans and all(texts[r["doc_id"]][r["entity_start"]:r["entity_end"]] == r["entity"] for r, _ in spans)
    assert len(table) == len(rows)


def test_a_filled_run_and_a_marks_run_never_share_results(tmp_path: Path) -> None:
    from paper_claims.run.runner import run_key
    from paper_claims.schemas import Document
    from paper_claims.tasks import task_for

    doc = Document(id="x", text=TEXTS[0]["text"])
    marks = task_for(Settings(schema=Measurement), "e")
    assert run_key(doc, marks) != run_key(doc, task_for(Settings(schema=Measurement, fill="instructor"), "e"))
    assert run_key(doc, task_for(Settings(), "e")) != run_key(doc, marks)


def test_review_of_a_custom_schema_edits_its_fields_and_exports_gold_in_its_shape(tmp_path: Path) -> None:
    """claims review on a custom schema's output: the page gets the schema's kinds and fields;
    a span field is edited to words of the text (offsets found), a choice among its values, a
    claim is added by selecting words; the export is gold in the schema's shape, which claims
    eval scores the corrected output against."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from paper_claims.evaluation import evaluate
    from paper_claims.outputs.review import export_review
    from paper_claims.outputs.review.app import TOKEN_HEADER, create_app

    out = tmp_path / "out"
    with FakeServer() as server:
        extract_claims(TEXTS, out=out, settings=_settings(server, tmp_path))
    app = create_app(out, reviewer="tester")
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    state = client.get("/api/state").json()
    assert state["kinds"] == ["measurement", "count"]
    assert state["fields"] == {"spans": ["entity", "property"], "choices": {"mean": [True, False]}}
    p1 = next(d for d in state["docs"] if d["doc_id"] == "p1")
    first, second, third = p1["claims"]

    def decide(**body: object) -> object:
        return client.post("/api/decide", json={"doc_id": "p1", **body}, headers={TOKEN_HEADER: app.state.token})

    changes = {"entity": "quartz  sand", "property": "mean grain size", "kind": "measurement", "mean": "false"}
    edited = decide(action="edit", claim_id=first["id"], changes=changes)
    assert edited.status_code == 200, edited.text
    claim = next(c for c in edited.json()["doc"]["claims"] if c["id"] == first["id"])["claim"]
    text = TEXTS[0]["text"]
    assert claim["entity"] == "quartz sand" and text[claim["entity_start"]:claim["entity_end"]] == "quartz sand"
    assert claim["property"] == "mean grain size" and claim["mean"] is False
    refused = decide(action="edit", claim_id=second["id"], changes={"entity": "granite"})
    assert refused.status_code == 422 and "not words of the text" in refused.json()["detail"]
    assert decide(action="edit", claim_id=second["id"], changes={"kind": "speedup"}).status_code == 422
    assert decide(action="edit", claim_id=second["id"], changes={"kind": "count"}).status_code == 200
    assert decide(action="reject", claim_id=third["id"]).status_code == 200
    assert decide(action="confirm").status_code == 200
    summary = export_review(out, tmp_path / "gold.jsonl")
    assert summary.reviewed_docs == 1 and summary.gold_claims == 2
    gold = read_jsonl(tmp_path / "gold.jsonl")[0]
    assert gold["claims"][0]["entity"] == "quartz sand" and gold["claims"][1]["kind"] == "count"
    assert (out / "reviewed" / "schema.json").is_file()
    report = evaluate(tmp_path / "gold.jsonl", out / "reviewed")
    assert report.claims.f1 == 1.0 and report.kind_accuracy == 1.0 and report.attributes["entity"].f1 == 1.0
