"""The machine's engine lock: one embedded server per machine, held with flock."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Optional

from paper_claims.text import Say, to_stderr


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
        return _holder_info(self._handle.read())

    def holder(self) -> str:
        """Who holds the lock, as the holder described itself."""
        try:
            info = _holder_info(self.path.read_text(encoding="utf-8"))
        except OSError:
            info = {}
        if "pid" not in info:
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


def _holder_info(text: str) -> dict[str, Any]:
    """The holder's description written in the lock file: a JSON object, else nothing."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        value = {}
    return value if isinstance(value, dict) else {}
