"""What every input format provides: its entries (raw records read lazily from a file, or why
one cannot be read) and how a record's fields map to a Document's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from paper_claims.sources.records import Fields, plain_fields


@dataclass
class Entry:
    """One record as a format reads it, before it becomes a Document."""

    where: str  # where it stands: "line 12", "item 3", "entry smith2024 (line 40)"
    fallback_id: str  # its id when the record names none: "<file stem>#<index>"
    record: Optional[dict[str, Any]] = None  # the raw record, fields named as the format names them
    error: Optional[str] = None  # why the record cannot be read at all (then record is None)


Entries = Callable[[Path, str], Iterator[Entry]]  # (file, source as given) -> its entries, lazily


@dataclass(frozen=True)
class Format:
    """One input format: ``--format NAME``."""

    name: str
    label: str  # what users call it, for messages and help
    suffixes: tuple[str, ...]  # file names ending so are this format (before .gz/.zst)
    entries: Entries
    fields: Callable[[dict[str, Any]], Fields] = plain_fields
    looks_like: Optional[Callable[[dict[str, Any]], bool]] = None  # recognises one JSON record
    latex: tuple[str, ...] = ()  # the fields written in LaTeX (``Fields`` names), read as text unless --keep-latex
