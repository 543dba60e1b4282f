"""Files and folders as Documents, read lazily: each file in its format (``sources/formats/``),
plain or compressed, records filtered by ``--where``.

Bad files raise ``InputError`` before the first document is read; bad records inside a good
file (no abstract, not JSON, a broken BibTeX entry) become ``Document`` objects with ``error``
set (and empty text), so a batch reports them and carries on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import closing
from itertools import islice
from pathlib import Path
from typing import Optional, Union

from paper_claims.errors import InputError
from paper_claims.schemas import Document
from paper_claims.sources.formats import (
    FORMATS, Entry, Format, check_name, detect, format_named, is_input_name, looks_like,
)
from paper_claims.sources.latex import fields_as_text
from paper_claims.sources.reading import cannot, check_text_file, text_lines
from paper_claims.sources.records import MAX_TEXT_CHARS, Where, error_document, record_document, to_document

PathLike = Union[str, Path]
SUPPORTED_SUFFIXES = tuple(sorted({s for f in FORMATS.values() for s in f.suffixes}))
FIRST_RECORDS = 20  # records of each file read before a run: the format --format names, the fields --where names

__all__ = ["MAX_TEXT_CHARS", "SUPPORTED_SUFFIXES", "dedupe", "iter_documents", "iter_files", "load_documents",
           "read_file", "record_document"]


def _expand(path: PathLike, forced: Optional[Format]) -> list[Path]:
    """The files a path argument stands for: itself, or a directory's input files (sorted)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")
                       and (forced is not None or is_input_name(f)))
        if not files:
            kinds = ", ".join(SUPPORTED_SUFFIXES)
            raise cannot(path, f"directory has no input files ({kinds}, or .gz/.zst)")
        return files
    if not p.exists():
        raise cannot(path, "no such file or directory")
    if forced is None:
        check_name(p, str(path))
    return [p]


def read_file(file: Path, source: str, form: Optional[Format] = None, where: Optional[Where] = None,
              keep_latex: bool = False) -> Iterator[Document]:
    """The Documents of one file in its format (told from the file when not given); records
    that do not meet ``where`` are left out. The fields its format writes in LaTeX are read as
    text, unless ``keep_latex``."""
    form = form or detect(file, source)
    latex = () if keep_latex else form.latex
    for entry in form.entries(file, source):
        if entry.record is None:
            yield error_document(entry.fallback_id, source, entry.error or f"{entry.where}: cannot be read")
        elif not where or where(entry.record):
            yield _document(form, entry, source, latex)


def _document(form: Format, entry: Entry, source: str, latex: tuple[str, ...]) -> Document:
    """The Document of one record, or its error row; a record whose fields its format cannot
    read (a shape no export writes) is an error row too, never the end of the run."""
    try:
        fields = form.fields(entry.record or {})
    except Exception as e:  # noqa: BLE001 - any record of any file: the rest of the file goes on
        return error_document(entry.fallback_id, source, f"{entry.where}: cannot read its fields as {form.label} "
                                                         f"({type(e).__name__}: {e})")
    return to_document(fields_as_text(fields, latex), entry.fallback_id, source, entry.where)


def _check_first_records(file: Path, source: str, form: Format, forced: bool, where: Where) -> None:
    """Read the first records of a file before the run: InputError when, with the format
    named, every one fails as that format and the file looks like another, or when none of
    them has a field a condition names (a condition that keeps all of the file or none)."""
    with closing(form.entries(file, source)) as reading:  # the file closed at once, not when collected
        entries = list(islice(reading, FIRST_RECORDS))
    if forced:
        failures = [entry.error if entry.record is None else _document(form, entry, source, ()).error
                    for entry in entries]
        if all(failures):
            own = looks_like(file)
            if own is not form:
                failed = (f"its first {len(entries)} records fail ({failures[0]})" if entries
                          else f"no records as {form.label} in it")
                raise InputError(f"cannot read {source} as {form.label} (--format {form.name}): {failed}; "
                                 f"{_looks(file, own)}")
    records = [entry.record for entry in entries if entry.record is not None]
    if where and records:
        where.check_fields(records, source)


def _looks(file: Path, form: Optional[Format]) -> str:
    """What a file looks like, for a message."""
    if form is not None:
        return f"the file looks like {form.label}: leave --format out, or use --format {form.name}"
    first = next((line.strip() for line in text_lines(file) if line.strip()), "")
    return f"its first line reads {first[:60] + ('...' if len(first) > 60 else '')!r}"


def iter_documents(path: PathLike, *, format: Optional[str] = None, where: Iterable[str] = (),
                   keep_latex: bool = False) -> Iterator[Document]:
    """Documents of one file or directory, in file order (duplicate ids not yet checked)."""
    return iter_files([path], format=format, where=where, keep_latex=keep_latex)


def iter_files(paths: Union[PathLike, Iterable[PathLike]], *, format: Optional[str] = None,
               where: Iterable[str] = (), keep_latex: bool = False) -> Iterator[Document]:
    """The Documents of the given files and directories, read lazily (ids not yet deduplicated).

    Every path is checked first: InputError for one that cannot be read as documents (missing,
    empty, binary, not UTF-8, badly compressed, of an unknown type). A file named twice
    (directly or through a directory) is read once. ``format`` names the format of every file
    (else each file's is told by its name or content); ``where`` holds conditions
    (``categories~cs.DC``) a record must meet. The fields a format writes in LaTeX (BibTeX,
    the arXiv snapshot, titles) are read as Unicode text unless ``keep_latex``.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    forced = format_named(format)
    condition = Where(where)
    files: list[tuple[Path, str, Format]] = []
    loaded: set[Path] = set()
    for path in paths:
        for file in _expand(path, forced):
            key = file.resolve()
            if key not in loaded:
                check_text_file(file)
                loaded.add(key)
                source = str(path) if file == Path(path) else str(file)
                files.append((file, source, forced or detect(file, source)))
                if forced or condition:
                    _check_first_records(file, source, forced or files[-1][2], forced is not None, condition)
    return (doc for file, source, form in files for doc in read_file(file, source, form, condition, keep_latex))


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
        error = " ".join(f"duplicate id {doc.id} (first seen in {first_seen[doc.id]})".split())  # one line
        yield doc.model_copy(update={"id": new_id, "text": "", "error": error})


def load_documents(paths: Union[PathLike, Iterable[PathLike]], *, format: Optional[str] = None,
                   where: Iterable[str] = (), keep_latex: bool = False) -> list[Document]:
    """All Documents of the given files and directories, with unique ids."""
    return list(dedupe(iter_files(paths, format=format, where=where, keep_latex=keep_latex)))
