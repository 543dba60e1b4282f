"""The batch runner: cache and journal first, then bounded concurrent model calls."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence

from paper_claims.model.backends import Backend, endpoint_identity, open_backend
from paper_claims.run.cache import AnswerCache, cache_key
from paper_claims.errors import ClaimsError, EndpointDown, RunStopped
from paper_claims.grounding import ground
from paper_claims.run.journal import Journal
from paper_claims.model.request import make_client, request_labels
from paper_claims.model.prompt import canonical_json, render_messages, request_schema
from paper_claims.parse.quantities import find_quantities
from paper_claims.parse.selection import candidate_mentions
from paper_claims.settings import Settings
from paper_claims.run.version import code_version
from paper_claims.schemas import Document, DocumentLabels, DocumentResult, Mention, Status

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
    without_model: int = 0
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
            f"{self.without_model} without numbers (no model needed), "
            f"{self.prompt_tokens}+{self.completion_tokens} tokens, {self.dropped} ungrounded answers dropped, "
            f"{self.wall_seconds:.1f} s wall, {self.seconds_per_document:.2f} s per abstract"
        )


@dataclass
class _Job:
    """One document on its way through the runner; parsed only when needed."""

    doc: Document
    run_key: str
    mentions: list[Mention] = field(default_factory=list)
    messages: list[dict[str, str]] = field(default_factory=list)
    schema: dict[str, Any] = field(default_factory=dict)
    key: str = ""
    result: Optional[DocumentResult] = None


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


def run_key(doc: Document, settings: Settings, endpoint: str) -> str:
    """Identifies a finished result in the journal without parsing the document again."""
    payload = {"model": settings.model_name, "endpoint": endpoint, "code": code_version(),
               "params": settings.generation_params(), "without_mentions": settings.label_without_mentions,
               "text": doc.text}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def prepare(job: _Job, settings: Settings, endpoint: str, nonce: Optional[str] = None) -> None:
    """Parse the document's numbers and build its request and answer-cache key."""
    job.mentions = candidate_mentions(job.doc.text, find_quantities(job.doc.text))
    job.messages = render_messages(job.doc.text, job.mentions, nonce=nonce)
    job.schema = request_schema(job.doc.text, job.mentions)
    job.key = cache_key(model=settings.model_name, endpoint=endpoint, messages=job.messages,
                        schema=job.schema, params=settings.generation_params())


class _Progress:
    """A tqdm bar on stderr when asked for, silent otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar: Any = None
        if enabled and total:
            from tqdm.auto import tqdm  # a widget in notebooks, text elsewhere

            self.bar = tqdm(total=total, unit="doc", desc="extracting", file=sys.stderr, dynamic_ncols=True)

    def update(self, n: int = 1, **postfix: Any) -> None:
        if self.bar is not None:
            self.bar.update(n)
            if postfix:
                self.bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _unreachable(error: BaseException) -> bool:
    """True when a document failed because no connection to the endpoint could be made
    (refused, DNS, TLS); a dropped connection, a timeout, a rate limit or a server error
    comes from a live server."""
    import socket
    import ssl

    current: Optional[BaseException] = error.__cause__
    for _ in range(6):
        if current is None:
            return False
        # httpx's ConnectError (openai may vendor httpx under another module name)
        if type(current).__name__ == "ConnectError" or isinstance(
                current, (ConnectionRefusedError, socket.gaierror, ssl.SSLError)):
            return True
        current = current.__cause__ or current.__context__
    return False


class _Watch:
    """What stops a run: the backend's own failure check, or an endpoint that is down."""

    def __init__(self, backend: Backend, settings: Settings, stats: RunStats) -> None:
        self.backend = backend
        self.stats = stats
        self.limit = max(1, settings.max_unreachable)
        self.unreachable = 0
        self.pending: list[tuple[_Job, ClaimsError]] = []
        self.fatal: Optional[BaseException] = None

    def document_failed(self, job: "_Job", error: ClaimsError) -> str:
        """What to do with a failed document: "row" (an error row now), "held" (it could not
        connect: an error row only once a later document reaches the endpoint, or the run
        ends, so a run stopped for a dead endpoint leaves none) or "stop" (the run must end)."""
        if self.backend_failure() is not None:
            return "stop"
        if not _unreachable(error):
            self.flush()
            return "row"
        self.pending.append((job, error))
        self.unreachable += 1
        if self.unreachable >= self.limit:
            cause = error.__cause__
            self.fatal = EndpointDown(
                f"the endpoint {self.backend.base_url} is unreachable: {self.unreachable} documents in a row "
                f"failed to connect ({type(cause).__name__}: {' '.join(str(cause).split())[:160]})"
            )
            return "stop"
        return "held"

    def document_done(self) -> None:
        self.flush()

    def flush(self) -> None:
        """The endpoint answered after all: earlier connection failures are error rows."""
        self.unreachable = 0
        for job, error in self.pending:
            self.error_row(job, error)
        self.pending.clear()

    def error_row(self, job: "_Job", error: ClaimsError) -> None:
        """The document failed: its error row, counted."""
        job.result = _error_result(job.doc, error.one_line(), error.attempts or 0)
        self.stats.llm_calls += error.attempts or 1
        self.stats.errors += 1

    def backend_failure(self) -> Optional[BaseException]:
        if self.fatal is None and self.backend.failure is not None:
            self.fatal = self.backend.failure()
        return self.fatal


