"""OpenAlex works (the snapshot's gzipped JSONL parts, or API pages with ``results``): the text
is rebuilt from ``abstract_inverted_index`` (each word at its positions, joined by one space),
the id is the work id (``W2741809807``)."""

from __future__ import annotations

from typing import Any, Optional

from paper_claims.sources.formats.base import Format
from paper_claims.sources.formats.jsonrecords import json_entries
from paper_claims.sources.records import Fields, first, listed


def rebuild_abstract(index: Any) -> tuple[Optional[str], str]:
    """The abstract an inverted index ``{word: [positions]}`` stands for, or None and why."""
    if index is None:
        return None, "no abstract (abstract_inverted_index is null)"
    if not isinstance(index, dict):
        return None, "abstract_inverted_index is not an object of words and positions"
    placed: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(isinstance(p, int) and p >= 0 for p in positions):
            return None, f"abstract_inverted_index has bad positions for {word!r}"
        for position in positions:
            placed[position] = word
    return " ".join(placed[p] for p in sorted(placed)), ""


def _work_id(value: Any) -> Any:
    return value.rstrip("/").rsplit("/", 1)[-1] if isinstance(value, str) else value


def openalex_fields(record: dict[str, Any]) -> Fields:
    text, why = rebuild_abstract(record.get("abstract_inverted_index"))
    authors = [a.get("author", {}).get("display_name") for a in listed(record.get("authorships"))
               if isinstance(a, dict) and isinstance(a.get("author"), dict)]
    return Fields(id=_work_id(record.get("id")), text=text, title=first(record, ("display_name", "title")),
                  doi=record.get("doi"), year=record.get("publication_year"), authors=authors or None,
                  no_text=why)


def looks_like_openalex(record: dict[str, Any]) -> bool:
    return "abstract_inverted_index" in record or str(record.get("id", "")).startswith("https://openalex.org/W")


OPENALEX = Format("openalex", "OpenAlex works", (), json_entries, openalex_fields, looks_like_openalex,
                  latex=("title",))
