"""Parsing in a worker process (remote endpoints, requests in parallel) gives the same rows
as parsing in this process, and a killed run leaves no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from paper_claims.outputs.table import ClaimTable
from paper_claims.run.local import LocalRunner
from paper_claims.run.runner import Collect, run
from paper_claims.schemas import Document
from paper_claims.settings import Settings
from paper_claims.tasks import task_for
from tests.conftest import ROOT
from tests.fakeserver import FakeServer, synthetic_abstracts


def _extract(docs: list[Document], settings: Settings, in_worker: bool) -> ClaimTable:
    task = task_for(settings)
    collected = Collect()
    stats = run(docs, task, LocalRunner(task, parse_in_worker=in_worker), sinks=[collected])
    return ClaimTable(collected.results, stats=stats)


def test_a_worker_process_parses_and_grounds_like_this_process(tmp_path: Path) -> None:
    docs = [Document(id=r["id"], text=r["text"]) for r in synthetic_abstracts(40, seed=5)]
    docs.append(Document(id="plain", text="No numbers in this one."))
    with FakeServer() as server:
        tables = [_extract(docs, Settings(base_url=server.base_url, api_key="sk-test", concurrency=4, progress=False,
                                          cache_dir=tmp_path / f"cache-{mode}"), mode)
                  for mode in (False, True)]
    here, worker = tables
    assert worker.rows == here.rows and len(here.rows) > 40
    assert worker.document_rows == here.document_rows
    assert worker.stats.llm_calls == here.stats.llm_calls == 40 and worker.stats.without_model == 1


def test_the_worker_settles_like_this_process(tmp_path: Path) -> None:
    from paper_claims.run.cache import AnswerCache
    from paper_claims.run.settle import Settler
    from paper_claims.run.runner import Outcome, Work

    settings = Settings(base_url="http://127.0.0.1:9/v1", api_key="sk-test", progress=False, cache_dir=tmp_path)
    texts = [r["text"] for r in synthetic_abstracts(60, seed=8)] + ["No numbers here."] * 3
    work = [Work(i, Document(id=f"d{i}", text=text), f"k{i}") for i, text in enumerate(texts)]
    with AnswerCache(tmp_path / "cache") as cache:
        task = task_for(settings, "e")
        here = list(Settler(task, cache, in_worker=False).settled(iter(work)))
        parser = Settler(task, cache, in_worker=True)
        try:
            assert parser.start_worker().result(timeout=60)
            settled = list(parser.settled(iter(work)))
        finally:
            parser.close()
    assert parser.sent_to_worker == len(work)
    assert len(settled) == len(here) == len(work)
    for a, b in zip(settled, here):
        if isinstance(b, Outcome):
            assert isinstance(a, Outcome) and a.result == b.result and a.how == b.how == "rules"
        else:
            assert not isinstance(a, Outcome) and a[0] == b[0] and a[1].messages == b[1].messages
            assert a[1].schema == b[1].schema and a[1].key == b[1].key


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_kill_minus_9_of_the_run_takes_its_parse_worker_with_it(tmp_path: Path) -> None:
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(f'{{"id": "{r["id"]}", "text": "{r["text"]}"}}\n'
                              for r in synthetic_abstracts(200, seed=6)), encoding="utf-8")
    with FakeServer(latency=0.5) as server:
        env = dict(os.environ, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(tmp_path / "cache"))
        process = subprocess.Popen([sys.executable, "-m", "paper_claims", "extract", str(source), "--out",
                                    str(tmp_path / "out"), "--quiet", "--no-report", "--concurrency", "4"],
                                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while not _children(process.pid):  # the run is under way with its parse worker
                assert process.poll() is None and time.monotonic() < deadline, "no parse worker process"
                time.sleep(0.05)
            time.sleep(0.5)
            workers = _children(process.pid)
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
            deadline = time.monotonic() + 5
            while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not any(_alive(pid) for pid in workers)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
