"""JSON records as the metadata dumps and APIs ship them, read lazily: one object a line
(JSONL: the arXiv snapshot, OpenAlex and Semantic Scholar dumps), a JSON array (CSL-JSON,
API batches; decoded item by item, never loaded whole), or one JSON document, often a page of
an API (``results`` of OpenAlex, ``data`` of Semantic Scholar, ``items`` or ``message`` of
Crossref), whose records are unwrapped. Also the plain JSONL format (``id`` and ``text``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional, TextIO

from paper_claims.sources.formats.base import Entry, Format
from paper_claims.sources.reading import stem_of, suffix_of, text_stream
from paper_claims.sources.records import ID_FIELDS, TEXT_FIELDS

_DECODER = json.JSONDecoder()
_CHUNK = 1 << 16
_MAX_ITEM = 64 << 20  # characters of one array item before it is called malformed
_LIST_KEYS = (("results",), ("data",), ("items",), ("message", "items"))
_LINES_ONLY = (".jsonl", ".ndjson")  # one record a line, whatever the first line holds
WHOLE = "the document"  # where a record stands that is the whole file (an API page's items: "item 3")


def _why(exc: ValueError) -> str:
    """Why a text is not JSON (a JSONDecodeError's message, or e.g. an integer too long to read)."""
    return exc.msg if isinstance(exc, json.JSONDecodeError) else " ".join(str(exc).split(";")[0].split())


def records_of(value: Any) -> list[Any]:
    """The records a decoded JSON value holds: itself, or the items of an API page around them."""
    if not isinstance(value, dict) or any(key in value for key in (*ID_FIELDS, *TEXT_FIELDS, "DOI")):
        return [value]
    for path in _LIST_KEYS:
        inner: Any = value
        for key in path:
            inner = inner.get(key) if isinstance(inner, dict) else None
        if isinstance(inner, list):
            return inner
    message = value.get("message")
    if isinstance(message, dict) and "DOI" in message:  # Crossref's answer for one work
        return [message]
    return [value]


def _entries_of(value: Any, where: str, stem: str, index: int) -> Iterator[Entry]:
    items = records_of(value)
    for n, item in enumerate(items):
        at = where if len(items) == 1 and item is value else f"item {n + 1}" if where == WHOLE else f"{where}, item {n + 1}"
        if isinstance(item, dict):
            yield Entry(at, f"{stem}#{index + n}", item)
        else:
            yield Entry(at, f"{stem}#{index + n}", error=f"{at}: not a JSON object ({type(item).__name__})")


def _first_char(stream: TextIO) -> tuple[str, str]:
    """The first non-blank character and everything read so far."""
    buffer = ""
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return "", buffer
        buffer += chunk
        stripped = buffer.lstrip()
        if stripped:
            return stripped[0], buffer


def _array_items(stream: TextIO, buffer: str) -> Iterator[tuple[Optional[Any], Optional[str]]]:
    """The items of a JSON array, decoded one at a time: (value, None) or (None, error)."""
    pos = buffer.index("[") + 1
    done = False
    while True:
        while True:  # skip blanks and commas, reading on when the buffer runs out
            while pos < len(buffer) and buffer[pos] in " \t\r\n,":
                pos += 1
            if pos < len(buffer) or done:
                break
            chunk = stream.read(_CHUNK)
            done = not chunk
            buffer, pos = buffer[pos:] + chunk, 0
        if pos >= len(buffer):
            yield None, "the JSON array is not closed with ]"
            return
        if buffer[pos] == "]":
            return
        try:
            value, end = _DECODER.raw_decode(buffer, pos)
        except ValueError as exc:
            if done or len(buffer) - pos > _MAX_ITEM or not isinstance(exc, json.JSONDecodeError):
                yield None, f"not JSON ({_why(exc)})"
                return
            chunk = stream.read(_CHUNK)  # the item may go on past the buffer
            done = not chunk
            buffer, pos = buffer[pos:] + chunk, 0
            continue
        yield value, None
        buffer, pos = buffer[end:], 0


def json_entries(path: Path, source: str) -> Iterator[Entry]:
    """The records of a JSONL file, a JSON array or a JSON document, read lazily."""
    stem = stem_of(path)
    with text_stream(path) as stream:
        first, buffer = _first_char(stream)
        if suffix_of(path) in _LINES_ONLY:
            first = "{" if first == "[" else first
        if first == "[":
            index = 0
            for n, (value, error) in enumerate(_array_items(stream, buffer), start=1):
                if error is not None:
                    yield Entry(f"item {n}", f"{stem}#{index}", error=f"item {n}: {error}")
                    return
                for entry in _entries_of(value, f"item {n}", stem, index):
                    yield entry
                    index += 1
            return
        head, newline, rest = buffer.partition("\n")
        if first == "{" and not newline:  # one long first line: read it whole
            head += stream.readline().rstrip("\n")
            newline, rest = "\n", ""
            buffer = head + newline
        try:
            json.loads(head)
            jsonl = True
        except ValueError:  # a document over many lines, unless it is not JSON at all
            jsonl = first != "{" or suffix_of(path) in _LINES_ONLY
        if not jsonl:
            text = buffer + stream.read()
            try:
                value = json.loads(text)
            except ValueError as exc:
                line = exc.lineno if isinstance(exc, json.JSONDecodeError) else 1
                yield Entry("line 1", f"{stem}#0", error=f"line {line}: not JSON ({_why(exc)})")
                return
            yield from _entries_of(value, WHOLE, stem, 0)
            return
        lines = _lines(head + newline + rest, stream)
        index = 0
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"line {lineno}"
            try:
                value = json.loads(line)
            except ValueError as exc:
                yield Entry(where, f"{stem}#{index}", error=f"{where}: not JSON ({_why(exc)})")
                index += 1
                continue
            for entry in _entries_of(value, where, stem, index):
                yield entry
                index += 1


def _lines(buffer: str, stream: TextIO) -> Iterator[str]:
    """The lines of what was read so far, then of the rest of the stream."""
    *complete, partial = buffer.split("\n")
    yield from complete
    for line in stream:
        if partial:
            line, partial = partial + line, ""
        yield line.rstrip("\n")
    if partial:
        yield partial


JSONL = Format("jsonl", "JSON records (id, text or abstract)", (".jsonl", ".ndjson", ".json"), json_entries)
