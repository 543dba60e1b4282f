"""The worker step of the local and batch runners: each document is parsed and settled by the
rules or the answer cache, or becomes a request to the model; answers are grounded afterwards.

Parsing and grounding are the runner's own CPU work. With a remote endpoint and many
requests in flight they run in a worker process, on another core, while requests wait
(threads would share one interpreter lock with the event loop); with the embedded model,
whose server needs every core, they run in this process. The worker is started with
``spawn`` (forking a process that runs threads is unsafe), which imports the main script
again: so only when there is none (a notebook, a REPL) or it is the ``claims`` command.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Iterator, Optional, Union

from paper_claims.engines.embedded import die_with_parent
from paper_claims.run.cache import AnswerCache
from paper_claims.run.runner import Outcome, Work
from paper_claims.schemas import Document, DocumentResult
from paper_claims.settings import Settings
from paper_claims.tasks import Request, Task, task_for

Settled = Union[Outcome, tuple[Work, Request]]
LOOK_AHEAD = 32  # documents handed to the worker process before the first comes back
WORKERS = 1  # a second one competes for the same cores with this process and the endpoint (measured: slower on 2 cores)


def worker_is_safe() -> bool:
    """Whether a spawned worker can start here without running the user's script again."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return (getattr(main, "__file__", None) is None or (spec is not None and spec.name.startswith("paper_claims"))
            or os.path.basename(sys.argv[0] if sys.argv else "") == "claims")


def settle(item: Work, task: Task, cache: AnswerCache, nonce: Optional[str] = None) -> Settled:
    """Parse one document: its outcome when the rules or the answer cache settle it, else
    the request to send."""
    request = task.prepare(item.doc, nonce=nonce)
    if not request.needs_model:
        return Outcome(item.index, item.key, task.settled(request), "rules")
    cached = cache.get(request.key)
    if cached is None:
        return item, request
    return Outcome(item.index, item.key, task.ground(request, request.read_answer(cached), 0), "cache")


_WORKER: dict[str, Any] = {}  # the worker process's task and answer cache


# parsed once when the worker starts, before it reports ready, so the first documents it
# gets do not pay for compiling the parser's patterns (the calling process parses meanwhile)
_WARM_UP = ("We present Quill-7B, a code model that runs up to 2.3x faster than the Heron baseline "
            "on 8 A100 GPUs. On the HumanCode benchmark it reaches 71.3% pass@1, 6.2 points above "
            "prior work, with 40% less memory and 1,850 tokens/s.")


def _start_worker(settings: Settings, endpoint: str, parent: int) -> None:
    die_with_parent()  # a killed run leaves no worker behind
    if os.getppid() != parent:  # the run was killed while this worker started: nobody to work for
        os._exit(0)  # (else it would wait on its queue forever, an orphan)
    task = task_for(settings, endpoint)  # the task travels as its settings (a schema class loaded from a file does not pickle)
    _WORKER.update(task=task, cache=AnswerCache(settings.resolved_cache_dir, enabled=settings.use_cache))
    task.settled(task.prepare(Document(id="warm-up", text=_WARM_UP)))


def _settle_in_worker(item: Work, nonce: Optional[str]) -> Settled:
    return settle(item, _WORKER["task"], _WORKER["cache"], nonce)


def _answered(cache: AnswerCache, task: Task, request: Request, labels: Any, attempts: int) -> DocumentResult:
    cache.set(request.key, labels.model_dump(mode="json"))
    return task.ground(request, labels, attempts)


def _answered_in_worker(request: Request, labels: Any, attempts: int) -> DocumentResult:
    return _answered(_WORKER["cache"], _WORKER["task"], request, labels, attempts)


def _ready() -> bool:
    return True


class Settler:
    """Settles documents in order, here or in one worker process (``in_worker``).

    The worker is started only after ``START_AFTER`` documents (a small run never pays for
    a process), and documents are parsed here until it has loaded, so nothing waits for it.
    """

    START_AFTER = 16

    def __init__(self, task: Task, cache: AnswerCache, *, in_worker: bool, nonce_per_document: bool = False) -> None:
        self.task, self.cache = task, cache
        self.nonce_per_document = nonce_per_document
        self.in_worker = in_worker
        self.pool: Optional[ProcessPoolExecutor] = None
        self.sent_to_worker = 0  # documents the worker process settled
        self._ready: Future[bool] = Future()

    def _nonce(self, item: Work) -> Optional[str]:
        return f"{item.index}-{time.time_ns()}" if self.nonce_per_document else None

    def _here(self, item: Work) -> Settled:
        return settle(item, self.task, self.cache, self._nonce(item))

    def start_worker(self) -> Future[bool]:
        """Start the worker process (once); the future is done when it has loaded."""
        if self.pool is None:
            self.pool = ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_start_worker,
                                            initargs=(self.task.settings, self.task.endpoint, os.getpid()))
            self._ready = self.pool.submit(_ready)
        return self._ready

    def settled(self, work: Iterator[Work]) -> Iterator[Settled]:
        """Each work item settled, in input order."""
        pending: collections.deque[Future[Settled]] = collections.deque()
        for count, item in enumerate(work):
            if self.in_worker and self.pool is None and count >= self.START_AFTER:
                self.start_worker()
            if self.pool is None or not self._ready.done():
                yield self._here(item)
                continue
            pending.append(self.pool.submit(_settle_in_worker, item, self._nonce(item)))
            self.sent_to_worker += 1
            if len(pending) >= LOOK_AHEAD:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()

    @property
    def grounds_in_worker(self) -> bool:
        """Whether new answers go to the worker process (started and loaded) to be grounded."""
        return self.pool is not None and self._ready.done()

    def answered(self, request: Request, labels: Any, attempts: int) -> DocumentResult:
        """Store a new answer in the answer cache and ground it in its document, in this
        process (a thread other than the event loop's); ``StorageError`` if the cache fails."""
        return _answered(self.cache, self.task, request, labels, attempts)

    def answered_in_worker(self, request: Request, labels: Any, attempts: int) -> Future[DocumentResult]:
        """``answered`` in the worker process (it parsed the document; see ``grounds_in_worker``)."""
        assert self.pool is not None
        return self.pool.submit(_answered_in_worker, request, labels, attempts)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
