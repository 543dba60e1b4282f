"""What a researcher has, as Documents: paths and folders, raw abstract strings, Document
objects, records (dicts with an id and a text or abstract), and pandas DataFrames.

A bad record in a file becomes an error row (the rest of the file is extracted); a bad value
handed over in memory (an empty string, a record without text) is a mistake in the call and
raises ``InputError`` naming it, before anything is sent to a model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Union

from paper_claims.errors import InputError
from paper_claims.schemas import Document
from paper_claims.sources.files import dedupe, iter_files
from paper_claims.sources.records import as_conditions, record_document

Source = Union[str, Path, Document, dict, Any]
_FILE_SUFFIXES = (".txt", ".jsonl", ".json", ".csv", ".tsv")
_WHAT = "give paths, abstract strings, Document objects, dicts with id and text, or a pandas DataFrame"


def _a(value: Any) -> str:
    """What a value is, for a message: "None", "an int", "a float"."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _looks_like_path(text: str) -> bool:
    """A short string without spaces that names a file or folder (existing or not)."""
    if "\n" in text or len(text) > 4096:
        return False
    try:
        if Path(text).expanduser().exists():
            return True
    except OSError:  # a name too long to be a file's ("File name too long"): an abstract
        return False
    return " " not in text.strip() and (text.lower().endswith(_FILE_SUFFIXES) or os.sep in text)


def _is_dataframe(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "to_dict")


def _missing(value: Any) -> bool:
    """None, NaN or pandas' NA: an empty cell."""
    try:
        return value is None or bool(value != value)
    except (TypeError, ValueError):  # pandas.NA cannot be compared to a bool
        return True


def _frame_records(frame: Any, text_column: Optional[str], id_column: Optional[str]) -> tuple[list[dict[str, Any]], str]:
    """The DataFrame's rows as records with ``id`` and ``text`` (columns chosen or found), and
    the text column."""
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
        record = {k: v for k, v in row.items() if k in ("title", "authors", "doi", "year") and not _missing(v)}
        records.append({**record, "id": str(doc_id), "text": None if _missing(row[text]) else row[text]})
    return records, text


def iter_inputs(sources: Union[Source, Iterable[Source]], *, text_column: Optional[str] = None,
                id_column: Optional[str] = None, format: Optional[str] = None,
                where: Union[str, Iterable[str]] = (), keep_latex: bool = False) -> Iterator[Document]:
    """Documents from any mix of inputs, read lazily, with unique ids.

    A string is a path when it names an existing file or folder (or looks like one: no spaces,
    a known suffix or a separator), else the text of an abstract (id ``text#N``); an empty or
    blank string is an InputError. Records and DataFrame rows take ``id`` and
    ``text``/``abstract`` (one without text is an InputError naming it); a DataFrame's columns
    can be chosen. Files are read in their format (``format`` names it for all), keeping the
    records that meet every ``where`` condition, the fields a format writes in LaTeX as text
    unless ``keep_latex`` (abstracts handed over in memory are taken as they are). Paths are
    checked before the first document is read.
    """
    if sources is None:
        raise InputError(f"no sources (None): {_WHAT}")
    if isinstance(sources, (str, Path, Document, dict)) or _is_dataframe(sources):
        sources = [sources]
    if isinstance(sources, (bytes, bytearray)) or not hasattr(sources, "__iter__"):
        raise InputError(f"cannot read {_a(sources)} as documents: {_WHAT}")
    items = list(sources) if isinstance(sources, (list, tuple)) else sources
    options = (text_column, id_column, format, as_conditions(where), keep_latex)
    if isinstance(items, list):  # check every path (and DataFrame columns) now, not mid-run
        pieces = [_documents_of(index, item, *options) for index, item in enumerate(items)]
        return dedupe(doc for piece in pieces for doc in piece)
    return dedupe(doc for index, item in enumerate(items) for doc in _documents_of(index, item, *options))


def _in_memory(doc: Document, what: str) -> Document:
    """The document of a value handed over in memory; InputError when it has no text."""
    if doc.error and not doc.error.startswith("text too long"):
        reason = doc.error.split(": ", 1)[-1]
        raise InputError(f"{what} has {reason}" if reason.startswith("no ") else f"{what}: {reason}")
    return doc


def _documents_of(index: int, item: Any, text_column: Optional[str], id_column: Optional[str],
                  format: Optional[str], where: tuple[str, ...], keep_latex: bool) -> Iterable[Document]:
    if isinstance(item, Document):
        return [item]
    if isinstance(item, str) and not item.strip():
        raise InputError(f"item {index} is an empty string: give the text of an abstract or the path of a file "
                         "or folder (an empty string is neither)")
    if isinstance(item, Path) or (isinstance(item, str) and _looks_like_path(item)):
        return iter_files([item], format=format, where=where, keep_latex=keep_latex)
    if isinstance(item, str):
        return [record_document({"text": item}, f"text#{index}", "text", f"item {index}")]
    if isinstance(item, dict):
        doc = record_document(item, f"record#{index}", "records", f"record {index}")
        given = item.get("id", item.get("doc_id"))
        return [_in_memory(doc, f"record {index}" + (f" (id {given!r})" if given is not None else ""))]
    if _is_dataframe(item):
        records, column = _frame_records(item, text_column, id_column)
        docs = []
        for row, record in enumerate(records):
            doc = record_document(record, f"row#{row}", "DataFrame", f"row {row}")
            if doc.error and not doc.error.startswith("text too long"):
                reason = "no text" if record["text"] is None else doc.error.split(": ", 1)[-1]
                raise InputError(f"DataFrame row {row} (id {record['id']!r}): {reason} in column {column!r}; "
                                 f"drop such rows first, e.g. df.dropna(subset=[{column!r}])")
            docs.append(doc)
        return docs
    raise InputError(f"item {index} is {_a(item)}: {_WHAT}")
