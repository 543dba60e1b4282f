"""Faults of the machine around a run, met as a user meets them (the ``claims`` command
against the fake server): a full disk at the journal, the tables and the answer cache; a
small file system (where one can be mounted); two runs into one folder; a file as --out; a
cache directory that cannot be made or written; an output folder removed mid-run. Each ends
in exit 2 and one line, no traceback, no temporary file, and a rerun that completes with
every document once."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

from paper_claims.cli import main
from paper_claims.errors import OutputBusy, StorageError
from paper_claims.outputs.files import temporary_file
from paper_claims.outputs.table import TableWriter
from paper_claims.run.folders import LOCK_NAME, OutputLock
from paper_claims.run.journal import JOURNAL_NAME, Journal
from tests.conftest import ROOT, grow_tmpfs, small_tmpfs
from tests.fakeserver import FakeServer, doc_key_for_text, synthetic_abstracts
from tests.test_runner import API_KEY, assert_one_row_per_document, write_jsonl
from tests.test_table import sample_documents

RUN_TIMEOUT = 120  # a run that deadlocks fails the test instead of hanging it


def _env(server: FakeServer, tmp_path: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                CLAIMS_CACHE_DIR=str(tmp_path / "cache"), **extra)


def _args(source: Path, out: Path, *extra: str) -> list[str]:
    return ["extract", str(source), "--out", str(out), "--no-report", "--quiet", "--concurrency", "4", *extra]


def _claims(args: list[str], env: dict[str, str], fault: Optional[tuple[str, int]] = None) -> subprocess.CompletedProcess[str]:
    """The command in a new process, as a user runs it (parsing in its worker process), or
    with a full disk at one writer (``tests/faults.py``; parsing in the process itself)."""
    command = [sys.executable, "-m", "paper_claims.cli", *args] if fault is None else \
        [sys.executable, "-m", "tests.faults", fault[0], str(fault[1]), *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)


def _one_line(stderr: str) -> str:
    """The run's only output: one line, no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def _journaled(out: Path) -> set[str]:
    """The documents the output folder's journal holds a complete line for."""
    return set(Journal(out).index(ok_only=False))


def _assert_clean(out: Path) -> None:
    """No temporary file and no lock left in the output folder."""
    left = sorted(p.name for p in out.iterdir() if p.name.endswith(".tmp") or p.name.startswith((".claims-probe", LOCK_NAME)))
    assert not left, left


def _rerun_completes(out: Path, source: Path, records: list[dict[str, str]], server: FakeServer,
                     env: dict[str, str], finished: set[str]) -> None:
    """A plain rerun exits 0 with every document once, and asks nothing again for a document
    the stopped run finished."""
    before = server.snapshot()["per_doc"]
    rerun = _claims(_args(source, out), env)
    after = server.snapshot()["per_doc"]
    assert rerun.returncode == 0, rerun.stderr
    assert_one_row_per_document(out, [r["id"] for r in records])
    _assert_clean(out)
    keys = {r["id"]: doc_key_for_text(r["text"]) for r in records}
    for doc_id in finished:
        assert after[keys[doc_id]] == before[keys[doc_id]] == 1, doc_id


# --- a full disk at each writer (always: a write that fails with ENOSPC part way) ------------


@pytest.mark.parametrize("writer, limit, named", [
    ("journal", 20_000, re.escape(JOURNAL_NAME)),
    ("tables", 20_000, r"(claims\.csv|claims\.jsonl|documents\.jsonl)"),
    ("cache", 15, r"the answer cache .*answers"),
    ("db", 4, r"claims\.db"),
])
def test_disk_full_at_a_writer_ends_the_run_with_one_line_and_a_rerun_completes(
        tmp_path: Path, writer: str, limit: int, named: str) -> None:
    # more documents than the runner's window (128 at --concurrency 4): a document that was
    # never recorded used to hold the window shut, and shutdown deadlocked on the finishing thread
    records = synthetic_abstracts(200, seed=28)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "out"
    log = tmp_path / "first-failure"
    with FakeServer(latency=0.02) as server:
        env = _env(server, tmp_path, FAULT_LOG=str(log))
        first = _claims(_args(source, out), env, fault=(writer, limit))
        ended = time.time()
        assert first.returncode == 2, first.stderr
        line = _one_line(first.stderr)
        assert re.fullmatch(rf"claims: error: disk full writing \S*{named}; run stopped: \d+ documents finished "
                            r"\(kept in the output journal; rerun the same command to resume\)", line), line
        assert ended - float(log.read_text()) < 10  # ended within seconds of the first failed write
        _assert_clean(out)
        assert not (out / "documents.jsonl").exists()  # no half tables put in place
        finished = _journaled(out)
        assert len(finished) < len(records)
        _rerun_completes(out, source, records, server, env, finished)


