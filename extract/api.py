"""The Python API: ``extract_claims`` (a table in memory), ``write_claims`` (what ``claims extract``
does: streamed into an output folder), both through ``_extract``, the one path of every extraction
(settings, task, runner, outputs); and the quantity parser alone (``iter_quantities``,
``extract_quantities``)."""

from __future__ import annotations

import contextlib
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Union

from paper_claims.errors import RunStopped, StorageError
from paper_claims.options import option_values, settings_options
from paper_claims.settings import Settings
from paper_claims.text import jsonl_text, to_stderr

if TYPE_CHECKING:  # the extraction's modules load when a run starts: a run into a busy folder ends first
    from paper_claims.model.backends import Backend
    from paper_claims.outputs.table import ClaimTable
    from paper_claims.run.runner import RunStats, Sink
    from paper_claims.sources.inputs import Source
    from paper_claims.tasks import Task


def _in_running_loop() -> bool:
    """True inside a running event loop (a Jupyter cell, an async web handler)."""
    asyncio = sys.modules.get("asyncio")  # no event loop runs where asyncio was never imported
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def extract_claims(
    sources: Union[Source, Iterable[Source]],
    *,
    out: Optional[Union[str, Path]] = None,
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    model_path: Optional[str] = None,
    cache_dir: Optional[Union[str, Path]] = None,
    use_cache: bool = True,
    concurrency: Optional[int] = None,
    max_unreachable: Optional[int] = None,
    progress: bool = False,
    prompt_file: Optional[Union[str, Path]] = None,
    schema: Any = None,
    fill: Optional[str] = None,
    decisions: Optional[Union[str, Path]] = None,
    format: Optional[str] = None,
    where: Iterable[str] = (),
    keep_latex: bool = False,
    text_column: Optional[str] = None,
    id_column: Optional[str] = None,
    runner: str = "local",
    ray_address: Optional[str] = None,
    workers: Optional[int] = None,
    wait: bool = False,
    batch: bool = False,
    batch_size: Optional[int] = None,
    write_batch: Optional[Union[str, Path]] = None,
    batch_results: Optional[Union[str, Path]] = None,
    db: Union[bool, str, Path] = True,
    min_confidence: Optional[float] = None,
    report: bool = False,
    settings: Optional[Settings] = None,
    backend: Optional[Backend] = None,
    say: Callable[[str], None] = to_stderr,
) -> ClaimTable:
    """Extract grounded claims from files, folders, abstract strings, ``Document`` objects,
    records (dicts with ``id`` and ``text``/``abstract``) or a pandas DataFrame (``text_column``,
    ``id_column`` choose its columns), and return them as a ``ClaimTable``.

    Files are read in their format (BibTeX, RIS, CSL-JSON, the arXiv snapshot, OpenAlex,
    Semantic Scholar, Crossref, JSONL, CSV, text; plain, ``.gz`` or ``.zst``), told by name or
    content unless ``format`` names it; ``where`` keeps the records that meet every condition
    (``["categories~cs.DC"]``); the fields a format writes in LaTeX (BibTeX, the arXiv snapshot,
    titles) are read as Unicode text (``3.2$\\times$`` is ``3.2×``) unless ``keep_latex``. An empty
    string, or a record or DataFrame row without text, is an ``InputError`` naming it (a bad
    record inside a file is an error row).

    Works inside a running event loop too (a Jupyter notebook): the run then goes to a worker
    thread; ``await aextract_claims(...)`` is the async form. ``backend``: a backend already
    open (``Extractor`` passes its own), else one is opened only if a document needs the model.

    Unset options come from ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``CLAIMS_MODEL`` and
    ``CLAIMS_CACHE_DIR``; with no endpoint configured the embedded local model answers.
    With ``out``, finished documents are journaled as they complete (a rerun resumes)
    and ``claims.csv``, ``claims.jsonl``, ``documents.jsonl`` and the SQLite file ``claims.db``
    (``db``: another path for it, or False for none) are written there.
    ``runner="ray"`` runs on Ray Data (``ray_address``: a cluster, else a local instance)
    with ``workers`` actors and also writes ``claims.parquet`` and ``documents.parquet``.
    ``prompt_file``: a system prompt of your own (a text file) instead of the packaged one;
    it is part of every cache key, so its answers never mix with the packaged prompt's.
    ``schema``: a claim schema of your own (a ``ClaimSchema`` class, or ``"package.module:Class"``
    / ``"path/to/file.py:Class"``) instead of the built-in one; its fields are the claim columns.
    ``fill``: ``"marks"`` (default: the model labels the numbers the parser marks) or
    ``"instructor"`` (the model fills the schema directly, for strong models; every number and
    span is then grounded in the text, or dropped and counted). ``decisions``: a decisions file
    ``claims train`` wrote (learned from your own reviewed annotations) instead of the packaged
    one. Every claim of the built-in schema carries a ``confidence`` (the calibrated probability
    that every field is right); ``min_confidence`` keeps only those at or above it. Every option is
    defined once in ``paper_claims.options``.

    Raises ``RunStopped`` (after writing the finished documents to ``out``) when the model
    backend dies: the embedded server crashed, or ``max_unreachable`` documents in a row
    (default 3) could not connect to the endpoint.

    One run writes to an output folder at a time: another run there raises ``OutputBusy``
    at once, or with ``wait=True`` is waited for. The output folder and the cache directory
    are checked before the run (``StorageError`` when they cannot be created or written);
    an output that cannot be written during the run (a full disk) stops it with a
    ``StorageError`` naming the file, the finished documents kept in the journal.
    """
    options = dict(locals())
    if _in_running_loop():  # asyncio.run cannot nest: run in a thread of our own, where no loop runs
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims") as pool:
            return pool.submit(extract_claims, **options).result()
    from paper_claims.outputs.table import ClaimTable
    from paper_claims.run.runner import Collect

    collected = Collect()
    del options["sources"]
    try:
        stats, task = _extract(sources, [collected], settings=settings, backend=backend, say=say,
                               values=option_values("table", options))
    except RunStopped as e:
        e.results = collected.results
        raise
    return ClaimTable(collected.results, stats=stats, schema=task.schema)


