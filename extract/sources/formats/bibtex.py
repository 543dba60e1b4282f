"""BibTeX (``.bib``): one document per entry with an ``abstract`` field, the citation key as
its id; read lazily, a batch of entries at a time (``@string`` macros carry over), with
bibtexparser. A broken entry is an error row naming its line.

The text is the abstract as written, LaTeX included (the parser reads ``81.2\\%``,
``$3\\times$``, ``2--4``), with line wraps joined, protective braces (``{GPU}``) dropped and
accented letters (``M{\\"u}ller``) written as letters: what the outputs carry and the
offsets point into.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paper_claims.sources.formats.base import Entry, Format
from paper_claims.sources.reading import stem_of, text_lines
from paper_claims.sources.records import Fields, person_name

BATCH = 200  # entries parsed at once
_BLOCK_START = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]")
_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
            ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
            "r": "\u030a"}
_SYMBOL_ACCENT = re.compile(r"\\([\"'`^~=.])\s*(?:\{\s*([A-Za-z]|\\i)\s*\}|([A-Za-z]))")
_LETTER_ACCENT = re.compile(r"\\([uvHckr])(?:\s*\{\s*([A-Za-z]|\\i)\s*\}|\s+([A-Za-z]))")
_LETTERS = {r"\ss": "ß", r"\o": "ø", r"\O": "Ø", r"\ae": "æ", r"\AE": "Æ", r"\aa": "å", r"\AA": "Å",
            r"\l": "ł", r"\L": "Ł", r"\oe": "œ", r"\OE": "Œ", r"\i": "ı"}
_LETTER_COMMAND = re.compile(r"\\(ss|o|O|ae|AE|aa|AA|l|L|oe|OE|i)(?![A-Za-z])\s?")
_COMMAND_BEFORE = re.compile(r"\\[A-Za-z]+\*?\s*$|[\^_]\s*$")
_ABORTED = re.compile(r"\(line (\d+)\) aborted on line (\d+)")


def _accent(match: re.Match[str]) -> str:
    letter = match.group(2) or match.group(3)
    letter = "i" if letter == r"\i" else letter
    return unicodedata.normalize("NFC", letter + _ACCENTS[match.group(1)])


def _unbrace(text: str) -> str:
    """Drop the braces of protective groups ("{GPU}"), keep those of command arguments
    ("\\textbf{30\\%}", "10^{6}") and escaped ones ("\\{")."""
    out: list[str] = []
    kept: list[bool] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if c == "{":
            keep = bool(_COMMAND_BEFORE.search("".join(out[-8:])))
            kept.append(keep)
            if keep:
                out.append(c)
        elif c == "}" and kept:
            if kept.pop():
                out.append(c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def clean(value: Any) -> Any:
    """A field's text as the outputs carry it: accents as letters, protective braces gone,
    line wraps joined (a blank line stays a paragraph break)."""
    if not isinstance(value, str):
        return value
    text = _SYMBOL_ACCENT.sub(_accent, value)
    text = _LETTER_ACCENT.sub(_accent, text)
    text = _LETTER_COMMAND.sub(lambda m: _LETTERS["\\" + m.group(1)], text)
    text = _unbrace(text)
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def _pieces(expression: str) -> list[str]:
    """The parts of a BibTeX concatenation (``{a} # name # "b"``), cut at each ``#`` outside
    braces and quotes."""
    pieces: list[str] = []
    depth, quoted, start, escaped = 0, False, 0, False
    for i, c in enumerate(expression):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == '"' and depth == 0:
            quoted = not quoted
        elif c == "#" and depth == 0 and not quoted:
            pieces.append(expression[start:i])
            start = i + 1
    return [*pieces, expression[start:]]


def resolve(expression: str, macros: dict[str, str]) -> str:
    """A value written without enclosing braces or quotes: its parts joined, each braced or quoted
    part without its delimiters, each ``@string`` macro (any case) as its text, numbers and
    unknown names as written."""
    out = []
    for piece in (p.strip() for p in _pieces(expression)):
        if len(piece) >= 2 and (piece[0], piece[-1]) in (("{", "}"), ('"', '"')):
            out.append(piece[1:-1])
        else:
            out.append(macros.get(piece.lower(), piece))
    return "".join(out)


def _unenclosed(block: Any, key: str) -> bool:
    """Whether bibtexparser read a field or @string value without enclosing braces or quotes: a
    macro it did not resolve, or a concatenation."""
    from bibtexparser.middlewares.enclosing import REMOVED_ENCLOSING_KEY

    removed = block.parser_metadata.get(REMOVED_ENCLOSING_KEY)
    return (removed.get(key) if isinstance(removed, dict) else removed) == "no-enclosing"


def _macros(strings: list[Any]) -> dict[str, str]:
    """The ``@string`` macros, in the order they are defined, each resolved by those before it."""
    macros: dict[str, str] = {}
    for string in strings:
        value = string.value
        macros[string.key.lower()] = resolve(value, macros) if _unenclosed(string, string.key) else value
    return macros


def _record(block: Any, macros: dict[str, str]) -> dict[str, Any]:
    """An entry's fields by their lower-case names, concatenations and macros resolved."""
    fields = {field.key.lower(): resolve(field.value, macros) if _unenclosed(block, field.key) else field.value
              for field in block.fields}
    return {"ID": block.key, "ENTRYTYPE": block.entry_type, **fields}


class _Aborted(logging.Filter):
    """bibtexparser's warning about each block it gives up ("Parsing of `@article` block (line 31)
    aborted on line 35 ..."), kept for the block's error row instead of printed: the block's
    line -> the line where parsing stopped. Only records of the thread that parses are taken."""

    def __init__(self) -> None:
        super().__init__()
        self.thread = threading.get_ident()
        self.lines: dict[int, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        match = _ABORTED.search(record.getMessage())
        if match is None or record.thread not in (None, self.thread):
            return True
        self.lines[int(match.group(1))] = int(match.group(2))
        return False


@contextlib.contextmanager
def _aborted_blocks() -> Iterator[dict[int, int]]:
    """While bibtexparser parses here: its warnings about the blocks it gives up, as ``_Aborted``
    keeps them (bibtexparser's logging is otherwise left as it is)."""
    logger = logging.getLogger("bibtexparser.splitter")
    aborted = _Aborted()
    logger.addFilter(aborted)
    try:
        yield aborted.lines
    finally:
        logger.removeFilter(aborted)


def _blocks(path: Path) -> Iterator[tuple[int, str]]:
    """The file cut where a line opens a block ("@article{"), with each piece's first line."""
    lines: list[str] = []
    start = 1
    for number, line in enumerate(text_lines(path), start=1):
        if _BLOCK_START.match(line) and lines:
            yield start, "\n".join(lines)
            lines, start = [], number
        lines.append(line)
    if lines:
        yield start, "\n".join(lines)


def _batches(path: Path) -> Iterator[tuple[list[int], str]]:
    starts: list[int] = []
    pieces: list[str] = []
    for start, piece in _blocks(path):
        starts.append(start)
        pieces.append(piece)
        if len(pieces) >= BATCH:
            yield starts, "\n".join(pieces)
            starts, pieces = [], []
    if pieces:
        yield starts, "\n".join(pieces)


def _file_line(starts: list[int], pieces_line: int) -> int:
    """The file line of a line of a batch (0-based, as bibtexparser counts)."""
    return starts[0] + pieces_line


def bibtex_entries(path: Path, source: str) -> Iterator[Entry]:
    """The entries of a BibTeX file, a batch at a time."""
    import bibtexparser
    from bibtexparser.library import Library
    from bibtexparser.model import DuplicateBlockKeyBlock, Entry as BibEntry, ParsingFailedBlock

    stem = stem_of(path)
    strings: list[Any] = []
    index = 0
    for starts, text in _batches(path):
        with _aborted_blocks() as aborted:
            library = bibtexparser.parse_string(text, library=Library(strings))
        macros = _macros(library.strings)
        found: list[tuple[int, Entry]] = []
        for block in library.blocks:
            line = _file_line(starts, block.start_line or 0)
            if isinstance(block, BibEntry):
                found.append((line, Entry(f"entry {block.key} (line {line})", "", _record(block, macros))))
            elif isinstance(block, DuplicateBlockKeyBlock) and isinstance(block.ignore_error_block, BibEntry):
                dup = block.ignore_error_block  # a repeated key: kept, so the ids check names it
                found.append((line, Entry(f"entry {dup.key} (line {line})", "", _record(dup, macros))))
            elif isinstance(block, ParsingFailedBlock):
                error = getattr(block, "error", None)
                reason = getattr(error, "abort_reason", None) or str(error or "") or "cannot be parsed"
                reason = " ".join(reason.split()).rstrip(".")
                if block.start_line in aborted:
                    reason = f"aborted on line {_file_line(starts, aborted[block.start_line])}: {reason}"
                found.append((line, Entry(f"line {line}", "", error=f"line {line}: bad BibTeX entry ({reason})")))
        strings = list(library.strings)
        for _, entry in sorted(found, key=lambda pair: pair[0]):
            entry.fallback_id = f"{stem}#{index}"
            index += 1
            yield entry


def bibtex_fields(record: dict[str, Any]) -> Fields:
    authors = clean(record.get("author"))
    if isinstance(authors, str):
        authors = [person_name(a) for a in re.split(r"\s+and\s+", authors) if a.strip()]
    return Fields(id=record.get("ID"), text=clean(record.get("abstract")), title=clean(record.get("title")),
                  doi=record.get("doi"), year=record.get("year") or record.get("date"), authors=authors,
                  no_text="no abstract field")


BIBTEX = Format("bibtex", "BibTeX", (".bib", ".bibtex"), bibtex_entries, bibtex_fields,
                latex=("text", "title", "authors"))
