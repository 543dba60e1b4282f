"""ClaimTable: the claim rows and document rows of a run, and their exports (atomic writes)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from paper_claims.errors import MissingExtra
from paper_claims.outputs.files import atomic_write_text, output_mode, remove_leftovers, temporary_file, writing
from paper_claims.run.folders import OutputLock
from paper_claims.schemas import DocumentResult, Qualifier, SchemaInfo, Status, builtin_schema
from paper_claims.schemas.columns import (
    BOOLEAN, CLAIM_COLUMN_TYPES, CLAIM_COLUMNS, DOCUMENT_COLUMNS, INTEGER, REAL, TEXT, arrow_schema, document_schema,
)
from paper_claims.text import json_line, jsonl_text

if TYPE_CHECKING:
    from paper_claims.run.runner import RunStats

PathLike = Union[str, Path]
SCHEMA_FILE = "schema.json"  # written beside the claims for a schema of your own


def ordered(rows: list[dict[str, Any]], columns: list[str]) -> list[dict[str, Any]]:
    """Claim rows with exactly ``columns``, in that order (a custom schema's rows are built
    field by field; the built-in rows already are)."""
    if columns == CLAIM_COLUMNS:
        return rows
    return [{name: row.get(name) for name in columns} for row in rows]


def needs(module: str, what: str, extra: str = "pandas") -> Any:
    """The module ``module``, or ``MissingExtra`` saying that ``what`` needs it and the extra that
    brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        raise MissingExtra(f"{what} needs {package}: pip install -e '.[{extra}]' in your clone of paper-claims "
                           f"(or pip install {package})") from None


def read_manifest(out_dir: PathLike) -> Optional[dict[str, Any]]:
    """The claim schema an output folder was written with (``schema.json``), or None for the
    built-in schema."""
    path = Path(out_dir) / SCHEMA_FILE
    if not path.exists():
        return None
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return manifest


