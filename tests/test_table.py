"""paper_claims.outputs.table and paper_claims.run.journal: column contract, exports, atomic writes, resume journal."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from paper_claims.errors import StorageError
from paper_claims.run.journal import JOURNAL_NAME, Journal
from paper_claims.parse.quantities import find_quantities
from paper_claims.outputs.files import atomic_write_text
from paper_claims.outputs.table import CLAIM_COLUMNS, DOCUMENT_COLUMNS, ClaimTable
from paper_claims.schemas import Claim, DocumentResult, Kind, Status
from tests.conftest import read_jsonl

CONTRACT = ["doc_id", "kind", "value", "value_high", "unit", "qualifier", "metric", "dataset",
            "hardware", "model", "baseline", "evidence", "start", "end"]

GSHARD = (
    "We demonstrate that such a giant model can efficiently be trained on 2048 TPU v3 accelerators "
    "in 4 days to achieve far superior quality for translation from 100 languages to English."
)
MOE = "MoE-Lightning can achieve up to (10.3x) higher throughput on a single T4 GPU (16GB), with 2-3x less CPU memory."


def claim_from(text: str, index: int, kind: Kind, **extra: Any) -> Claim:
    mention = find_quantities(text)[index]
    return Claim(kind=kind, value=mention.value, value_high=mention.value_high, unit=mention.unit,
                 qualifier=mention.qualifier, evidence=mention.text, start=mention.start,
                 end=mention.end, **extra)


def sample_documents() -> list[DocumentResult]:
    return [
        DocumentResult(
            doc_id="gshard", source="examples", title="GShard", system="GShard",
            datasets=[], hardware=["2048 TPU v3 accelerators"], models=[],
            claims=[
                claim_from(GSHARD, 0, Kind.scale, metric="accelerators", hardware="2048 TPU v3 accelerators",
                           hardware_canonical="Google TPU v3"),
                claim_from(GSHARD, 1, Kind.speedup, metric="training time, \"wall clock\""),
            ],
            attempts=1, text=GSHARD,
        ),
        DocumentResult(doc_id="broken", status=Status.error, error="model answer failed validation", attempts=3),
        DocumentResult(
            doc_id="moe", title="MoE-Lightning: naïve—“quoted”", hardware=["single T4 GPU (16GB)"],
            claims=[
                claim_from(MOE, 0, Kind.speedup, metric="throughput", baseline="FlexGen, DeepSpeed"),
                claim_from(MOE, 2, Kind.efficiency, metric="CPU memory\nusage"),
            ],
            attempts=2, dropped=1,
        ),
        DocumentResult(doc_id="empty", attempts=1),
    ]


def test_claim_columns_follow_the_contract_order() -> None:
    assert CLAIM_COLUMNS[0] == "doc_id"
    assert CLAIM_COLUMNS[: CLAIM_COLUMNS.index("hardware") + 1] == CONTRACT[: CONTRACT.index("hardware") + 1]
    assert [c for c in CLAIM_COLUMNS if c in CONTRACT] == CONTRACT
    assert len(CLAIM_COLUMNS) == len(set(CLAIM_COLUMNS))


def test_document_columns_match_document_rows() -> None:
    for doc in sample_documents():
        assert list(doc.document_row()) == DOCUMENT_COLUMNS


def test_rows_errors_len_and_repr() -> None:
    table = ClaimTable(sample_documents())
    assert len(table) == 4
    assert [r["doc_id"] for r in table.rows] == ["gshard", "gshard", "moe", "moe"]
    assert all(list(r) == CLAIM_COLUMNS for r in table.rows)
    assert [d.doc_id for d in table.errors] == ["broken"]
    assert [r["doc_id"] for r in table.document_rows] == ["gshard", "broken", "moe", "empty"]
    assert table.rows[2]["qualifier"] == "up to" and table.rows[2]["kind"] == "speedup"
    assert repr(table) == "ClaimTable(4 documents, 4 claims, 1 errors)"
    for row in table.rows:
        text = GSHARD if row["doc_id"] == "gshard" else MOE
        assert text[row["start"] : row["end"]] == row["evidence"]


def test_empty_table() -> None:
    table = ClaimTable([])
    assert len(table) == 0 and table.rows == [] and table.errors == []


def test_to_jsonl_roundtrip(tmp_path: Path) -> None:
    table = ClaimTable(sample_documents())
    path = table.to_jsonl(tmp_path / "out" / "claims.jsonl")
    assert path == tmp_path / "out" / "claims.jsonl"
    assert read_jsonl(path) == table.rows
    assert "naïve" not in path.read_text(encoding="utf-8")  # titles are not claim columns


def test_documents_to_jsonl_roundtrip(tmp_path: Path) -> None:
    table = ClaimTable(sample_documents())
    path = table.documents_to_jsonl(tmp_path / "documents.jsonl")
    rows = read_jsonl(path)
    assert rows == table.document_rows
    assert rows[2]["title"] == "MoE-Lightning: naïve—“quoted”"
    assert "naïve—“quoted”" in path.read_text(encoding="utf-8")  # UTF-8, not \\u escapes
    assert [r["n_claims"] for r in rows] == [2, 0, 2, 0]
    assert rows[1]["status"] == "error" and rows[1]["error"] == "model answer failed validation"
    restored = [DocumentResult.model_validate({**r, "claims": []}) for r in rows]
    assert [d.doc_id for d in restored] == ["gshard", "broken", "moe", "empty"]


def _csv_value(value: Any) -> str:
    return "" if value is None else str(value)


def test_to_csv_roundtrip(tmp_path: Path) -> None:
    table = ClaimTable(sample_documents())
    path = table.to_csv(tmp_path / "claims.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == CLAIM_COLUMNS
        rows = list(reader)
    assert rows == [{k: _csv_value(v) for k, v in row.items()} for row in table.rows]
    # quotes, commas and newlines inside fields survive
    assert rows[1]["metric"] == 'training time, "wall clock"'
    assert rows[3]["metric"] == "CPU memory\nusage"
    assert float(rows[0]["value"]) == 2048.0 and int(rows[0]["start"]) == table.rows[0]["start"]


def test_to_csv_of_empty_table_has_header_only(tmp_path: Path) -> None:
    path = ClaimTable([]).to_csv(tmp_path / "claims.csv")
    assert path.read_text(encoding="utf-8") == ",".join(CLAIM_COLUMNS) + "\n"


def test_write_creates_three_files(tmp_path: Path) -> None:
    paths = ClaimTable(sample_documents()).write(tmp_path / "run")
    assert [p.name for p in paths] == ["claims.csv", "claims.jsonl", "documents.jsonl"]
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["claims.csv", "claims.jsonl", "documents.jsonl"]


def test_to_pandas_columns() -> None:
    pd = pytest.importorskip("pandas")
    frame = ClaimTable(sample_documents()).to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == CLAIM_COLUMNS
    assert len(frame) == 4
    assert list(frame["evidence"]) == ["2048 TPU v3 accelerators", "4 days", "up to (10.3x)", "2-3x"]
    empty = ClaimTable([]).to_pandas()
    assert list(empty.columns) == CLAIM_COLUMNS and len(empty) == 0


def test_atomic_write_text_replaces_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.txt"
    assert atomic_write_text(target, "first\n") == target
    assert target.read_text(encoding="utf-8") == "first\n"
    atomic_write_text(target, "second — ünïcode\r\nline\n")
    assert target.read_bytes() == "second — ünïcode\r\nline\n".encode("utf-8")  # no newline translation
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]


def test_atomic_write_text_failure_keeps_old_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import paper_claims.outputs.table as table_module

    target = tmp_path / "file.txt"
    atomic_write_text(target, "old")

    def fail(*_args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(table_module.os, "replace", fail)
    with pytest.raises(StorageError, match=r"^disk full writing .*file\.txt$"):  # one line naming the file
        atomic_write_text(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


# ---------------------------------------------------------------------------
# Journal
# ---------------------------------------------------------------------------


def test_journal_load_of_missing_file_is_empty(tmp_path: Path) -> None:
    assert Journal(tmp_path / "nowhere").load() == {}


def test_journal_append_load_roundtrip(tmp_path: Path) -> None:
    docs = sample_documents()
    journal = Journal(tmp_path / "out")
    for i, doc in enumerate(docs):
        journal.append(f"key{i}", doc)
    journal.close()
    journal.close()  # idempotent
    assert journal.path == tmp_path / "out" / JOURNAL_NAME
    loaded = Journal(tmp_path / "out").load()
    assert list(loaded) == [d.doc_id for d in docs]
    for i, doc in enumerate(docs):
        key, result = loaded[doc.doc_id]
        assert key == f"key{i}"
        assert result == doc


def test_journal_lines_are_flushed_before_close(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.append("k", sample_documents()[0])
    # another reader sees the line while the journal is still open
    assert Journal(tmp_path).load()["gshard"][0] == "k"
    journal.close()


def test_journal_last_line_wins(tmp_path: Path) -> None:
    first, _, moe, _ = sample_documents()
    journal = Journal(tmp_path)
    journal.append("old-key", first)
    journal.append("moe-key", moe)
    journal.append("new-key", first.model_copy(update={"attempts": 7}))
    journal.close()
    loaded = Journal(tmp_path).load()
    assert loaded["gshard"][0] == "new-key"
    assert loaded["gshard"][1].attempts == 7
    assert loaded["moe"][0] == "moe-key"


def test_journal_torn_last_line_is_ignored_and_next_append_is_loadable(tmp_path: Path) -> None:
    first, _, moe, empty = sample_documents()
    journal = Journal(tmp_path)
    journal.append("k1", first)
    journal.close()
    full = json.dumps({"key": "k2", "result": moe.model_dump(mode="json")})
    with (tmp_path / JOURNAL_NAME).open("a", encoding="utf-8") as handle:
        handle.write(full[: len(full) // 2])  # killed mid-write: no newline
    loaded = Journal(tmp_path).load()
    assert list(loaded) == ["gshard"]
    again = Journal(tmp_path)
    again.append("k3", empty)
    again.close()
    loaded = Journal(tmp_path).load()
    assert list(loaded) == ["gshard", "empty"]
    assert loaded["empty"][0] == "k3"
    lines = (tmp_path / JOURNAL_NAME).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[-1])["key"] == "k3"


def test_journal_skips_malformed_lines(tmp_path: Path) -> None:
    doc = sample_documents()[3]
    path = tmp_path / JOURNAL_NAME
    good = json.dumps({"key": "k", "result": doc.model_dump(mode="json")})
    path.write_text("\n".join(["not json", "{}", '{"key": "x", "result": {"nope": 1}}', "[1, 2]", good]) + "\n",
                    encoding="utf-8")
    loaded = Journal(tmp_path).load()
    assert list(loaded) == ["empty"] and loaded["empty"][0] == "k"


def _table_with_claims() -> "ClaimTable":
    from paper_claims.outputs.table import ClaimTable
    from paper_claims.schemas import Claim, DocumentResult

    text = "Our <b>system</b> is 3.1x faster than vLLM and reaches 81.2% accuracy on MMLU."
    start = text.index("3.1x")
    acc = text.index("81.2%")
    claims = [Claim(kind="speedup", value=3.1, unit="x", evidence="3.1x", start=start, end=start + 4, baseline="vLLM"),
              Claim(kind="accuracy", value=81.2, unit="%", evidence="81.2%", start=acc, end=acc + 5, dataset="MMLU")]
    return ClaimTable([DocumentResult(doc_id="d1", text=text, claims=claims, datasets=["MMLU"]),
                       DocumentResult(doc_id="d2", text="", status="error", error="boom")])


def test_dataframes_have_analysis_dtypes() -> None:
    pd = pytest.importorskip("pandas")
    table = _table_with_claims()
    claims = table.claims_df()
    assert isinstance(claims["kind"].dtype, pd.CategoricalDtype) and list(claims["kind"]) == ["speedup", "accuracy"]
    assert claims["value"].dtype == "float64" and str(claims["start"].dtype) == "Int64"
    assert claims["baseline"].isna().tolist() == [False, True]
    docs = table.documents_df()
    assert docs.loc[0, "datasets"] == ["MMLU"] and docs["n_claims"].tolist() == [2, 0]
    assert isinstance(docs["status"].dtype, pd.CategoricalDtype)


def test_parquet_round_trip(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    table = _table_with_claims()
    paths = table.to_parquet(tmp_path)
    assert [p.name for p in paths] == ["claims.parquet", "documents.parquet"]
    claims = pq.read_table(tmp_path / "claims.parquet").to_pylist()
    assert [c["evidence"] for c in claims] == ["3.1x", "81.2%"]
    assert pq.read_table(tmp_path / "documents.parquet").to_pylist()[0]["datasets"] == ["MMLU"]


def test_notebook_repr_highlights_evidence_and_escapes_text() -> None:
    page = _table_with_claims()._repr_html_()
    assert "<b>2</b> documents, <b>2</b> claims, <b>1</b> errors" in page
    assert "<mark>3.1x</mark>" in page and "<mark>81.2%</mark>" in page
    assert "&lt;b&gt;system&lt;/b&gt;" in page and "<b>system</b>" not in page


def test_the_column_contract_matches_the_models_and_every_output_follows_it(tmp_path: Path) -> None:
    import typing

    from paper_claims.schemas import Claim, DocumentResult
    from paper_claims.schemas.columns import (CLAIM_COLUMN_TYPES, DOCUMENT_COLUMN_TYPES, INTEGER, REAL,
                                              SENTENCE_COLUMN_TYPES, TEXT, TEXT_LIST)

    def kind(annotation: object) -> str:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) is list:
            return TEXT_LIST
        base = args[0] if args else annotation
        return {int: INTEGER, float: REAL}.get(base, TEXT)  # type: ignore[call-overload]

    assert list(CLAIM_COLUMN_TYPES) == ["doc_id", *Claim.model_fields, *SENTENCE_COLUMN_TYPES]
    assert {n: kind(f.annotation) for n, f in Claim.model_fields.items()} == {
        n: t for n, t in CLAIM_COLUMN_TYPES.items() if n != "doc_id" and n not in SENTENCE_COLUMN_TYPES}
    assert SENTENCE_COLUMN_TYPES == {"sentence": TEXT, "sentence_start": INTEGER, "sentence_end": INTEGER}
    fields = {n: kind(f.annotation) for n, f in DocumentResult.model_fields.items() if n != "claims"}
    assert {**fields, "n_claims": INTEGER} == DOCUMENT_COLUMN_TYPES
    pq = pytest.importorskip("pyarrow.parquet")
    _table_with_claims().to_parquet(tmp_path)
    from paper_claims.schemas.columns import claim_schema, document_schema

    assert pq.read_schema(tmp_path / "claims.parquet").remove_metadata() == claim_schema()
    assert pq.read_schema(tmp_path / "documents.parquet").remove_metadata() == document_schema()


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077], ids=["022", "027", "077"])
def test_every_output_file_gets_the_usual_mode_for_the_umask(tmp_path: Path, umask: int) -> None:
    """0666 less the umask, as a file made by ``open`` would get (issue 40: 0o022 came out, the
    umask applied twice, and only root could read the tables)."""
    import os
    import stat

    from paper_claims.outputs.sqlite import SqliteWriter
    from paper_claims.outputs.table import TableWriter

    pytest.importorskip("pyarrow")
    before = os.umask(umask)
    try:
        writer = TableWriter(tmp_path / "run", parquet=True)
        sqlite = SqliteWriter(tmp_path / "run" / "claims.db")
        for document in sample_documents():
            writer.add(document)
            sqlite.add(document)
        writer.close()
        sqlite.close()
        table = ClaimTable(sample_documents())
        table.write(tmp_path / "api")
        table.to_parquet(tmp_path / "api")
        table.to_sqlite(tmp_path / "api" / "claims.db")
        atomic_write_text(tmp_path / "api" / "notes.txt", "x\n")
    finally:
        os.umask(before)
    written = sorted((tmp_path / "run").iterdir()) + sorted((tmp_path / "api").iterdir())
    assert {p.name for p in written} == {"claims.csv", "claims.jsonl", "documents.jsonl", "claims.parquet",
                                         "documents.parquet", "claims.db", "notes.txt"}
    modes = {str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode)) for p in written}
    assert modes == {name: oct(0o666 & ~umask) for name in modes}


def test_the_sentence_of_each_claim_in_the_table_its_dataframe_and_parquet(tmp_path: Path) -> None:
    table = ClaimTable(sample_documents())
    gshard = [r for r in table.rows if r["doc_id"] == "gshard"]
    assert [(r["sentence"], r["sentence_start"], r["sentence_end"]) for r in gshard] == [(GSHARD, 0, len(GSHARD))] * 2
    assert all(r["sentence"] is None for r in table.rows if r["doc_id"] == "moe")  # no text: no sentence
    pd = pytest.importorskip("pandas")
    frame = table.claims_df()
    assert list(frame.columns[-3:]) == ["sentence", "sentence_start", "sentence_end"]
    assert str(frame["sentence_start"].dtype) == "Int64" and frame["sentence"].iloc[0] == GSHARD
    assert pd.isna(frame["sentence"].iloc[2])
    pq = pytest.importorskip("pyarrow.parquet")
    table.to_parquet(tmp_path)
    assert pq.read_table(tmp_path / "claims.parquet").column("sentence").to_pylist() == [r["sentence"] for r in table.rows]


def test_exports_take_the_output_folders_lock(tmp_path: Path) -> None:
    """Issue 40: an export into a folder a run was writing to could interleave with it."""
    from paper_claims.errors import OutputBusy
    from paper_claims.run.folders import LOCK_NAME, OutputLock

    pytest.importorskip("pyarrow")
    table = ClaimTable(sample_documents())
    out = tmp_path / "out"
    exports = [lambda: table.write(out), lambda: table.to_csv(out / "claims.csv"),
               lambda: table.to_jsonl(out / "claims.jsonl"), lambda: table.documents_to_jsonl(out / "documents.jsonl"),
               lambda: table.to_parquet(out), lambda: table.to_sqlite(out / "claims.db")]
    with OutputLock(out):
        for export in exports:
            with pytest.raises(OutputBusy, match=f"another run is writing to {out}"):
                export()
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]
    for export in exports:
        export()
    assert sorted(p.name for p in out.iterdir()) == ["claims.csv", "claims.db", "claims.jsonl", "claims.parquet",
                                                     "documents.jsonl", "documents.parquet"]
