"""Scale-out on Ray Data: a ``map_batches`` extractor and the ``--engine ray`` runner.

Pipeline (needs the ``[ray]`` extra)::

    ds = ray.data.read_json("abstracts.jsonl")            # or read_parquet(...)
    results = ds.map_batches(ClaimExtractor, fn_constructor_kwargs={"base_url": URL},
                             concurrency=4, batch_size=64, batch_format="pyarrow")
    results.map_batches(claim_rows, batch_format="pyarrow").write_parquet("out/claims")
    results.map_batches(document_rows, batch_format="pyarrow").write_parquet("out/documents")

``ClaimExtractor`` returns one row per document: the ``documents.jsonl`` columns plus
``claims_json`` (the document's ``claims.jsonl`` rows as a JSON list) and ``run_key``
(hash of model, endpoint, generation settings, code/prompt version and text, as in the
journal). ``claim_rows`` and ``document_rows`` turn those rows into exactly the
``claims.jsonl`` and ``documents.jsonl`` columns.

``run_ray`` is what ``claims extract --engine ray`` calls: it resumes from the output's
journal (a document is skipped when its id and run key match a finished result), streams
the remaining documents through Ray, journals each finished batch, and writes the usual
files plus ``claims.parquet`` and ``documents.parquet``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sys
import time
import typing
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

from paper_claims.model.backends import endpoint_identity
from paper_claims.model.backends import Backend, open_backend
from paper_claims.run.runner import RunStats, run_batch, run_key
from paper_claims.errors import ClaimsError
from paper_claims.run.journal import Journal
from paper_claims.settings import Settings
from paper_claims.outputs.table import CLAIM_COLUMNS, DOCUMENT_COLUMNS, ClaimTable
from paper_claims.schemas import Claim, Document, DocumentResult, Status

RESULT_COLUMNS = DOCUMENT_COLUMNS + ["claims_json", "run_key"]
DOCUMENT_FIELD = "_claims_document"  # input column run_ray uses to ship a Document as JSON
PARQUET_FILES = ("claims.parquet", "documents.parquet")

Say = Callable[[str], None]
PathLike = Union[str, Path]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- Arrow schemas (explicit, so every block and part file has the same types) ------------


def _arrow_type(annotation: Any) -> Any:
    """The Arrow type of a pydantic field annotation (Optional stripped, enums as strings)."""
    import pyarrow as pa

    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin is list:
        return pa.list_(_arrow_type(args[0]) if args else pa.string())
    if origin is not None and len(args) == 1:  # Optional[X]
        return _arrow_type(args[0])
    if annotation is bool:
        return pa.bool_()
    if annotation is int:
        return pa.int64()
    if annotation is float:
        return pa.float64()
    return pa.string()


def claim_schema() -> Any:
    """The Arrow schema of ``claims.jsonl`` rows (``CLAIM_COLUMNS``)."""
    import pyarrow as pa

    fields = Claim.model_fields
    return pa.schema([pa.field(name, pa.string() if name == "doc_id" else _arrow_type(fields[name].annotation))
                      for name in CLAIM_COLUMNS])


def document_schema() -> Any:
    """The Arrow schema of ``documents.jsonl`` rows (``DOCUMENT_COLUMNS``)."""
    import pyarrow as pa

    fields = DocumentResult.model_fields
    types = {name: _arrow_type(fields[name].annotation) for name in DOCUMENT_COLUMNS if name in fields}
    types["n_claims"] = pa.int64()
    return pa.schema([pa.field(name, types[name]) for name in DOCUMENT_COLUMNS])


def result_schema() -> Any:
    """The schema of ``ClaimExtractor`` output: document columns, ``claims_json``, ``run_key``."""
    import pyarrow as pa

    return document_schema().append(pa.field("claims_json", pa.string())).append(pa.field("run_key", pa.string()))


# --- batches in, batches out ---------------------------------------------------------------


def _as_arrow(batch: Any) -> Any:
    """A pyarrow Table from any Ray Data batch format (pyarrow, pandas, dict of numpy)."""
    import pyarrow as pa

    if isinstance(batch, pa.Table):
        return batch
    if isinstance(batch, dict):
        return pa.table({name: pa.array(list(values)) for name, values in batch.items()})
    return pa.Table.from_pandas(batch, preserve_index=False)  # pandas.DataFrame


def _fallback_id(text: Any) -> str:
    """A stable id for a record without one (content hash, so reruns find it again)."""
    return "sha-" + hashlib.sha256(str(text).encode("utf-8")).hexdigest()[:16]


def document_from_record(record: dict[str, Any]) -> Document:
    """A Document from one input row (``id``/``doc_id``, ``text``/``abstract``, ``title``, ...).

    Rows are read like JSONL records; a row with ``error`` set stays a bad record.
    """
    from paper_claims.sources.files import _record_document

    if record.get(DOCUMENT_FIELD):  # shipped by run_ray: the Document exactly as loaded
        return Document.model_validate_json(record[DOCUMENT_FIELD])
    source = str(record.get("source") or "")
    if record.get("error"):
        doc_id = record.get("id") or record.get("doc_id") or _fallback_id(record.get("error"))
        return Document(id=str(doc_id), text="", source=source, error=str(record["error"]))
    text = record.get("text", record.get("abstract"))
    return _record_document(record, _fallback_id(text), source, "row")


def documents_from_batch(batch: Any) -> list[Document]:
    """The Documents of one Ray Data batch."""
    return [document_from_record(row) for row in _as_arrow(batch).to_pylist()]


def result_row(key: str, result: DocumentResult) -> dict[str, Any]:
    """One ``ClaimExtractor`` output row."""
    row = result.document_row()
    row["claims_json"] = json.dumps(result.claim_rows(), ensure_ascii=False)
    row["run_key"] = key
    return row


def result_from_row(row: dict[str, Any]) -> tuple[str, DocumentResult]:
    """(run key, DocumentResult) back from a ``ClaimExtractor`` output row."""
    claims = [{k: v for k, v in claim.items() if k != "doc_id"} for claim in json.loads(row["claims_json"] or "[]")]
    fields = {k: v for k, v in row.items() if k in DocumentResult.model_fields}
    fields["claims"] = claims
    return str(row.get("run_key") or ""), DocumentResult.model_validate(fields)


def _table(rows: list[dict[str, Any]], schema: Any) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=schema)


def claim_rows(batch: Any) -> Any:
    """``map_batches`` function: ``ClaimExtractor`` rows -> ``claims.jsonl`` rows (pyarrow)."""
    rows = [claim for text in _as_arrow(batch).column("claims_json").to_pylist() for claim in json.loads(text or "[]")]
    return _table(rows, claim_schema())


def document_rows(batch: Any) -> Any:
    """``map_batches`` function: ``ClaimExtractor`` rows -> ``documents.jsonl`` rows (pyarrow)."""
    return _as_arrow(batch).select(DOCUMENT_COLUMNS).cast(document_schema())


class ClaimExtractor:
    """Callable class for ``Dataset.map_batches``: extracts the claims of a batch of documents.

    Constructed once per actor with the options of ``extract_claims`` (or a ``Settings``).
    Each batch runs through the single-process runner (answer cache first, then up to
    ``concurrency`` requests in flight to the endpoint), so a worker keeps ``concurrency``
    requests busy when ``batch_size`` is at least that. Point ``cache_dir`` at a shared
    filesystem path so every worker sees every answer.
    """

    def __init__(
        self,
        settings: Optional[Settings] = None,
        *,
        model: Optional[str] = None,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        model_path: Optional[str] = None,
        cache_dir: Optional[PathLike] = None,
        use_cache: bool = True,
        concurrency: Optional[int] = None,
    ) -> None:
        if settings is None:
            settings = Settings.from_env(model=model, base_url=base_url, api_key=api_key, model_path=model_path,
                                         cache_dir=cache_dir, use_cache=use_cache, concurrency=concurrency)
        self.settings = replace(settings, progress=False)
        self.endpoint = endpoint_identity(self.settings)
        self._stack = contextlib.ExitStack()
        self._backend: Optional[Backend] = None

    def key(self, doc: Document) -> str:
        """The document's result key ("" for a bad record)."""
        return document_key(doc, self.settings, self.endpoint)

    def backend(self) -> Backend:
        """The endpoint, opened once per actor (an embedded server is started only once)."""
        if self._backend is None:
            self._backend = self._stack.enter_context(open_backend(self.settings, say=_stderr))
        return self._backend

    def __call__(self, batch: Any) -> Any:
        documents = documents_from_batch(batch)
        results, _stats = run_batch(documents, self.settings, say=_stderr, backend=self.backend())
        rows = [result_row(self.key(doc), result) for doc, result in zip(documents, results)]
        return _table(rows, result_schema())

    def close(self) -> None:
        """Stop what ``backend()`` started."""
        self._stack.close()
        self._backend = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def document_key(doc: Document, settings: Settings, endpoint: Optional[str] = None) -> str:
    """The journal key of a result (settings, endpoint, code and prompt version, text); "" for a bad record."""
    if doc.error:
        return ""
    return run_key(doc, settings, endpoint if endpoint is not None else endpoint_identity(settings))


