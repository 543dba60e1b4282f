"""The column contract: the columns of the claim rows and the document rows, in order, with
their types. CSV, JSONL, Parquet (Arrow), SQLite, pandas and the Ray runner all derive their
columns from here; ``DocumentResult.claim_rows`` and ``document_row`` build the rows.

Types are named, not imported: ``text``, ``real``, ``integer`` and ``list`` (a list of text),
so the contract needs neither pyarrow nor sqlite; ``arrow_schema`` and ``sqlite_types`` map
them when asked.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from paper_claims.text import sentence_around

TEXT, REAL, INTEGER, TEXT_LIST, BOOLEAN = "text", "real", "integer", "list", "boolean"  # boolean: a custom schema's

# claims.csv / claims.jsonl / claims.parquet / the claims table: one row per claim
CLAIM_COLUMN_TYPES: dict[str, str] = {
    "doc_id": TEXT,
    "kind": TEXT,
    "value": REAL,
    "value_high": REAL,
    "unit": TEXT,
    "qualifier": TEXT,
    "metric": TEXT,
    "dataset": TEXT,
    "hardware": TEXT,
    "hardware_canonical": TEXT,
    "model": TEXT,
    "baseline": TEXT,
    "evidence": TEXT,
    "start": INTEGER,
    "end": INTEGER,
    "confidence": REAL,  # the calibrated probability that every field of the claim is right
    "kind_confidence": REAL,  # the probability of each decision: the kind, and each attribute's value (or none)
    "dataset_confidence": REAL,
    "hardware_confidence": REAL,
    "model_confidence": REAL,
    "baseline_confidence": REAL,
}
# every claim row ends with the sentence its evidence stands in, and where that stands in the text
SENTENCE_COLUMN_TYPES: dict[str, str] = {"sentence": TEXT, "sentence_start": INTEGER, "sentence_end": INTEGER}
CLAIM_COLUMN_TYPES.update(SENTENCE_COLUMN_TYPES)

# documents.jsonl / documents.parquet / the documents table: one row per input document
DOCUMENT_COLUMN_TYPES: dict[str, str] = {
    "doc_id": TEXT,
    "source": TEXT,
    "title": TEXT,
    "doi": TEXT,
    "year": INTEGER,
    "system": TEXT,
    "datasets": TEXT_LIST,
    "hardware": TEXT_LIST,
    "models": TEXT_LIST,
    "n_claims": INTEGER,
    "status": TEXT,
    "error": TEXT,
    "attempts": INTEGER,
    "dropped": INTEGER,
    "text": TEXT,
}

CLAIM_COLUMNS: list[str] = list(CLAIM_COLUMN_TYPES)
DOCUMENT_COLUMNS: list[str] = list(DOCUMENT_COLUMN_TYPES)
SENTENCE_COLUMNS: list[str] = list(SENTENCE_COLUMN_TYPES)


def sentence_columns(text: Optional[str], start: Any, end: Any,
                     spans: Optional[Sequence[tuple[int, int]]] = None) -> dict[str, Any]:
    """The sentence columns of a claim whose evidence is ``text[start:end]`` (the sentence of
    ``text.sentence_spans`` it starts in, to its end at least; ``spans``: the text's sentences,
    split once for all its claims); empty without the text."""
    if not text or not isinstance(start, int) or not isinstance(end, int):
        return dict.fromkeys(SENTENCE_COLUMNS)
    left, right = sentence_around(text, start, end, spans)
    return {"sentence": text[left:right], "sentence_start": left, "sentence_end": right}


def arrow_type(kind: str) -> Any:
    """The Arrow type of a contract type (needs pyarrow)."""
    import pyarrow as pa

    return {TEXT: pa.string(), REAL: pa.float64(), INTEGER: pa.int64(), TEXT_LIST: pa.list_(pa.string()),
            BOOLEAN: pa.bool_()}[kind]


def arrow_schema(types: dict[str, str]) -> Any:
    """An Arrow schema of the columns (needs pyarrow)."""
    import pyarrow as pa

    return pa.schema([pa.field(name, arrow_type(kind)) for name, kind in types.items()])


def claim_schema() -> Any:
    """The Arrow schema of the claim rows."""
    return arrow_schema(CLAIM_COLUMN_TYPES)


def document_schema() -> Any:
    """The Arrow schema of the document rows."""
    return arrow_schema(DOCUMENT_COLUMN_TYPES)


def sqlite_types(types: dict[str, str]) -> dict[str, type]:
    """The column types for sqlite-utils (a list is stored as JSON text)."""
    return {name: {TEXT: str, REAL: float, INTEGER: int, TEXT_LIST: str, BOOLEAN: int}[kind] for name, kind in types.items()}
