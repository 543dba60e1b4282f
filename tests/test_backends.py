"""paper_claims.model.backends: response formats, endpoint identity, the embedded server's lifecycle."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from paper_claims.model import backends
from paper_claims.model.backends import (
    EMBEDDED_API_KEY,
    Backend,
    endpoint_identity,
    free_port,
    open_backend,
    server_command,
)
from paper_claims.engines.embedded import EmbeddedServer, EngineLock
from paper_claims.errors import BackendError
from paper_claims.engines.modelfile import MODEL_SHA256
from paper_claims.model.answer import labels_schema
from paper_claims.settings import Settings

SECRET = "sk-test-backends-0123456789abcdef"


def quiet(_message: str) -> None:
    pass


def test_response_format_grammar_style() -> None:
    schema = labels_schema(2)
    backend = Backend(base_url="http://127.0.0.1:1/v1", model="m", endpoint_id="e", grammar_schema=True)
    assert backend.response_format(schema) == {"type": "json_object", "schema": schema}


def test_response_format_json_schema_style() -> None:
    schema = labels_schema(2)
    backend = Backend(base_url="http://127.0.0.1:1/v1", model="m", endpoint_id="e", grammar_schema=False)
    assert backend.response_format(schema) == {
        "type": "json_schema", "json_schema": {"name": "labels", "schema": schema},
    }


def test_backend_repr_hides_api_key() -> None:
    backend = Backend(base_url="http://x/v1", model="m", endpoint_id="e", grammar_schema=False, api_key=SECRET)
    assert SECRET not in repr(backend)


def test_endpoint_identity_remote_strips_trailing_slash_and_never_has_key() -> None:
    settings = Settings(base_url="http://127.0.0.1:8000/v1/", api_key=SECRET)
    assert endpoint_identity(settings) == "http://127.0.0.1:8000/v1"
    assert SECRET not in endpoint_identity(settings)
    assert endpoint_identity(Settings(base_url="http://127.0.0.1:8000/v1")) == "http://127.0.0.1:8000/v1"


def test_endpoint_identity_openai_model_uses_openai_url() -> None:
    identity = endpoint_identity(Settings(model="gpt-4o", api_key=SECRET))
    assert identity == "https://api.openai.com/v1"
    assert SECRET not in identity


def test_open_backend_refuses_an_openai_model_without_a_key() -> None:
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        with open_backend(Settings(model="gpt-4o"), say=quiet):
            pytest.fail("must not open")


def test_endpoint_identity_embedded_default_uses_the_model_sha() -> None:
    identity = endpoint_identity(Settings())
    assert identity == f"embedded:{MODEL_SHA256}"


def test_endpoint_identity_embedded_custom_file_uses_name_and_size(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"x" * 123)
    assert endpoint_identity(Settings(model_path=str(model))) == "embedded:tiny.gguf:123"
    model.write_bytes(b"x" * 124)
    assert endpoint_identity(Settings(model_path=str(model))) == "embedded:tiny.gguf:124"


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
    real = backends.importlib.util.find_spec
    monkeypatch.setattr(backends.importlib.util, "find_spec",
                        lambda name, *a: object() if name == "llama_cpp" else real(name, *a))


def test_server_command_without_the_engine_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(backends.importlib.util, "find_spec", lambda name, *a: None)
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
    monkeypatch.setattr(backends.os, "cpu_count", lambda: 6)
    command = server_command(tmp_path / "m.gguf", 1, "a", None, host="0.0.0.0")
    assert command[command.index("--n_threads") + 1] == "6"
    assert command[command.index("--host") + 1] == "0.0.0.0"


def test_open_backend_remote_yields_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(base_url="http://127.0.0.1:9/v1/", api_key=SECRET, model="my-model")
    with open_backend(settings, say=quiet) as backend:
        assert backend.base_url == "http://127.0.0.1:9/v1"
        assert backend.model == "my-model"
        assert backend.endpoint_id == "http://127.0.0.1:9/v1"
        assert backend.api_key == SECRET
        assert backend.grammar_schema is False
        assert backend.response_format({})["type"] == "json_schema"


def test_open_backend_remote_grammar_style_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_RESPONSE_FORMAT", "grammar")
    with open_backend(Settings(base_url="http://127.0.0.1:9/v1"), say=quiet) as backend:
        assert backend.grammar_schema is True
        assert backend.response_format({"type": "object"}) == {"type": "json_object", "schema": {"type": "object"}}
        assert backend.api_key == EMBEDDED_API_KEY  # a keyless local server still gets a placeholder


def _server(tmp_path: Path, code: str, **kwargs: Any) -> EmbeddedServer:
    return EmbeddedServer([sys.executable, "-c", code], free_port(), say=quiet,
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
    server.process = backends.subprocess.Popen(server.command)
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