# --- a small file system, where the test may mount one -----------------------------------------


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 300 KB tmpfs, unmounted afterwards; skipped where mounting is not permitted."""
    with small_tmpfs(tmp_path / "small") as mount:
        yield mount


@pytest.mark.parametrize("full", ["out", "cache"])
def test_a_small_file_system_fills_up_the_run_ends_and_a_rerun_after_freeing_space_completes(
        tmp_path: Path, small_fs: Path, full: str) -> None:
    records = synthetic_abstracts(400, seed=29)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = small_fs / "out" if full == "out" else tmp_path / "out"
    with FakeServer(latency=0.01) as server:
        env = _env(server, tmp_path)
        if full == "cache":
            env["CLAIMS_CACHE_DIR"] = str(small_fs / "cache")
        started = time.monotonic()
        first = _claims(_args(source, out, "--concurrency", "8"), env)
        assert time.monotonic() - started < 60
        assert first.returncode == 2, first.stderr
        line = _one_line(first.stderr)
        named = r"the answer cache \S+" if full == "cache" else r"\S+"
        assert re.match(rf"claims: error: disk full (writing|opening) {named}", line), line
        _assert_clean(out)
        finished = _journaled(out)
        grow_tmpfs(small_fs)  # space freed
        _rerun_completes(out, source, records, server, env, finished)


# --- two runs into one folder ------------------------------------------------------------------


def _start_and_hold(source: Path, out: Path, env: dict[str, str]) -> "subprocess.Popen[str]":
    """A run that takes a few seconds, once it holds the folder."""
    first = subprocess.Popen([sys.executable, "-m", "paper_claims.cli", *_args(source, out)], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not _lock_pid(out) == first.pid:
        assert first.poll() is None, first.communicate()[1]
        assert time.monotonic() < deadline, "the first run never took the folder"
        time.sleep(0.02)
    return first


def _lock_pid(out: Path) -> Any:
    try:
        return json.loads((out / LOCK_NAME).read_text()).get("pid")
    except (OSError, ValueError):
        return None


def test_a_second_run_into_a_busy_folder_exits_at_once_naming_the_first(tmp_path: Path) -> None:
    records = synthetic_abstracts(40, seed=30)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "out"
    with FakeServer(latency=0.4) as server:  # 40 documents, 4 at a time: about 4 s
        env = _env(server, tmp_path)
        first = _start_and_hold(source, out, env)
        try:
            started = time.monotonic()
            second = _claims(_args(source, out), env)
            took = time.monotonic() - started
            assert first.poll() is None  # the first was still running all along
        finally:
            first_err = first.communicate(timeout=RUN_TIMEOUT)[1]
    assert second.returncode == 2
    line = _one_line(second.stderr)
    assert line.startswith(f"claims: error: another run is writing to {out} (pid {first.pid}, started "), line
    assert "--wait" in line
    assert took < 5
    assert first.returncode == 0, first_err
    assert_one_row_per_document(out, [r["id"] for r in records])  # the first run's outputs are whole
    _assert_clean(out)
    assert server.total_requests == len(records)  # the second sent nothing


def test_with_wait_a_second_run_waits_for_the_first_and_finds_everything_done(tmp_path: Path) -> None:
    records = synthetic_abstracts(40, seed=31)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "out"
    with FakeServer(latency=0.25) as server:
        env = _env(server, tmp_path)
        first = _start_and_hold(source, out, env)
        second = _claims(_args(source, out, "--wait"), env)
        first_err = first.communicate(timeout=RUN_TIMEOUT)[1]
    assert first.returncode == 0, first_err
    assert second.returncode == 0, second.stderr
    assert "Traceback" not in second.stderr
    assert f"Another run is writing to {out} (pid {first.pid}" in second.stderr
    assert "0 LLM calls" in second.stderr and f"{len(records)} resumed" in second.stderr
    assert server.total_requests == len(records)
    assert_one_row_per_document(out, [r["id"] for r in records])
    _assert_clean(out)


def test_the_lock_names_its_holder_and_is_taken_over_when_the_holder_is_killed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from paper_claims.run.folders import OutputLock; "
         "OutputLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputBusy, match=rf"another run is writing to {re.escape(str(out))} \(pid {holder.pid}, "):
            OutputLock(out).acquire()
    finally:
        holder.kill()  # as kill -9: no clean-up
        holder.wait()
    assert (out / LOCK_NAME).exists()  # what a killed run leaves
    lock = OutputLock(out)
    lock.acquire()  # taken over at once: the killed process holds nothing
    assert json.loads((out / LOCK_NAME).read_text())["pid"] == os.getpid()
    lock.release()
    assert not (out / LOCK_NAME).exists()  # cleared on exit


def test_clean_up_of_leftovers_spares_a_temporary_file_a_live_writer_holds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    stale = out / ".claims.csv.killedrun.tmp"  # a killed run's: nobody holds it
    stale.write_text("half a table")
    fd, live = temporary_file(out, "claims.jsonl")  # another writer's, still open
    try:
        writer = TableWriter(out)
        writer.abort()
        assert not stale.exists()
        assert Path(live).exists()
    finally:
        os.close(fd)
        os.unlink(live)
    assert sorted(p.name for p in out.iterdir()) == []  # the aborted writer left nothing


# --- paths checked before the run ----------------------------------------------------------


def test_an_output_path_that_is_a_file_is_one_line_before_any_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    source = write_jsonl(tmp_path / "docs.jsonl", synthetic_abstracts(3, seed=32))
    results = tmp_path / "results.csv"
    results.write_text("keep me\n")
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = main(_args(source, results))
        assert server.total_requests == 0
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert line == f"claims: error: the output folder {results} is a file, not a folder"
    assert results.read_text() == "keep me\n"


@pytest.mark.parametrize("cache", ["a file", "under /proc", "read-only"])
def test_a_cache_directory_that_cannot_be_made_or_written_is_one_line_before_any_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cache: str) -> None:
    source = write_jsonl(tmp_path / "docs.jsonl", synthetic_abstracts(3, seed=33))
    out = tmp_path / "out"
    mounts = contextlib.ExitStack()
    if cache == "a file":
        where = tmp_path / "cache-file"
        where.write_text("")
        said = f"the cache directory {where} is a file, not a folder"
    elif cache == "under /proc":
        if not Path("/proc/self").is_dir():
            pytest.skip("no /proc here")
        where = Path("/proc/x")
        said = "cannot create the cache directory /proc/x: no such file or folder"
    else:
        where = tmp_path / "read-only"
        mounts.enter_context(small_tmpfs(where, "ro,size=64k"))  # skips where mounting is not permitted
        said = f"cannot write to the cache directory {where}: read-only file system"
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(where))
    with mounts, FakeServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = main(_args(source, out))
        assert server.total_requests == 0
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert line == f"claims: error: {said} (choose another with --cache-dir or CLAIMS_CACHE_DIR)"
    assert not out.exists()  # checked before the output folder was touched


# --- a folder that vanishes mid-run ----------------------------------------------------------


def test_an_output_folder_removed_mid_run_ends_it_with_one_line_and_a_rerun_completes(tmp_path: Path) -> None:
    records = synthetic_abstracts(40, seed=34)
    source = write_jsonl(tmp_path / "docs.jsonl", records)
    out = tmp_path / "out"
    with FakeServer(latency=0.2) as server:
        env = _env(server, tmp_path)
        first = _start_and_hold(source, out, env)
        while len(_journaled(out)) < 5:
            assert first.poll() is None
            time.sleep(0.02)
        shutil.rmtree(out)
        first_err = first.communicate(timeout=RUN_TIMEOUT)[1]
        assert first.returncode == 2, first_err
        line = _one_line(first_err)
        assert re.match(rf"claims: error: no such file or folder writing {re.escape(str(out))}/\S+; run stopped", line), line
        assert not out.exists() or not any(p.name.endswith(".tmp") for p in out.iterdir())
        _rerun_completes(out, source, records, server, env, finished=set())
        assert server.total_requests == len(records)  # the rerun took every result from the cache


# --- the writers themselves ------------------------------------------------------------------


def test_the_table_writer_puts_every_file_in_place_or_on_a_full_disk_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    names = ["claims.csv", "claims.jsonl", "claims.parquet", "documents.jsonl", "documents.parquet"]
    whole = tmp_path / "whole"
    writer = TableWriter(whole, parquet=True)
    for document in sample_documents():
        writer.add(document)
    writer.close()
    assert sorted(p.name for p in whole.iterdir()) == names
    assert pq.read_table(whole / "documents.parquet").num_rows == len(sample_documents())

    full = tmp_path / "full"
    writer = TableWriter(full, parquet=True)
    for document in sample_documents():
        writer.add(document)
    real_close = pq.ParquetWriter.close

    def disk_full(self: Any) -> None:
        real_close(self)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq.ParquetWriter, "close", disk_full)
    with pytest.raises(StorageError, match=r"^disk full writing \S+/claims\.parquet$"):
        writer.close()
    monkeypatch.undo()
    assert list(full.iterdir()) == []  # no table put in place beside a missing one, no temporary file


def test_a_storage_error_keeps_its_path_and_cause_across_processes() -> None:
    import pickle

    error = StorageError.of(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), Path("/x/answers"),
                            what="the answer cache")
    again = pickle.loads(pickle.dumps(error))  # raised in the parse worker, read in the run
    assert (type(again), str(again), again.path, again.errno) == \
        (StorageError, "disk full writing the answer cache /x/answers", "/x/answers", errno.ENOSPC)


def test_an_output_the_report_cannot_read_is_named_not_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40: unreadable tables ended in "permission denied writing out/report.html"."""
    import paper_claims.outputs.report as report
    from paper_claims import write_claims

    out = tmp_path / "out"

    def unreadable(out_dir: Any, *args: Any, **kwargs: Any) -> Path:
        raise PermissionError(errno.EACCES, "Permission denied", str(Path(out_dir) / "claims.jsonl"))

    monkeypatch.setattr(report, "write_report", unreadable)
    source = write_jsonl(tmp_path / "in.jsonl", synthetic_abstracts(2))
    with FakeServer() as server, pytest.raises(StorageError) as raised:
        write_claims([str(source)], out, base_url=server.base_url, progress=False)
    assert raised.value.one_line() == f"permission denied reading {out / 'claims.jsonl'}"
