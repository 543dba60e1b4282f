"""The answer cache: diskcache keyed on a hash of everything that changes an answer."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any, Iterator, Optional

from paper_claims.errors import StorageError


# SQLite's page cache and memory map are diskcache's largest memory use (32 MB and 64 MB by
# default, filled as the cache file grows): kept small, a run's memory does not grow with
# the number of documents it has cached
SQLITE_SETTINGS = {"sqlite_cache_size": 2**10, "sqlite_mmap_size": 2**22}


class AnswerCache:
    """Raw model answers (label JSON) by cache key, in a diskcache directory.

    A cache that cannot be opened, read or written (a full disk, a read-only folder) raises
    ``StorageError`` naming its folder: a run stops rather than lose what it answered.
    """

    def __init__(self, directory: Path, enabled: bool = True) -> None:
        self.directory = directory
        self.enabled = enabled
        self._cache: Optional[Any] = None

    def _open(self) -> Any:
        if self._cache is None:
            import diskcache

            with self._io("opening"):
                self.directory.mkdir(parents=True, exist_ok=True)
                self._cache = diskcache.Cache(str(self.directory / "answers"), **SQLITE_SETTINGS)
        return self._cache

    @contextlib.contextmanager
    def _io(self, doing: str) -> Iterator[None]:
        try:
            yield
        except (OSError, sqlite3.Error) as e:  # SQLite: "database or disk is full", "readonly database"
            raise StorageError.of(e, self.directory / "answers", doing, what="the answer cache") from e

    def get(self, key: str) -> Optional[dict[str, Any]]:
        if not self.enabled:
            return None
        cache = self._open()
        with self._io("reading"):
            return cache.get(key)

    def set(self, key: str, value: dict[str, Any]) -> None:
        if self.enabled:
            cache = self._open()
            with self._io("writing"):
                cache.set(key, value)

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def __enter__(self) -> "AnswerCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
