"""Scale-out on Ray Data: a ``map_batches`` extractor and the ``--runner ray`` runner.

From Python (needs the ``[ray]`` extra)::

    ds = ray.data.read_json("abstracts.jsonl")            # or read_parquet(...)
    results = ds.map_batches(ClaimExtractor, fn_constructor_kwargs={"base_url": URL},
                             concurrency=4, batch_size=64, batch_format="pyarrow")
    results.map_batches(claim_rows, batch_format="pyarrow").write_parquet("out/claims")
    results.map_batches(document_rows, batch_format="pyarrow").write_parquet("out/documents")

``ClaimExtractor`` returns one row per document: the ``documents.jsonl`` columns plus
``claims_json`` (the document's ``claims.jsonl`` rows as a JSON list), ``run_key``
(hash of model, endpoint, generation settings, code/prompt version, the task's identity and
text, as in the journal) and how the document was finished (model, cache, rules; requests and tokens).
``claim_rows`` and ``document_rows`` turn those rows into exactly the ``claims.jsonl`` and
``documents.jsonl`` columns.

``RayRunner`` is the runner core's runner for ``claims extract --runner ray``: the core
resumes, journals, counts and writes the outputs as for the local runner; this module only
ships documents to Ray actors and brings their outcomes back.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from paper_claims.errors import ClaimsError, StorageError
from paper_claims.model.backends import Backend, open_backend
from paper_claims.run.local import LocalRunner
from paper_claims.run.runner import Finish, Outcome, Work, run_key
from paper_claims.schemas import Document, DocumentResult
from paper_claims.schemas.columns import DOCUMENT_COLUMNS, claim_schema, document_schema
from paper_claims.settings import Settings
from paper_claims.text import Say, to_stderr

OUTCOME_COLUMNS = ["index", "how", "requests", "prompt_tokens", "completion_tokens"]
STOPPED = "stopped"  # the "how" of the row an actor returns when it cannot write the answer cache
RESULT_COLUMNS = DOCUMENT_COLUMNS + ["claims_json", "run_key"] + OUTCOME_COLUMNS
DOCUMENT_FIELD = "_claims_document"  # input columns RayRunner ships: the Document as JSON,
INDEX_FIELD = "_claims_index"  # its place in the input,
KEY_FIELD = "_claims_key"  # and its run key (computed once, by the driver)

PathLike = Union[str, Path]



# --- Arrow schemas (the column contract's, so every block and part file has the same types) -


def result_schema() -> Any:
    """The schema of ``ClaimExtractor`` output: document columns, ``claims_json``, ``run_key``."""
    import pyarrow as pa

    schema = document_schema().append(pa.field("claims_json", pa.string())).append(pa.field("run_key", pa.string()))
    for name in OUTCOME_COLUMNS:
        schema = schema.append(pa.field(name, pa.string() if name == "how" else pa.int64()))
    return schema


# --- batches in, batches out ---------------------------------------------------------------


def _as_arrow(batch: Any) -> Any:
    """A pyarrow Table from any Ray Data batch format (pyarrow, pandas, dict of numpy)."""
    import pyarrow as pa

    if isinstance(batch, pa.Table):
        return batch
    if isinstance(batch, dict):
        return pa.table({name: pa.array(list(values)) for name, values in batch.items()})
    return pa.Table.from_pandas(batch, preserve_index=False)  # pandas.DataFrame


def document_from_record(record: dict[str, Any]) -> Document:
    """A Document from one input row: shipped by the runner (the Document exactly as loaded), or a
    row of a dataset of your own, read as ``paper_claims.sources`` reads a record of a file with
    no place in one (``sources.records.row_document``)."""
    from paper_claims.sources.records import row_document

    if record.get(DOCUMENT_FIELD):
        return Document.model_validate_json(record[DOCUMENT_FIELD])
    return row_document(record)


def documents_from_batch(batch: Any) -> list[Document]:
    """The Documents of one Ray Data batch."""
    return [document_from_record(row) for row in _as_arrow(batch).to_pylist()]


def result_row(outcome: Outcome) -> dict[str, Any]:
    """One ``ClaimExtractor`` output row: the document row, its claims as JSON, its run key,
    and how it was finished (so the driver's run summary counts what the workers did)."""
    row = outcome.result.document_row()
    row["claims_json"] = json.dumps(outcome.result.claim_rows(), ensure_ascii=False)
    row["run_key"] = outcome.key
    row.update(index=outcome.index, how=outcome.how, requests=outcome.requests,
               prompt_tokens=outcome.prompt_tokens, completion_tokens=outcome.completion_tokens)
    return row


def outcome_from_row(row: dict[str, Any]) -> Outcome:
    """The ``Outcome`` back from a ``ClaimExtractor`` output row."""
    claims = [{k: v for k, v in claim.items() if k != "doc_id"} for claim in json.loads(row["claims_json"] or "[]")]
    fields = {k: v for k, v in row.items() if k in DocumentResult.model_fields}
    fields["claims"] = claims
    return Outcome(int(row.get("index") or 0), str(row.get("run_key") or ""), DocumentResult.model_validate(fields),
                   str(row.get("how") or "model"), requests=int(row.get("requests") or 0),
                   prompt_tokens=int(row.get("prompt_tokens") or 0),
                   completion_tokens=int(row.get("completion_tokens") or 0))


def _table(rows: list[dict[str, Any]], schema: Any) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=schema)


