"""The embedded llama.cpp server process: one per machine, self-tested, watched, always stopped."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Optional

from paper_claims.errors import BackendError, EngineCrashed
from paper_claims.text import Say, to_stderr


#: The instruction set the install step builds llama.cpp for when no CMAKE_ARGS are given
#: (``scripts/install_engine.sh`` holds the same string; a test keeps them equal).
PORTABLE_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
SELF_TEST_MIN_TOKENS = 512
_SELF_TEST_FILLER = (
    "This paragraph only checks that the local model server can read a long prompt before any "
    "document is sent to it. Matrix multiplications over long prompts take a different code path "
    "in the engine than short ones, and an engine built for instructions that this processor does "
    "not allow fails only there. "
)



def engine_version() -> Optional[str]:
    """The installed llama-cpp-python version, or None when the engine is not installed."""
    from importlib import metadata

    try:
        return metadata.version("llama_cpp_python")
    except metadata.PackageNotFoundError:
        return None


def rebuild_command() -> str:
    """The exact command that reinstalls the engine built for the portable instruction set."""
    version = engine_version()
    spec = f"llama-cpp-python[server]=={version}" if version else "llama-cpp-python[server]"
    return (f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" {sys.executable} -m pip install '
            f'--force-reinstall --no-cache-dir --no-deps "{spec}"')


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


def engine_lock_path() -> Path:
    """The machine-wide lock that keeps to one embedded server (``CLAIMS_ENGINE_LOCK`` overrides)."""
    env = os.environ.get("CLAIMS_ENGINE_LOCK")
    if env:
        return Path(env).expanduser()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"paper-claims-{uid}" / "embedded-engine.lock"


class EngineLock:
    """An exclusive lock on the machine's embedded engine; a second holder waits, saying so.

    The holder writes who it is into the lock file, so the one waiting can say for whom.
    The operating system releases the lock when the holder dies, even by SIGKILL.
    """

    def __init__(self, path: Optional[Path] = None, say: Say = to_stderr, poll: float = 0.5) -> None:
        self.path = path or engine_lock_path()
        self.say = say
        self.poll = poll
        self._handle: Optional[IO[str]] = None

    def acquire(self, role: str) -> None:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        told = False
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told:
                    self.say(f"Another paper-claims process ({self.holder()}) is using the embedded model on this "
                             "machine; waiting for it to finish (two servers would starve each other of CPU) ...")
                    told = True
                try:
                    time.sleep(self.poll)
                except BaseException:
                    handle.close()
                    raise
        self._handle = handle
        self.describe(role=role, pid=os.getpid(), since=time.strftime("%H:%M:%S"))
        if told:
            self.say("The embedded model is free now.")

    def describe(self, **info: Any) -> None:
        """Record who holds the lock (and, once known, the server's port)."""
        if self._handle is None:
            return
        current = self._read_handle()
        current.update(info)
        self._handle.seek(0)
        self._handle.truncate()
        self._handle.write(json.dumps(current))
        self._handle.flush()

    def _read_handle(self) -> dict[str, Any]:
        assert self._handle is not None
        self._handle.seek(0)
        try:
            value = json.loads(self._handle.read() or "{}")
        except ValueError:
            value = {}
        return value if isinstance(value, dict) else {}

    def holder(self) -> str:
        """Who holds the lock, as the holder described itself."""
        try:
            info = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            info = {}
        if not isinstance(info, dict) or "pid" not in info:
            return "unknown pid"
        text = f"{info.get('role', 'a run')}, pid {info['pid']}, since {info.get('since', '?')}"
        if info.get("role") == "claims serve" and info.get("port"):
            text += (f"; to use it instead: --base-url http://127.0.0.1:{info['port']}/v1 "
                     "with CLAIMS_RESPONSE_FORMAT=grammar")
        return text

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.seek(0)
                handle.truncate()
            handle.close()  # closing the file releases the flock


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to kill this child process outright if the toolkit dies (even by kill -9)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class EmbeddedServer:
    """A llama.cpp server on 127.0.0.1: started once for a run, self-tested, watched, stopped.

    ``command`` is the server's command line (see ``backends.server_command``); ``port``
    must be the port that command listens on.
    """

    def __init__(self, command: list[str], port: int, *, log_dir: Optional[Path] = None, say: Say = to_stderr,
                 startup_timeout: float = 300.0, self_test_timeout: float = 300.0,
                 lock: Optional[EngineLock] = None, role: str = "claims extract") -> None:
        self.command = command
        self.port = port
        self.log_dir = log_dir
        self.say = say
        self.startup_timeout = startup_timeout
        self.self_test_timeout = self_test_timeout
        self.lock = lock if lock is not None else EngineLock(say=say)
        self.role = role
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
        from paper_claims.model.prompt_files import load_prompt

        system = load_prompt()
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
