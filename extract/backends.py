"""One boundary for model backends: the embedded llama.cpp server or any OpenAI-compatible URL."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from extract.errors import BackendError
from extract.modelfile import MODEL_SHA256, resolve_model
from extract.settings import Settings

Say = Callable[[str], None]
EMBEDDED_API_KEY = "embedded-no-key"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Backend:
    """A reachable OpenAI-compatible endpoint and how to ask it for structured output."""

    base_url: str
    model: str
    endpoint_id: str
    grammar_schema: bool
    api_key: str = field(default="", repr=False)

    def response_format(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The ``response_format`` that constrains the answer to ``schema``."""
        if self.grammar_schema:  # llama.cpp server: a grammar from the schema
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "labels", "schema": schema}}


def endpoint_identity(settings: Settings) -> str:
    """What identifies the answering endpoint in cache keys, known before it starts."""
    if not settings.embedded:
        return (settings.base_url or "https://api.openai.com/v1").rstrip("/")
    if settings.model_path:
        path = Path(settings.model_path).expanduser()
        size = path.stat().st_size if path.is_file() else 0
        return f"embedded:{path.name}:{size}"
    return f"embedded:{MODEL_SHA256}"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to stop the server if the toolkit dies (even by kill -9)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def server_command(model_file: Path, port: int, alias: str, n_threads: Optional[int], host: str = "127.0.0.1") -> list[str]:
    """The llama-cpp-python server command line."""
    threads = n_threads or os.cpu_count() or 2
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_file),
        "--model_alias", alias,
        "--host", host,
        "--port", str(port),
        "--n_ctx", "4096",
        "--n_batch", "512",
        "--n_threads", str(threads),
        "--n_threads_batch", str(threads),
    ]


class EmbeddedServer:
    """A llama.cpp server on 127.0.0.1, started once for a batch and always stopped."""

    def __init__(self, model_file: Path, alias: str, *, n_threads: Optional[int] = None,
                 log_dir: Optional[Path] = None, say: Say = _stderr, startup_timeout: float = 300.0) -> None:
        self.model_file = model_file
        self.alias = alias
        self.n_threads = n_threads
        self.log_dir = log_dir
        self.say = say
        self.startup_timeout = startup_timeout
        self.port = 0
        self.process: Optional[subprocess.Popen[bytes]] = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        try:
            import llama_cpp.server  # noqa: F401
        except ImportError as e:
            raise BackendError(
                "the embedded model needs llama-cpp-python[server]: pip install 'paper-claims[local]' "
                "(or set OPENAI_BASE_URL / OPENAI_API_KEY to use a remote endpoint)"
            ) from e
        self.port = free_port()
        log = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log = (self.log_dir / f"server-{self.port}.log").open("wb")  # type: ignore[assignment]
        self.say(f"Starting the embedded model server (llama.cpp, {self.model_file.name}) on 127.0.0.1:{self.port} ...")
        self.process = subprocess.Popen(
            server_command(self.model_file, self.port, self.alias, self.n_threads),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        self._wait_ready()
        self.say("Embedded model server ready.")

    def _wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise BackendError(f"the embedded model server exited with code {self.process.returncode} while starting")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise BackendError(f"the embedded model server did not answer within {self.startup_timeout:.0f} s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> "EmbeddedServer":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def open_backend(settings: Settings, say: Say = _stderr) -> Iterator[Backend]:
    """Yield a ready backend: the configured endpoint, or the embedded server for the run."""
    if not settings.embedded:
        yield Backend(
            base_url=(settings.base_url or "https://api.openai.com/v1").rstrip("/"),
            model=settings.model_name,
            endpoint_id=endpoint_identity(settings),
            grammar_schema=os.environ.get("CLAIMS_RESPONSE_FORMAT", "json_schema") == "grammar",
            api_key=settings.api_key or EMBEDDED_API_KEY,
        )
        return
    cache_dir = settings.resolved_cache_dir
    model_file = resolve_model(settings.model_path, cache_dir, say=say)
    with EmbeddedServer(model_file, settings.model_name, n_threads=settings.n_threads,
                        log_dir=cache_dir / "logs", say=say) as server:
        yield Backend(
            base_url=server.base_url,
            model=settings.model_name,
            endpoint_id=endpoint_identity(settings),
            grammar_schema=True,
            api_key=EMBEDDED_API_KEY,
        )


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8080, say: Say = _stderr) -> int:
    """Run the embedded model server in the foreground until interrupted."""
    model_file = resolve_model(settings.model_path, settings.resolved_cache_dir, say=say)
    say(f"Serving {model_file.name} as '{settings.model_name}' on http://{host}:{port}/v1 (Ctrl-C stops)")
    try:
        return subprocess.call(server_command(model_file, port, settings.model_name, settings.n_threads, host))
    except KeyboardInterrupt:
        return 130
