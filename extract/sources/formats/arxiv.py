"""The arXiv metadata snapshot (``arxiv-metadata-oai-snapshot.json``, one JSON object a line,
about 2.5 million): ``id``, ``title``, ``abstract``, ``authors``, ``categories``, ``doi``,
``versions``. The abstract's hard line wraps are joined (an indented line starts a paragraph);
LaTeX stays as written. Filter with ``--where categories~cs.DC``."""

from __future__ import annotations

from typing import Any

from paper_claims.sources.formats.base import Format
from paper_claims.sources.formats.jsonrecords import json_entries
from paper_claims.sources.records import Fields, first


def unwrap(text: Any) -> Any:
    """An arXiv abstract without its hard line wraps: lines joined with one space, a line
    that starts indented opens a new paragraph (kept as a line break)."""
    if not isinstance(text, str):
        return text
    paragraphs: list[list[str]] = []
    for number, line in enumerate(text.strip("\n").split("\n")):
        if not paragraphs or (number > 0 and line[:1] in (" ", "\t") and paragraphs[-1]):
            paragraphs.append([])
        if line.strip():
            paragraphs[-1].append(line.strip())
    return "\n".join(" ".join(" ".join(p).split()) for p in paragraphs if p)


def _first_version_date(versions: Any) -> Any:
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        return versions[0].get("created")
    return None


def arxiv_fields(record: dict[str, Any]) -> Fields:
    year = _first_version_date(record.get("versions")) or record.get("update_date")
    return Fields(id=record.get("id"), text=unwrap(record.get("abstract")), title=record.get("title"),
                  doi=first(record, ("doi",)), year=year, authors=record.get("authors"), no_text="no abstract")


def looks_like_arxiv(record: dict[str, Any]) -> bool:
    return "id" in record and "abstract" in record and any(
        key in record for key in ("categories", "submitter", "versions", "authors_parsed"))


ARXIV = Format("arxiv", "arXiv metadata snapshot", (), json_entries, arxiv_fields, looks_like_arxiv,
               latex=("text", "title", "authors"))
