"""Load abstracts from text, JSONL and CSV files into ``Document`` objects.

Plain-text files are split into paragraphs at blank lines; each paragraph is classified
as an abstract, a title, an author line or something else (e.g. a citation line) by one
layout-independent classifier, and titles and author lines become metadata of the abstract
that follows them. JSONL and CSV files carry one record per line or row.

Bad files raise ``InputError``; bad records inside a good file become ``Document`` objects
with ``error`` set (and empty text), so a batch reports them and carries on.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Optional, Union

from paper_claims.errors import InputError
from paper_claims.schemas.claims import Document

MAX_TEXT_CHARS = 20_000
SUPPORTED_SUFFIXES = (".txt", ".jsonl", ".csv")

PathLike = Union[str, Path]

ID_FIELDS = ("id", "doc_id")
TEXT_FIELDS = ("text", "abstract")
TITLE_FIELDS = ("title",)
AUTHOR_FIELDS = ("authors", "author")

# --- paragraph classification -------------------------------------------------------------

ABSTRACT, TITLE, AUTHORS, OTHER = "abstract", "title", "authors", "other"

_NAME_SEPARATORS = re.compile(r"\s*(?:,|;|&|\band\b|\bet\s+al\b\.?)\s*", re.IGNORECASE)
_NAME_PARTICLES = frozenset(
    "de del della der di da dos du la le van von den ter ten bin al el y zu".split()
)
# Words that are common in titles but are not (usually) parts of person names.
_NON_NAME_WORDS = frozenset(
    """a an the of for in on at to with without from by via into over under towards toward
    is are be can do does not how what why when which who we our you your all is
    learning deep neural network networks model models language languages large scale
    system systems data dataset datasets machine efficient fast faster robust training
    inference serving transformer transformers attention graph graphs image images video
    vision visual search optimization reinforcement agent agents benchmark benchmarks
    generation generative analysis study survey toward approach framework method methods
    distributed parallel memory compute computing hardware robot robots robotic robotics
    evaluation evaluating scaling reasoning retrieval code tensorflow open""".split()
)
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")
# A sentence break: terminator, space, then a capital or digit; a single-capital "word"
# before the period (an initial such as "J.") does not count.
_SENTENCE_BREAK = re.compile(r"(?<!\b[A-Z])[.!?]\s+[\"'“‘(]?[A-Z0-9]")
_MIN_ABSTRACT_WORDS = 20
_MIN_LOWERCASE_RATIO = 0.35
_MAX_TITLE_WORDS = 30
_MAX_TITLE_CHARS = 300
_MAX_NAME_TOKENS = 6


def _words(text: str) -> list[str]:
    """Whitespace tokens that contain at least one letter."""
    return [t for t in text.split() if any(c.isalpha() for c in t)]


def _lowercase_ratio(words: list[str]) -> float:
    """Share of words whose first letter is lower case (high for prose, low for lists)."""
    if not words:
        return 0.0
    lower = 0
    for word in words:
        first = next(c for c in word if c.isalpha())
        lower += first.islower()
    return lower / len(words)


def _is_name_token(token: str) -> bool:
    """Whether a token can be part of a person's name ("Abby", "O'Neill", "J.", "van")."""
    token = token.strip("\"'“”‘’()")
    if not token:
        return False
    if token.lower() in _NAME_PARTICLES:
        return True
    if not token[0].isalpha() or token[0].islower():
        return False
    return all(c.isalpha() or c in "-'’." for c in token)


def _is_name(item: str, strict: bool) -> bool:
    """Whether ``item`` reads as one person's (or a collaboration's) name."""
    tokens = item.split()
    if not 1 <= len(tokens) <= _MAX_NAME_TOKENS or not all(map(_is_name_token, tokens)):
        return False
    if strict:
        return len(tokens) >= 2 and not any(
            t.lower().strip(".") in _NON_NAME_WORDS for t in tokens
        )
    return True


def _is_author_line(flat: str) -> bool:
    """Whether a paragraph is a list of person names separated by commas/"and"/"et al."."""
    items = [i for i in _NAME_SEPARATORS.split(flat) if i]
    if not items:
        return False
    if len(items) == 1:
        return _is_name(items[0], strict=True)
    failed = sum(not _is_name(item, strict=False) for item in items)
    # Long collaboration lists may hold an odd entry; the last item must be a name
    # (a citation line ends in a venue) and a short list must be all names.
    if failed > len(items) // 20 or not _is_name(items[-1], strict=False):
        return False
    multi = sum(len(item.split()) >= 2 for item in items)
    return multi * 3 >= len(items) * 2


def _is_prose(flat: str) -> bool:
    """Whether a paragraph reads as running prose made of sentences."""
    words = _words(flat)
    if len(words) < _MIN_ABSTRACT_WORDS or _lowercase_ratio(words) < _MIN_LOWERCASE_RATIO:
        return False
    return bool(_SENTENCE_END.search(flat) or _SENTENCE_BREAK.search(flat))


