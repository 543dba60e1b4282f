"""The resume journal: finished documents appended and flushed one line at a time."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Optional

from paper_claims.errors import StorageError
from paper_claims.schemas import DocumentResult

JOURNAL_NAME = ".claims-journal.jsonl"


class Journal:
    """Append-only record of finished documents in an output directory.

    A line holds the document's cache key and its result; a rerun reuses a result only
    when the key (settings, prompt and text) is unchanged. A torn last line from a
    killed run (or a full disk) is ignored. A file that cannot be read or written raises
    ``StorageError`` naming it.
    """

    def __init__(self, out_dir: Path) -> None:
        self.path = Path(out_dir) / JOURNAL_NAME
        self._handle: Optional[object] = None
        self._reader: Optional[BinaryIO] = None
        self._lock = threading.Lock()  # the runner appends from its parsing thread and its event loop

    def load(self) -> dict[str, tuple[str, DocumentResult]]:
        """doc_id -> (key, result) of every complete line (last one wins)."""
        return {doc_id: (key, self.read_at(offset)) for doc_id, (key, offset) in self.index(ok_only=False).items()}

    def index(self, ok_only: bool = True) -> dict[str, tuple[str, int]]:
        """doc_id -> (key, byte offset) of the last complete line of each finished document (with
        ``ok_only``, of each that finished ok): what a rerun needs, without the results in memory."""
        entries: dict[str, tuple[str, int]] = {}
        if not self.path.is_file():
            return entries
        with self._io("reading"), self.path.open("rb") as handle:
            offset = 0
            for line in handle:
                try:
                    record = json.loads(line)
                    result = record["result"]
                    doc_id, ok = str(result["doc_id"]), result.get("status") == "ok"
                except (ValueError, KeyError, TypeError):
                    doc_id, ok = "", False
                if doc_id:
                    if ok or not ok_only:
                        entries[doc_id] = (str(record.get("key")), offset)
                    else:
                        entries.pop(doc_id, None)
                offset += len(line)
        return entries

    def read_at(self, offset: int) -> DocumentResult:
        """The result of the journal line at ``offset`` (from ``index``)."""
        with self._lock, self._io("reading"):
            if self._reader is None:
                self._reader = self.path.open("rb")
            self._reader.seek(offset)
            line = self._reader.readline()
        return DocumentResult.model_validate(json.loads(line)["result"])

    def append(self, key: str, result: DocumentResult) -> None:
        """Write one finished document and hand it to the OS before returning.

        A flushed line survives the process being killed (even by SIGKILL); the file is
        fsynced on close, for power loss.
        """
        self._write({"key": key, "result": result.model_dump(mode="json")})

    def note(self, kind: str, record: dict[str, Any], durable: bool = False) -> None:
        """Write a record that is no document's result (``{kind: record}``: a batch's steps,
        issue 41), flushed as ``append`` does (``durable``: also fsynced); ``index`` skips it."""
        self._write({kind: record}, durable)

    def notes(self, kind: str) -> Iterator[dict[str, Any]]:
        """The records of ``kind``, in the order they were written (a torn line is skipped)."""
        if not self.path.is_file():
            return
        with self._io("reading"), self.path.open("rb") as handle:
            for line in handle:
                if line.startswith(b'{"' + kind.encode() + b'"'):
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        yield dict(json.loads(line)[kind])

    def _write(self, record: dict[str, Any], durable: bool = False) -> None:
        with self._lock:
            try:
                self._append(record, durable)
            except OSError as e:  # the line may be torn: drop the handle, a rerun ignores the fragment
                self._drop_handle()
                raise StorageError.of(e, self.path) from e

    @contextlib.contextmanager
    def _io(self, doing: str) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            raise StorageError.of(e, self.path, doing) from e

    def _drop_handle(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):  # its buffer cannot be written either
                handle.close()  # type: ignore[attr-defined]

    def _append(self, record: dict[str, Any], durable: bool) -> None:
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torn = self.path.is_file() and self.path.stat().st_size > 0 and not self._ends_with_newline()
            self._handle = self.path.open("a", encoding="utf-8")
            if torn:  # a killed run left half a line: end it so the next line stands alone
                self._handle.write("\n")
        line = json.dumps(record, ensure_ascii=False)
        handle = self._handle
        handle.write(line + "\n")  # type: ignore[attr-defined]
        handle.flush()  # type: ignore[attr-defined]
        if durable:
            os.fsync(handle.fileno())  # type: ignore[attr-defined]

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"

    def close(self) -> None:
        """Close the files; ``StorageError`` if the last lines cannot be written."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._handle is not None:
            try:
                with self._io("writing"):
                    os.fsync(self._handle.fileno())  # type: ignore[attr-defined]
                    self._handle.close()  # type: ignore[attr-defined]
            finally:
                self._drop_handle()
