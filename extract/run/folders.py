"""The folders a run writes, checked before it starts: the output folder (made if missing,
one run at a time, ``OutputLock``) and the cache directory (made if missing, written once)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Optional

from paper_claims.errors import OutputBusy, StorageError, os_cause
from paper_claims.text import Say, to_stderr

LOCK_NAME = ".claims.lock"


def writable_folder(path: Path, what: str) -> Path:
    """Make ``path`` a folder (with its parents) and write a byte in it, or raise a
    ``StorageError`` saying why not: a file in the way, a path that cannot be created, a
    read-only or full file system. ``what`` names the folder in the message."""
    if path.exists() and not path.is_dir():
        raise StorageError(f"{what} {path} is a file, not a folder", path=path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StorageError(f"cannot create {what} {path}: {os_cause(e)}", path=path, errno=e.errno) from e
    probe = path / f".claims-probe.{os.getpid()}.{time.monotonic_ns()}"
    try:
        with open(probe, "wb") as handle:
            handle.write(b"\n")
    except OSError as e:
        raise StorageError(f"cannot write to {what} {path}: {os_cause(e)}", path=path, errno=e.errno) from e
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return path


class OutputLock:
    """One run per output folder.

    ``OUT/.claims.lock`` holds an exclusive lock (``flock``) for as long as a run writes
    there, and says who holds it (pid, host, start time, command). A second run fails at once
    with ``OutputBusy`` naming the first, or with ``wait`` waits for it (saying so once; at
    most ``timeout`` seconds when given). The file is removed when the run ends; the operating
    system releases the lock when its process dies (even by kill -9), so the next run takes
    the folder over. Exports and the review log take it too, for the moment they write.
    """

    def __init__(self, folder: Path, *, wait: bool = False, say: Say = to_stderr, poll: float = 0.2,
                 timeout: Optional[float] = None) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.wait = wait
        self.timeout = timeout
        self.say = say
        self.poll = poll
        self._fd: Optional[int] = None

    def acquire(self) -> None:
        import fcntl

        writable_folder(self.folder, "the output folder")
        told = False
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise StorageError.of(e, self.path) from e
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                holder = self.holder()
                if not self.wait or (deadline is not None and time.monotonic() >= deadline):
                    raise OutputBusy(f"another run is writing to {self.folder} ({holder}); let it finish, "
                                     "or rerun with --wait (wait=True) to start when it ends") from None
                if not told:
                    self.say(f"Another run is writing to {self.folder} ({holder}); waiting for it to end ...")
                    told = True
                time.sleep(self.poll)
                continue
            if not self._still_at_path(fd):  # its holder removed it as we opened it: open the new one
                os.close(fd)
                continue
            self._fd = fd
            break
        try:
            self._describe()
        except OSError as e:
            self.release()
            raise StorageError.of(e, self.path) from e
        if told:
            self.say(f"The other run has ended; writing to {self.folder}.")

    def _still_at_path(self, fd: int) -> bool:
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)

    def _describe(self) -> None:
        assert self._fd is not None
        info = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                "command": " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))[:200]}
        data = json.dumps(info).encode("utf-8")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def holder(self) -> str:
        """Who holds the lock, as it described itself."""
        info: Any
        try:
            info = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            info = {}
        if not isinstance(info, dict) or "pid" not in info:
            return "pid unknown: it is just starting"
        text = f"pid {info['pid']}"
        if info.get("host") and info["host"] != socket.gethostname():
            text += f" on {info['host']}"
        text += f", started {info.get('started', '?')}"
        if info.get("command"):
            text += f": {info['command']}"
        return text

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):  # removed first: a waiting run opens a new file
                self.path.unlink()
            os.close(fd)  # closing the file releases the lock

    def __enter__(self) -> "OutputLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
