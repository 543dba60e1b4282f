"""paper_claims.engines.embedded and engines.lock: the server's command line, its life cycle
(start, a failed start, stop) and the machine's engine lock, with stand-in processes."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from paper_claims.engines import embedded
from paper_claims.engines.embedded import EmbeddedServer, free_port, server_command
from paper_claims.engines.lock import EngineLock
from paper_claims.errors import BackendError


def quiet(_message: str) -> None:
    pass


def test_free_port_is_bindable() -> None:
    port = free_port()
    assert 0 < port < 65536
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(1)


@pytest.fixture
def engine_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """server_command checks that llama_cpp is importable; pretend it is."""
    real = embedded.importlib.util.find_spec
    monkeypatch.setattr(embedded.importlib.util, "find_spec",
                        lambda name, *a: object() if name == "llama_cpp" else real(name, *a))


def test_server_command_without_the_engine_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(embedded.importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(BackendError, match=r"llama-cpp-python\[server\].*make install-local"):
        server_command(tmp_path / "m.gguf", 1, "a", None)


def test_server_command_line(tmp_path: Path, engine_installed: None) -> None:
    model = tmp_path / "m.gguf"
    command = server_command(model, 12345, "alias-x", 3)
    assert command[:3] == [sys.executable, "-m", "paper_claims.engines.llama_server"]

    def value(flag: str) -> str:
        return command[command.index(flag) + 1]

    assert value("--model") == str(model)
    assert value("--port") == "12345"
    assert value("--host") == "127.0.0.1"
    assert value("--model_alias") == "alias-x"
    assert value("--n_threads") == "3"
    assert value("--n_threads_batch") == "3"
    assert value("--logits_all") == "False"  # logits for the last token only (greedy, no logprobs)
    assert all(isinstance(part, str) for part in command)


def test_server_command_default_threads_and_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine_installed: None) -> None:
    monkeypatch.setattr(embedded.os, "cpu_count", lambda: 6)
    command = server_command(tmp_path / "m.gguf", 1, "a", None, host="0.0.0.0")
    assert command[command.index("--n_threads") + 1] == "6"
    assert command[command.index("--host") + 1] == "0.0.0.0"


def _server(tmp_path: Path, code: str, **kwargs: Any) -> EmbeddedServer:
    return EmbeddedServer([sys.executable, "-c", code], free_port(), system_prompt="You label numbers.", say=quiet,
                          lock=EngineLock(tmp_path / "engine.lock", say=quiet), **kwargs)


def test_embedded_server_exiting_at_once_raises_backend_error(tmp_path: Path) -> None:
    server = _server(tmp_path, "print('no model here'); import sys; sys.exit(3)", log_dir=tmp_path / "logs",
                     startup_timeout=20.0)
    with pytest.raises(BackendError, match=r"failed to start: the server exited with status 3") as caught:
        server.start()
    assert server.log_path is not None and server.log_path.is_file()
    assert f"log: {server.log_path}" in str(caught.value) and "no model here" in str(caught.value)
    server.stop()
    server.stop()  # idempotent
    assert server.process is None


def test_embedded_server_context_manager_stops_on_failure(tmp_path: Path) -> None:
    server = _server(tmp_path, "import sys; sys.exit(4)", startup_timeout=20.0)
    with pytest.raises(BackendError, match="status 4"):
        with server:
            pytest.fail("must not get here")
    assert server.process is None
    lock = EngineLock(tmp_path / "engine.lock", say=quiet)
    lock.acquire("check")  # the failed start released the machine's engine lock
    lock.release()


def test_embedded_server_stop_terminates_a_running_process(tmp_path: Path) -> None:
    """A server that never answers is stopped at the startup timeout."""
    server = _server(tmp_path, "import time; time.sleep(60)", startup_timeout=1.0)
    with pytest.raises(BackendError, match="did not answer"):
        with server:
            pass
    assert server.process is None  # stopped and forgotten


def test_stop_kills_a_server_that_ignores_sigterm(tmp_path: Path) -> None:
    server = _server(tmp_path, "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)")
    server.lock.acquire("test")
    server.process = embedded.subprocess.Popen(server.command)
    process = server.process
    time.sleep(0.3)
    started = time.monotonic()
    server.stop()
    assert process.poll() is not None and time.monotonic() - started < 4


def test_engine_lock_second_holder_waits_and_says_for_whom(tmp_path: Path) -> None:
    messages: list[str] = []
    first = EngineLock(tmp_path / "engine.lock", say=quiet)
    first.acquire("claims serve")
    first.describe(port=8123)
    second = EngineLock(tmp_path / "engine.lock", say=messages.append, poll=0.05)
    timer = threading.Timer(0.5, first.release)
    timer.start()
    started = time.monotonic()
    second.acquire("claims extract")
    assert time.monotonic() - started >= 0.4
    second.release()
    assert "waiting for it to finish" in messages[0] and f"pid {os.getpid()}" in messages[0]
    assert "--base-url http://127.0.0.1:8123/v1" in messages[0]


def test_stop_before_start_is_a_no_op(tmp_path: Path) -> None:
    server = _server(tmp_path, "pass")
    server.stop()
    assert server.process is None


def test_the_self_test_opens_with_the_shared_system_prompt_and_is_long_enough(tmp_path: Path) -> None:
    messages = _server(tmp_path, "pass").self_test_messages()
    assert messages[0] == {"role": "system", "content": "You label numbers."}
    assert len(messages[1]["content"]) >= embedded.SELF_TEST_MIN_TOKENS * 4  # about four characters a token
