"""ClaimTable: the claim rows and document rows of a run, and their exports (atomic writes)."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Union

from schemas import Claim, DocumentResult, Status

CLAIM_COLUMNS = ["doc_id"] + list(Claim.model_fields)
DOCUMENT_COLUMNS = [
    "doc_id", "source", "title", "system", "datasets", "hardware", "models",
    "n_claims", "status", "error", "attempts", "dropped", "text",
]

PathLike = Union[str, Path]


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


def _jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


class ClaimTable:
    """The result of an extraction: one row per claim, one record per document."""

    def __init__(self, documents: list[DocumentResult]) -> None:
        self.documents = documents

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One dict per claim, with the ``claims.csv`` columns."""
        return [row for doc in self.documents for row in doc.claim_rows()]

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

    def to_pandas(self) -> Any:
        """The claim rows as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=CLAIM_COLUMNS)

    def to_csv(self, path: PathLike) -> Path:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CLAIM_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        return atomic_write_text(path, buffer.getvalue())

    def to_jsonl(self, path: PathLike) -> Path:
        return atomic_write_text(path, _jsonl(self.rows))

    def documents_to_jsonl(self, path: PathLike) -> Path:
        return atomic_write_text(path, _jsonl(self.document_rows))

    def write(self, out_dir: PathLike) -> list[Path]:
        """Write ``claims.csv``, ``claims.jsonl`` and ``documents.jsonl`` into ``out_dir``."""
        out = Path(out_dir)
        return [
            self.to_csv(out / "claims.csv"),
            self.to_jsonl(out / "claims.jsonl"),
            self.documents_to_jsonl(out / "documents.jsonl"),
        ]
