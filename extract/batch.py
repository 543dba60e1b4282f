"""The batch runner: cache and journal first, then bounded concurrent model calls."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from extract.backends import Backend, endpoint_identity, open_backend
from extract.cache import AnswerCache, cache_key
from extract.errors import ClaimsError
from extract.grounding import ground
from extract.journal import Journal
from extract.labeling import LabelAnswer, make_client, request_labels
from extract.prompting import labels_schema, render_messages
from extract.quantities import find_quantities
from extract.settings import Settings
from schemas import Document, DocumentLabels, DocumentResult, Mention, Status

Say = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class RunStats:
    """What a run did, for the closing summary."""

    documents: int = 0
    errors: int = 0
    claims: int = 0
    llm_calls: int = 0
    cache_hits: int = 0
    resumed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dropped: int = 0
    wall_seconds: float = 0.0

    @property
    def seconds_per_document(self) -> float:
        return self.wall_seconds / self.documents if self.documents else 0.0

    def summary(self) -> str:
        return (
            f"{self.documents} documents ({self.errors} failed), {self.claims} claims, "
            f"{self.llm_calls} LLM calls, {self.cache_hits} cache hits, {self.resumed} resumed, "
            f"{self.prompt_tokens}+{self.completion_tokens} tokens, {self.dropped} ungrounded answers dropped, "
            f"{self.wall_seconds:.1f} s wall, {self.seconds_per_document:.2f} s per abstract"
        )


@dataclass
class _Job:
    """One document prepared for the model."""

    doc: Document
    mentions: list[Mention]
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    key: str
    result: Optional[DocumentResult] = None
    answer: Optional[LabelAnswer] = field(default=None, repr=False)


def _error_result(doc: Document, message: str, attempts: int = 0) -> DocumentResult:
    return DocumentResult(
        doc_id=doc.id, source=doc.source, title=doc.title, status=Status.error,
        error=" ".join(message.split()), attempts=attempts, text=doc.text,
    )


def _result(doc: Document, mentions: Sequence[Mention], labels: DocumentLabels, attempts: int) -> DocumentResult:
    grounded = ground(doc.text, mentions, labels)
    return DocumentResult(
        doc_id=doc.id, source=doc.source, title=doc.title, system=grounded.system,
        datasets=grounded.datasets, hardware=grounded.hardware, models=grounded.models,
        claims=grounded.claims, status=Status.ok, attempts=attempts, dropped=grounded.dropped,
        text=doc.text,
    )


def prepare(doc: Document, settings: Settings, endpoint: str, nonce: Optional[str] = None) -> _Job:
    """Parse the document's numbers and build its request and cache key."""
    mentions = find_quantities(doc.text)
    messages = render_messages(doc.text, mentions, nonce=nonce)
    schema = labels_schema(len(mentions))
    key = cache_key(model=settings.model_name, endpoint=endpoint, messages=messages,
                    schema=schema, params=settings.generation_params())
    return _Job(doc=doc, mentions=mentions, messages=messages, schema=schema, key=key)


class _Progress:
    """A tqdm bar on stderr when asked for, silent otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar: Any = None
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="doc", desc="extracting", file=sys.stderr, dynamic_ncols=True)

    def update(self, n: int = 1, **postfix: Any) -> None:
        if self.bar is not None:
            self.bar.update(n)
            if postfix:
                self.bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


async def _label_all(jobs: list[_Job], backend: Backend, settings: Settings, cache: AnswerCache,
                     journal: Optional[Journal], stats: RunStats, progress: _Progress) -> None:
    client = make_client(backend, settings)
    semaphore = asyncio.Semaphore(settings.resolved_concurrency)

    async def one(job: _Job) -> None:
        async with semaphore:
            try:
                answer = await request_labels(client, backend, settings, job.messages, job.schema,
                                              len(job.mentions), job.doc.id)
            except ClaimsError as e:
                stats.llm_calls += e.attempts or 1
                job.result = _error_result(job.doc, e.one_line(), e.attempts or 0)
                progress.update(errors=stats.errors + 1)
                stats.errors += 1
                return
        stats.llm_calls += answer.requests
        stats.prompt_tokens += answer.prompt_tokens
        stats.completion_tokens += answer.completion_tokens
        labels_json = answer.labels.model_dump(mode="json")
        cache.set(job.key, labels_json)
        job.result = _result(job.doc, job.mentions, answer.labels, answer.attempts)
        if journal is not None:
            journal.append(job.key, job.result)
        progress.update()

    await asyncio.gather(*(one(job) for job in jobs))


def run_batch(
    documents: Sequence[Document],
    settings: Settings,
    *,
    journal: Optional[Journal] = None,
    say: Say = _stderr,
    nonce_per_document: bool = False,
) -> tuple[list[DocumentResult], RunStats]:
    """Extract every document: journal and cache first, the model only for what is left.

    Results come back in input order; a document that fails becomes an error result
    and the batch goes on. ``nonce_per_document`` (benchmarks only) defeats the
    server's prefix reuse.
    """
    started = time.perf_counter()
    stats = RunStats(documents=len(documents))
    endpoint = endpoint_identity(settings)
    finished = journal.load() if journal is not None else {}
    jobs: list[_Job] = []
    results: list[Optional[DocumentResult]] = []
    pending: list[_Job] = []
    with AnswerCache(settings.resolved_cache_dir, enabled=settings.use_cache) as cache:
        for index, doc in enumerate(documents):
            if doc.error:
                results.append(_error_result(doc, doc.error))
                stats.errors += 1
                jobs.append(None)  # type: ignore[arg-type]
                continue
            job = prepare(doc, settings, endpoint, nonce=f"{index}-{time.time_ns()}" if nonce_per_document else None)
            jobs.append(job)
            results.append(None)
            previous = finished.get(doc.id)
            if previous is not None and previous[0] == job.key and previous[1].status == Status.ok:
                job.result = previous[1]
                stats.resumed += 1
                continue
            cached = cache.get(job.key)
            if cached is not None:
                labels = DocumentLabels.model_validate(cached, context={"n_mentions": len(job.mentions)})
                job.result = _result(doc, job.mentions, labels, attempts=0)
                stats.cache_hits += 1
                if journal is not None:
                    journal.append(job.key, job.result)
                continue
            pending.append(job)
        if pending:
            progress = _Progress(len(pending), settings.progress)
            try:
                with open_backend(settings, say=say) as backend:
                    asyncio.run(_label_all(pending, backend, settings, cache, journal, stats, progress))
            finally:
                progress.close()
    final = [job.result if job is not None else result for job, result in zip(jobs, results)]
    stats.claims = sum(r.n_claims for r in final if r is not None)
    stats.dropped = sum(r.dropped for r in final if r is not None)
    stats.wall_seconds = time.perf_counter() - started
    return [r for r in final if r is not None], stats
