"""The embedded llama.cpp server process: one per machine, self-tested, watched (and when it dies,
how it ended and what to do), always stopped; its command line, and ``serve_model`` (``claims
serve``) to run it in the foreground."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional, Union

from paper_claims.engines.build import rebuild_command
from paper_claims.engines.lock import EngineLock
from paper_claims.engines.modelfile import resolve_model
from paper_claims.errors import BackendError, EngineCrashed
from paper_claims.settings import Settings
from paper_claims.text import Say, to_stderr

SELF_TEST_MIN_TOKENS = 512
_SELF_TEST_FILLER = (
    "This paragraph only checks that the local model server can read a long prompt before any "
    "document is sent to it. Matrix multiplications over long prompts take a different code path "
    "in the engine than short ones, and an engine built for instructions that this processor does "
    "not allow fails only there. "
)


def describe_exit(returncode: int) -> str:
    """'exited with status 1' or 'killed by signal SIGILL (illegal instruction)'."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        sig = signal.Signals(-returncode)
    except ValueError:
        return f"killed by signal {-returncode}"
    meaning = signal.strsignal(sig) or ""
    return f"killed by signal {sig.name} ({meaning.lower()})" if meaning else f"killed by signal {sig.name}"


def log_tail(path: Optional[Path], lines: int = 3, width: int = 400) -> str:
    """The last non-empty lines of a log file as one line ('' when there is none)."""
    if path is None or not path.is_file():
        return ""
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 8192))
        text = handle.read().decode("utf-8", errors="replace")
    tail = [" ".join(line.split()) for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(tail)[-width:]


def crash_message(what: str, returncode: Optional[int], log_path: Optional[Path]) -> str:
    """One line: what failed, how the process ended, its log tail and path, what to do."""
    parts = [what]
    if returncode is not None:
        parts[0] += f": the server {describe_exit(returncode)}"
    tail = log_tail(log_path)
    if tail:
        parts.append(f"last log lines: {tail}")
    if log_path is not None:
        parts.append(f"log: {log_path}")
    if returncode in (-signal.SIGILL, -signal.SIGBUS, -signal.SIGSEGV):
        parts.append("llama.cpp was probably built for instructions this CPU does not allow; "
                     f"rebuild it portably: {rebuild_command()}")
    elif returncode == -signal.SIGKILL:
        parts.append("something killed it (the kernel's out-of-memory killer says so in dmesg); "
                     "rerun the same command to resume")
    else:
        parts.append("to see the server's own output, run it in the foreground with: claims serve")
    return "; ".join(parts)


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to kill this child process outright if the toolkit dies (even by kill -9)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class EmbeddedServer:
    """A llama.cpp server on 127.0.0.1: started once for a run, self-tested, watched, stopped.

    ``command`` is the server's command line (see ``server_command``); ``port`` must be the
    port that command listens on. ``system_prompt`` is the system message every request will
    share: the self-test sends it, so the server's prefix cache is warm for the first document.
    """

    def __init__(self, command: list[str], port: int, *, system_prompt: str, log_dir: Optional[Path] = None,
                 say: Say = to_stderr, startup_timeout: float = 300.0, self_test_timeout: float = 300.0,
                 lock: Optional[EngineLock] = None, role: str = "claims extract") -> None:
        self.command = command
        self.port = port
        self.system_prompt = system_prompt
        self.lock = lock if lock is not None else EngineLock(say=say)
        self.role = role
        self.log_dir = log_dir
        self.say = say
        self.startup_timeout = startup_timeout
        self.self_test_timeout = self_test_timeout
        self.log_path: Optional[Path] = None
        self.process: Optional[subprocess.Popen[bytes]] = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, self_test: bool = True) -> None:
        """Take the machine's engine lock, start the server, wait for it and self-test it."""
        self.lock.acquire(self.role)
        log: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self.log_path = self.log_dir / f"server-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
            log = self.log_path.open("wb")
        self.say(f"Starting the embedded model server on 127.0.0.1:{self.port}"
                 + (f" (log: {self.log_path})" if self.log_path else "") + " ...")
        try:
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches us, and we stop it at once
                preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
            )
        finally:
            if log is not subprocess.DEVNULL:
                log.close()
        self.lock.describe(server_pid=self.process.pid, port=self.port)
        self._wait_ready()
        if self_test:
            self.self_test()
        self.say("Embedded model server ready.")

    def crashed(self) -> Optional[EngineCrashed]:
        """None while the server runs; else the error that says how it ended."""
        process = self.process
        if process is None or process.poll() is None:
            return None
        return EngineCrashed(crash_message("the embedded model server stopped during the run",
                                           process.returncode, self.log_path))

    def _wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise EngineCrashed(crash_message("the embedded model server failed to start",
                                                  self.process.returncode, self.log_path))
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise BackendError(crash_message(f"the embedded model server did not answer within "
                                         f"{self.startup_timeout:.0f} s", None, self.log_path))

    def self_test_messages(self) -> list[dict[str, str]]:
        """A prompt of at least 512 tokens whose system message is the one every request shares,
        so the server's prefix cache is warm for the first document."""
        system = self.system_prompt
        filler = _SELF_TEST_FILLER * max(1, (SELF_TEST_MIN_TOKENS * 4 - len(system)) // len(_SELF_TEST_FILLER) + 2)
        return [{"role": "system", "content": system},
                {"role": "user", "content": filler + "\nAnswer with the single word OK."}]

    def self_test(self) -> int:
        """One short completion over a long prompt; returns its prompt tokens.

        Raises ``EngineCrashed`` (with the log tail and the rebuild command) if the server
        dies or fails on it.
        """
        import httpx

        assert self.process is not None
        body = {"messages": self.self_test_messages(), "max_tokens": 1, "temperature": 0.0}
        try:
            response = httpx.post(f"{self.base_url}/chat/completions", json=body, timeout=self.self_test_timeout)
            response.raise_for_status()
            usage = response.json().get("usage") or {}
            return int(usage.get("prompt_tokens") or 0)
        except (httpx.HTTPError, ValueError) as e:
            time.sleep(0.5)  # let a crashing process finish dying, so its status is known
            code = self.process.poll()
            what = f"the embedded model server failed its self-test (a {SELF_TEST_MIN_TOKENS}-token prompt)"
            if code is None:
                what += f": {type(e).__name__}: {' '.join(str(e).split())[:200]}"
            raise EngineCrashed(crash_message(what, code, self.log_path)) from e

    def stop(self) -> None:
        """Stop the server within a couple of seconds, even mid-generation, and free the lock."""
        process, self.process = self.process, None
        try:
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=2)
                except subprocess.TimeoutExpired:  # uvicorn waits for the generation in flight
                    process.kill()
                    process.wait()
        finally:
            self.lock.release()

    def __enter__(self) -> "EmbeddedServer":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(model_file: Path, port: int, alias: str, n_threads: Optional[int], host: str = "127.0.0.1") -> list[str]:
    """The llama-cpp-python server command line; BackendError if the engine is not installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise BackendError(
            "the embedded model needs llama-cpp-python[server]: make install-local in a clone of paper-claims "
            "(or name a remote endpoint with --base-url / OPENAI_BASE_URL)"
        )
    threads = n_threads or os.cpu_count() or 2
    return [
        sys.executable, "-m", "paper_claims.engines.llama_server",  # llama_cpp.server, faster greedy grammar
        "--model", str(model_file),
        "--model_alias", alias,
        "--host", host,
        "--port", str(port),
        "--n_ctx", "4096",
        "--n_batch", "512",
        "--n_threads", str(threads),
        "--n_threads_batch", str(threads),
        # the server's default (True) computes and copies logits for every prompt token;
        # greedy sampling reads only the last, and no request here asks for logprobs
        "--logits_all", "False",
    ]


def serve_model(*, model: Optional[str] = None, model_path: Optional[str] = None,
                cache_dir: Optional[Union[str, Path]] = None,
                host: str = "127.0.0.1", port: int = 8080, say: Say = to_stderr) -> int:
    """Run the embedded model server in the foreground until interrupted (``claims serve``).

    ``model`` is the name it answers to (default the embedded model's), ``model_path`` a .gguf
    file or Hugging Face repo id instead of the embedded model, ``cache_dir`` where the model
    file is assembled (default ``CLAIMS_CACHE_DIR`` or the user cache). It holds the machine's
    engine lock, so extraction runs wait for it (and say how to use it) instead of starting a
    competing server. Returns the server's exit status (130 after Ctrl-C).
    """
    settings = Settings.from_env(model=model, model_path=model_path, cache_dir=cache_dir)
    model_file = resolve_model(settings.model_path, settings.resolved_cache_dir, say=say)
    command = server_command(model_file, port, settings.model_name, settings.n_threads, host)
    lock = EngineLock(say=say)
    lock.acquire("claims serve")
    lock.describe(port=port)
    say(f"Serving {model_file.name} as '{settings.model_name}' on http://{host}:{port}/v1 (Ctrl-C stops)")
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130
    finally:
        lock.release()