def write_claims(
    sources: Union[Source, Iterable[Source]],
    out: Union[str, Path],
    *,
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    model_path: Optional[str] = None,
    cache_dir: Optional[Union[str, Path]] = None,
    use_cache: bool = True,
    concurrency: Optional[int] = None,
    max_unreachable: Optional[int] = None,
    progress: bool = True,
    prompt_file: Optional[Union[str, Path]] = None,
    schema: Any = None,
    fill: Optional[str] = None,
    decisions: Optional[Union[str, Path]] = None,
    format: Optional[str] = None,
    where: Iterable[str] = (),
    keep_latex: bool = False,
    runner: str = "local",
    ray_address: Optional[str] = None,
    workers: Optional[int] = None,
    wait: bool = False,
    batch: bool = False,
    batch_size: Optional[int] = None,
    write_batch: Optional[Union[str, Path]] = None,
    batch_results: Optional[Union[str, Path]] = None,
    db: Union[bool, str, Path] = True,
    min_confidence: Optional[float] = None,
    report: bool = True,
) -> RunStats:
    """What ``claims extract`` does: extract the sources into the output folder ``out``,
    streaming (memory does not grow with the number of documents), and return the run's
    figures. The options are those of ``extract_claims``."""
    options = dict(locals())
    del options["sources"]
    return _extract(sources, [], values=option_values("stream", options))[0]


def _extract(sources: Union[Source, Iterable[Source]], sinks: list[Sink], *, values: dict[str, Any],
             settings: Optional[Settings] = None, backend: Optional[Backend] = None,
             say: Callable[[str], None] = to_stderr) -> tuple[RunStats, Task]:
    """The one path of every extraction: the settings and the task, paths checked, the output
    folder taken, then the run (``values``: every option, ``paper_claims.options``)."""
    runner = values["runner"]
    if runner not in ("local", "ray"):
        raise ValueError(f"unknown runner {runner!r} (use 'local' or 'ray')")
    from paper_claims.model.prompt_files import system_prompt
    from paper_claims.run.folders import OutputLock

    if settings is None:
        settings = Settings.from_env(**settings_options(values))
    system_prompt(settings.prompt_file)  # an unreadable prompt file stops the run before it starts
    if settings.decisions is not None:  # so does a decisions file of your own that cannot be read
        from paper_claims.decisions.model import load_decisions

        load_decisions(settings.decisions)
    _check_cache_dir(settings)
    settings.schema_info  # a schema that cannot work stops the run before it starts (SchemaError names the field)
    out = values.get("out")
    # one run per output folder, made and checked before anything is read or sent
    with OutputLock(Path(out), wait=values["wait"], say=say) if out is not None else contextlib.nullcontext():
        return _extract_into(sources, sinks, values, settings, backend, say)


