"""The Python API: extract_claims and quantities."""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Union

from paper_claims.model.backends import Backend
from paper_claims.run.runner import RunStats, run_batch
from paper_claims.errors import RunStopped
from paper_claims.sources.inputs import Source, to_documents
from paper_claims.run.journal import Journal
from paper_claims.parse.quantities import find_quantities
from paper_claims.settings import Settings
from paper_claims.outputs.table import ClaimTable, atomic_write_text


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _in_running_loop() -> bool:
    """True inside a running event loop (a Jupyter cell, an async web handler)."""
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
    progress: bool = False,
    report: bool = False,
    settings: Optional[Settings] = None,
    say: Callable[[str], None] = _stderr,
    engine: str = "local",
    ray_address: Optional[str] = None,
    workers: Optional[int] = None,
    max_unreachable: Optional[int] = None,
    text_column: Optional[str] = None,
    id_column: Optional[str] = None,
    backend: Optional[Backend] = None,
) -> ClaimTable:
    """Extract grounded claims from files, folders, abstract strings, ``Document`` objects,
    records (dicts with ``id`` and ``text``/``abstract``) or a pandas DataFrame (``text_column``,
    ``id_column`` choose its columns).

    Works inside a running event loop too (a Jupyter notebook): the run then goes to a worker
    thread; ``await aextract_claims(...)`` is the async form. ``backend``: a backend already
    open (``Extractor`` passes its own), else one is opened only if a document needs the model.

    Unset options come from ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``CLAIMS_MODEL`` and
    ``CLAIMS_CACHE_DIR``; with no endpoint configured the embedded local model answers.
    With ``out``, finished documents are journaled as they complete (a rerun resumes)
    and ``claims.csv``, ``claims.jsonl`` and ``documents.jsonl`` are written there.
    ``engine="ray"`` runs on Ray Data (``ray_address``: a cluster, else a local instance)
    with ``workers`` actors and also writes ``claims.parquet`` and ``documents.parquet``.

    Raises ``RunStopped`` (after writing the finished documents to ``out``) when the model
    backend dies: the embedded server crashed, or ``max_unreachable`` documents in a row
    (default 3) could not connect to the endpoint.
    """
    if _in_running_loop():  # asyncio.run cannot nest: run in a thread of our own, where no loop runs
        options = dict(locals())
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims") as pool:
            return pool.submit(extract_claims, **options).result()
    if settings is None:
        settings = Settings.from_env(
            model=model, base_url=base_url, api_key=api_key, model_path=model_path,
            cache_dir=cache_dir, concurrency=concurrency, use_cache=use_cache, progress=progress,
            max_unreachable=max_unreachable,
        )
    documents = to_documents(sources, text_column=text_column, id_column=id_column)
    if engine == "ray":
        from paper_claims.run.ray import run_ray

        table = run_ray(documents, settings, out, address=ray_address, workers=workers or 2, say=say)
        if out is not None and report:
            from paper_claims.outputs.report import write_report

            write_report(out)
        return table
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r} (use 'local' or 'ray')")
    journal = Journal(Path(out)) if out is not None else None
    try:
        results, stats = run_batch(documents, settings, journal=journal, say=say, backend=backend)
    except RunStopped as e:  # the model died: the finished documents are written, then the error
        if out is not None:
            ClaimTable(e.results).write(out)
        raise
    finally:
        if journal is not None:
            journal.close()
    table = ClaimTable(results, stats=stats)
    if out is not None:
        table.write(out)
        if report:
            from paper_claims.outputs.report import write_report

            write_report(out)
    return table


async def aextract_claims(sources: Union[Source, Iterable[Source]], **options: Any) -> ClaimTable:
    """``extract_claims`` for async code: awaits the run without blocking the event loop."""
    return await asyncio.to_thread(extract_claims, sources, **options)


def iter_quantities(sources: Union[Source, Iterable[Source]]) -> Iterator[dict[str, Any]]:
    """The parser alone: one dict per numeric mention with doc_id and offsets."""
    for doc in to_documents(sources):
        for mention in find_quantities(doc.text):
            row: dict[str, Any] = {"doc_id": doc.id}
            row.update(mention.model_dump(mode="json"))
            yield row


def extract_quantities(sources: Union[Source, Iterable[Source]], out: Optional[Union[str, Path]] = None) -> list[dict[str, Any]]:
    """All mentions of the sources; written as JSONL to ``out`` when given."""
    import json

    rows = list(iter_quantities(sources))
    if out is not None:
        atomic_write_text(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return rows


__all__ = ["aextract_claims", "extract_claims", "extract_quantities", "iter_quantities", "ClaimTable", "RunStats", "Settings"]
