"""The embedded server's life cycle, with a fake engine standing in for llama.cpp:
self-test, crash mid-run, one engine per machine, a dead remote endpoint, stopping."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from paper_claims.api import extract_claims
from paper_claims.engines.build import PORTABLE_CMAKE_ARGS
from paper_claims.engines.embedded import crash_message, describe_exit
from paper_claims.errors import RunStopped
from paper_claims.run.journal import JOURNAL_NAME
from paper_claims.settings import Settings
from paper_claims.schemas import Document
from tests.conftest import engine_lock_info, run_claims

ROOT = Path(__file__).resolve().parent.parent
FAKE_ENGINE = Path(__file__).resolve().parent / "fake_engine"


def _docs(n: int) -> list[Document]:
    return [Document(id=f"d{i}", text=f"Our system runs {i + 2}.5x faster than the baseline on 8 GPUs "
                                       f"and reaches {60 + i}.1% accuracy.") for i in range(n)]


@pytest.fixture
def fake_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment in which the embedded server is the fake engine, with its own engine lock."""
    monkeypatch.syspath_prepend(str(FAKE_ENGINE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FAKE_ENGINE), str(ROOT)]))
    monkeypatch.setenv("CLAIMS_ENGINE_LOCK", str(tmp_path / "engine.lock"))
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"GGUF fake")
    monkeypatch.setenv("FAKE_MODEL_PATH", str(model))
    return dict(os.environ)


def _wait_for(predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it has stopped running all the same
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_install_script_builds_the_portable_instruction_set() -> None:
    script = (ROOT / "scripts" / "install_engine.sh").read_text()
    assert f'PORTABLE="{PORTABLE_CMAKE_ARGS}"' in script
    assert "-DGGML_NATIVE=OFF" in PORTABLE_CMAKE_ARGS and "-DGGML_AMX_TILE=OFF" in PORTABLE_CMAKE_ARGS
    assert 'export CMAKE_ARGS="${CMAKE_ARGS:-$PORTABLE}"' in script  # the user's own flags win


def test_exit_descriptions_name_the_signal() -> None:
    assert describe_exit(1) == "exited with status 1"
    assert describe_exit(-signal.SIGILL).startswith("killed by signal SIGILL (illegal instruction")
    assert describe_exit(-signal.SIGKILL).startswith("killed by signal SIGKILL")


def test_crash_message_has_log_tail_path_and_rebuild_command(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("loading model\n\nggml: tilezero\n")
    message = crash_message("the server failed", -signal.SIGILL, log)
    assert "\n" not in message
    assert "last log lines: loading model | ggml: tilezero" in message
    assert f"log: {log}" in message
    assert f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}"' in message and "pip install --force-reinstall" in message
    assert "rebuild" not in crash_message("the server failed", 1, log)


def test_self_test_failure_stops_before_any_document_with_log_and_rebuild_command(fake_engine: dict[str, str], tmp_path: Path) -> None:
    env = {**fake_engine, "FAKE_ENGINE_CRASH_ON_LONG_PROMPT": "1"}
    started = time.monotonic()
    proc = run_claims(["extract", "--model-path", env["FAKE_MODEL_PATH"], "--out", str(tmp_path / "out"),
                    "--quiet", str(ROOT / "eval" / "gold" / "dev_inputs.jsonl")], env)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    lines = [line for line in err.splitlines() if line.startswith("claims: error:")]
    assert len(lines) == 1
    line = lines[0]
    assert "failed its self-test" in line and "killed by signal SIGILL" in line
    log = re.search(r"log: (\S+\.log)", line)
    assert log is not None and Path(log.group(1)).is_file()
    assert "ggml_compute_forward" in line  # the log's last lines
    assert f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}"' in line
    journal = tmp_path / "out" / JOURNAL_NAME  # only documents the rules answered (no numbers)
    records = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
    assert all(r["result"]["attempts"] == 0 and not r["result"]["claims"] for r in records)
    assert time.monotonic() - started < 30


