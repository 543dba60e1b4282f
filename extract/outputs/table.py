"""ClaimTable: the claim rows and document rows of a run, and their exports (atomic writes)."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from paper_claims.schemas import Claim, DocumentResult, Kind, Qualifier, SchemaInfo, Status
from paper_claims.text import json_line, jsonl_text

if TYPE_CHECKING:
    from paper_claims.run.runner import RunStats

CLAIM_COLUMNS = ["doc_id"] + list(Claim.model_fields)
DOCUMENT_COLUMNS = [
    "doc_id", "source", "title", "system", "datasets", "hardware", "models",
    "n_claims", "status", "error", "attempts", "dropped", "text",
]

PathLike = Union[str, Path]
SCHEMA_FILE = "schema.json"  # written beside the claims for a schema of your own


def claim_columns(schema: Optional[SchemaInfo] = None) -> list[str]:
    """The claim columns of a claim schema's outputs (``CLAIM_COLUMNS`` for the built-in one)."""
    return CLAIM_COLUMNS if schema is None or schema.builtin else schema.columns()


def ordered(rows: list[dict[str, Any]], columns: list[str]) -> list[dict[str, Any]]:
    """Claim rows with exactly ``columns``, in that order (a custom schema's rows are built
    field by field; the built-in rows already are)."""
    if columns is CLAIM_COLUMNS:
        return rows
    return [{name: row.get(name) for name in columns} for row in rows]


def atomic_write_text(path: PathLike, content: str) -> Path:
    """Write ``content`` to a temporary file beside ``path`` and rename it into place."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class TableWriter:
    """Writes ``claims.csv``, ``claims.jsonl`` and ``documents.jsonl`` (and with ``parquet``,
    ``claims.parquet`` and ``documents.parquet``) one document at a time, into temporary files
    renamed into place on ``close``: memory stays flat, and a reader never sees half a file."""

    PARQUET_ROWS = 2000  # rows buffered per Parquet row group

    def __init__(self, out_dir: PathLike, *, parquet: bool = False, schema: Optional[SchemaInfo] = None) -> None:
        self.out = Path(out_dir)
        self.columns = claim_columns(schema)
        self.out.mkdir(parents=True, exist_ok=True)
        for name in ("claims.csv", "claims.jsonl", "documents.jsonl", "claims.parquet", "documents.parquet"):
            for stale in self.out.glob(f".{name}.*tmp"):  # left by a killed run
                stale.unlink(missing_ok=True)
        self._files: dict[str, tuple[Any, str]] = {}
        for name in ("claims.csv", "claims.jsonl", "documents.jsonl"):
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=self.out)
            self._files[name] = (os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp)
        self._csv = csv.DictWriter(self._files["claims.csv"][0], fieldnames=self.columns, lineterminator="\n")
        self._csv.writeheader()
        self._parquet = _ParquetParts(self.out, schema) if parquet else None
        self._manifest = schema.manifest() if schema is not None and not schema.builtin else None

    def add(self, result: DocumentResult) -> None:
        claims = ordered(result.claim_rows(), self.columns)
        self._csv.writerows(claims)
        self._files["claims.jsonl"][0].write(jsonl_text(claims))
        document = result.document_row()
        self._files["documents.jsonl"][0].write(json_line(document))
        if self._parquet is not None:
            self._parquet.add(claims, document)

    def close(self) -> None:
        """Put every file in place (a second call does nothing)."""
        files, self._files = self._files, {}
        for name, (handle, tmp) in files.items():
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
            os.replace(tmp, self.out / name)
        if self._parquet is not None:
            self._parquet.close()
            self._parquet = None
        if self._manifest is not None:  # a custom schema's kinds and fields, for report, review and eval
            atomic_write_text(self.out / SCHEMA_FILE, json.dumps(self._manifest, indent=2, ensure_ascii=False) + "\n")
            self._manifest = None


def read_manifest(out_dir: PathLike) -> Optional[dict[str, Any]]:
    """The claim schema an output folder was written with (``schema.json``), or None for the
    built-in schema."""
    path = Path(out_dir) / SCHEMA_FILE
    if not path.exists():
        return None
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return manifest


class _ParquetParts:
    """``claims.parquet`` and ``documents.parquet`` written a row group at a time, with the
    Arrow schemas of the Ray engine's output."""

    def __init__(self, out: Path, schema: Optional[SchemaInfo] = None) -> None:
        import pyarrow.parquet as pq

        from paper_claims.run.ray import claim_schema, document_schema

        self.schemas = {"claims.parquet": claim_schema(schema), "documents.parquet": document_schema()}
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in self.schemas}
        self.tmp = {name: str(out / f".{name}.tmp") for name in self.schemas}
        self.final = {name: out / name for name in self.schemas}
        self.writers = {name: pq.ParquetWriter(self.tmp[name], schema) for name, schema in self.schemas.items()}

    def add(self, claims: list[dict[str, Any]], document: dict[str, Any]) -> None:
        self.rows["claims.parquet"].extend(claims)
        self.rows["documents.parquet"].append(document)
        for name, rows in self.rows.items():
            if len(rows) >= TableWriter.PARQUET_ROWS:
                self._flush(name)

    def _flush(self, name: str) -> None:
        import pyarrow as pa

        if self.rows[name]:
            self.writers[name].write_table(pa.Table.from_pylist(self.rows[name], schema=self.schemas[name]))
            self.rows[name] = []

    def close(self) -> None:
        for name, writer in self.writers.items():
            self._flush(name)
            writer.close()
            os.replace(self.tmp[name], self.final[name])


