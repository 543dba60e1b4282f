"""claims.db: the documents and claims of a run in SQLite, complete, indexed, searchable,
without duplicates after a killed and resumed run, and readable by Datasette as it is."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from paper_claims import ClaimTable, cli, extract_claims, write_claims
from paper_claims.outputs.sqlite import SqliteWriter
from paper_claims.schemas.columns import CLAIM_COLUMN_TYPES, CLAIM_COLUMNS, DOCUMENT_COLUMN_TYPES, DOCUMENT_COLUMNS
from tests.conftest import read_jsonl, run_claims
from tests.fakeserver import FakeServer

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "examples" / "abstracts"
SQL_TYPES = {"text": "TEXT", "real": "REAL", "integer": "INTEGER", "list": "TEXT"}


def _complete(line: bytes) -> bool:
    """A whole journal line (a killed run may leave half of one)."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, params).fetchall()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus extracted against the fake server, two of its files' results cached by
    a run before, the database written in batches of 10 documents: batches are written from
    the runner's threads (cached results are handed on by the thread reading the inputs)."""
    out = tmp_path_factory.mktemp("sqlite") / "out"
    with FakeServer() as server, pytest.MonkeyPatch.context() as patch:
        patch.setattr(SqliteWriter, "BATCH", 1)
        os.environ["OPENAI_API_KEY"] = "sk-db"
        try:
            half = [d for d in sorted(CORPUS.iterdir())][:2]  # its results cached: handed on by another thread
            write_claims([str(p) for p in half], out.parent / "warm", base_url=server.base_url, progress=False,
                         report=False, cache_dir=out.parent / "cache")
            write_claims([str(CORPUS)], out, base_url=server.base_url, progress=False, report=False,
                         cache_dir=out.parent / "cache", concurrency=8)
        finally:
            del os.environ["OPENAI_API_KEY"]
    return out


def test_the_database_holds_every_row_of_the_other_outputs_with_the_contracts_columns(run: Path) -> None:
    db = run / "claims.db"
    documents, claims = read_jsonl(run / "documents.jsonl"), read_jsonl(run / "claims.jsonl")
    assert len(documents) == 129 and len(claims) > 100
    assert [r[1] for r in _rows(db, "pragma table_info(documents)")] == DOCUMENT_COLUMNS
    assert [r[1] for r in _rows(db, "pragma table_info(claims)")] == CLAIM_COLUMNS
    assert [r[2] for r in _rows(db, "pragma table_info(claims)")] == [SQL_TYPES[t] for t in CLAIM_COLUMN_TYPES.values()]
    assert [r[2] for r in _rows(db, "pragma table_info(documents)")] == [
        SQL_TYPES[t] for t in DOCUMENT_COLUMN_TYPES.values()]
    assert [r[0] for r in _rows(db, "select doc_id from documents order by rowid")] == [d["doc_id"] for d in documents]
    stored = _rows(db, f"select {', '.join(f'[{c}]' for c in CLAIM_COLUMNS)} from claims order by rowid")
    assert [dict(zip(CLAIM_COLUMNS, row)) for row in stored] == claims
    lists = _rows(db, "select datasets, hardware, models from documents order by rowid")
    assert [[json.loads(v) for v in row] for row in lists] == [
        [d["datasets"], d["hardware"], d["models"]] for d in documents]


def test_foreign_key_and_indexes(run: Path) -> None:
    db = run / "claims.db"
    assert _rows(db, "pragma foreign_key_list(claims)")[0][2:5] == ("documents", "doc_id", "doc_id")
    assert _rows(db, "pragma foreign_key_check") == []
    indexed = {_rows(db, f"pragma index_info([{name}])")[0][2] for (name,) in _rows(
        db, "select name from sqlite_master where type = 'index' and tbl_name = 'claims'")}
    assert {"kind", "dataset", "hardware", "model", "doc_id"} <= indexed
    plan = " ".join(str(r) for r in _rows(db, "explain query plan select * from claims where kind = 'speedup'"))
    assert "idx_claims_kind" in plan


