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


def listed(value: Any) -> list[Any]:
    """A field that should hold a list (of authors, ...): the list, else none (a record may hold
    anything there)."""
    return value if isinstance(value, list) else []


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


_CONDITION = re.compile(r"^\s*([^~=!<>\s][^~=!<>]*?)\s*([~=!<>]+)(.*)$", re.DOTALL)
OPERATORS = ("~", "=", "!~", "!=")
_HOW = "write FIELD~TEXT (contains), FIELD=TEXT (equals), FIELD!~TEXT or FIELD!=TEXT"
_SHOWN_FIELDS = 40  # field names a message lists


def _key(record: dict[str, Any], name: str) -> Any:
    """The key of ``record`` called ``name``, in any case (``name`` itself when none is)."""
    if name in record:
        return name
    return next((k for k in record if str(k).lower() == name.lower()), name)


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
    key = _key(record, path[0])
    return _values(record.get(key), path[1:]) if key in record else []


def _objects_at(record: Any, path: list[str]) -> list[dict[str, Any]]:
    """The objects a dotted path leads to (through lists)."""
    if isinstance(record, list):
        return [o for item in record for o in _objects_at(item, path)]
    if not isinstance(record, dict):
        return []
    if not path:
        return [record]
    key = _key(record, path[0])
    return _objects_at(record[key], path[1:]) if key in record else []


def _field_names(objects: list[dict[str, Any]]) -> str:
    names = list(dict.fromkeys(str(k) for o in objects for k in o))
    more = len(names) - _SHOWN_FIELDS
    return ", ".join(names[:_SHOWN_FIELDS]) + (f", ... ({more} more)" if more > 0 else "")


class Where:
    """Conditions a raw record must all meet: ``field~text`` (contains, any case),
    ``field=text`` (equals), ``field!~text``, ``field!=text``. A field may be a dotted path
    into nested objects (``primary_location.source.display_name``); a list meets a condition
    when one of its items does. Any other operator is an ``InputError`` at once."""

    def __init__(self, conditions: Union[str, Iterable[str]] = ()) -> None:
        self.conditions: list[tuple[list[str], str, str]] = []
        self.written: list[str] = []
        for condition in as_conditions(conditions):
            match = _CONDITION.match(condition)
            if not match:
                raise InputError(f"cannot read the condition {condition!r}: {_HOW}")
            field, operator, value = match.groups()
            if operator not in OPERATORS:
                raise InputError(f"unknown operator {operator!r} in the condition {condition!r}: {_HOW}")
            self.conditions.append((field.strip().split("."), operator, value.strip()))
            self.written.append(condition)

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

    def check_fields(self, records: list[dict[str, Any]], source: str) -> None:
        """InputError when none of ``records`` (a file's first) has a field a condition names:
        the condition would keep all of the file or none of it. The message lists the fields
        they have (for a dotted path, those where it stops)."""
        for (path, _, _), condition in zip(self.conditions, self.written):
            if any(_key(o, path[-1]) in o for r in records for o in _objects_at(r, path[:-1])):
                continue
            depth = max(n for n in range(len(path)) if any(_objects_at(r, path[:n]) for r in records))
            objects = [o for r in records for o in _objects_at(r, path[:depth])]
            holder = "they have" if depth == 0 else f"{'.'.join(path[:depth])} has"
            raise InputError(f"the condition {condition!r}: none of the first {len(records)} records of {source} "
                             f"has a field {'.'.join(path)!r}; {holder}: {_field_names(objects)}")