class TableWriter:
    """Writes ``claims.csv``, ``claims.jsonl`` and ``documents.jsonl`` (and with ``parquet``,
    ``claims.parquet`` and ``documents.parquet``) one document at a time, into temporary files
    renamed into place on ``close``: memory stays flat, and a reader never sees half a file."""

    PARQUET_ROWS = 2000  # rows buffered per Parquet row group
    NAMES = ("claims.csv", "claims.jsonl", "documents.jsonl", "claims.parquet", "documents.parquet")

    def __init__(self, out_dir: PathLike, *, parquet: bool = False, schema: Optional[SchemaInfo] = None) -> None:
        self.out = Path(out_dir)
        schema = schema or builtin_schema()
        self.types = schema.column_types()
        self.columns = list(self.types)
        self._manifest = schema.manifest()
        self._files: dict[str, tuple[Any, str]] = {}
        self._parquet: Optional[_ParquetParts] = None
        with writing(self.out):
            self.out.mkdir(parents=True, exist_ok=True)
            remove_leftovers(self.out, self.NAMES)  # left by a killed run
        try:
            for name in ("claims.csv", "claims.jsonl", "documents.jsonl"):
                with writing(self.out / name):
                    fd, tmp = temporary_file(self.out, name)
                    self._files[name] = (os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp)
            self._csv = csv.DictWriter(self._files["claims.csv"][0], fieldnames=self.columns, lineterminator="\n")
            with writing(self.out / "claims.csv"):
                self._csv.writeheader()
            self._parquet = _ParquetParts(self.out, self.types) if parquet else None
        except BaseException:
            self.abort()
            raise

    def add(self, result: DocumentResult) -> None:
        """Write one document's rows; ``StorageError`` naming the file when that fails."""
        claims = ordered(result.claim_rows(), self.columns)
        with writing(self.out / "claims.csv"):
            self._csv.writerows(claims)
        with writing(self.out / "claims.jsonl"):
            self._files["claims.jsonl"][0].write(jsonl_text(claims))
        document = result.document_row()
        with writing(self.out / "documents.jsonl"):
            self._files["documents.jsonl"][0].write(json_line(document))
        if self._parquet is not None:
            self._parquet.add(claims, document)

    def close(self) -> None:
        """Put every file in place (a second call does nothing): all are written out first,
        then renamed, so a full disk leaves the earlier files, not a mix. When one cannot be
        written (``StorageError``), every temporary file is removed."""
        try:
            for name, (handle, tmp) in self._files.items():
                with writing(self.out / name):
                    handle.flush()
                    os.fsync(handle.fileno())
                    os.chmod(tmp, output_mode())  # mkstemp makes 0600; outputs get the usual mode
            if self._parquet is not None:
                self._parquet.write_out()
            for name, (handle, tmp) in list(self._files.items()):
                with writing(self.out / name):
                    os.replace(tmp, self.out / name)
                handle.close()  # after the rename: its lock kept the temporary file ours
                del self._files[name]
            if self._parquet is not None:
                self._parquet.put_in_place()
                self._parquet = None
            if self._manifest is not None:  # a custom schema's kinds and fields, for report, review and eval
                with writing(self.out / SCHEMA_FILE):
                    atomic_write_text(self.out / SCHEMA_FILE,
                                      json.dumps(self._manifest, indent=2, ensure_ascii=False) + "\n")
                self._manifest = None
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Give up: close and remove every temporary file (a run that cannot finish its tables)."""
        files, self._files = self._files, {}
        for handle, tmp in files.values():
            with contextlib.suppress(OSError):  # a full disk fails the flush of close too
                handle.close()
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        parquet, self._parquet = self._parquet, None
        if parquet is not None:
            parquet.abort()


class _ParquetParts:
    """``claims.parquet`` and ``documents.parquet`` written a row group at a time, with the
    Arrow schemas of the Ray runner's output."""

    def __init__(self, out: Path, claim_types: dict[str, str] = CLAIM_COLUMN_TYPES) -> None:
        import pyarrow.parquet as pq

        self.schemas = {"claims.parquet": arrow_schema(claim_types), "documents.parquet": document_schema()}
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in self.schemas}
        self.final = {name: out / name for name in self.schemas}
        self.tmp: dict[str, str] = {}
        self.held: dict[str, int] = {}  # the locked descriptor of each temporary file
        self.writers: dict[str, Any] = {}
        try:
            for name, schema in self.schemas.items():
                with writing(self.final[name]):
                    self.held[name], self.tmp[name] = temporary_file(out, name)
                    self.writers[name] = pq.ParquetWriter(self.tmp[name], schema)
        except BaseException:
            self.abort()
            raise

    def add(self, claims: list[dict[str, Any]], document: dict[str, Any]) -> None:
        self.rows["claims.parquet"].extend(claims)
        self.rows["documents.parquet"].append(document)
        for name, rows in self.rows.items():
            if len(rows) >= TableWriter.PARQUET_ROWS:
                self._flush(name)

    def _flush(self, name: str) -> None:
        import pyarrow as pa

        if self.rows[name]:
            with writing(self.final[name]):
                self.writers[name].write_table(pa.Table.from_pylist(self.rows[name], schema=self.schemas[name]))
            self.rows[name] = []

    def write_out(self) -> None:
        """Write the last rows and close the files (still temporary)."""
        for name, writer in list(self.writers.items()):
            self._flush(name)
            with writing(self.final[name]):
                writer.close()
                os.chmod(self.tmp[name], output_mode())
            del self.writers[name]

    def put_in_place(self) -> None:
        for name in list(self.held):
            with writing(self.final[name]):
                os.replace(self.tmp[name], self.final[name])
            os.close(self.held.pop(name))

    def abort(self) -> None:
        for writer in self.writers.values():
            with contextlib.suppress(Exception):  # pyarrow raises its own OSError subclasses
                writer.close()
        self.writers = {}
        for name, fd in self.held.items():
            with contextlib.suppress(OSError):
                os.unlink(self.tmp[name])
            os.close(fd)
        self.held = {}


