"""The ``claims`` command with a full disk at one writer, for tests where no small file
system can be mounted: ``python -m tests.faults WRITER LIMIT claims-args...``.

``journal``: writes to ``.claims-journal.jsonl`` fail with ``ENOSPC`` once LIMIT bytes have
been written (the write that crosses the limit writes what fits first, as a full disk does);
``tables``: the same for the temporary files of ``claims.csv``, ``claims.jsonl`` and
``documents.jsonl``; ``cache``: the answer cache's SQLite write fails ("database or disk is
full") from its LIMIT-th write on; ``db``: the same for ``claims.db``'s batch inserts (20 documents a batch). The time of the first failure is written to the file
``$FAULT_LOG``, so a test can measure how long the run took to end after it.
"""

from __future__ import annotations

import errno
import io
import os
import pathlib
import re
import sys
import time
from typing import Any

TABLES = re.compile(r"^\.(claims\.csv|claims\.jsonl|documents\.jsonl)\..*\.tmp$")
JOURNAL = re.compile(r"^\.claims-journal\.jsonl$")


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit
        self.failed = False

    def fail(self) -> OSError:
        if not self.failed:
            self.failed = True
            log = os.environ.get("FAULT_LOG")
            if log:
                with open(log, "w") as handle:
                    handle.write(repr(time.time()))
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _FullDisk:
    """A text file whose writes stop fitting once the budget is spent."""

    def __init__(self, inner: Any, budget: _Budget) -> None:
        self._inner = inner
        self._budget = budget

    def write(self, text: str) -> int:
        size = len(text.encode("utf-8"))
        if size > self._budget.left or self._budget.failed:
            room = max(0, self._budget.left)
            self._budget.left = 0
            if room:
                self._inner.write(text.encode("utf-8")[:room].decode("utf-8", "ignore"))
                self._inner.flush()
            raise self._budget.fail()
        self._budget.left -= size
        return int(self._inner.write(text))

    def __enter__(self) -> "_FullDisk":
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _name(file: Any) -> str:
    if isinstance(file, int):  # os.fdopen: the file's name from the descriptor
        try:
            return os.path.basename(os.readlink(f"/proc/self/fd/{file}"))
        except OSError:
            return ""
    return os.path.basename(os.fspath(file)) if isinstance(file, (str, bytes, os.PathLike)) else ""


def fill_files(pattern: "re.Pattern[str]", limit: int) -> None:
    """Files whose names match ``pattern``, opened for writing text, share ``limit`` bytes."""
    budget = _Budget(limit)
    real_open = io.open
    real_path_open = pathlib.Path.open

    def wrap(handle: Any, file: Any, mode: str) -> Any:
        if isinstance(handle, _FullDisk):  # Path.open calls io.open
            return handle
        if ("w" in mode or "a" in mode) and "b" not in mode and pattern.match(_name(file)):
            return _FullDisk(handle, budget)
        return handle

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        return wrap(real_open(file, mode, *args, **kwargs), file, mode)

    def fake_path_open(self: pathlib.Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        return wrap(real_path_open(self, mode, *args, **kwargs), self, mode)

    io.open = fake_open  # type: ignore[assignment]  # os.fdopen calls io.open
    pathlib.Path.open = fake_path_open  # type: ignore[method-assign]


def fill_cache(limit: int) -> None:
    """The answer cache's writes fail as SQLite fails on a full disk, from the ``limit``-th on."""
    import sqlite3

    import diskcache

    budget = _Budget(limit)
    real_set = diskcache.Cache.set

    def fake_set(self: Any, *args: Any, **kwargs: Any) -> Any:
        budget.left -= 1
        if budget.left < 0:
            budget.fail()
            raise sqlite3.OperationalError("database or disk is full")
        return real_set(self, *args, **kwargs)

    diskcache.Cache.set = fake_set  # type: ignore[method-assign]


def fill_db(limit: int) -> None:
    """``claims.db``'s batch inserts fail as SQLite fails on a full disk, from the ``limit``-th on."""
    import sqlite3

    import sqlite_utils

    budget = _Budget(limit)
    real_insert_all = sqlite_utils.db.Table.insert_all

    def fake_insert_all(self: Any, *args: Any, **kwargs: Any) -> Any:
        budget.left -= 1
        if budget.left < 0:
            budget.fail()
            raise sqlite3.OperationalError("database or disk is full")
        return real_insert_all(self, *args, **kwargs)

    sqlite_utils.db.Table.insert_all = fake_insert_all  # type: ignore[method-assign]
    from paper_claims.outputs.sqlite import SqliteWriter

    SqliteWriter.BATCH = 20  # batches written mid-run, so the disk fills while documents are still coming


def main(argv: list[str]) -> int:
    writer, limit, args = argv[0], int(argv[1]), argv[2:]
    if writer == "journal":
        fill_files(JOURNAL, limit)
    elif writer == "tables":
        fill_files(TABLES, limit)
    elif writer == "cache":
        fill_cache(limit)
    elif writer == "db":
        fill_db(limit)
    elif writer != "none":
        raise SystemExit(f"unknown writer {writer!r}")
    from paper_claims.cli import main as claims

    return claims(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