async def _label_all(jobs: Iterator[_Job], backend: Backend, settings: Settings, cache: AnswerCache,
                     journal: Optional[Journal], stats: RunStats, progress: _Progress) -> None:
    """Label the jobs the iterator yields; it prepares them lazily, so parsing later
    documents overlaps the requests already in flight.

    Raises the backend's failure (the embedded server died) or ``EndpointDown`` as soon as
    either is seen, cancelling the requests in flight; their documents get no result.
    """
    client = make_client(backend, settings)
    semaphore = asyncio.Semaphore(settings.resolved_concurrency)
    watch = _Watch(backend, settings, stats)
    tasks: list[asyncio.Task[None]] = []

    async def one(job: _Job) -> None:
        async with semaphore:
            try:
                answer = await request_labels(client, backend, settings, job.messages, job.schema,
                                              len(job.mentions), job.doc.id)
            except ClaimsError as e:
                decision = watch.document_failed(job, e)
                if decision == "stop":
                    main.cancel()
                    return
                if decision == "held":
                    progress.update(errors=stats.errors + len(watch.pending))
                    return
                watch.error_row(job, e)
                progress.update(errors=stats.errors)
                return
            except Exception as e:  # an unforeseen failure stays this document's problem
                job.result = _error_result(job.doc, f"unexpected {type(e).__name__}: {e}")
                stats.errors += 1
                progress.update(errors=stats.errors)
                return
        watch.document_done()
        stats.llm_calls += answer.requests
        stats.prompt_tokens += answer.prompt_tokens
        stats.completion_tokens += answer.completion_tokens
        labels_json = answer.labels.model_dump(mode="json")
        cache.set(job.key, labels_json)
        job.result = _result(job.doc, job.mentions, answer.labels, answer.attempts)
        _remember(cache, job, without_model=False)
        if journal is not None:
            journal.append(job.run_key, job.result)
        progress.update()

    async def feed() -> None:
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims-parse") as parser:
            while True:  # parse the next documents in a thread, while the requests in flight wait
                job = await loop.run_in_executor(parser, next, jobs, None)
                if job is None:
                    break
                tasks.append(asyncio.create_task(one(job)))
        await asyncio.gather(*tasks)

    async def watch_backend() -> None:
        while watch.backend_failure() is None:
            await asyncio.sleep(0.25)
        main.cancel()

    main = asyncio.ensure_future(feed())
    watcher = asyncio.ensure_future(watch_backend()) if backend.failure is not None else None
    try:
        await main
    except asyncio.CancelledError:
        if watch.fatal is None:
            raise
    finally:
        for task in [*tasks, *([watcher] if watcher else [])]:
            task.cancel()
        await asyncio.gather(*tasks, *([watcher] if watcher else []), return_exceptions=True)
        with contextlib.suppress(Exception):  # close the connections in this event loop
            await client.close()
    if watch.fatal is not None:
        raise watch.fatal
    watch.flush()


def _misses(
    jobs: list[_Job], settings: Settings, endpoint: str, cache: AnswerCache,
    journal: Optional[Journal], stats: RunStats, progress: _Progress, nonce_per_document: bool,
) -> Iterator[_Job]:
    """Fill what the rules or the cache can answer, one document at a time; yield the rest.

    A document finished before under the same run key (text, settings, code version) comes
    straight from the cache, without parsing it again.
    """
    for index, job in enumerate(jobs):
        if job.result is not None:  # resumed from the journal
            continue
        finished = None if nonce_per_document else _finished(cache, job)
        if finished is not None:
            job.result, without_model = finished
            stats.without_model += without_model
            stats.cache_hits += not without_model
        else:
            prepare(job, settings, endpoint, nonce=f"{index}-{time.time_ns()}" if nonce_per_document else None)
            if not job.mentions and not settings.label_without_mentions:
                job.result = _result(job.doc, job.mentions, DocumentLabels(), attempts=0)
                stats.without_model += 1
            else:
                cached = cache.get(job.key)
                if cached is None:
                    yield job
                    continue
                labels = DocumentLabels.model_validate(cached, context={"n_mentions": len(job.mentions)})
                job.result = _result(job.doc, job.mentions, labels, attempts=0)
                stats.cache_hits += 1
            _remember(cache, job, without_model=not job.mentions)
        if journal is not None:
            journal.append(job.run_key, job.result)
        progress.update()