def claim_rows(batch: Any) -> Any:
    """``map_batches`` function: ``ClaimExtractor`` rows -> ``claims.jsonl`` rows (pyarrow)."""
    rows = [claim for text in _as_arrow(batch).column("claims_json").to_pylist() for claim in json.loads(text or "[]")]
    if rows and "hardware_canonical" not in rows[0]:  # a custom schema's rows: Arrow reads their types
        return _table(rows, None)
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
        from paper_claims.tasks import task_for

        self.settings = replace(settings, progress=False)
        self.task = task_for(self.settings)
        self._stack = contextlib.ExitStack()
        self._backend: Optional[Backend] = None

    def key(self, doc: Document) -> str:
        """The document's result key ("" for a bad record)."""
        return "" if doc.error else run_key(doc, self.task)

    def backend(self) -> Backend:
        """The endpoint, opened once per actor (an embedded server is started only once)."""
        if self._backend is None:
            self._backend = self._stack.enter_context(open_backend(self.settings, say=to_stderr))
        return self._backend

    def __call__(self, batch: Any) -> Any:
        rows = _as_arrow(batch).to_pylist()
        work = []
        for i, row in enumerate(rows):  # the driver ships each document's place and run key
            doc = document_from_record(row)
            work.append(Work(int(row.get(INDEX_FIELD, i)), doc, str(row.get(KEY_FIELD) or self.key(doc))))
        outcomes: list[Outcome] = []
        for item in work:
            if item.doc.error:
                outcomes.append(Outcome(item.index, "", DocumentResult.failed(item.doc, item.doc.error), "error"))
        runner = LocalRunner(self.task, backend=self.backend, say=to_stderr,
                             parse_in_worker=False)  # an actor is already one of many processes
        try:
            runner.run(iter([item for item in work if not item.doc.error]), outcomes.append)
        except StorageError as e:  # handed to the driver as a last row (Ray would lose the error's type), which stops
            outcomes.append(Outcome(sys.maxsize, "", DocumentResult.failed(work[0].doc, e.one_line()), STOPPED))
        return _table([result_row(o) for o in sorted(outcomes, key=lambda o: o.index)], result_schema())

    def close(self) -> None:
        """Stop what ``backend()`` started."""
        self._stack.close()
        self._backend = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def document_key(doc: Document, settings: Settings) -> str:
    """The journal key of a result (settings, endpoint, code and prompt version, text); "" for a bad record."""
    from paper_claims.tasks import task_for

    return "" if doc.error else run_key(doc, task_for(settings))


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


# --- the --runner ray runner ---------------------------------------------------------------


def require_ray() -> None:
    """Raise a ClaimsError saying how to install Ray when it is missing."""
    try:
        import pyarrow  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError as e:
        raise ClaimsError(f"--runner ray needs the [ray] extra: pip install -e '.[ray]' in a clone of paper-claims ({e})") from None


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


def _document_record(work: Work) -> dict[str, Any]:
    return {"id": work.doc.id, INDEX_FIELD: work.index, KEY_FIELD: work.key, DOCUMENT_FIELD: work.doc.model_dump_json()}


def default_batch_size(concurrency: int) -> int:
    """Enough documents to keep a worker's requests busy, few enough to spread and report."""
    return max(4 * concurrency, 16)


class RayRunner:
    """The runner core's runner on Ray Data: the documents to finish go to ``workers`` actors
    (``ClaimExtractor``) a window at a time; each finished batch comes back as outcomes.

    ``address``: a Ray cluster, else the running or a new local instance. The cache directory
    must be one every worker can reach (the runner resolves it before).
    """

    def __init__(self, settings: Settings, *, address: Optional[str] = None, workers: int = 2,
                 batch_size: Optional[int] = None, num_cpus_per_worker: float = 1.0, say: Say = to_stderr) -> None:
        require_ray()
        self.settings, self.address, self.workers = settings, address, workers
        self.batch_size = batch_size or default_batch_size(settings.resolved_concurrency)
        self.num_cpus = num_cpus_per_worker
        self.say = say
        self.window = self.batch_size * workers * 4  # documents shipped to Ray per dataset

    def run(self, work: Iterator[Work], finish: Finish) -> None:
        import ray.data

        said = False
        with ray_session(self.address):
            context = ray.data.DataContext.get_current()
            context.enable_progress_bars = False  # the runner's bar counts documents across all workers
            if hasattr(context, "print_on_execution_start"):
                context.print_on_execution_start = False
            for chunk in _chunks(work, self.window):
                if not said:
                    self.say(f"Ray: {self.workers} workers x {self.settings.resolved_concurrency} requests, "
                             f"batches of {self.batch_size}")
                    said = True
                blocks = max(1, math.ceil(len(chunk) / self.batch_size))
                dataset = ray.data.from_items([_document_record(w) for w in chunk], override_num_blocks=blocks)
                results = extract_dataset(dataset, self.settings, workers=self.workers, batch_size=self.batch_size,
                                          num_cpus=self.num_cpus)
                for batch in results.iter_batches(batch_size=None, batch_format="pyarrow"):
                    for row in batch.to_pylist():
                        if row.get("how") == STOPPED:  # a worker could not write the shared answer cache
                            raise StorageError(str(row.get("error") or "the answer cache cannot be written"))
                        finish(outcome_from_row(row))


def _chunks(work: Iterator[Work], size: int) -> Iterator[list[Work]]:
    chunk: list[Work] = []
    for item in work:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


__all__ = [
    "ClaimExtractor", "RESULT_COLUMNS", "RayRunner", "claim_rows", "claim_schema", "document_rows",
    "document_schema", "documents_from_batch", "extract_dataset", "result_schema",
]