class ClaimTable:
    """The result of an extraction: one row per claim, one record per document."""

    def __init__(self, documents: list[DocumentResult], stats: Optional["RunStats"] = None,
                 schema: Optional[SchemaInfo] = None) -> None:
        self.documents = documents
        self.stats = stats  # what the run did (calls, cache hits, tokens, wall time), when known
        self.schema = schema or builtin_schema()  # the claim schema
        self.types = self.schema.column_types()
        self.columns = list(self.types)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One dict per claim, with the ``claims.csv`` columns."""
        return ordered([row for doc in self.documents for row in doc.claim_rows()], self.columns)

    @property
    def document_rows(self) -> list[dict[str, Any]]:
        return [doc.document_row() for doc in self.documents]

    @property
    def errors(self) -> list[DocumentResult]:
        return [doc for doc in self.documents if doc.status == Status.error]

    def __len__(self) -> int:
        return sum(doc.n_claims for doc in self.documents)

    def __repr__(self) -> str:
        return f"ClaimTable({len(self.documents)} documents, {len(self)} claims, {len(self.errors)} errors)"

    def claims_df(self) -> Any:
        """The claims as a pandas DataFrame: kind and qualifier categorical, numbers as numbers,
        offsets as nullable integers, text as strings (needs pandas)."""
        pd = needs("pandas", "claims_df")

        frame = pd.DataFrame(self.rows, columns=self.columns)
        dtypes = {REAL: "float64", INTEGER: "Int64", TEXT: "string", BOOLEAN: "boolean"}
        for column, kind in self.types.items():
            frame[column] = frame[column].astype(dtypes[kind])
        frame["kind"] = pd.Categorical(frame["kind"], categories=list(self.schema.kind.values))
        frame["qualifier"] = pd.Categorical(frame["qualifier"], categories=[q.value for q in Qualifier])
        return frame

    def documents_df(self) -> Any:
        """One row per document: lists (datasets, hardware, models) as lists, status categorical,
        counts as integers (needs pandas)."""
        pd = needs("pandas", "documents_df")

        frame = pd.DataFrame(self.document_rows, columns=DOCUMENT_COLUMNS)
        frame["status"] = pd.Categorical(frame["status"], categories=[s.value for s in Status])
        for column in ("n_claims", "attempts", "dropped"):
            frame[column] = frame[column].astype("int64")
        frame["year"] = frame["year"].astype("Int64")
        for column in ("doc_id", "source", "title", "doi", "system", "error", "text"):
            frame[column] = frame[column].astype("string")
        return frame

    def to_pandas(self) -> Any:
        """The claims as a pandas DataFrame (``claims_df``)."""
        return self.claims_df()

    def to_parquet(self, out_dir: PathLike) -> list[Path]:
        """Write ``claims.parquet`` and ``documents.parquet`` into ``out_dir`` (needs pyarrow),
        with the same Arrow schemas as the Ray runner's files."""
        pa = needs("pyarrow", "to_parquet")
        pq = needs("pyarrow.parquet", "to_parquet")

        out = Path(out_dir)
        written = []
        with OutputLock(out):  # no run writes there meanwhile (OutputBusy names it)
            for name, rows, schema in (("claims.parquet", self.rows, arrow_schema(self.types)),
                                       ("documents.parquet", self.document_rows, document_schema())):
                with writing(out / name):
                    fd, tmp = temporary_file(out, name)
                    try:
                        pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
                        os.chmod(tmp, output_mode())  # mkstemp makes 0600; outputs get the usual mode
                        os.replace(tmp, out / name)  # before the descriptor closes: its lock marks it as owned
                    finally:
                        os.close(fd)
                        if os.path.exists(tmp):
                            os.unlink(tmp)
                written.append(out / name)
        return written

    def to_sqlite(self, path: PathLike) -> Path:
        """Write the documents and claims into the SQLite file ``path`` (as ``claims.db``)."""
        from paper_claims.outputs.sqlite import SqliteWriter

        with OutputLock(Path(path).parent):
            writer = SqliteWriter(path, claim_types=self.types)
            for document in self.documents:
                writer.add(document)
            writer.close()
        return Path(path)

    def _repr_html_(self) -> str:
        """A compact summary and the first claims with their evidence highlighted (notebooks)."""
        from paper_claims.outputs.table_html import table_html

        return table_html(self.documents, self.rows, n_claims=len(self), n_errors=len(self.errors))

    def to_csv(self, path: PathLike) -> Path:
        with OutputLock(Path(path).parent):
            return self._csv(path)

    def _csv(self, path: PathLike) -> Path:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        return atomic_write_text(path, buffer.getvalue())

    def to_jsonl(self, path: PathLike) -> Path:
        with OutputLock(Path(path).parent):
            return atomic_write_text(path, jsonl_text(self.rows))

    def documents_to_jsonl(self, path: PathLike) -> Path:
        with OutputLock(Path(path).parent):
            return atomic_write_text(path, jsonl_text(self.document_rows))

    def write(self, out_dir: PathLike) -> list[Path]:
        """Write ``claims.csv``, ``claims.jsonl`` and ``documents.jsonl`` into ``out_dir``.

        Every export holds the lock of the folder it writes to, as a run does: into a folder a
        run is writing to, it raises ``OutputBusy`` naming that run."""
        out = Path(out_dir)
        with OutputLock(out):
            return [
                self._csv(out / "claims.csv"),
                atomic_write_text(out / "claims.jsonl", jsonl_text(self.rows)),
                atomic_write_text(out / "documents.jsonl", jsonl_text(self.document_rows)),
            ]
