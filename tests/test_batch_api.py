"""The batch APIs (issue 41) against the stand-in files-and-batches server (``tests.fakebatch``):
``--batch`` gives the outputs the chat path gives and fills the same answer cache; re-asks and
retries go in follow-up batches; expired, failed and cancelled batches keep what ran and leave
the rest to the next run; a run killed at any step resumes without submitting anything twice;
``--write-batch`` and ``--batch-results`` round trip. All traffic stays on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

import pytest

from paper_claims.cli import main
from paper_claims.errors import BatchError
from paper_claims.model.backends import Backend
from paper_claims.model.batches import custom_id, parse_custom_id, read_answer_line
from paper_claims.model.request import REASK, chat_body
from paper_claims.tasks import task_for
from paper_claims.run.batch_state import BATCH_DIR
from paper_claims.schemas import Document
from paper_claims.settings import Settings
from tests.conftest import ROOT, kill_when, read_jsonl
from tests.fakebatch import FakeBatchServer, run_batch_file
from tests.fakeserver import FakeServer, doc_key_for_text, synthetic_abstracts

API_KEY = "sk-test-batch-api-0123456789"
OUTPUTS = ("claims.jsonl", "documents.jsonl", "claims.csv")


def records(n: int, seed: int = 41) -> list[dict[str, Any]]:
    """Made-up abstracts, one without numbers and one whose text repeats another's."""
    rows = synthetic_abstracts(n, seed=seed)
    rows.append({"id": "no-numbers", "text": "We describe a method for reading abstracts."})
    rows.append({"id": "same-text", "text": rows[0]["text"]})
    return rows


