"""The Ray Data engine against a fake OpenAI-compatible server on 127.0.0.1.

Skipped where Ray is not installed (``pip install -e '.[ray]'``). One local Ray instance
(2 CPUs, no dashboard) serves the whole module.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed; the Ray engine tests need: pip install -e '.[ray]'")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed; pip install -e '.[ray]'")

from paper_claims.api import extract_claims  # noqa: E402
from paper_claims.cli import main  # noqa: E402
from paper_claims.api import run_ray  # noqa: E402
from paper_claims.run.ray import ClaimExtractor, claim_rows, document_key, document_rows  # noqa: E402
from paper_claims.run.journal import Journal  # noqa: E402
from paper_claims.settings import Settings  # noqa: E402
from paper_claims.schemas.columns import CLAIM_COLUMNS, DOCUMENT_COLUMNS  # noqa: E402
from paper_claims.schemas import Document  # noqa: E402
from tests.conftest import read_jsonl  # noqa: E402
from tests.fakeserver import FakeServer, doc_key_for_text  # noqa: E402

pytestmark = pytest.mark.ray

API_KEY = "sk-test"
FAIL_MARK = "Unreproducible"  # the fake server fails every request for abstracts containing it


def abstracts(n: int) -> list[Document]:
    """``n`` abstracts: most with numbers, some without, some the server always fails, two bad records."""
    docs = []
    for i in range(n):
        if i % 17 == 5:
            text = f"We study scaling behaviour of sparse model number {chr(65 + i % 26)} qualitatively."
        else:
            text = (f"We present Engine{i}, which trains on {8 * (i % 5 + 1)} GPUs and reaches "
                    f"{60 + i % 30}.{i % 10}% accuracy on ImageNet, a {2 + i % 7}.5x speedup over the baseline.")
        if i % 41 == 7:  # in a sentence with numbers, so it is in what the model is sent
            text = text.replace("We present", f"We present {FAIL_MARK}")
        docs.append(Document(id=f"d{i:04d}", text=text, source="synthetic"))
    docs[3] = Document(id="d0003", text="", source="synthetic", error="line 4: empty text")
    docs[-1] = Document(id=docs[-1].id, text="", source="synthetic", error="line 200: not JSON")
    return docs


def _plan(_key: str, _index: int, text: str) -> Any:
    return "500" if FAIL_MARK in text else None


def settings_for(server: FakeServer, cache: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = dict(base_url=server.base_url, api_key=API_KEY, cache_dir=cache, concurrency=8,
                                  backoff_base=0.01, backoff_cap=0.02, max_retries=1, timeout=30.0, progress=False)
    values.update(overrides)
    return Settings(**values)


def quiet(_message: str) -> None:
    pass


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[None]:
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer(latency=0.01, plan=_plan) as fake:
        yield fake


def statuses(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(row["doc_id"], row["status"]) for row in rows]


def test_ray_matches_single_process(tmp_path: Path, ray_instance: None, server: FakeServer) -> None:
    docs = abstracts(200)
    local = extract_claims(docs, out=tmp_path / "local", settings=settings_for(server, tmp_path / "c1"), say=quiet)
    server.reset()
    table = run_ray(docs, settings_for(server, tmp_path / "c2"), tmp_path / "ray", workers=2, say=quiet)

    assert server.total_requests > 0  # the Ray run really asked the model (its own cache was empty)
    assert table.rows == local.rows and len(table.rows) > 300
    assert statuses(table.document_rows) == statuses(local.document_rows)
    assert table.document_rows == local.document_rows
    assert len(table.errors) == len(local.errors) >= 6  # bad records and server failures
    # one runner core: the run summaries agree field by field (the workers' calls and tokens included)
    figures = {name: getattr(local.stats, name) for name in vars(local.stats) if name != "wall_seconds"}
    assert {name: getattr(table.stats, name) for name in figures} == figures
    assert local.stats.llm_calls > 0 and local.stats.prompt_tokens > 0
    for name in ("claims.csv", "claims.jsonl", "documents.jsonl"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name

    claims = pq.read_table(tmp_path / "ray" / "claims.parquet")
    documents = pq.read_table(tmp_path / "ray" / "documents.parquet")
    assert claims.column_names == CLAIM_COLUMNS and documents.column_names == DOCUMENT_COLUMNS
    assert claims.to_pylist() == read_jsonl(tmp_path / "local" / "claims.jsonl")
    assert documents.to_pylist() == read_jsonl(tmp_path / "local" / "documents.jsonl")


def test_rerun_skips_finished_documents(tmp_path: Path, ray_instance: None, server: FakeServer) -> None:
    docs = abstracts(60)
    out = tmp_path / "out"
    first = run_ray(docs[:40], settings_for(server, tmp_path / "c1"), out, workers=2, say=quiet)
    server.reset()
    # a fresh cache: only the journal in the output can spare the model calls
    second = run_ray(docs, settings_for(server, tmp_path / "c2"), out, workers=2, say=quiet)
    ok_before = sum(r["status"] == "ok" for r in first.document_rows)
    assert second.stats.resumed == ok_before  # type: ignore[attr-defined]
    asked = set(server.counts)
    finished = {doc_key_for_text(d.text) for d, r in zip(docs, first.document_rows) if r["status"] == "ok"}
    assert not asked & finished  # no finished document was sent again
    assert [r["doc_id"] for r in read_jsonl(out / "documents.jsonl")] == [d.id for d in docs]

    # other settings (another model) make other run keys: nothing in the journal is reused
    other = settings_for(server, tmp_path / "c3", model="other")
    journaled = Journal(out).index()
    assert journaled and not any(journaled[d.id][0] == document_key(d, other) for d in docs if d.id in journaled)


def test_map_batches_pipeline_writes_the_output_columns(tmp_path: Path, ray_instance: None, server: FakeServer) -> None:
    import ray.data

    docs = [d for d in abstracts(30) if not d.error and FAIL_MARK not in d.text]  # retries differ: default settings
    source = tmp_path / "abstracts.jsonl"
    source.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in docs), encoding="utf-8")
    local = extract_claims(docs, settings=settings_for(server, tmp_path / "c1"), say=quiet)

    results = ray.data.read_json(str(source)).map_batches(
        ClaimExtractor, fn_constructor_kwargs={"base_url": server.base_url, "api_key": API_KEY,
                                               "cache_dir": str(tmp_path / "c2"), "concurrency": 4},
        compute=ray.data.ActorPoolStrategy(size=2), batch_size=8, batch_format="pyarrow",
        num_cpus=0.5).materialize()  # the read tasks need a CPU too
    results.map_batches(claim_rows, batch_format="pyarrow").write_parquet(str(tmp_path / "claims"))
    results.map_batches(document_rows, batch_format="pyarrow").write_parquet(str(tmp_path / "documents"))

    claims = pq.read_table(tmp_path / "claims")
    documents = pq.read_table(tmp_path / "documents")
    assert claims.column_names == CLAIM_COLUMNS and documents.column_names == DOCUMENT_COLUMNS
    key = lambda row: (row["doc_id"], row["start"])  # noqa: E731
    assert sorted(claims.to_pylist(), key=key) == sorted(local.rows, key=key)
    expected = {row["doc_id"]: row for row in local.document_rows}
    got = documents.to_pylist()
    assert len(got) == len(docs)
    for row in got:
        assert row == {**expected[row["doc_id"]], "source": ""}  # read_json rows carry no source


def test_cli_engine_ray(tmp_path: Path, ray_instance: None, server: FakeServer,
                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    docs = [d for d in abstracts(12) if not d.error and FAIL_MARK not in d.text]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in docs), encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    out = tmp_path / "out"
    code = main(["extract", str(source), "--out", str(out), "--base-url", server.base_url, "--engine", "ray",
                 "--workers", "2", "--concurrency", "4", "--no-report"])
    assert code == 0
    assert "claims.parquet" in capsys.readouterr().err
    for name in ("claims.csv", "claims.jsonl", "documents.jsonl", "claims.parquet", "documents.parquet"):
        assert (out / name).is_file(), name
    assert [r["doc_id"] for r in read_jsonl(out / "documents.jsonl")] == [d.id for d in docs]


def test_ray_with_a_custom_schema_matches_single_process(tmp_path: Path, ray_instance: None, server: FakeServer) -> None:
    """A schema of your own travels to the Ray workers as its spec (a file path here) and
    gives the same claims, columns and Parquet files as the local engine."""
    from paper_claims.schemas import describe, load_schema

    spec = str(Path(__file__).resolve().parent.parent / "examples" / "measeval" / "schema.py") + ":Quantity"
    docs = abstracts(40)
    local = extract_claims(docs, out=tmp_path / "local", settings=settings_for(server, tmp_path / "c1", schema=spec),
                           say=quiet)
    table = run_ray(docs, settings_for(server, tmp_path / "c2", schema=spec), tmp_path / "ray", workers=2, say=quiet)
    columns = describe(load_schema(spec)).columns()
    assert table.rows == local.rows and len(table.rows) > 40
    assert list(table.rows[0]) == columns
    for name in ("claims.csv", "claims.jsonl", "documents.jsonl", "schema.json"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
    claims = pq.read_table(tmp_path / "ray" / "claims.parquet")
    assert claims.column_names == columns and claims.to_pylist() == read_jsonl(tmp_path / "local" / "claims.jsonl")


def test_cli_engine_ray_stops_with_one_line_when_the_answer_cache_disk_fills(
        tmp_path: Path, ray_instance: None, server: FakeServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The workers write the shared answer cache: on a full disk the run ends with the one line
    of the local engine (exit 2, no traceback), and a rerun after freeing space completes."""
    from tests.conftest import grow_tmpfs, small_tmpfs
    from tests.fakeserver import synthetic_abstracts

    records = synthetic_abstracts(200, seed=35)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "out"
    args = ["extract", str(source), "--out", str(out), "--base-url", server.base_url, "--runner", "ray",
            "--workers", "1", "--concurrency", "4", "--no-report", "--quiet"]
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with small_tmpfs(tmp_path / "small") as small:
        monkeypatch.setenv("CLAIMS_CACHE_DIR", str(small / "cache"))
        code = main(args)
        err = capsys.readouterr().err
        assert code == 2, err
        assert "Traceback" not in err
        last = err.strip().splitlines()[-1]
        assert re.fullmatch(r"claims: error: disk full (writing|opening) the answer cache \S+/answers; run stopped: "
                            r"\d+ documents finished \(kept in the output journal; rerun the same command to resume\)",
                            last), last
        assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp") or p.name == ".claims.lock"]
        grow_tmpfs(small)
        assert main(args) == 0, capsys.readouterr().err
    assert [r["doc_id"] for r in read_jsonl(out / "documents.jsonl")] == [r["id"] for r in records]