RESULT_KEY = "result:"


def _finished(cache: AnswerCache, job: _Job) -> Optional[tuple[DocumentResult, bool]]:
    """The result this document got before under the same run key, as this document's."""
    cached = cache.get(RESULT_KEY + job.run_key)
    if cached is None:
        return None
    try:
        result = DocumentResult.model_validate(cached["result"])
    except (ValueError, KeyError, TypeError):
        return None
    update = {"doc_id": job.doc.id, "source": job.doc.source, "title": job.doc.title, "attempts": 0}
    return result.model_copy(update=update), bool(cached.get("without_model"))


def _remember(cache: AnswerCache, job: _Job, without_model: bool) -> None:
    """Keep a finished result under its run key, so a rerun elsewhere need not parse again."""
    if job.result is not None and job.result.status == Status.ok:
        cache.set(RESULT_KEY + job.run_key, {"result": job.result.model_dump(mode="json"),
                                              "without_model": without_model})


def _resume(jobs: list[_Job], journal: Optional[Journal], stats: RunStats) -> None:
    """Take finished results from the journal when their key still matches."""
    finished = journal.load() if journal is not None else {}
    for job in jobs:
        previous = finished.get(job.doc.id)
        if previous is not None and previous[0] == job.run_key and previous[1].status == Status.ok:
            job.result = previous[1]
            stats.resumed += 1


def run_batch(
    documents: Sequence[Document],
    settings: Settings,
    *,
    journal: Optional[Journal] = None,
    say: Say = _stderr,
    nonce_per_document: bool = False,
    backend: Optional[Backend] = None,
) -> tuple[list[DocumentResult], RunStats]:
    """Extract every document: journal, rules and cache first, the model only for the rest.

    Results come back in input order; a document that fails becomes an error result
    and the batch goes on. ``backend`` reuses an endpoint that is already open (else
    one is opened only if some document needs the model). ``nonce_per_document``
    (benchmarks only) defeats the server's prefix reuse.
    """
    started = time.perf_counter()
    stats = RunStats(documents=len(documents))
    endpoint = endpoint_identity(settings)
    jobs = [_Job(doc=doc, run_key=run_key(doc, settings, endpoint)) for doc in documents if not doc.error]
    _resume(jobs, journal, stats)
    remaining = sum(1 for job in jobs if job.result is None)
    stopped: Optional[ClaimsError] = None
    with AnswerCache(settings.resolved_cache_dir, enabled=settings.use_cache) as cache, \
            contextlib.closing(_Progress(remaining, settings.progress)) as progress:
        misses = _misses(jobs, settings, endpoint, cache, journal, stats, progress, nonce_per_document)
        first = next(misses, None)
        if first is not None:  # some document needs the model: open it only now
            with contextlib.ExitStack() as stack:
                if backend is None:
                    backend = stack.enter_context(open_backend(settings, say=say))
                try:
                    asyncio.run(_label_all(itertools.chain([first], misses), backend, settings, cache,
                                           journal, stats, progress))
                except ClaimsError as e:  # the backend died: keep what finished, stop now
                    stopped = e
    if stopped is not None:
        finished = [job.result for job in jobs if job.result is not None]
        where = " (kept in the output journal; rerun the same command to resume)" if journal is not None else ""
        raise RunStopped(f"{stopped.one_line()}; run stopped: {len(finished)} of {len(documents)} "
                         f"documents finished{where}", results=finished) from stopped
    by_id = {id(job.doc): job.result for job in jobs}
    results = [
        _error_result(doc, doc.error) if doc.error else by_id[id(doc)]
        for doc in documents
    ]
    final = [r for r in results if r is not None]
    stats.errors = sum(1 for r in final if r.status == Status.error)
    stats.claims = sum(r.n_claims for r in final)
    stats.dropped = sum(r.dropped for r in final)
    stats.wall_seconds = time.perf_counter() - started
    return final, stats
