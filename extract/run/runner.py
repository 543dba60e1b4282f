"""The runner core every runner shares (local, Ray, batch): ``run(documents, task, runner, ...)``,
the ``Runner`` protocol, ``run_key`` and the sinks (``Collect``, ``ConfidentOnly``).

Inputs are read lazily. A document finished before comes from the output's journal (same id
and run key) or from the result cache (same run key, any folder); the runner finishes the
rest, a bounded window of documents at a time. Every finished document is journaled as it
completes, counted, and handed to the sinks in input order, so memory does not grow with
the input.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from functools import lru_cache
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Protocol, Sequence

from paper_claims.errors import ClaimsError, RunStopped, StorageError
from paper_claims.model.prompt_files import system_prompt
from paper_claims.run.cache import AnswerCache
from paper_claims.run.journal import Journal
from paper_claims.run.version import code_version
from paper_claims.schemas import Document, DocumentResult, Status
from paper_claims.text import canonical_json

if TYPE_CHECKING:
    from paper_claims.tasks import Task

MAX_LISTED_ERRORS = 10
RESULT_KEY = "result:"  # answer-cache prefix of finished results, by run key


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
    first_errors: list[tuple[str, str]] = field(default_factory=list)  # (doc_id, error), the first few

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
class Outcome:
    """A finished document and how it was finished: "model", "cache" (its answer was
    cached), "rules" (no number needed the model), "resumed", or "error"."""

    index: int
    key: str
    result: DocumentResult
    how: str
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stored: bool = False  # already in the result cache


@dataclass
class Work:
    """A document the runner must finish: its place in the input and its run key."""

    index: int
    doc: Document
    key: str


Finish = Callable[[Outcome], None]


class Runner(Protocol):
    """Finishes documents: calls ``finish`` once per work item, from any thread, in any order.

    ``window`` bounds how far the input may run ahead of the first unfinished document.
    Raising a ``ClaimsError`` stops the run (the model died).
    """

    window: int

    def run(self, work: Iterator[Work], finish: Finish) -> None: ...


class Sink(Protocol):
    """Where finished results go, in input order. ``abort`` gives up (a run that cannot
    write its outputs): no file is put in place, no temporary file is left."""

    def add(self, result: DocumentResult) -> None: ...

    def close(self) -> None: ...

    def abort(self) -> None: ...


class Collect:
    """A sink that keeps every result (for the API's ClaimTable)."""

    def __init__(self) -> None:
        self.results: list[DocumentResult] = []

    def add(self, result: DocumentResult) -> None:
        self.results.append(result)

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


class ConfidentOnly:
    """A sink that hands on only the claims whose confidence is at least ``threshold`` (claims
    without one, of a schema of your own, are kept)."""

    def __init__(self, sink: Sink, threshold: float) -> None:
        self.sink, self.threshold = sink, threshold

    def add(self, result: DocumentResult) -> None:
        kept = [c for c in result.claims if getattr(c, "confidence", None) is None or c.confidence >= self.threshold]
        self.sink.add(result if len(kept) == len(result.claims) else result.model_copy(update={"claims": kept}))

    def close(self) -> None:
        self.sink.close()

    def abort(self) -> None:
        self.sink.abort()


def run_key(doc: Document, task: "Task") -> str:
    """Identifies a finished result (journal, result cache) without parsing the document again:
    model, endpoint, code and prompt version, generation settings, the task's own identity
    (a schema of your own, another fill) and text."""
    settings = task.settings
    payload = {"model": settings.model_name, "endpoint": task.endpoint, "code": code_version(),
               "params": settings.generation_params(), "without_mentions": settings.label_without_mentions,
               "text": doc.text}
    if settings.prompt_file is not None:  # the packaged prompts are in the code version
        payload["prompt"] = _digest(system_prompt(settings.prompt_file))
    payload.update(task.identity())
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


@lru_cache(maxsize=8)
def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Progress:
    """A tqdm bar on stderr (a widget in notebooks) when asked for, silent otherwise."""

    def __init__(self, total: Optional[int], enabled: bool, desc: str = "extracting") -> None:
        self.bar: Any = None
        if enabled and total != 0:
            from paper_claims.progress import progress_bar

            self.bar = progress_bar(total=total, unit="doc", desc=desc, dynamic_ncols=True)

    def update(self, errors: int) -> None:
        if self.bar is not None:
            self.bar.update(1)
            if errors:
                self.bar.set_postfix(errors=errors, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Finisher:
    """Finished documents from any thread: counted, journaled, remembered in the result
    cache, and handed to the sinks in input order (out-of-order ones wait, at most a window).

    When one of them cannot be written (``StorageError``: a full disk, a vanished folder),
    the error is kept as ``failure``, raised to the caller (the runner must stop, as for a
    dead model), and the finisher closes: nothing more is written or waited for.
    """

    def __init__(self, sinks: Sequence[Sink], journal: Optional[Journal], cache: AnswerCache,
                 stats: RunStats, progress: Progress, window: int) -> None:
        self.sinks, self.journal, self.cache = sinks, journal, cache
        self.stats, self.progress, self.window = stats, progress, max(1, window)
        self.waiting: dict[int, DocumentResult] = {}
        self.next = 0
        self.count = 0
        self.closed = False
        self.failure: Optional[StorageError] = None
        self.condition = threading.Condition()

    def __call__(self, outcome: Outcome) -> None:
        with self.condition:
            if self.closed:  # a straggler of a stopped run: its document is done again next time
                return
            try:
                self._finish(outcome)
            except StorageError as e:
                self.failure = e
                self.closed = True
                self.condition.notify_all()
                raise

    def _finish(self, outcome: Outcome) -> None:
        result = outcome.result
        if result.status == Status.ok and outcome.how != "resumed":
            if self.journal is not None:
                self.journal.append(outcome.key, result)
            if not outcome.stored:
                self.cache.set(RESULT_KEY + outcome.key, {"result": result.model_dump(mode="json"),
                                                          "without_model": outcome.how == "rules"})
        self.count += 1
        self._count(outcome)
        self.waiting[outcome.index] = result
        while self.next in self.waiting:
            self._emit(self.waiting.pop(self.next))
            self.next += 1
        self.progress.update(self.stats.errors)
        self.condition.notify_all()

    def _count(self, outcome: Outcome) -> None:
        stats, result = self.stats, outcome.result
        stats.llm_calls += outcome.requests
        stats.prompt_tokens += outcome.prompt_tokens
        stats.completion_tokens += outcome.completion_tokens
        stats.cache_hits += outcome.how == "cache"
        stats.without_model += outcome.how == "rules"
        stats.resumed += outcome.how == "resumed"
        stats.claims += result.n_claims
        stats.dropped += result.dropped
        stats.errors += result.status == Status.error

    def _emit(self, result: DocumentResult) -> None:
        """Hand one result on, in input order."""
        if result.status == Status.error and len(self.stats.first_errors) < MAX_LISTED_ERRORS:
            self.stats.first_errors.append((result.doc_id, result.error or ""))
        for sink in self.sinks:
            sink.add(result)

    def wait_for_room(self, index: int) -> bool:
        """Block until ``index`` is within the window of the first unfinished document;
        False once the run is closing."""
        with self.condition:
            while not self.closed and index - self.next >= self.window:
                self.condition.wait(0.5)
            return not self.closed

    def close(self) -> None:
        """Stop feeding the runner; hand on what finished out of order (a stopped run),
        unless the outputs failed."""
        with self.condition:
            self.closed = True
            if self.failure is None:
                try:
                    for index in sorted(self.waiting):
                        self._emit(self.waiting.pop(index))
                except StorageError as e:
                    self.failure = e
            self.waiting.clear()
            self.condition.notify_all()

    def close_sinks(self) -> None:
        """Put the sinks' outputs in place; abort them all once one cannot be written."""
        for sink in self.sinks:
            if self.failure is not None:
                sink.abort()
                continue
            try:
                sink.close()
            except StorageError as e:
                self.failure = e
                sink.abort()


def _cached_result(cache: AnswerCache, doc: Document, key: str) -> Optional[tuple[DocumentResult, bool]]:
    """The result a document got before under the same run key, as this document's."""
    cached = cache.get(RESULT_KEY + key)
    if cached is None:
        return None
    try:
        result = DocumentResult.model_validate(cached["result"])
    except (ValueError, KeyError, TypeError):
        return None
    update = {"doc_id": doc.id, **doc.metadata(), "attempts": 0}
    return result.model_copy(update=update), bool(cached.get("without_model"))


def _work(documents: Iterable[Document], task: "Task", journal: Optional[Journal],
          cache: AnswerCache, finish: _Finisher, stats: RunStats, use_result_cache: bool) -> Iterator[Work]:
    """The documents the runner must finish, read lazily; bad records, journaled and cached
    results are finished here without the runner."""
    finished = journal.index() if journal is not None else {}
    for index, doc in enumerate(documents):
        if not finish.wait_for_room(index):
            return
        stats.documents += 1
        if doc.error:
            finish(Outcome(index, "", DocumentResult.failed(doc, doc.error), "error"))
            continue
        key = run_key(doc, task)
        previous = finished.pop(doc.id, None)
        if previous is not None and previous[0] == key and journal is not None:
            finish(Outcome(index, key, journal.read_at(previous[1]), "resumed"))
            continue
        cached = _cached_result(cache, doc, key) if use_result_cache else None
        if cached is not None:
            result, without_model = cached
            finish(Outcome(index, key, result, "rules" if without_model else "cache", stored=True))
            continue
        yield Work(index, doc, key)


def run(
    documents: Iterable[Document],
    task: "Task",
    runner: Runner,
    *,
    sinks: Sequence[Sink] = (),
    journal: Optional[Journal] = None,
    total: Optional[int] = None,
    use_result_cache: bool = True,
) -> RunStats:
    """Finish every document of the task: journal and cache first, the runner for the rest.

    Results reach the sinks in input order; a document that fails becomes an error row and
    the run goes on. If the runner stops (the model died), the finished documents are
    handed on, the sinks closed, and ``RunStopped`` raised. If an output cannot be written
    (the journal, a sink or the cache: a full disk, a vanished folder), the run stops as
    soon as the runner does, the sinks are aborted (no temporary file left) and a
    ``StorageError`` names the file and the cause; the journal keeps what finished.
    ``total`` (when known) sizes the progress bar.
    """
    started = time.perf_counter()
    settings = task.settings
    stats = RunStats()
    progress = Progress(total, settings.progress)
    try:
        with AnswerCache(settings.resolved_cache_dir, enabled=settings.use_cache) as cache:
            finish = _Finisher(sinks, journal, cache, stats, progress, runner.window)
            work = _work(documents, task, journal, cache, finish, stats, use_result_cache)
            try:
                runner.run(work, finish)
            except ClaimsError as e:
                if finish.failure is None and isinstance(e, StorageError):  # the runner's own cache failed
                    finish.failure = e
                if finish.failure is None:  # the model died: what finished is handed on below, then we stop
                    raise RunStopped(_stopped(e, finish, total, stats, journal)) from e
            finally:
                finish.close()
                finish.close_sinks()
    except BaseException:
        progress.close()
        if journal is not None:
            with contextlib.suppress(StorageError):  # the first failure is the one to tell
                journal.close()
        raise
    progress.close()
    try:
        if journal is not None:
            journal.close()
    except StorageError as e:
        finish.failure = finish.failure or e
    if finish.failure is not None:
        raise StorageError(_stopped(finish.failure, finish, total, stats, journal), path=finish.failure.path,
                           errno=finish.failure.errno) from finish.failure
    stats.wall_seconds = time.perf_counter() - started
    return stats


def resume_hint(error: ClaimsError) -> str:
    """What a stopped run's finished documents await: a rerun as it is (a crash, a full disk), or
    a fix first (a missing key, a file without a text column)."""
    then = "rerun the same command to resume" if error.resumable else "the same command resumes once this is fixed"
    return f"kept in the output journal; {then}"


def _stopped(error: ClaimsError, finish: _Finisher, total: Optional[int], stats: RunStats,
             journal: Optional[Journal]) -> str:
    """The one line of a stopped run: why, and how many documents finished."""
    where = f" ({resume_hint(error)})" if journal is not None else ""
    of = f" of {total}" if total else ""
    return f"{error.one_line()}; run stopped: {finish.count}{of} documents finished{where}"