def _extract_into(sources: Union[Source, Iterable[Source]], sinks: list[Sink], values: dict[str, Any],
                  settings: Settings, backend: Optional[Backend], say: Callable[[str], None]) -> tuple[RunStats, Task]:
    """Inputs, task, runner, runner core, outputs (the extraction's modules load here, once the
    output folder is this run's: a second run into a busy folder ends before they load)."""
    from paper_claims.outputs.sqlite import DB_NAME, SqliteWriter
    from paper_claims.outputs.table import TableWriter
    from paper_claims.run.journal import Journal
    from paper_claims.run.runner import ConfidentOnly, run
    from paper_claims.sources.inputs import iter_inputs
    from paper_claims.tasks import task_for

    out, db, ray = values.get("out"), values["db"], values["runner"] == "ray"
    mode = _batch_mode(values, sources)  # --batch, --write-batch, --batch-results
    if ray:
        settings = replace(settings, cache_dir=settings.resolved_cache_dir)  # the workers share it
    task = task_for(settings)
    if ray:
        from paper_claims.run.ray import RayRunner

        runner: Any = RayRunner(settings, address=values["ray_address"], workers=values["workers"] or 2, say=say)
    else:
        from paper_claims.run.local import LocalRunner

        runner = LocalRunner(task, backend=backend, say=say)
    reading = {name: values.get(name) for name in ("text_column", "id_column", "format")}
    reading.update(where=values["where"], keep_latex=values["keep_latex"])
    documents = iter_inputs(sources, **reading)
    total = _count(sources, reading) if settings.progress else None
    journal = Journal(Path(out)) if out is not None else None
    if mode is not None and mode.kind == "write":  # the request file only, no outputs
        return _run_batch(mode, sources, reading, settings, out, [], journal, total, say), task
    writers: list[Sink] = []
    if out is not None and db is not False:
        # closed first: indexing the database is the last write most likely to fail, and a
        # failure then aborts the tables too (no new table beside a missing database)
        writers.append(SqliteWriter(Path(out) / DB_NAME if db is True else Path(db),
                                     claim_types=task.schema.column_types()))
    if out is not None:
        writers.append(TableWriter(out, parquet=ray, schema=task.schema))
    kept: list[Sink] = [*sinks, *writers]
    if values["min_confidence"] is not None:
        kept = [ConfidentOnly(sink, values["min_confidence"]) for sink in kept]
    if mode is not None:
        stats = _run_batch(mode, sources, reading, settings, out, kept, journal, total, say)
    else:
        stats = run(documents, task, runner, sinks=kept, journal=journal, total=total)
    if out is not None and values["report"]:
        from paper_claims.outputs.report import write_report

        page = Path(out) / "report.html"
        try:
            write_report(out)
        except OSError as e:  # the file it names: an output it reads, or the page itself
            named = Path(e.filename) if e.filename else page
            raise StorageError.of(e, named, doing="writing" if named == page else "reading") from e
    return stats, task


def _batch_mode(values: dict[str, Any], sources: Any) -> Any:
    """The batch mode the options ask for, or None; one line when it cannot run."""
    if not any(values[name] for name in ("batch", "write_batch", "batch_results")):
        return None
    from paper_claims.errors import BatchError
    from paper_claims.run.batch import MODES, BatchMode

    mode = BatchMode.of(values["batch"], values["write_batch"], values["batch_results"])
    if values["runner"] != "local":
        raise BatchError(f"{MODES[mode.kind]} runs in this process: leave out --runner {values['runner']}")
    if mode.kind != "write" and not _rereadable(sources):
        raise BatchError(f"{MODES[mode.kind]} reads the inputs twice: give files, a list or a DataFrame, not an iterator")
    return mode


def _run_batch(mode: Any, sources: Any, reading: dict[str, Any], settings: Settings, out: Any, sinks: list[Sink],
               journal: Any, total: Optional[int], say: Callable[[str], None]) -> RunStats:
    from paper_claims.run.batch import run_batch
    from paper_claims.sources.inputs import iter_inputs

    return run_batch(mode, lambda: iter_inputs(sources, **reading), settings, out=Path(out) if out is not None else None,
                     sinks=sinks, journal=journal, total=total, say=say)


