"""Shared fixtures: isolated cache and environment, cassette location and scrubbing."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = ROOT / "cassettes"
SECRET_HEADERS = ["authorization", "api-key", "x-api-key", "openai-organization", "openai-project", "cookie", "set-cookie"]


@pytest.fixture(autouse=True)
def isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own cache directory and no inherited endpoint settings."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(cache))
    monkeypatch.setenv("CLAIMS_ENGINE_LOCK", str(tmp_path / "engine.lock"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CLAIMS_MODEL", "CLAIMS_RESPONSE_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    return cache


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers", {})
    for name in list(headers):
        if name.lower() in SECRET_HEADERS:
            del headers[name]
    return response


@pytest.fixture(scope="module")
def vcr_cassette_dir(request: pytest.FixtureRequest) -> str:
    """One folder per test module under cassettes/, one cassette per test."""
    return str(CASSETTES / request.module.__name__.split(".")[-1])


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    return {
        "filter_headers": SECRET_HEADERS,
        "before_record_response": _scrub_response,
        "match_on": ["method", "path", "body"],
        "decode_compressed_response": True,
    }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _default_sigint() -> None:  # pragma: no cover - runs in the child
    """A job started from a non-interactive shell inherits SIGINT ignored; a user's terminal does not."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_claims(args: list[str], env: dict[str, str]) -> "subprocess.Popen[str]":
    """The ``claims`` command in a subprocess, from the repository, output captured, with
    Ctrl-C (SIGINT) handled as in a terminal whatever the test runner inherited."""
    return subprocess.Popen([sys.executable, "-m", "paper_claims.cli", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_default_sigint)


def kill_when(process: "subprocess.Popen[Any]", ready: Callable[[], bool], timeout: float = 60.0,
              every: float = 0.005) -> None:
    """SIGKILL ``process`` as soon as ``ready()`` holds (asked ``every`` seconds) and reap it;
    AssertionError, with its stderr, if it ends first or ``timeout`` passes."""
    import signal
    import time

    deadline = time.monotonic() + timeout
    try:
        while not ready():
            if process.poll() is not None:
                error = process.stderr.read() if process.stderr else ""
                raise AssertionError(f"the run ended before the kill: {error[-2000:] if error else ''}")
            assert time.monotonic() < deadline, f"not ready to kill in {timeout:.0f} s"
            time.sleep(every)
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(30) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


def engine_lock_info(env: dict[str, str]) -> dict[str, Any]:
    """What the holder of the engine lock at ``CLAIMS_ENGINE_LOCK`` wrote about itself."""
    try:
        return json.loads(Path(env["CLAIMS_ENGINE_LOCK"]).read_text() or "{}")
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def small_tmpfs(path: Path, options: str = "size=300k") -> Iterator[Path]:
    """A tmpfs mounted at ``path`` (a small or read-only file system) while in use; the test is
    skipped where mounting is not permitted (not root, no ``mount``, a container without the right)."""
    path.mkdir(parents=True, exist_ok=True)
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode(errors='replace').strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def grow_tmpfs(path: Path) -> None:
    """Free space on a ``small_tmpfs``: remount it at 16 MB."""
    subprocess.run(["mount", "-o", "remount,size=16m", str(path)], check=True)
