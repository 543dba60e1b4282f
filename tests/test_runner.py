"""The runner (run/runner.py, with the local engine of run/local.py) against a fake
OpenAI-compatible server: faults, retries, re-asks, cache, journal and resume after SIGKILL.
All traffic stays on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import pytest

from paper_claims.api import extract_claims
from paper_claims.cli import main
from paper_claims.run.journal import JOURNAL_NAME
from paper_claims.parse.quantities import find_quantities
from paper_claims.settings import Settings
from paper_claims.schemas import Document
from tests.conftest import ROOT, kill_when, read_jsonl
from tests.fakeserver import FakeServer, doc_key_for_text, synthetic_abstracts

API_KEY = "sk-test-batch-0123456789abcdef"


def fast_settings(server: FakeServer, cache: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = dict(
        base_url=server.base_url, api_key=API_KEY, cache_dir=cache, concurrency=8,
        backoff_base=0.01, backoff_cap=0.05, max_retries=5, max_reasks=2, timeout=30.0, progress=False,
    )
    values.update(overrides)
    return Settings(**values)


def documents(n: int, seed: int = 0) -> list[Document]:
    return [Document(id=r["id"], text=r["text"], source="synthetic") for r in synthetic_abstracts(n, seed)]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def quiet(_message: str) -> None:
    pass


def assert_one_row_per_document(out: Path, ids: list[str]) -> list[dict[str, Any]]:
    rows = read_jsonl(out / "documents.jsonl")
    assert [r["doc_id"] for r in rows] == ids  # every input once, in input order
    claims = read_jsonl(out / "claims.jsonl")
    ok = {r["doc_id"] for r in rows if r["status"] == "ok"}
    assert {c["doc_id"] for c in claims} <= ok  # claims only for documents that succeeded
    spans = [(c["doc_id"], c["start"], c["end"]) for c in claims]
    assert len(spans) == len(set(spans))  # no claim twice
    return rows


# --- faults ---------------------------------------------------------------------------------


def test_thirty_percent_faults_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    docs = documents(60, seed=1)
    with FakeServer(latency=0.01, fault_rate=0.3, seed=11) as server:
        table = extract_claims(docs, out=tmp_path / "out", settings=fast_settings(server, tmp_path / "cache"), say=quiet)
        snapshot = server.snapshot()
    # the mixture really happened
    assert set(snapshot["faults"]) == {"500", "429", "malformed", "drop"}
    assert sum(snapshot["faults"].values()) >= 15
    rows = assert_one_row_per_document(tmp_path / "out", [d.id for d in docs])
    claims = Counter(c["doc_id"] for c in read_jsonl(tmp_path / "out" / "claims.jsonl"))
    by_id = {d.id: d for d in docs}
    for row in rows:
        assert row["status"] in {"ok", "error"}
        if row["status"] == "ok":
            # the fake labels every mark, so every parsed number becomes one claim
            assert claims[row["doc_id"]] == len(find_quantities(by_id[row["doc_id"]].text)) > 0
            assert row["error"] is None and row["attempts"] >= 1
        else:
            assert row["error"] and "\n" not in row["error"] and claims[row["doc_id"]] == 0
    assert sum(r["status"] == "ok" for r in rows) >= 55
    # every request the server saw is accounted for, and each document was asked at least once
    assert table.stats.llm_calls == snapshot["total"]  # type: ignore[attr-defined]
    assert all(snapshot["per_doc"].get(doc_key_for_text(d.text), 0) >= 1 for d in docs)
    assert table.stats.errors == sum(r["status"] == "error" for r in rows)  # type: ignore[attr-defined]


@pytest.mark.parametrize("fault", ["500", "429", "drop"])
def test_network_retries_are_bounded(tmp_path: Path, fault: str) -> None:
    docs = documents(3, seed=2)
    with FakeServer(plan=lambda *_: fault) as server:
        settings = fast_settings(server, tmp_path / "cache", max_retries=3)
        table = extract_claims(docs, out=tmp_path / "out", settings=settings, say=quiet)
        snapshot = server.snapshot()
    assert snapshot["total"] == 3 * (settings.max_retries + 1)
    assert set(snapshot["per_doc"].values()) == {settings.max_retries + 1}
    rows = assert_one_row_per_document(tmp_path / "out", [d.id for d in docs])
    for row in rows:
        assert row["status"] == "error"
        assert row["error"].startswith("endpoint kept failing") and "\n" not in row["error"]
        assert row["attempts"] == settings.max_retries + 1
    assert len(table.errors) == 3


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    """A 429 with Retry-After: 1 waits one second, not the (huge) exponential backoff."""
    doc = documents(1, seed=3)[0]
    with FakeServer(retry_after="1", plan=lambda _k, i, _t: "429" if i == 0 else "ok") as server:
        settings = fast_settings(server, tmp_path / "cache", backoff_base=20.0, backoff_cap=60.0)
        started = time.monotonic()
        table = extract_claims([doc], settings=settings, say=quiet)
        elapsed = time.monotonic() - started
        first, second = server.records
    assert table.documents[0].status.value == "ok"
    assert 0.9 <= second.received - first.received < 5.0
    assert elapsed < 10.0


def test_retry_after_is_capped_by_backoff_cap(tmp_path: Path) -> None:
    doc = documents(1, seed=4)[0]
    with FakeServer(retry_after="3600", plan=lambda _k, i, _t: "429" if i == 0 else "ok") as server:
        settings = fast_settings(server, tmp_path / "cache", backoff_cap=0.2)
        table = extract_claims([doc], settings=settings, say=quiet)
        first, second = server.records
    assert table.documents[0].status.value == "ok"
    assert second.received - first.received < 2.0


@pytest.mark.parametrize("fault", ["badmark", "malformed"])
def test_invalid_answer_is_reasked_once(tmp_path: Path, fault: str) -> None:
    doc = documents(1, seed=5)[0]
    with FakeServer(plan=lambda _k, i, _t: fault if i == 0 else "ok") as server:
        table = extract_claims([doc], out=tmp_path / "out", settings=fast_settings(server, tmp_path / "cache"), say=quiet)
        records = list(server.records)
    result = table.documents[0]
    assert result.status.value == "ok" and result.attempts == 2
    assert result.n_claims == len(find_quantities(doc.text))
    assert [r.fault for r in records] == [fault, None]
    # the re-ask carries the bad answer and the validation error after the original messages
    assert records[1].n_messages == records[0].n_messages + 2
    assert table.stats.llm_calls == 2  # type: ignore[attr-defined]


def test_reasks_are_bounded(tmp_path: Path) -> None:
    doc = documents(1, seed=6)[0]
    with FakeServer(plan=lambda *_: "badmark") as server:
        settings = fast_settings(server, tmp_path / "cache", max_reasks=2)
        table = extract_claims([doc], out=tmp_path / "out", settings=settings, say=quiet)
        total = server.total_requests
    result = table.documents[0]
    assert total == settings.max_reasks + 1  # validation failures are not network-retried
    assert result.status.value == "error" and result.attempts == settings.max_reasks + 1
    assert "failed validation" in (result.error or "") and "\n" not in (result.error or "")


# --- isolation and exit codes through the CLI ---------------------------------------------


def test_failing_document_is_isolated_and_sets_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    records = synthetic_abstracts(8, seed=7)
    bad_key = doc_key_for_text(records[3]["text"])
    broken = {"on": True}

    def plan(key: str, _index: int, _text: str) -> str:
        return "429" if broken["on"] and key == bad_key else "ok"  # Retry-After: 0 keeps it fast

    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "out"
    with FakeServer(plan=plan) as server:
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        argv = ["extract", str(source), "--out", str(out), "--base-url", server.base_url, "--no-report", "--quiet"]
        assert main(argv) == 1
        err = capsys.readouterr().err
        rows = assert_one_row_per_document(out, [r["id"] for r in records])
        assert [r["status"] for r in rows] == ["ok"] * 3 + ["error"] + ["ok"] * 4
        assert rows[3]["error"].startswith("endpoint kept failing") and "429" in rows[3]["error"]
        assert server.counts[bad_key] == Settings().max_retries + 1
        assert f"error {records[3]['id']}:" in err
        # the endpoint recovers: the rerun asks only for the failed document and exits 0
        broken["on"] = False
        server.reset()
        assert main(argv) == 0
        assert server.snapshot()["per_doc"] == {bad_key: 1}
    rows = assert_one_row_per_document(out, [r["id"] for r in records])
    assert {r["status"] for r in rows} == {"ok"}


# --- cache and journal ------------------------------------------------------------------------


def test_identical_rerun_makes_no_requests(tmp_path: Path) -> None:
    docs = documents(20, seed=8)
    with FakeServer() as server:
        settings = fast_settings(server, tmp_path / "cache")
        first = extract_claims(docs, out=tmp_path / "out1", settings=settings, say=quiet)
        assert server.total_requests == 20
        server.reset()
        # a new output directory: only the answer cache can prevent the calls
        second = extract_claims(docs, out=tmp_path / "out2", settings=settings, say=quiet)
        assert server.total_requests == 0
        assert second.stats.cache_hits == 20 and second.stats.llm_calls == 0  # type: ignore[attr-defined]
        # the same output directory without the cache: the journal alone prevents them
        third = extract_claims(docs, out=tmp_path / "out1", settings=fast_settings(server, tmp_path / "cache", use_cache=False), say=quiet)
        assert server.total_requests == 0
        assert third.stats.resumed == 20  # type: ignore[attr-defined]
    assert first.rows == second.rows == third.rows
    assert (tmp_path / "out1" / "claims.jsonl").read_text() == (tmp_path / "out2" / "claims.jsonl").read_text()


def test_truncated_last_journal_line_is_tolerated(tmp_path: Path) -> None:
    docs = documents(10, seed=9)
    out = tmp_path / "out"
    with FakeServer() as server:
        settings = fast_settings(server, tmp_path / "cache", use_cache=False, concurrency=1)
        extract_claims(docs, out=out, settings=settings, say=quiet)
        journal = out / JOURNAL_NAME
        lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
        assert len(lines) == 10
        torn_id = json.loads(lines[-1])["result"]["doc_id"]
        journal.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
        server.reset()
        table = extract_claims(docs, out=out, settings=settings, say=quiet)
        torn_text = next(d.text for d in docs if d.id == torn_id)
        assert server.snapshot()["per_doc"] == {doc_key_for_text(torn_text): 1}
        assert table.stats.resumed == 9  # type: ignore[attr-defined]
        server.reset()
        extract_claims(docs, out=out, settings=settings, say=quiet)
        assert server.total_requests == 0  # the torn fragment did not corrupt the next line
    assert_one_row_per_document(out, [d.id for d in docs])


def _cli(out: Path, source: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "paper_claims.cli", "extract", str(source), "--out", str(out),
            "--no-report", "--quiet", "--concurrency", "2", *extra]


def _journaled_ids(journal: Path) -> set[str]:
    ids = set()
    if journal.is_file():
        for line in journal.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                ids.add(json.loads(line)["result"]["doc_id"])
            except (ValueError, KeyError, TypeError):
                pass
    return ids


def _kill_midway(command: list[str], env: dict[str, str], journal: Path, at_least: int) -> set[str]:
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    kill_when(process, lambda: len(_journaled_ids(journal)) >= at_least, every=0.02)
    return _journaled_ids(journal)


@pytest.mark.parametrize("guard", ["journal", "cache"])
def test_sigkill_then_rerun_resumes_without_repeating_calls(tmp_path: Path, guard: str) -> None:
    """Kill -9 a CLI run midway; the rerun completes and never asks again for a document
    finished before the kill. ``journal``: both runs --no-cache, so only the journal can
    prevent repeats; ``cache``: the journal is deleted after the kill, so only the cache can."""
    records = synthetic_abstracts(30, seed=10)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "out"
    journal = out / JOURNAL_NAME
    with FakeServer(latency=0.1) as server:
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(tmp_path / "cache"))
        extra = ("--no-cache",) if guard == "journal" else ()
        finished = _kill_midway(_cli(out, source, *extra), env, journal, at_least=6)
        assert 6 <= len(finished) < len(records)
        assert not (out / "documents.jsonl").exists()  # the kill came before the tables
        if guard == "cache":
            journal.unlink()
        before = server.snapshot()["per_doc"]
        rerun = subprocess.run(_cli(out, source, *extra), cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        after = server.snapshot()["per_doc"]
    assert rerun.returncode == 0, rerun.stderr
    assert_one_row_per_document(out, [r["id"] for r in records])
    assert not list(out.glob(".*.tmp"))  # the killed run's half-written tables are gone
    keys = {r["id"]: doc_key_for_text(r["text"]) for r in records}
    for doc_id in finished:
        assert after[keys[doc_id]] == before[keys[doc_id]] == 1, doc_id
    # every document was asked for, and the rerun only asked for those not finished
    assert set(after) == set(keys.values())
    repeated = {doc_id for doc_id, key in keys.items() if after[key] > 1}
    assert not repeated & finished
    assert len(repeated) <= 2  # at most the --concurrency requests in flight at the kill
    counted = re.search(r"(\d+) cache hits, (\d+) resumed", rerun.stderr)
    assert counted is not None, rerun.stderr
    cache_hits, resumed = int(counted.group(1)), int(counted.group(2))
    if guard == "journal":
        assert (cache_hits, resumed) == (0, len(finished))
    else:
        assert resumed == 0 and cache_hits >= len(finished)


def test_two_concurrent_runs_share_the_cache_without_corrupting_it(tmp_path: Path) -> None:
    """Two `claims extract` processes at once on one cache directory both finish with the
    same results, and a third run is answered entirely from the cache they wrote."""
    records = synthetic_abstracts(24, seed=21)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    with FakeServer(latency=0.05) as server:
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(tmp_path / "cache"))
        runs = [subprocess.Popen(_cli(tmp_path / f"out{i}", source), cwd=ROOT, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for i in (1, 2)]
        errors = [run.communicate(timeout=120)[1] for run in runs]
        assert [run.returncode for run in runs] == [0, 0], errors
        third = subprocess.run(_cli(tmp_path / "out3", source), cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=120)
    assert third.returncode == 0, third.stderr
    assert "0 LLM calls" in third.stderr and f"{len(records)} cache hits" in third.stderr
    tables = [(tmp_path / f"out{i}" / "claims.jsonl").read_text() for i in (1, 2, 3)]
    assert tables[0] == tables[1] == tables[2] and tables[0]


def test_an_unforeseen_failure_in_one_document_is_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug that raises while one document is labelled makes that document an error row;
    the rest of the batch is extracted."""
    import paper_claims.model.request as request

    docs = documents(6, seed=31)
    real = request.request_labels

    async def flaky(client: Any, backend: Any, settings: Any, messages: Any, schema: Any, doc_id: str,
                    *args: Any) -> Any:
        if doc_id == docs[2].id:
            raise RuntimeError("boom")
        return await real(client, backend, settings, messages, schema, doc_id, *args)

    monkeypatch.setattr(request, "request_labels", flaky)
    with FakeServer() as server:
        table = extract_claims(docs, out=tmp_path / "out", settings=fast_settings(server, tmp_path / "cache"), say=quiet)
    statuses = {doc.doc_id: doc.status.value for doc in table.documents}
    assert statuses.pop(docs[2].id) == "error"
    assert set(statuses.values()) == {"ok"} and len(statuses) == 5
    (failed,) = table.errors
    assert failed.error == "unexpected RuntimeError: boom"


def test_a_rerun_into_a_new_folder_takes_finished_results_from_the_cache_without_parsing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import paper_claims.parse.document

    docs = [Document(id=r["id"], text=r["text"]) for r in synthetic_abstracts(20, seed=3)]
    docs.append(Document(id="plain", text="No numbers in this one."))
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", progress=False)
        first = extract_claims(docs, out=tmp_path / "a", settings=settings)

        def no_parsing(*_args: Any, **_kwargs: Any) -> Any:
            raise AssertionError("parsed again")

        monkeypatch.setattr(paper_claims.parse.document, "read_numbers", no_parsing)
        renamed = [d.model_copy(update={"id": f"new-{d.id}"}) for d in docs]
        second = extract_claims(renamed, out=tmp_path / "b", settings=settings)
    assert server.total_requests == 20
    assert second.stats.cache_hits == 20 and second.stats.without_model == 1 and second.stats.llm_calls == 0
    assert [d.doc_id for d in second.documents] == [d.id for d in renamed]  # this run's ids, not the first's
    assert [r["evidence"] for r in second.rows] == [r["evidence"] for r in first.rows]