def extract_dataset(
    dataset: Any,
    settings: Optional[Settings] = None,
    *,
    workers: int = 2,
    batch_size: int = 64,
    num_cpus: float = 1.0,
    **options: Any,
) -> Any:
    """``dataset.map_batches(ClaimExtractor, ...)`` on ``workers`` actors; returns the result Dataset.

    ``num_cpus`` is reserved per actor: the work is waiting on the endpoint, so fractions
    are fine, but leave CPUs for the read tasks (actors holding every CPU stall a read).
    """
    import ray.data

    kwargs = dict(options)
    if settings is not None:
        kwargs["settings"] = settings
    return dataset.map_batches(ClaimExtractor, fn_constructor_kwargs=kwargs,
                               compute=ray.data.ActorPoolStrategy(size=workers),
                               batch_size=batch_size, batch_format="pyarrow", num_cpus=num_cpus)


# --- the --engine ray runner ---------------------------------------------------------------


def require_ray() -> None:
    """Raise a ClaimsError saying how to install Ray when it is missing."""
    try:
        import pyarrow  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError as e:
        raise ClaimsError(f"--engine ray needs the [ray] extra: pip install 'paper-claims[ray]' ({e})") from None


@contextlib.contextmanager
def ray_session(address: Optional[str] = None) -> Iterator[None]:
    """Use the running Ray instance, or connect/start one (``address``) for the block."""
    import ray

    if ray.is_initialized():
        yield
        return
    ray.init(address=address, include_dashboard=False, ignore_reinit_error=True)
    try:
        yield
    finally:
        ray.shutdown()