def test_full_text_search_answers_over_evidence_sentences_and_abstracts(run: Path) -> None:
    db = run / "claims.db"
    claims = read_jsonl(run / "claims.jsonl")
    expected = sorted(c["evidence"] for c in claims if re.search(r"\btimes\b", c["sentence"], re.IGNORECASE))
    found = sorted(r[0] for r in _rows(db, "select evidence from claims_fts where claims_fts match 'times'"))
    assert expected and found == expected
    documents = read_jsonl(run / "documents.jsonl")
    expected_ids = sorted(d["doc_id"] for d in documents if re.search(r"\bmicrocontrollers?\b", d["text"] or "", re.I))
    found_ids = sorted(r[0] for r in _rows(
        db, "select doc_id from documents where rowid in "
            "(select rowid from documents_fts where documents_fts match 'microcontroller OR microcontrollers')"))
    assert expected_ids and found_ids == expected_ids


def test_datasette_opens_it_as_it_is_with_search_and_the_documents_link(run: Path) -> None:
    datasette_app = pytest.importorskip("datasette.app")

    async def ask() -> tuple[Any, Any, Any]:
        ds = datasette_app.Datasette(files=[str(run / "claims.db")])
        claims = await ds.client.get("/claims/claims.json?_search=times&_shape=array")
        docs = await ds.client.get("/claims/documents.json?_search=microcontrollers&_shape=array")
        tables = await ds.client.get("/claims.json")
        return claims.json(), docs.json(), tables.json()

    claims, docs, tables = asyncio.run(ask())
    assert claims and all("times" in c["sentence"].lower() for c in claims)
    assert docs and all("microcontroller" in d["text"].lower() for d in docs)
    by_name = {t["name"]: t for t in tables["tables"]}
    assert by_name["claims"]["fts_table"] == "claims_fts" and by_name["documents"]["fts_table"] == "documents_fts"
    assert by_name["claims"]["foreign_keys"]["outgoing"][0]["other_table"] == "documents"


def test_db_options_and_the_table_of_the_api(tmp_path: Path) -> None:
    with FakeServer() as server:
        opts = dict(base_url=server.base_url, api_key="sk-db", use_cache=False)
        table = extract_claims(["It runs 3.1x faster on 8 A100 GPUs.", "We reach 81.2% accuracy."],
                               out=tmp_path / "a", db=tmp_path / "elsewhere.db", **opts)
        assert (tmp_path / "elsewhere.db").is_file() and not (tmp_path / "a" / "claims.db").exists()
        extract_claims("It runs 2x faster.", out=tmp_path / "b", db=False, **opts)
        assert not (tmp_path / "b" / "claims.db").exists() and (tmp_path / "b" / "claims.csv").exists()
    assert isinstance(table, ClaimTable)
    table.to_sqlite(tmp_path / "mine.db")
    assert _rows(tmp_path / "mine.db", "select count(*) from claims")[0][0] == len(table) > 0
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_cli_writes_it_names_it_or_leaves_it_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-db")
        path = tmp_path / "in.jsonl"
        path.write_text('{"id": "a", "text": "It runs 3.1x faster."}\n', encoding="utf-8")
        assert cli.main(["extract", str(path), "--out", str(tmp_path / "o1"), "--quiet", "--no-report"]) == 0
        assert "claims.db" in capsys.readouterr().err and (tmp_path / "o1" / "claims.db").is_file()
        assert cli.main(["extract", str(path), "--out", str(tmp_path / "o2"), "--quiet", "--no-db"]) == 0
        assert not (tmp_path / "o2" / "claims.db").exists()
        assert cli.main(["extract", str(path), "--out", str(tmp_path / "o3"), "--quiet", "--db",
                         str(tmp_path / "x.db")]) == 0
        assert _rows(tmp_path / "x.db", "select doc_id from documents") == [("a",)]