class ClaimTable:
    """The result of an extraction: one row per claim, one record per document."""

    def __init__(self, documents: list[DocumentResult], stats: Optional["RunStats"] = None,
                 schema: Optional[SchemaInfo] = None) -> None:
        self.documents = documents
        self.stats = stats  # what the run did (calls, cache hits, tokens, wall time), when known
        self.schema = schema  # the claim schema (None: the built-in one)
        self.columns = claim_columns(schema)

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
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=self.columns)
        kinds = [k.value for k in Kind] if self.schema is None or self.schema.builtin else list(self.schema.kind.values)
        frame["kind"] = pd.Categorical(frame["kind"], categories=kinds)
        frame["qualifier"] = pd.Categorical(frame["qualifier"], categories=[q.value for q in Qualifier])
        for column in ("value", "value_high"):
            frame[column] = frame[column].astype("float64")
        for column in [c for c in self.columns if c in ("start", "end") or c.endswith(("_start", "_end"))]:
            frame[column] = frame[column].astype("Int64")
        for column in [c for c in self.columns if frame[c].dtype == object]:
            frame[column] = frame[column].astype("string")
        return frame

    def documents_df(self) -> Any:
        """One row per document: lists (datasets, hardware, models) as lists, status categorical,
        counts as integers (needs pandas)."""
        import pandas as pd

        frame = pd.DataFrame(self.document_rows, columns=DOCUMENT_COLUMNS)
        frame["status"] = pd.Categorical(frame["status"], categories=[s.value for s in Status])
        for column in ("n_claims", "attempts", "dropped"):
            frame[column] = frame[column].astype("int64")
        for column in ("doc_id", "source", "title", "system", "error", "text"):
            frame[column] = frame[column].astype("string")
        return frame

    def to_pandas(self) -> Any:
        """The claims as a pandas DataFrame (``claims_df``)."""
        return self.claims_df()

    def to_parquet(self, out_dir: PathLike) -> list[Path]:
        """Write ``claims.parquet`` and ``documents.parquet`` into ``out_dir`` (needs pyarrow),
        with the same Arrow schemas as the Ray engine's files."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from paper_claims.run.ray import claim_schema, document_schema  # Ray itself is not needed

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, rows, schema in (("claims.parquet", self.rows, claim_schema(self.schema)),
                                   ("documents.parquet", self.document_rows, document_schema())):
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
            os.close(fd)
            try:
                pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
                os.replace(tmp, out / name)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            written.append(out / name)
        return written

    def _repr_html_(self) -> str:
        """A compact summary and the first claims with their evidence highlighted (notebooks)."""
        from paper_claims.outputs.table_html import table_html

        return table_html(self)

    def to_csv(self, path: PathLike) -> Path:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        return atomic_write_text(path, buffer.getvalue())

    def to_jsonl(self, path: PathLike) -> Path:
        return atomic_write_text(path, jsonl_text(self.rows))

    def documents_to_jsonl(self, path: PathLike) -> Path:
        return atomic_write_text(path, jsonl_text(self.document_rows))

    def write(self, out_dir: PathLike) -> list[Path]:
        """Write ``claims.csv``, ``claims.jsonl`` and ``documents.jsonl`` into ``out_dir``."""
        out = Path(out_dir)
        return [
            self.to_csv(out / "claims.csv"),
            self.to_jsonl(out / "claims.jsonl"),
            self.documents_to_jsonl(out / "documents.jsonl"),
        ]