def _document_record(doc: Document) -> dict[str, Any]:
    return {"id": doc.id, DOCUMENT_FIELD: doc.model_dump_json()}


def default_batch_size(n_documents: int, workers: int, concurrency: int) -> int:
    """Enough documents to keep a worker's requests busy, small enough to spread and report."""
    per_worker = math.ceil(n_documents / max(1, workers))
    return max(1, min(max(4 * concurrency, 16), per_worker))


class _Progress:
    """tqdm over completed batches (counted in documents) on stderr, or nothing."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar: Any = None
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="doc", desc="extracting (ray)", file=sys.stderr, dynamic_ncols=True)

    def update(self, n: int, errors: int) -> None:
        if self.bar is not None:
            self.bar.update(n)
            self.bar.set_postfix(errors=errors, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _stream(
    pending: Sequence[Document],
    settings: Settings,
    *,
    workers: int,
    batch_size: int,
    num_cpus: float,
) -> Iterator[list[tuple[str, DocumentResult]]]:
    """Run ``pending`` through Ray Data; yield each finished batch as (key, result) pairs."""
    import ray.data

    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # ours counts documents across all workers
    if hasattr(context, "print_on_execution_start"):
        context.print_on_execution_start = False
    blocks = max(1, math.ceil(len(pending) / batch_size))
    dataset = ray.data.from_items([_document_record(d) for d in pending], override_num_blocks=blocks)
    results = extract_dataset(dataset, settings, workers=workers, batch_size=batch_size, num_cpus=num_cpus)
    for batch in results.iter_batches(batch_size=None, batch_format="pyarrow"):
        yield [result_from_row(row) for row in batch.to_pylist()]


def _resume(documents: Sequence[Document], keys: Sequence[str], journal: Optional[Journal]
            ) -> tuple[dict[str, DocumentResult], list[Document]]:
    """Finished results reusable for this run (same id and key, status ok) and what is left."""
    finished = journal.load() if journal is not None else {}
    done: dict[str, DocumentResult] = {}
    pending: list[Document] = []
    for doc, key in zip(documents, keys):
        previous = finished.get(doc.id)
        if key and previous is not None and previous[0] == key and previous[1].status == Status.ok:
            done[doc.id] = previous[1]
        else:
            pending.append(doc)
    return done, pending


def _tally(stats: RunStats, results: Iterable[DocumentResult]) -> None:
    """Per-document figures of freshly extracted results (token counts stay with the workers)."""
    for result in results:
        stats.llm_calls += result.attempts
        stats.cache_hits += result.status == Status.ok and result.attempts == 0


def run_ray(
    documents: Sequence[Document],
    settings: Settings,
    out_dir: Optional[PathLike] = None,
    *,
    address: Optional[str] = None,
    workers: int = 2,
    batch_size: Optional[int] = None,
    num_cpus_per_worker: float = 1.0,
    say: Say = _stderr,
    on_batch: Optional[Callable[[int], None]] = None,
) -> ClaimTable:
    """Extract ``documents`` on Ray (``address``: a cluster, or None for a local instance).

    With ``out_dir``, finished documents are journaled batch by batch, a rerun skips the
    documents whose id and run key are already finished there, and ``claims.csv``,
    ``claims.jsonl``, ``documents.jsonl``, ``claims.parquet`` and ``documents.parquet`` are
    written. Each worker runs ``settings.concurrency`` requests at a time; the cache
    directory is resolved here, so give a shared path on a cluster. Results are in input
    order; the table's ``stats`` counts LLM calls and cache hits from per-document attempts.
    ``on_batch`` is called with the size of each finished batch.
    """
    require_ray()
    started = time.perf_counter()
    settings = replace(settings, cache_dir=settings.resolved_cache_dir)
    endpoint = endpoint_identity(settings)
    keys = [document_key(doc, settings, endpoint) for doc in documents]
    journal = Journal(Path(out_dir)) if out_dir is not None else None
    done, pending = _resume(documents, keys, journal)
    stats = RunStats(documents=len(documents), resumed=len(documents) - len(pending))
    if pending:
        size = batch_size or default_batch_size(len(pending), workers, settings.resolved_concurrency)
        say(f"Ray: {len(pending)} documents to extract ({stats.resumed} already done), "
            f"{workers} workers x {settings.resolved_concurrency} requests, batches of {size}")
        progress = _Progress(len(pending), settings.progress)
        errors = 0
        try:
            with ray_session(address):
                for batch in _stream(pending, settings, workers=workers, batch_size=size,
                                     num_cpus=num_cpus_per_worker):
                    for key, result in batch:
                        done[result.doc_id] = result
                        if journal is not None and result.status == Status.ok:
                            journal.append(key, result)
                    _tally(stats, (result for _, result in batch))
                    errors += sum(result.status == Status.error for _, result in batch)
                    progress.update(len(batch), errors)
                    if on_batch is not None:
                        on_batch(len(batch))
        finally:
            progress.close()
            if journal is not None:
                journal.close()
    results = [done[doc.id] for doc in documents]
    stats.errors = sum(r.status == Status.error for r in results)
    stats.claims = sum(r.n_claims for r in results)
    stats.dropped = sum(r.dropped for r in results)
    table = ClaimTable(results, stats=stats)
    if out_dir is not None:
        table.write(out_dir)
        table.to_parquet(out_dir)
    stats.wall_seconds = time.perf_counter() - started
    return table


__all__ = [
    "ClaimExtractor", "RESULT_COLUMNS", "claim_rows", "claim_schema", "document_rows", "document_schema",
    "documents_from_batch", "extract_dataset", "result_schema", "run_ray",
]