def _check_cache_dir(settings: Settings) -> None:
    """The cache directory can be created and written (when the run uses it), or one line says why not."""
    from paper_claims.run.folders import writable_folder

    if not (settings.use_cache or settings.embedded):  # the embedded model lives there too
        return
    try:
        writable_folder(settings.resolved_cache_dir, "the cache directory")
    except StorageError as e:
        raise StorageError(f"{e.message} (choose another with --cache-dir or CLAIMS_CACHE_DIR)",
                           path=e.path, errno=e.errno) from e


COUNTED_BYTES = 64 * 2**20  # inputs larger than this are not read a second time to size the progress bar


def _count(sources: Any, reading: dict[str, Any]) -> Optional[int]:
    """How many documents the sources hold, for the progress bar: None for a one-shot iterator,
    and for files of more than COUNTED_BYTES in all (a second pass over a metadata dump costs
    minutes; the bar then counts documents and their rate without a total)."""
    from paper_claims.sources.inputs import iter_inputs

    if not _rereadable(sources) or _input_bytes(sources) > COUNTED_BYTES:
        return None
    return sum(1 for _ in iter_inputs(sources, **reading))


def _input_bytes(sources: Any) -> int:
    """The size of the files and folders among the sources (their names, not their contents)."""
    items = sources if isinstance(sources, (list, tuple)) else [sources]
    total = 0
    for item in items:
        if isinstance(item, (str, Path)):
            with contextlib.suppress(OSError, ValueError):
                path = Path(item)
                if path.is_file():
                    total += path.stat().st_size
                elif path.is_dir():
                    total += sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    return total


def _rereadable(sources: Any) -> bool:
    """Whether the sources can be read more than once (not a one-shot iterator)."""
    from paper_claims.schemas import Document

    return isinstance(sources, (str, Path, list, tuple, Document, dict)) or hasattr(sources, "columns")


def run_ray(documents: Union[Source, Iterable[Source]], settings: Settings, out_dir: Optional[Union[str, Path]] = None,
            *, address: Optional[str] = None, workers: int = 2, say: Callable[[str], None] = to_stderr) -> ClaimTable:
    """``extract_claims(documents, runner="ray", ...)``: the runner core with the Ray runner
    (``address``: a Ray cluster, else a local instance; ``workers`` actors)."""
    return extract_claims(documents, out=out_dir, settings=settings, runner="ray", ray_address=address,
                          workers=workers, say=say)


async def aextract_claims(sources: Union[Source, Iterable[Source]], **options: Any) -> ClaimTable:
    """``extract_claims`` for async code: awaits the run without blocking the event loop."""
    import asyncio

    return await asyncio.to_thread(extract_claims, sources, **options)


def iter_quantities(sources: Union[Source, Iterable[Source]], *, format: Optional[str] = None,
                    where: Iterable[str] = (), keep_latex: bool = False,
                    seen: Optional[Callable[[str, Optional[str]], None]] = None) -> Iterator[dict[str, Any]]:
    """The parser alone: one dict per numeric mention with doc_id and offsets. ``seen(doc_id,
    error)`` is told of every document read (``error``: why a record without text is skipped)."""
    from paper_claims.parse.quantities import find_quantities
    from paper_claims.sources.inputs import iter_inputs

    for doc in iter_inputs(sources, format=format, where=where, keep_latex=keep_latex):
        if seen is not None:
            seen(doc.id, doc.error)
        for mention in find_quantities(doc.text):
            row: dict[str, Any] = {"doc_id": doc.id}
            row.update(mention.model_dump(mode="json"))
            yield row


def extract_quantities(sources: Union[Source, Iterable[Source]], out: Optional[Union[str, Path]] = None, *,
                       format: Optional[str] = None, where: Iterable[str] = (), keep_latex: bool = False,
                       seen: Optional[Callable[[str, Optional[str]], None]] = None) -> list[dict[str, Any]]:
    """All mentions of the sources (``seen`` as for ``iter_quantities``); written as JSONL to
    ``out`` when given."""
    from paper_claims.outputs.files import atomic_write_text

    rows = list(iter_quantities(sources, format=format, where=where, keep_latex=keep_latex, seen=seen))
    if out is not None:
        atomic_write_text(out, jsonl_text(rows))
    return rows


__all__ = ["aextract_claims", "extract_claims", "extract_quantities", "iter_quantities", "run_ray", "write_claims"]
