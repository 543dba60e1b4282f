"""What a researcher has, as Documents: paths and folders, raw abstract strings, Document
objects, records (dicts with an id and a text or abstract), and pandas DataFrames."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from paper_claims.errors import InputError
from paper_claims.sources.files import _dedupe, _record_document, load_documents
from paper_claims.schemas import Document

Source = Union[str, Path, Document, dict, Any]
_FILE_SUFFIXES = (".txt", ".jsonl", ".json", ".csv", ".tsv")


def _looks_like_path(text: str) -> bool:
    """A short string without spaces that names a file or folder (existing or not)."""
    if "\n" in text or len(text) > 4096:
        return False
    if Path(text).expanduser().exists():
        return True
    return " " not in text.strip() and (text.lower().endswith(_FILE_SUFFIXES) or os.sep in text)


def _is_dataframe(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "to_dict")


def _frame_records(frame: Any, text_column: Optional[str], id_column: Optional[str]) -> list[dict[str, Any]]:
    """The DataFrame's rows as records with ``id`` and ``text`` (columns chosen or found)."""
    columns = [str(c) for c in frame.columns]
    text = text_column or next((c for c in ("text", "abstract", "summary") if c in columns), None)
    if text is None or text not in columns:
        raise InputError(f"the DataFrame has no text column {text_column or '(text, abstract or summary)'}; "
                         f"its columns are {', '.join(columns)}: pass text_column=...")
    if id_column is not None and id_column not in columns:
        raise InputError(f"the DataFrame has no column {id_column!r}; its columns are {', '.join(columns)}")
    ids = frame[id_column].tolist() if id_column else (
        frame["id"].tolist() if "id" in columns else [str(i) for i in frame.index])
    records = []
    for doc_id, row in zip(ids, frame.to_dict(orient="records")):
        record = {k: v for k, v in row.items() if k in ("title", "authors")}
        records.append({**record, "id": str(doc_id), "text": row[text]})
    return records


def to_documents(sources: Union[Source, Iterable[Source]], *, text_column: Optional[str] = None,
                 id_column: Optional[str] = None) -> list[Document]:
    """Documents from any mix of inputs, with unique ids.

    A string is a path when it names an existing file or folder (or looks like one: no spaces,
    a known suffix or a separator), else the text of an abstract (id ``text#N``). Records and
    DataFrame rows take ``id`` and ``text``/``abstract``; a DataFrame's columns can be chosen.
    """
    if isinstance(sources, (str, Path, Document, dict)) or _is_dataframe(sources):
        sources = [sources]
    documents: list[Document] = []
    for index, item in enumerate(sources):
        if isinstance(item, Document):
            documents.append(item)
        elif isinstance(item, Path) or (isinstance(item, str) and _looks_like_path(item)):
            documents.extend(load_documents([item]))
        elif isinstance(item, str):
            documents.append(_record_document({"text": item}, f"text#{index}", "text", f"item {index}"))
        elif isinstance(item, dict):
            documents.append(_record_document(item, f"record#{index}", "records", f"record {index}"))
        elif _is_dataframe(item):
            for row, record in enumerate(_frame_records(item, text_column, id_column)):
                documents.append(_record_document(record, f"row#{row}", "DataFrame", f"row {row}"))
        else:
            raise InputError(f"cannot read a {type(item).__name__} as documents (give paths, abstract strings, "
                             "Document objects, dicts with id and text, or a pandas DataFrame)")
    return _dedupe(documents)
