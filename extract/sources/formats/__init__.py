"""The input formats, one module each, and how a file's format is told: ``--format NAME``, else
its name (``.bib``, ``.ris``, ``.txt``, ``.csv``; a ``.gz``/``.zst`` suffix is looked through),
else its content (the first JSON record says arXiv, OpenAlex, Semantic Scholar, Crossref,
CSL-JSON or plain records; a file starting with ``@`` is BibTeX, with ``TY  -`` RIS)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from paper_claims.errors import InputError
from paper_claims.sources.formats.arxiv import ARXIV
from paper_claims.sources.formats.base import Entry, Format
from paper_claims.sources.formats.bibtex import BIBTEX
from paper_claims.sources.formats.crossref import CROSSREF
from paper_claims.sources.formats.csl import CSL_JSON
from paper_claims.sources.formats.csvfile import CSV
from paper_claims.sources.formats.jsonrecords import JSONL, json_entries
from paper_claims.sources.formats.openalex import OPENALEX
from paper_claims.sources.formats.ris import RIS
from paper_claims.sources.formats.semantic_scholar import SEMANTIC_SCHOLAR
from paper_claims.sources.formats.text import TEXT
from paper_claims.sources.reading import cannot, suffix_of, text_stream

FORMATS: dict[str, Format] = {f.name: f for f in (TEXT, JSONL, CSV, BIBTEX, RIS, CSL_JSON, ARXIV, OPENALEX,
                                                  SEMANTIC_SCHOLAR, CROSSREF)}
JSON_FORMATS = (OPENALEX, CROSSREF, SEMANTIC_SCHOLAR, ARXIV, CSL_JSON)  # told apart by their first record
SUFFIXES = {suffix: f for f in FORMATS.values() for suffix in f.suffixes}
_SNIFF_CHARS = 4096
_BIBTEX_ENTRY = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_RIS_RECORD = re.compile(r"^TY  - ", re.MULTILINE)


def format_named(name: Optional[str]) -> Optional[Format]:
    """The format called ``name`` (None: tell each file's own); InputError for an unknown name."""
    if name is None:
        return None
    found = FORMATS.get(name.strip().lower())
    if found is None:
        raise InputError(f"unknown input format {name!r} (use one of {', '.join(FORMATS)})")
    return found


def is_input_name(path: Path) -> bool:
    """Whether a file in a folder is taken as input: a known suffix, or compressed (told by content)."""
    return suffix_of(path) in SUFFIXES or path.name.lower().endswith((".gz", ".zst"))


def check_name(path: Path, source: str) -> None:
    """InputError for a file named as something else (``paper.pdf``); a name without a suffix
    (``part_000.gz``, a dataset file) is told by its content."""
    suffix = suffix_of(path)
    if suffix and suffix not in SUFFIXES and not suffix[1:].isdigit():
        kinds = ", ".join(sorted(SUFFIXES))
        raise cannot(source, f"unsupported file type {suffix!r} (use {kinds}, optionally .gz or .zst, "
                             "or name the format with --format)")


def _first_record(path: Path) -> Optional[dict]:
    for entry in json_entries(path, str(path)):
        if entry.record is not None:
            return entry.record
        return None
    return None


def json_format(path: Path) -> Format:
    """The JSON format of a file, told by its first record (plain JSONL when none is recognised)."""
    record = _first_record(path)
    if record is not None:
        for candidate in JSON_FORMATS:
            if candidate.looks_like is not None and candidate.looks_like(record):
                return candidate
    return JSONL


def _head(path: Path) -> str:
    with text_stream(path) as stream:
        return stream.read(_SNIFF_CHARS).lstrip()


def detect(path: Path, source: str) -> Format:
    """The format of one file, by its name, else by its content."""
    suffix = suffix_of(path)
    if suffix in SUFFIXES and SUFFIXES[suffix] is not JSONL:
        return SUFFIXES[suffix]
    head = _head(path)
    if head.startswith(("{", "[")):
        return json_format(path)
    if suffix in SUFFIXES:
        return JSONL  # a .jsonl that is not JSON: its lines become error rows
    if head.startswith("@"):
        return BIBTEX
    if head.startswith("TY  -"):
        return RIS
    kinds = ", ".join(sorted(SUFFIXES))
    raise cannot(source, f"unsupported file type {suffix or '(none)'!r} and the content is not JSON, BibTeX "
                         f"or RIS (use {kinds}, optionally .gz or .zst, or name the format with --format)")


def looks_like(path: Path) -> Optional[Format]:
    """The format a file's content says (JSON records, a BibTeX entry, a RIS record), else its
    name's; None when neither says: what a file read as the wrong format looks like."""
    head = _head(path)
    if head.startswith(("{", "[")):
        return json_format(path)
    if _BIBTEX_ENTRY.search(head):
        return BIBTEX
    if _RIS_RECORD.search(head):
        return RIS
    return SUFFIXES.get(suffix_of(path))


__all__ = ["FORMATS", "Entry", "Format", "check_name", "detect", "format_named", "is_input_name", "json_format",
           "looks_like"]