def test_a_killed_and_resumed_run_leaves_no_duplicate_rows(tmp_path: Path) -> None:
    with FakeServer(latency=0.05) as server:
        env = dict(os.environ, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-db",
                   CLAIMS_CACHE_DIR=str(tmp_path / "cache"))
        args = ["extract", str(CORPUS), "--out", str(tmp_path / "out"), "--quiet", "--no-report", "--concurrency", "2"]
        journal = tmp_path / "out" / ".claims-journal.jsonl"
        process = run_claims(args, env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not journal.exists() or len(journal.read_bytes().splitlines()) < 20):
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(10)  # not communicate(): the parse worker may hold the pipes a moment longer
        for pipe in (process.stdout, process.stderr):
            if pipe:
                pipe.close()
        assert list((tmp_path / "out").glob(".claims.db.*.tmp")), "the killed run was building the database"
        finished = sum(1 for line in journal.read_bytes().splitlines() if _complete(line))
        assert 20 <= finished < 129
        resumed = run_claims(args, env)
        _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"{finished} resumed" in err
    db = tmp_path / "out" / "claims.db"
    assert _rows(db, "select count(*), count(distinct doc_id) from documents") == [(129, 129)]
    claims = read_jsonl(tmp_path / "out" / "claims.jsonl")
    assert _rows(db, "select count(*) from claims")[0][0] == len(claims)
    key = "doc_id, start, [end], kind"
    assert _rows(db, f"select {key}, count(*) from claims group by {key} having count(*) > 1") == []
    assert not list((tmp_path / "out").glob(".claims.db.*.tmp"))  # the killed run's file is gone


def test_results_are_handed_on_from_the_runners_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner creates its sinks in one thread and hands results on from others (a cached
    result from the thread reading the inputs, a model's from the finishing thread)."""
    from concurrent.futures import ThreadPoolExecutor

    from paper_claims.schemas import DocumentResult

    monkeypatch.setattr(SqliteWriter, "BATCH", 1)
    writer = SqliteWriter(tmp_path / "t.db")
    with ThreadPoolExecutor(max_workers=1) as other:
        for n in range(3):
            other.submit(writer.add, DocumentResult(doc_id=f"d{n}", text="It is 2x faster.")).result()
    writer.close()
    assert _rows(tmp_path / "t.db", "select doc_id from documents") == [("d0",), ("d1",), ("d2",)]


def test_every_claim_carries_its_sentence_with_offsets_in_every_output(run: Path) -> None:
    """Issue 40: a claim's number alone did not say what it is about, and full-text search
    over it found nothing."""
    import csv

    from paper_claims.text import sentence_spans

    texts = {d["doc_id"]: d["text"] for d in read_jsonl(run / "documents.jsonl")}
    claims = read_jsonl(run / "claims.jsonl")
    assert claims and list(claims[0])[-3:] == ["sentence", "sentence_start", "sentence_end"]
    for claim in claims:
        text = texts[claim["doc_id"]]
        start, end = claim["sentence_start"], claim["sentence_end"]
        assert text[start:end] == claim["sentence"] and start <= claim["start"] < claim["end"] <= end
        assert any(a == start for a, _ in sentence_spans(text))  # a sentence of the one splitter
    with (run / "claims.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["sentence"] for r in rows] == [c["sentence"] for c in claims]
    stored = _rows(run / "claims.db", "select sentence, sentence_start, sentence_end from claims order by rowid")
    assert stored == [(c["sentence"], c["sentence_start"], c["sentence_end"]) for c in claims]


def test_the_readmes_sql_examples_answer_on_the_quick_starts_database(run: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sql\n(.*?)```", readme, re.DOTALL)
    assert block
    statements = [s.strip() for s in block.group(1).split(";") if s.strip()]
    assert len(statements) == 2
    speedups, searched = (_rows(run / "claims.db", s) for s in statements)
    claims = read_jsonl(run / "claims.jsonl")
    assert len(speedups) == sum(c["kind"] == "speedup" and "a100" in (c["hardware"] or "").lower() for c in claims)
    expected = sorted(c["evidence"] for c in claims if re.search(r"\bthroughput\b", c["sentence"], re.IGNORECASE))
    assert expected and sorted(r[0] for r in searched) == expected