def test_server_killed_mid_run_stops_it_within_seconds_and_rerun_resumes(fake_engine: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_LATENCY", "0.3")
    out = tmp_path / "out"
    docs = _docs(12)
    journal = out / JOURNAL_NAME
    killed: dict[str, float] = {}

    def kill_after_two() -> None:
        _wait_for(lambda: journal.is_file() and journal.read_text().count("\n") >= 2, 30)
        os.kill(int(engine_lock_info(fake_engine)["server_pid"]), signal.SIGKILL)
        killed["at"] = time.monotonic()

    killer = threading.Thread(target=kill_after_two)
    killer.start()
    with pytest.raises(RunStopped) as caught:
        extract_claims(docs, out=out, model_path=fake_engine["FAKE_MODEL_PATH"])
    ended = time.monotonic()
    killer.join()
    assert ended - killed["at"] < 5
    message = caught.value.one_line()
    assert "stopped during the run" in message and "killed by signal SIGKILL" in message
    assert "log: " in message and "rerun the same command to resume" in message
    finished = {r.doc_id for r in caught.value.results}
    assert len(finished) >= 2 and len(finished) < len(docs)
    # finished documents are in the outputs, unfinished ones are not error rows
    rows = [json.loads(line) for line in (out / "documents.jsonl").read_text().splitlines()]
    assert {r["doc_id"] for r in rows} == finished and all(r["status"] == "ok" for r in rows)

    monkeypatch.setenv("FAKE_ENGINE_LATENCY", "0")
    table = extract_claims(docs, out=out, model_path=fake_engine["FAKE_MODEL_PATH"], use_cache=False)
    assert table.stats.resumed == len(finished)
    assert table.stats.llm_calls == len(docs) - len(finished)
    assert [d.doc_id for d in table.documents] == [d.id for d in docs] and not table.errors


def test_two_runs_at_once_never_run_two_engines(fake_engine: dict[str, str], tmp_path: Path) -> None:
    env = {**fake_engine, "FAKE_ENGINE_LATENCY": "0.2"}
    inputs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in _docs(5)))
        inputs.append(path)
    procs = [run_claims(["extract", "--model-path", env["FAKE_MODEL_PATH"], "--out", str(tmp_path / f"out-{i}"),
                      "--quiet", "--no-cache", str(path)], env) for i, path in enumerate(inputs)]
    servers_seen: set[int] = set()
    most_at_once = 0
    while any(p.poll() is None for p in procs):
        running = [int(pid) for pid in subprocess.run(["pgrep", "-f", "-P", ",".join(str(p.pid) for p in procs),
                                                       "paper_claims.engines.llama_server"], capture_output=True, text=True).stdout.split()]
        servers_seen.update(running)
        most_at_once = max(most_at_once, len(running))
        time.sleep(0.05)
    errs = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    assert most_at_once == 1 and len(servers_seen) == 2
    assert sum("waiting for it to finish" in e for e in errs) == 1


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGKILL, -signal.SIGKILL)])
def test_stopping_the_run_stops_its_server_even_mid_generation(fake_engine: dict[str, str], tmp_path: Path,
                                                                sig: int, code: int) -> None:
    env = {**fake_engine, "FAKE_ENGINE_LATENCY": "60", "FAKE_ENGINE_IGNORE_SIGTERM": "1"}
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in _docs(3)))
    proc = run_claims(["extract", "--model-path", env["FAKE_MODEL_PATH"], "--out", str(tmp_path / "out"), "--quiet",
                    str(path)], env)
    _wait_for(lambda: "server_pid" in engine_lock_info(env), 30)
    server = int(engine_lock_info(env)["server_pid"])
    time.sleep(1.0)  # the first document's request is in flight
    proc.send_signal(sig)
    started = time.monotonic()
    proc.communicate(timeout=15)
    _wait_for(lambda: not _alive(server), 5)
    assert time.monotonic() - started < 5
    assert proc.returncode == code


def test_unreachable_endpoint_stops_the_run_after_a_few_documents(tmp_path: Path) -> None:
    from paper_claims.engines.embedded import free_port

    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in _docs(60)))
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
    started = time.monotonic()
    proc = run_claims(["extract", "--base-url", url, "--out", str(tmp_path / "out"), "--quiet", str(path)], env)
    _out, err = proc.communicate(timeout=60)
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, err
    lines = [line for line in err.splitlines() if line.startswith("claims: error:")]
    assert len(lines) == 1 and url in lines[0] and "unreachable" in lines[0] and "ClientConnectorError" in lines[0]
    assert elapsed < 30


def test_server_errors_from_a_live_endpoint_do_not_stop_the_run(tmp_path: Path) -> None:
    from tests.fakeserver import FakeServer

    with FakeServer(fault_rate=1.0, fault_kinds=["500"]) as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", max_retries=1, backoff_base=0.01,
                            progress=False, use_cache=False)
        table = extract_claims(_docs(6), settings=settings)
    assert len(table.errors) == 6  # every document reported, none stopped the run


def test_connection_failures_below_the_limit_are_error_rows_not_lost(tmp_path: Path) -> None:
    from paper_claims.engines.embedded import free_port

    settings = Settings(base_url=f"http://127.0.0.1:{free_port()}/v1", api_key="sk-test", max_retries=0,
                        max_unreachable=100, progress=False, use_cache=False)
    table = extract_claims(_docs(5), settings=settings)
    assert [d.doc_id for d in table.errors] == [f"d{i}" for i in range(5)]
    assert all("ClientConnectorError" in (d.error or "") for d in table.errors)
