"""Semantic Scholar records: the ``abstracts`` dataset (``corpusid``, ``abstract``,
``openaccessinfo``) and Graph API papers (``paperId``, ``corpusId``, ``title``, ``abstract``,
``year``, ``externalIds``). The id is the corpus id, else the paper id."""

from __future__ import annotations

from typing import Any

from paper_claims.sources.formats.base import Format
from paper_claims.sources.formats.jsonrecords import json_entries
from paper_claims.sources.records import Fields, first, listed


def _external(record: dict[str, Any], name: str) -> Any:
    for holder in (record, record.get("openaccessinfo") or {}):
        ids = first(holder, ("externalids", "externalIds")) if isinstance(holder, dict) else None
        if isinstance(ids, dict) and ids.get(name):
            return ids[name]
    return None


def s2_fields(record: dict[str, Any]) -> Fields:
    authors = [a.get("name") for a in listed(record.get("authors")) if isinstance(a, dict) and a.get("name")]
    return Fields(id=first(record, ("corpusid", "corpusId", "paperId")), text=record.get("abstract"),
                  title=record.get("title"), doi=_external(record, "DOI"), year=record.get("year"),
                  authors=authors or None, no_text="no abstract")


def looks_like_s2(record: dict[str, Any]) -> bool:
    return any(key in record for key in ("corpusid", "corpusId", "paperId"))


SEMANTIC_SCHOLAR = Format("s2", "Semantic Scholar", (), json_entries, s2_fields, looks_like_s2, latex=("title",))
