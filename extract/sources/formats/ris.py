"""RIS (``.ris``), the export of EndNote, Zotero, Mendeley and most databases: one document
per record (``TY`` to ``ER``) with an ``AB`` (or ``N2``) abstract; read lazily, a record at a
time, with rispy. Ids are the record's ``ID`` tag, else the file's stem and the record's index.
``--where`` names rispy's fields (``type_of_reference=JOUR``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paper_claims.sources.formats.base import Entry, Format
from paper_claims.sources.reading import stem_of, text_lines
from paper_claims.sources.records import Fields, first, person_name


def _tag(line: str) -> str:
    return line[:2] if line[2:5] == "  -" and line[:2].isupper() and line[:1].isalpha() else ""


def ris_entries(path: Path, source: str) -> Iterator[Entry]:
    """The records of a RIS file, one at a time."""
    from rispy import RisParser

    stem = stem_of(path)
    index = 0
    lines: list[str] = []
    start = 0
    for number, line in enumerate(text_lines(path), start=1):
        tag = _tag(line)
        if tag == "TY":
            if lines:  # a record without its ER
                yield Entry(f"record {index + 1} (line {start})", f"{stem}#{index}",
                            error=f"record {index + 1} (line {start}): not closed by an ER line")
                index += 1
            lines, start = [], number
        if not lines and tag != "TY":
            continue  # text between records
        lines.append(line)
        if tag == "ER":
            parsed = RisParser().parse_lines(iter(lines))
            where = f"record {index + 1} (line {start})"
            if parsed:
                yield Entry(where, f"{stem}#{index}", parsed[0])
            else:
                yield Entry(where, f"{stem}#{index}", error=f"{where}: cannot be read as RIS")
            index, lines = index + 1, []
    if lines:
        yield Entry(f"record {index + 1} (line {start})", f"{stem}#{index}",
                    error=f"record {index + 1} (line {start}): not closed by an ER line")


def ris_fields(record: dict[str, Any]) -> Fields:
    authors = first(record, ("authors", "first_authors"))
    if isinstance(authors, list):
        authors = [person_name(str(a)) for a in authors]
    return Fields(id=record.get("id"), text=first(record, ("abstract", "notes_abstract")),
                  title=first(record, ("title", "primary_title")), doi=record.get("doi"),
                  year=first(record, ("year", "publication_year", "date")),
                  authors=authors, no_text="no abstract (AB or N2)")


RIS = Format("ris", "RIS (EndNote, Zotero, Mendeley)", (".ris",), ris_entries, ris_fields, latex=("title",))