def settings(server: FakeServer, cache: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = dict(base_url=server.base_url, api_key=API_KEY, cache_dir=cache, progress=False,
                                  batch_poll=0.02, backoff_base=0.01, backoff_cap=0.05, timeout=20.0)
    values.update(overrides)
    return Settings(**values)


def quiet(_message: str) -> None:
    pass


def extract(sources: Any, out: Path, settings: Settings, say: Any = quiet, **options: Any) -> Any:
    """What ``claims extract`` does, in this process."""
    from paper_claims.api import _extract
    from paper_claims.options import option_values

    return _extract(sources, [], values=option_values("stream", {"out": out, "progress": False, **options}),
                    settings=settings, say=say)[0]


def chat_reference(sources: Any, tmp_path: Path, **server_options: Any) -> Path:
    """The outputs of the same documents (records or a file) through /v1/chat/completions, one
    request in flight: a text that repeats an earlier one is then always answered from the cache
    (attempts 0), as a batch answers it; with eight in flight it was asked again whenever the
    first was still unanswered (attempts 1), and the comparison failed now and then."""
    out = tmp_path / "chat"
    with FakeServer(**server_options) as server:
        extract(sources, out, settings(server, tmp_path / "chat-cache", concurrency=1))
    return out


def same_outputs(one: Path, other: Path, names: tuple[str, ...] = OUTPUTS) -> None:
    for name in names:
        assert (one / name).read_text() == (other / name).read_text(), name


def batch_lines(server: FakeBatchServer) -> list[list[dict[str, Any]]]:
    return [server.batch_lines(batch_id) for batch_id in sorted(server.batches)]


# --- the format -------------------------------------------------------------------------------


def test_custom_ids_carry_the_document_and_its_cache_key() -> None:
    key = "ab" * 32
    assert custom_id("arXiv:2401.00001", key) == f"arXiv:2401.00001:{key}"
    assert parse_custom_id(custom_id("arXiv:2401.00001", key)) == (key, 1)
    assert parse_custom_id(custom_id("doc#3", key, 3)) == (key, 3)
    with pytest.raises(ValueError):
        parse_custom_id("request-1")


def test_results_lines_of_openai_and_vllm_are_read() -> None:
    key = "cd" * 32
    body = {"choices": [{"message": {"content": '{"s": null}'}}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}
    answered = read_answer_line({"id": "batch_req_1", "custom_id": f"d:{key}", "error": None,
                                 "response": {"status_code": 200, "request_id": "r", "body": body}})
    assert (answered.key, answered.content, answered.usage, answered.error) == (key, '{"s": null}', (7, 3), None)
    server_error = read_answer_line({"id": "x", "custom_id": f"d:{key}:2", "error": None, "response": {
        "status_code": 500, "request_id": "r", "body": {"error": {"message": "boom", "type": "server_error"}}}})
    assert (server_error.n, server_error.content, server_error.error, server_error.transient) == (2, None, "HTTP 500: boom", True)
    expired = read_answer_line({"id": "x", "custom_id": f"d:{key}", "response": None,
                                "error": {"code": "batch_expired", "message": "not run"}})
    assert (expired.code, expired.transient) == ("batch_expired", False)
    vllm = read_answer_line({"id": "vllm-1", "custom_id": f"d:{key}", "error": "bad request",
                             "response": {"status_code": 400, "request_id": "vllm-batch-1"}})
    assert (vllm.content, vllm.error, vllm.transient) == (None, "HTTP 400: bad request", False)


# --- --batch against the stand-in --------------------------------------------------------------


def test_batch_gives_the_chat_outputs_and_fills_the_same_answer_cache(tmp_path: Path) -> None:
    rows = records(24)
    reference = chat_reference(rows, tmp_path)
    said: list[str] = []
    with FakeBatchServer() as server:
        batch_settings = settings(server, tmp_path / "cache")
        stats = extract(rows, tmp_path / "out", batch_settings, say=said.append, batch=True)
        (lines,) = batch_lines(server)
        chat_requests = server.total_requests
        # a later chat run over the same cache asks nothing: the same cache keys, the same answers
        again = extract(rows, tmp_path / "again", settings(server, tmp_path / "cache"))
        assert server.total_requests == chat_requests
    same_outputs(tmp_path / "out", reference)
    same_outputs(tmp_path / "again", reference, ("claims.jsonl", "claims.csv"))  # answers from the cache: attempts 0
    assert again.llm_calls == 0 and again.cache_hits == 25  # the repeated text too
    # one line per document that needs the model: not the one without numbers, not the repeated text
    assert len(lines) == 24 and stats.llm_calls == 24 and stats.without_model == 1
    backend = Backend(base_url=server.base_url, model=batch_settings.model_name, endpoint_id=server.base_url,
                      grammar_schema=False)
    for line, row in zip(lines, rows):
        assert set(line) == {"custom_id", "method", "url", "body"}
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        request = task_for(batch_settings, server.base_url.rstrip("/")).prepare(Document(id=row["id"], text=row["text"]))
        assert line["custom_id"] == f"{row['id']}:{request.key}"
        assert line["body"] == chat_body(backend, batch_settings, request.messages, request.schema,
                                         batch_settings.max_tokens)
    assert any(m.startswith("batch batch_000001 completed: 24 of 24 requests answered") for m in said)


def test_a_rerun_after_the_batch_asks_nothing(tmp_path: Path) -> None:
    rows = records(6)
    with FakeBatchServer() as server:
        extract(rows, tmp_path / "out", settings(server, tmp_path / "cache"), batch=True)
        again = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache", use_cache=False), batch=True)
        assert server.created == 1 and again.resumed == len(rows) and again.llm_calls == 0


def test_killed_while_grounding_the_rerun_grounds_the_batch_answers_again(tmp_path: Path) -> None:
    """A run killed after its answers were cached but before their results were journaled:
    the rerun grounds them from the batch's answers (not as cache hits), no new batch."""
    rows = records(12)[:-1]
    with FakeBatchServer() as server:
        extract(rows, tmp_path / "out", settings(server, tmp_path / "cache"), batch=True)
        first = {name: (tmp_path / "out" / name).read_text() for name in OUTPUTS}
        journal = tmp_path / "out" / ".claims-journal.jsonl"
        lines = journal.read_text().splitlines(keepends=True)
        journal.write_text("".join(line for line in lines if not line.startswith('{"key"')) +
                           "".join(line for line in lines if line.startswith('{"key"'))[:40])  # and a torn line
        _forget_results(tmp_path / "cache")  # journaled and stored together: the answers stay cached
        again = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache"), batch=True)
        assert server.created == 1 and (again.llm_calls, again.cache_hits, again.resumed) == (12, 0, 0)
    assert {name: (tmp_path / "out" / name).read_text() for name in OUTPUTS} == first


def _forget_results(cache: Path) -> None:
    """Remove the finished results from the cache, keeping the answers."""
    import diskcache

    from paper_claims.run.runner import RESULT_KEY

    with diskcache.Cache(str(cache / "answers")) as store:
        for key in [key for key in store.iterkeys() if str(key).startswith(RESULT_KEY)]:
            del store[key]


def test_pieces_of_batch_size_requests_are_submitted_as_they_fill(tmp_path: Path) -> None:
    rows = records(20)[:-1]
    reference = chat_reference(rows, tmp_path)
    with FakeBatchServer() as server:
        extract(rows, tmp_path / "out", settings(server, tmp_path / "cache", batch_size=7), batch=True)
        sizes = [len(lines) for lines in batch_lines(server)]
    assert sizes == [7, 7, 6]
    same_outputs(tmp_path / "out", reference)
    # offline the same pieces make one request file, and a results file is read a piece at a time
    offline = Settings(model="fake-model", cache_dir=tmp_path / "offline-cache", progress=False, batch_size=7)
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    extract(rows, tmp_path / "offline", offline, write_batch=requests)
    assert [line["custom_id"].split(":")[0] for line in read_jsonl(requests)] == [row["id"] for row in rows[:20]]
    run_batch_file(requests, results)
    extract(rows, tmp_path / "offline", offline, batch_results=results)
    journal = (tmp_path / "offline" / ".claims-journal.jsonl").read_text().splitlines()
    assert sum('"event": "imported"' in line for line in journal) == 3
    same_outputs(tmp_path / "offline", reference, ("claims.jsonl", "claims.csv"))


@pytest.mark.parametrize("schema, fill", [("measurement", "marks"), ("measurement", "instructor"), (None, "instructor")])
def test_a_schema_of_your_own_and_a_filled_schema_batch_as_they_chat(tmp_path: Path, schema: Optional[str],
                                                                      fill: str) -> None:
    from tests.test_schema import TEXTS, Measurement

    options = dict(schema=Measurement if schema else None, fill=fill)
    with FakeServer() as server:
        extract(TEXTS, tmp_path / "chat", settings(server, tmp_path / "chat-cache", **options))
    with FakeBatchServer() as server:
        extract(TEXTS, tmp_path / "out", settings(server, tmp_path / "cache", **options), batch=True)
        assert server.created == 1
    same_outputs(tmp_path / "out", tmp_path / "chat")


def test_reasks_and_retries_go_in_follow_up_batches(tmp_path: Path) -> None:
    rows = records(8)[:-1]  # not the repeated text: on the chat path it may be asked before its twin is answered
    keys = [doc_key_for_text(row["text"]) for row in rows]
    plan_of = {keys[0]: ["badmark"], keys[1]: ["malformed"], keys[2]: ["500"], keys[3]: ["badmark"] * 9}

    def plan(key: str, index: int, _text: str) -> Optional[str]:
        faults = plan_of.get(key, [])
        return faults[index] if index < len(faults) else "ok"

    reference = chat_reference(rows, tmp_path, plan=plan)
    with FakeBatchServer(plan=plan) as server:
        stats = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache", max_reasks=2), batch=True)
        rounds = batch_lines(server)
    same_outputs(tmp_path / "out", reference, ("claims.jsonl", "claims.csv"))  # the same answers
    # the same rows; only the hopeless document's validation error is worded by instructor on the chat path
    brief = [{**row, "error": (row["error"] or "").split(":")[0]} for row in read_jsonl(tmp_path / "out" / "documents.jsonl")]
    assert brief == [{**row, "error": (row["error"] or "").split(":")[0]} for row in read_jsonl(reference / "documents.jsonl")]
    assert [len(lines) for lines in rounds] == [8, 4, 1]  # everything; the two bad, the 500 and the hopeless; it again
    follow_up = {parse_custom_id(line["custom_id"])[1]: line for line in rounds[1]}
    assert set(follow_up) == {2}
    first = {line["custom_id"]: line for line in rounds[0]}
    for line in rounds[1]:
        original = first[line["custom_id"].rsplit(":", 1)[0]]
        messages, before = line["body"]["messages"], original["body"]["messages"]
        if line["custom_id"].startswith(rows[2]["id"]):  # the 500: the same request again
            assert messages == before
        else:  # a re-ask: the answer that failed and the validation error fed back
            assert messages[:-2] == before and messages[-2]["role"] == "assistant"
            assert messages[-1]["content"].startswith(REASK.split("{")[0])
    documents = {row["doc_id"]: row for row in read_jsonl(tmp_path / "out" / "documents.jsonl")}
    assert documents[rows[3]["id"]]["status"] == "error" and documents[rows[3]["id"]]["attempts"] == 3
    assert "failed validation" in documents[rows[3]["id"]]["error"]
    assert [documents[rows[i]["id"]]["attempts"] for i in range(3)] == [2, 2, 1]  # a retry is no new answer
    assert stats.errors == 1


@pytest.mark.parametrize("ending", ["expired", "failed", "cancelled"])
def test_a_batch_that_ends_early_keeps_what_ran_and_the_next_run_submits_the_rest(tmp_path: Path, ending: str) -> None:
    rows = records(20)[:-1]
    reference = chat_reference(rows, tmp_path)
    said: list[str] = []
    with FakeBatchServer(request_seconds=0.01 if ending == "cancelled" else 0.0) as server:
        if ending == "expired":
            server.expire_after = 12
        elif ending == "failed":
            server.fail_next = ("token_limit_exceeded", "Enqueued token limit reached for fake-model")
        else:
            threading.Thread(target=_cancel_after, args=(server, 12), daemon=True).start()
        first = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache"), say=said.append, batch=True)
        server.expire_after = None
        answered = 0 if ending == "failed" else sum(server.executed.values())
        assert first.errors == 20 - answered and first.llm_calls == answered
        documents = read_jsonl(tmp_path / "out" / "documents.jsonl")
        errors = [row["error"] for row in documents if row["status"] == "error"]
        assert all("batch batch_000001" in error and "rerun the same command" in error for error in errors)
        line = next(m for m in said if m.startswith("batch batch_000001 "))
        assert "next run (rerun the same command)" in line and ("Enqueued token limit" in line) == (ending == "failed")
        second = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache"), batch=True)
        rounds = batch_lines(server)
    assert second.resumed == sum(row["status"] == "ok" for row in documents) and second.errors == 0
    assert len(rounds) == 2 and len(rounds[1]) == 20 - answered  # only what did not run
    assert all(count == 1 for count in server.executed.values())  # nothing ran twice
    same_outputs(tmp_path / "out", reference)


def test_a_batch_refused_for_a_full_queue_waits_for_another_to_end(tmp_path: Path) -> None:
    """The account's queue holds 14 requests: of three pieces of 7, the third is refused while
    the first two run (it runs nothing), waits, and is made again from the same file."""
    rows = records(20)[:-1]
    reference = chat_reference(rows, tmp_path)
    said: list[str] = []
    with FakeBatchServer(queue_limit=14, request_seconds=0.1) as server:
        stats = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache", batch_size=7), say=said.append,
                        batch=True)
        statuses = [batch["status"] for batch in server.batches.values()]
        inputs = [batch["input_file_id"] for batch in server.batches.values()]
    assert stats.errors == 0 and set(server.executed.values()) == {1}
    assert statuses.count("failed") >= 1 and statuses.count("completed") == 3
    assert len(set(inputs)) == 3  # three pieces uploaded once each
    assert any("the queue of enqueued tokens is full" in m for m in said)
    same_outputs(tmp_path / "out", reference)


def _cancel_after(server: FakeBatchServer, requests: int) -> None:
    deadline = time.monotonic() + 20
    while sum(server.executed.values()) < requests and time.monotonic() < deadline:
        time.sleep(0.002)
    server.cancel("batch_000001")


def test_batch_api_calls_are_retried_and_bounded(tmp_path: Path) -> None:
    rows = records(6)
    with FakeBatchServer() as server:
        server.api_faults.update({"upload": 2, "create": 1, "poll": 3, "download": 1})
        stats = extract(rows, tmp_path / "out", settings(server, tmp_path / "cache"), batch=True)
        assert stats.errors == 0 and server.created == 1 and len(server.files) == 2  # the requests, the output
        server.api_faults["upload"] = 99
        with pytest.raises(BatchError, match="uploading the requests failed after 3 attempts"):
            extract(records(3, seed=7), tmp_path / "other", settings(server, tmp_path / "cache", max_retries=2), batch=True)


# --- the command line --------------------------------------------------------------------------


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_batch_options_that_cannot_run_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    source = _write(tmp_path / "docs.jsonl", records(2))
    out = str(tmp_path / "out")
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    cases = [
        (["--batch"], "--batch needs an endpoint that implements /v1/files and /v1/batches"),
        (["--batch", "--write-batch", "f.jsonl"], "--batch and --write-batch cannot go together"),
        (["--write-batch", str(tmp_path / "r.jsonl")], "a batch file needs --model"),
        (["--batch", "--engine", "ray"], "--batch runs in this process"),
    ]
    with FakeServer() as chat_only:
        cases.append((["--batch", "--base-url", chat_only.base_url],
                      f"the endpoint {chat_only.base_url} does not implement the Batch API"))
        for extra, message in cases:
            assert main(["extract", str(source), "--out", out, "--quiet", "--no-report", *extra]) == 2
            err = capsys.readouterr().err.strip()
            assert err.startswith("claims: error: ") and message in err and "\n" not in err, err


def test_write_batch_then_batch_results_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = records(16)
    source = _write(tmp_path / "docs.jsonl", rows)
    reference = chat_reference(source, tmp_path)
    out, requests, results = tmp_path / "out", tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    argv = ["extract", str(source), "--out", str(out), "--quiet", "--no-report", "--model", "fake-model"]
    assert main([*argv, "--write-batch", str(requests)]) == 0
    assert f"Wrote 16 requests to {requests}" in capsys.readouterr().err
    assert not (out / "claims.jsonl").exists()  # only the request file
    lines = read_jsonl(requests)
    assert len(lines) == 16 and all(set(line) == {"custom_id", "method", "url", "body"} for line in lines)
    assert all(line["body"]["model"] == "fake-model" for line in lines)
    run_batch_file(requests, results)  # as vllm run-batch answers it
    assert main([*argv, "--batch-results", str(results)]) == 0
    same_outputs(out, reference)
    # a second --write-batch has nothing left to ask
    assert main([*argv, "--write-batch", str(requests)]) == 0
    assert requests.read_text() == ""


def test_the_stand_ins_results_file_grounded_offline_gives_the_same_outputs(tmp_path: Path) -> None:
    rows = records(12)
    with FakeBatchServer() as server:
        extract(rows, tmp_path / "online", settings(server, tmp_path / "cache"), batch=True)
        offline = settings(server, tmp_path / "cache-2")
        extract(rows, tmp_path / "offline", offline, batch_results=tmp_path / "online" / BATCH_DIR / "p00001.output.jsonl")
    same_outputs(tmp_path / "online", tmp_path / "offline")


def test_an_answer_that_fails_validation_offline_is_re_asked_by_the_next_write(tmp_path: Path) -> None:
    rows = records(4)
    bad = doc_key_for_text(rows[1]["text"])
    server = FakeServer(plan=lambda key, index, _t: "malformed" if key == bad and index == 0 else "ok")
    offline = Settings(model="fake-model", cache_dir=tmp_path / "cache", progress=False)
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    extract(rows, tmp_path / "out", offline, write_batch=requests)
    run_batch_file(requests, results, server)
    stats = extract(rows, tmp_path / "out", offline, batch_results=results)
    assert stats.errors == 1
    (failed,) = [row for row in read_jsonl(tmp_path / "out" / "documents.jsonl") if row["status"] == "error"]
    assert failed["doc_id"] == rows[1]["id"] and "--write-batch writes its re-ask" in failed["error"]
    extract(rows, tmp_path / "out", offline, write_batch=requests)
    (reask,) = read_jsonl(requests)
    assert reask["custom_id"].startswith(rows[1]["id"]) and parse_custom_id(reask["custom_id"])[1] == 2
    assert reask["body"]["messages"][-1]["content"].startswith(REASK.split("{")[0])
    run_batch_file(requests, results, server)
    assert extract(rows, tmp_path / "out", offline, batch_results=results).errors == 0
    assert server.counts[bad] == 2


# --- killed and rerun ------------------------------------------------------------------------------


def _batch_command(out: Path, source: Path) -> list[str]:
    return [sys.executable, "-m", "paper_claims.cli", "extract", str(source), "--out", str(out), "--quiet",
            "--no-report", "--batch", "--batch-size", "7"]


@pytest.fixture(scope="module")
def killed_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The documents of the kill tests and their outputs through /v1/chat/completions."""
    folder = tmp_path_factory.mktemp("killed")
    source = _write(folder / "docs.jsonl", records(20))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAIMS_CACHE_DIR", str(folder / "cache"))
        return source, chat_reference(source, folder)


@pytest.mark.parametrize("point", ["upload", "before_create", "create", "poll", "download"])
def test_killed_at_any_step_the_rerun_submits_nothing_twice_and_loses_nothing(
        tmp_path: Path, point: str, killed_inputs: tuple[Path, Path]) -> None:
    """kill -9 after the upload, before and after the batch is created (its answer never
    comes), while polling, while downloading; the rerun finishes with one batch for each of the
    three pieces of work, every request run once, every document once, the outputs of the chat path."""
    source, reference = killed_inputs
    out = tmp_path / "out"
    with FakeBatchServer() as server:
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(tmp_path / "cache"), CLAIMS_BATCH_POLL="0.05")
        server.stall.add(point)
        killed = subprocess.Popen(_batch_command(out, source), cwd=ROOT, env=env, text=True,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        kill_when(killed, server.arrived[point].is_set)
        server.stall.clear()
        rerun = subprocess.run(_batch_command(out, source), cwd=ROOT, env=env, capture_output=True, text=True,
                               timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        assert server.created == 3, rerun.stderr  # one batch for each piece of work (7, 7 and 6 requests)
        assert len(server.executed) == 20 and set(server.executed.values()) == {1}
    same_outputs(out, reference)
    assert not list((out / BATCH_DIR).glob("*.part"))
