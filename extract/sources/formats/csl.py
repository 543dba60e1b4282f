"""CSL-JSON, Zotero's (and Mendeley's, pandoc's) export: a JSON array of items with ``id``,
``title``, ``abstract``, ``DOI``, ``issued`` and ``author``."""

from __future__ import annotations

from typing import Any

from paper_claims.sources.formats.base import Format
from paper_claims.sources.formats.jsonrecords import json_entries
from paper_claims.sources.records import Fields


def csl_year(date: Any) -> Any:
    """The year of a CSL date: ``{"date-parts": [[2021, 5]]}``, or its ``raw``/``literal`` text."""
    if not isinstance(date, dict):
        return date
    parts = date.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return parts[0][0]
    return date.get("raw") or date.get("literal")


def csl_names(names: Any) -> Any:
    """CSL names (``{"family": ..., "given": ...}`` or ``{"literal": ...}``) as "Given Family" strings."""
    if not isinstance(names, list):
        return names
    out = []
    for name in names:
        if isinstance(name, dict):
            text = name.get("literal") or " ".join(str(name[k]) for k in ("given", "family") if name.get(k))
            if text:
                out.append(text)
    return out


def csl_fields(record: dict[str, Any]) -> Fields:
    return Fields(id=record.get("id"), text=record.get("abstract"), title=record.get("title"),
                  doi=record.get("DOI"), year=csl_year(record.get("issued")), authors=csl_names(record.get("author")),
                  no_text="no abstract field")


def looks_like_csl(record: dict[str, Any]) -> bool:
    return ("id" in record and "type" in record and "text" not in record and not isinstance(record.get("title"), list)
            and any(key in record for key in ("title", "author", "issued", "container-title")))


CSL_JSON = Format("csl-json", "CSL-JSON (Zotero)", (), json_entries, csl_fields, looks_like_csl, latex=("title",))
