"""CSV files: a header naming a ``text`` (or ``abstract``) column, one record a row, read lazily;
``id``, ``title``, ``authors``, ``doi`` and ``year`` columns are kept."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from paper_claims.sources.formats.base import Entry, Format
from paper_claims.sources.reading import cannot, stem_of, text_stream
from paper_claims.sources.records import TEXT_FIELDS


def csv_entries(path: Path, source: str) -> Iterator[Entry]:
    """One record per CSV row; the header must name a text (or abstract) column."""
    stem = stem_of(path)
    with text_stream(path) as stream:
        reader = csv.DictReader(stream)
        try:
            columns = {(c or "").strip().lower(): c for c in reader.fieldnames or []}
            if not any(name in columns for name in TEXT_FIELDS):
                raise cannot(source, "CSV header has no 'text' or 'abstract' column")
            for index, row in enumerate(reader):
                record = {key: row[col] for key, col in columns.items() if col is not None}
                yield Entry(f"row {index + 1}", f"{stem}#{index}", record)
        except csv.Error as exc:
            raise cannot(source, f"bad CSV ({exc})") from None


CSV = Format("csv", "CSV (a text or abstract column)", (".csv",), csv_entries)
