"""``claims.db``: the run's documents and claims in one SQLite file, for queries over a claim
table too large for a spreadsheet. It opens in Datasette as it is.

Tables ``documents`` (primary key ``doc_id``) and ``claims`` (``doc_id`` a foreign key to
``documents``), with the columns and types of the column contract (lists as JSON text);
indexes on the claims' kind, dataset, hardware and model; full-text search (FTS5) over the
claims' evidence and sentences (``claims_fts``) and the documents' titles and abstracts
(``documents_fts``).
Built with sqlite-utils into a temporary file beside the target, a batch of documents per
transaction (memory stays flat), indexed at the end and renamed into place: a reader never
sees half a database, and a rerun (which hands on every resumed document again) writes each
row once.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any, Union

from paper_claims.outputs.files import output_mode, remove_leftovers, temporary_file, writing
from paper_claims.schemas import DocumentResult
from paper_claims.schemas.columns import CLAIM_COLUMN_TYPES, DOCUMENT_COLUMN_TYPES, sqlite_types

DB_NAME = "claims.db"
INDEXED = ("kind", "dataset", "hardware", "model")
CLAIMS_FTS = ("evidence", "sentence")
DOCUMENTS_FTS = ("title", "text")

PathLike = Union[str, Path]


class SqliteWriter:
    """A sink of the runner: every result's document row and claim rows into ``path``."""

    BATCH = 500  # documents per transaction

    def __init__(self, path: PathLike, claim_types: dict[str, str] = CLAIM_COLUMN_TYPES) -> None:
        import sqlite_utils

        self.path = Path(path)
        self.claim_types = claim_types  # a custom claim schema's columns, or the contract's
        self._documents: list[dict[str, Any]] = []
        self._claims: list[dict[str, Any]] = []
        self._held = -1  # the temporary file's locked descriptor: no clean-up removes it while open
        self.tmp = ""
        self.db: Any = None
        self._open = True
        try:
            with writing(self.path, also=(sqlite3.Error,)):
                self.path.parent.mkdir(parents=True, exist_ok=True)
                remove_leftovers(self.path.parent, (self.path.name,))  # left by a killed run, not a live one
                self._held, self.tmp = temporary_file(self.path.parent, self.path.name)
                # the runner hands results on from its finishing threads, one at a time (under its lock)
                self.db = sqlite_utils.Database(sqlite3.connect(self.tmp, check_same_thread=False))
                self.db.execute("PRAGMA journal_mode = OFF")  # a private file, renamed into place when complete
                self.db.execute("PRAGMA synchronous = OFF")
                self.db["documents"].create(sqlite_types(DOCUMENT_COLUMN_TYPES), pk="doc_id")  # type: ignore[union-attr]
                self.db["claims"].create(sqlite_types(self.claim_types),  # type: ignore[union-attr]
                                         foreign_keys=[("doc_id", "documents", "doc_id")])
        except BaseException:
            self.abort()
            raise

    def add(self, result: DocumentResult) -> None:
        self._documents.append(result.document_row())
        self._claims.extend({name: row.get(name) for name in self.claim_types} for row in result.claim_rows())
        if len(self._documents) >= self.BATCH:
            with writing(self.path, also=(sqlite3.Error,)):
                self._flush()

    def _flush(self) -> None:
        with self.db.conn:
            if self._documents:
                self.db["documents"].insert_all(self._documents, batch_size=self.BATCH)
            if self._claims:
                self.db["claims"].insert_all(self._claims, batch_size=self.BATCH)
        self._documents, self._claims = [], []

    def close(self) -> None:
        """Index the tables, build the full-text search and put the file in place (a second
        call does nothing)."""
        if not self._open:
            return
        self._open = False
        try:
            with writing(self.path, also=(sqlite3.Error,)):
                self._finish()
        finally:
            self._discard()

    def _finish(self) -> None:
        """The last batch, indexes, full-text search, then the file in its place."""
        self._flush()
        claims = self.db["claims"]
        claims.create_index(["doc_id"])  # type: ignore[union-attr]
        for column in INDEXED:
            if column in self.claim_types:  # a custom schema may have no dataset or hardware
                claims.create_index([column])  # type: ignore[union-attr]
        claims.enable_fts(list(CLAIMS_FTS), create_triggers=True)  # type: ignore[union-attr]
        self.db["documents"].enable_fts(list(DOCUMENTS_FTS), create_triggers=True)  # type: ignore[union-attr]
        self.db.execute("ANALYZE")
        self.db.conn.commit()
        self.db.execute("PRAGMA journal_mode = DELETE")  # the usual mode for whoever opens it next
        self.db.close()
        with open(self.tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(self.tmp, output_mode())
        os.replace(self.tmp, self.path)  # before the descriptor closes: its lock marks the file as owned

    def abort(self) -> None:
        """Give up: nothing put in place, no temporary file left."""
        self._open = False
        self._discard()

    def _discard(self) -> None:
        if self.db is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
        if self.tmp and os.path.exists(self.tmp):
            os.unlink(self.tmp)
        if self._held >= 0:
            os.close(self._held)
            self._held = -1
