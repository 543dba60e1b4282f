"""One record, whatever its format, becomes one ``Document`` here: its id, text, title, DOI,
year and authors, or an error Document saying what is wrong (a record without an abstract
is an error row with the reason, never dropped). ``Where`` filters raw records (``--where``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Union

from paper_claims.errors import InputError
from paper_claims.schemas import Document

MAX_TEXT_CHARS = 20_000

ID_FIELDS = ("id", "doc_id")
TEXT_FIELDS = ("text", "abstract")
TITLE_FIELDS = ("title",)
AUTHOR_FIELDS = ("authors", "author")
DOI_FIELDS = ("doi", "DOI")
YEAR_FIELDS = ("year",)
NO_TEXT = "no 'text' or 'abstract' field"

_DOI_PREFIX = re.compile(r"^\s*(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|2\d\d\d)(?!\d)")


@dataclass
class Fields:
    """What a format reads from one record; ``no_text`` says why when ``text`` is None."""

    id: Any = None
    text: Any = None
    title: Any = None
    doi: Any = None
    year: Any = None
    authors: Any = None
    no_text: str = NO_TEXT


def first(record: dict[str, Any], names: Iterable[str]) -> Any:
    """The first present, non-None value among ``names``."""
    for name in names:
        if record.get(name) is not None:
            return record[name]
    return None


def plain_fields(record: dict[str, Any]) -> Fields:
    """The fields of a plain record (JSONL, CSV, a dict): ``id``/``doc_id``, ``text``/``abstract``,
    ``title``, ``authors``/``author``, ``doi``, ``year``."""
    return Fields(id=first(record, ID_FIELDS), text=first(record, TEXT_FIELDS), title=first(record, TITLE_FIELDS),
                  doi=first(record, DOI_FIELDS), year=first(record, YEAR_FIELDS), authors=first(record, AUTHOR_FIELDS))


def one_line(value: Any) -> Optional[str]:
    """A metadata value as one line of text (lists joined by ", "), or None."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value if v is not None)
    value = " ".join(str(value).split())
    return value or None


def person_name(name: str) -> str:
    """A name written "Last, First" as "First Last" (other forms as they are)."""
    last, comma, given = name.partition(",")
    if comma and given.strip() and "," not in given:
        return f"{given.strip()} {last.strip()}"
    return name.strip()


def doi_of(value: Any) -> Optional[str]:
    """A DOI without its resolver prefix ("https://doi.org/10.1/x" -> "10.1/x"), or None."""
    text = one_line(value)
    return _DOI_PREFIX.sub("", text) or None if text else None


def year_of(value: Any) -> Optional[int]:
    """The year a value gives (2021, "2021", "2021//", "Mon, 2 Apr 2007 ..."), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if 1500 <= value <= 2999 else None
    match = _YEAR.search(str(value))
    return int(match.group(1)) if match else None


def error_document(doc_id: str, source: str, reason: str, **metadata: Any) -> Document:
    """A Document that stands for a bad record (the reason on one line)."""
    return Document(id=doc_id, text="", source=source, error=" ".join(reason.split()), **metadata)


def to_document(fields: Fields, fallback_id: str, source: str, where: str) -> Document:
    """The Document of one record, or an error Document saying what is wrong."""
    given = fields.id
    doc_id = str(given).strip() if given is not None and str(given).strip() else fallback_id
    metadata = {"title": one_line(fields.title), "authors": one_line(fields.authors),
                "doi": doi_of(fields.doi), "year": year_of(fields.year)}
    text = fields.text
    if text is None:
        return error_document(doc_id, source, f"{where}: {fields.no_text}", **metadata)
    if not isinstance(text, str):
        return error_document(doc_id, source, f"{where}: text is not a string", **metadata)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return error_document(doc_id, source, f"{where}: empty text", **metadata)
    if len(text) > MAX_TEXT_CHARS:
        return error_document(doc_id, source, f"text too long: {len(text)} characters (limit {MAX_TEXT_CHARS})",
                              **metadata)
    return Document(id=doc_id, text=text, source=source, **metadata)


def record_document(record: Any, fallback_id: str, source: str, where: str) -> Document:
    """A Document from one plain record (a JSONL line, a CSV row, a dict), or an error
    Document saying what is wrong."""
    if not isinstance(record, dict):
        return error_document(fallback_id, source, f"{where}: not a JSON object ({type(record).__name__})")
    return to_document(plain_fields(record), fallback_id, source, where)


def content_id(text: Any) -> str:
    """A stable id for a record without one and without a place in a file (a row of a dataset
    of your own): a hash of its content, so a rerun finds it again."""
    return "sha-" + hashlib.sha256(str(text).encode("utf-8")).hexdigest()[:16]


def row_document(record: dict[str, Any]) -> Document:
    """A Document from a row of a dataset of your own (Ray Data's ``map_batches``): read as a
    record (``id``/``doc_id``, ``text``/``abstract``, ``title``, ...), its id by content when it
    has none; a row with ``error`` set stays a bad record."""
    source = str(record.get("source") or "")
    if record.get("error"):
        doc_id = record.get("id") or record.get("doc_id") or content_id(record.get("error"))
        return Document(id=str(doc_id), text="", source=source, error=str(record["error"]))
    return record_document(record, content_id(record.get("text", record.get("abstract"))), source, "row")


# --- --where -------------------------------------------------------------------------------

def as_conditions(where: Union[str, Iterable[str], None]) -> tuple[str, ...]:
    """``where`` as a tuple of conditions (one string is one condition)."""
    if where is None:
        return ()
    return (where,) if isinstance(where, str) else tuple(where)


_CONDITION = re.compile(r"^\s*([^~=!\s][^~=!]*?)\s*(!=|!~|=|~)(.*)$", re.DOTALL)


def _values(record: Any, path: list[str]) -> list[str]:
    """The values at a dotted path (lists searched element by element), as text."""
    if isinstance(record, list):
        return [v for item in record for v in _values(item, path)]
    if not path:
        if record is None or isinstance(record, dict):
            return []
        return [str(record)]
    if not isinstance(record, dict):
        return []
    key = path[0]
    if key not in record:
        key = next((k for k in record if str(k).lower() == key.lower()), key)
    return _values(record.get(key), path[1:]) if key in record else []


class Where:
    """Conditions a raw record must all meet: ``field~text`` (contains, any case),
    ``field=text`` (equals), ``field!~text``, ``field!=text``. A field may be a dotted path
    into nested objects (``primary_location.source.display_name``); a list meets a condition
    when one of its items does."""

    def __init__(self, conditions: Union[str, Iterable[str]] = ()) -> None:
        self.conditions: list[tuple[list[str], str, str]] = []
        for condition in as_conditions(conditions):
            match = _CONDITION.match(condition)
            if not match:
                raise InputError(f"cannot read the condition {condition!r}: write FIELD~TEXT (contains), "
                                 "FIELD=TEXT (equals), FIELD!~TEXT or FIELD!=TEXT")
            field, operator, value = match.groups()
            self.conditions.append((field.strip().split("."), operator, value.strip()))

    def __bool__(self) -> bool:
        return bool(self.conditions)

    def __call__(self, record: Any) -> bool:
        return all(self._meets(record, *condition) for condition in self.conditions)

    @staticmethod
    def _meets(record: Any, path: list[str], operator: str, value: str) -> bool:
        values = _values(record, path)
        if operator.endswith("~"):
            found = any(value.lower() in v.lower() for v in values)
        else:
            found = any(v == value for v in values)
        return not found if operator.startswith("!") else found