def _is_title(flat: str) -> bool:
    """Whether a paragraph is a short heading without sentence structure."""
    return (
        len(flat) <= _MAX_TITLE_CHARS
        and len(flat.split()) <= _MAX_TITLE_WORDS
        and not _SENTENCE_BREAK.search(flat)
    )


def classify_paragraph(paragraph: str) -> str:
    """Classify a paragraph as "abstract", "title", "authors" or "other" (e.g. a citation)."""
    flat = " ".join(paragraph.split())
    if not flat:
        return OTHER
    if _is_author_line(flat):
        return AUTHORS
    if _is_prose(flat) or len(flat) > MAX_TEXT_CHARS:
        return ABSTRACT
    if _is_title(flat):
        return TITLE
    return OTHER


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines, each stripped, line endings normalised."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


# --- reading files ------------------------------------------------------------------------


def _cannot(path: PathLike, reason: str) -> InputError:
    """An InputError naming the file, on one line."""
    return InputError(f"cannot read {path}: {reason}")


def _open(path: PathLike) -> BinaryIO:
    """The file opened for reading bytes; InputError (one line) if it cannot be."""
    try:
        return Path(path).open("rb")
    except FileNotFoundError:
        raise _cannot(path, "no such file") from None
    except IsADirectoryError:
        raise _cannot(path, "is a directory") from None
    except OSError as exc:
        raise _cannot(path, exc.strerror or type(exc).__name__) from None


def read_text(path: PathLike) -> str:
    """The file's text; InputError if missing, empty, binary or not UTF-8."""
    with _open(path) as handle:
        raw = handle.read()
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise _cannot(path, f"binary file (NUL byte at offset {nul})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        raise _cannot(path, f"not UTF-8 text (byte 0x{bad:02x} at offset {exc.start})") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise _cannot(path, "empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def check_text_file(path: PathLike, chunk: int = 1 << 20) -> None:
    """InputError if the file is missing, empty, binary or not UTF-8: the checks of
    ``read_text``, made in constant memory so a run fails before its first document."""
    handle = _open(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, blank = 0, True
    with handle:
        while True:
            raw = handle.read(chunk)
            nul = raw.find(b"\x00")
            if nul >= 0:
                raise _cannot(path, f"binary file (NUL byte at offset {offset + nul})")
            try:
                text = decoder.decode(raw, final=not raw)
            except UnicodeDecodeError as exc:
                at = offset + exc.start - len(decoder.getstate()[0]) if exc.start < 0 else offset + exc.start
                bad = raw[exc.start] if 0 <= exc.start < len(raw) else 0
                raise _cannot(path, f"not UTF-8 text (byte 0x{bad:02x} at offset {at})") from None
            blank = blank and not text.replace("\ufeff", "").strip()
            if not raw:
                break
            offset += len(raw)
    if blank:
        raise _cannot(path, "empty file")


def _txt_prefix(path: Path) -> str:
    """Id prefix of a text file: the first 3 characters of its name (as in the gold ids)."""
    return path.stem[:3] or path.name[:3]


def _document(
    doc_id: str,
    text: str,
    source: str,
    title: Optional[str] = None,
    authors: Optional[str] = None,
) -> Document:
    """A Document, or an error Document when the text is empty or too long."""
    error = None
    if not text:
        error = "empty text"
    elif len(text) > MAX_TEXT_CHARS:
        error = f"text too long: {len(text)} characters (limit {MAX_TEXT_CHARS})"
    return Document(
        id=doc_id,
        text="" if error else text,
        source=source,
        title=title,
        authors=authors,
        error=error,
    )


def _iter_txt(path: Path, source: str) -> Iterator[Document]:
    """Abstracts of a plain-text file, with the title/author lines before them as metadata."""
    prefix = _txt_prefix(path)
    title: Optional[str] = None
    authors: Optional[str] = None
    index = 0
    for paragraph in split_paragraphs(read_text(path)):
        kind = classify_paragraph(paragraph)
        if kind == TITLE:
            title, authors = " ".join(paragraph.split()), None
        elif kind == AUTHORS:
            authors = " ".join(paragraph.split())
        elif kind == ABSTRACT:
            yield _document(f"{prefix}#{index}", paragraph, source, title, authors)
            title, authors, index = None, None, index + 1
    if index == 0:
        raise _cannot(source, "no paragraph reads as an abstract (prose of 20+ words)")


def _field(record: dict[str, Any], names: tuple[str, ...]) -> Any:
    """The first present, non-None value among ``names``."""
    for name in names:
        if record.get(name) is not None:
            return record[name]
    return None


def _meta(value: Any) -> Optional[str]:
    """A title/authors value as one string (lists joined by ", "), or None."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    value = " ".join(str(value).split())
    return value or None


def record_document(
    record: Any, fallback_id: str, source: str, where: str
) -> Document:
    """A Document from one JSONL/CSV record, or an error Document saying what is wrong."""
    if not isinstance(record, dict):
        kind = type(record).__name__
        return _error_doc(fallback_id, source, f"{where}: not a JSON object ({kind})")
    given = _field(record, ID_FIELDS)
    doc_id = str(given).strip() if given is not None and str(given).strip() else fallback_id
    text = _field(record, TEXT_FIELDS)
    if text is None:
        return _error_doc(doc_id, source, f"{where}: no 'text' or 'abstract' field")
    if not isinstance(text, str):
        return _error_doc(doc_id, source, f"{where}: text is not a string")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return _error_doc(doc_id, source, f"{where}: empty text")
    title = _meta(_field(record, TITLE_FIELDS))
    authors = _meta(_field(record, AUTHOR_FIELDS))
    return _document(doc_id, text, source, title, authors)


def _error_doc(doc_id: str, source: str, reason: str) -> Document:
    """A Document that stands for a bad record."""
    return Document(id=doc_id, text="", source=source, error=" ".join(reason.split()))


def _text_lines(path: Path) -> Iterator[str]:
    """The lines of a text file, read lazily (``check_text_file`` has vetted it)."""
    with _open(path) as handle:
        for number, raw in enumerate(handle):
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            yield line.removeprefix("\ufeff") if number == 0 else line


def _iter_jsonl(path: Path, source: str) -> Iterator[Document]:
    """One Document per non-blank JSONL line, read lazily; bad lines become error Documents."""
    index = 0
    for lineno, line in enumerate(_text_lines(path), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        fallback_id = f"{path.stem}#{index}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield _error_doc(fallback_id, source, f"{where}: not JSON ({exc.msg})")
        else:
            yield record_document(record, fallback_id, source, where)
        index += 1


def _iter_csv(path: Path, source: str) -> Iterator[Document]:
    """One Document per CSV row; the header must name a text (or abstract) column."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    columns = {(c or "").strip().lower(): c for c in reader.fieldnames or []}
    if not any(name in columns for name in TEXT_FIELDS):
        raise _cannot(source, "CSV header has no 'text' or 'abstract' column")
    try:
        for index, row in enumerate(reader):
            record = {key: row[col] for key, col in columns.items() if col is not None}
            where = f"row {index + 1}"
            yield record_document(record, f"{path.stem}#{index}", source, where)
    except csv.Error as exc:
        raise _cannot(source, f"bad CSV ({exc})") from None


_READERS = {".txt": _iter_txt, ".jsonl": _iter_jsonl, ".csv": _iter_csv}


def _expand(path: PathLike) -> list[Path]:
    """The files a path argument stands for: itself, or a directory's supported files."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in _READERS)
        if not files:
            raise _cannot(path, "directory has no .txt, .jsonl or .csv files")
        return files
    if not p.exists():
        raise _cannot(path, "no such file or directory")
    if p.suffix.lower() not in _READERS:
        kinds = ", ".join(SUPPORTED_SUFFIXES)
        raise _cannot(path, f"unsupported file type {p.suffix or '(none)'!r} (use {kinds})")
    return [p]


def iter_documents(path: PathLike) -> Iterator[Document]:
    """Documents of one file or directory, in file order (duplicate ids not yet checked)."""
    for file in _expand(path):
        yield from _read_file(file, path)


def _read_file(file: Path, given: PathLike) -> Iterator[Document]:
    """Documents of one supported file; ``source`` is the path as given (or as listed)."""
    source = str(given) if file == Path(given) else str(file)
    return _READERS[file.suffix.lower()](file, source)


def dedupe(docs: Iterable[Document]) -> Iterator[Document]:
    """Keep the first of each id; later duplicates become error Documents with unique ids
    (lazily: only the ids seen are kept)."""
    first_seen: dict[str, str] = {}
    for doc in docs:
        if doc.id not in first_seen:
            first_seen[doc.id] = doc.source
            yield doc
            continue
        n = 1
        while f"{doc.id}~dup{n}" in first_seen:
            n += 1
        new_id = f"{doc.id}~dup{n}"
        first_seen[new_id] = doc.source
        error = f"duplicate id {doc.id} (first seen in {first_seen[doc.id]})"
        yield doc.model_copy(update={"id": new_id, "text": "", "error": error})


def iter_files(paths: Union[PathLike, Iterable[PathLike]]) -> Iterator[Document]:
    """The Documents of the given files and directories, read lazily (ids not yet deduplicated).

    Every path is checked first: InputError for one that cannot be read as documents. A
    file named twice (directly or through a directory) is read once.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files: list[tuple[Path, PathLike]] = []
    loaded: set[Path] = set()
    for path in paths:
        for file in _expand(path):
            key = file.resolve()
            if key not in loaded:
                check_text_file(file)
                loaded.add(key)
                files.append((file, path))
    return (doc for file, path in files for doc in _read_file(file, path))


def load_documents(paths: Union[PathLike, Iterable[PathLike]]) -> list[Document]:
    """All Documents of the given files and directories, with unique ids."""
    return list(dedupe(iter_files(paths)))
