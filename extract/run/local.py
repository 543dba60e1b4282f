"""The local runner: this process. Parsing runs in a worker thread while up to
``concurrency`` requests are in flight on an asyncio event loop; the backend is opened only
when a document needs the model."""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Union

from paper_claims.errors import ClaimsError, EndpointDown, StorageError
from paper_claims.run.cache import AnswerCache
from paper_claims.run.runner import Finish, Outcome, Work
from paper_claims.schemas import DocumentResult
from paper_claims.settings import Settings
from paper_claims.text import Say, to_stderr

if TYPE_CHECKING:  # loaded only once a document needs parsing: a resumed run stays light
    from paper_claims.model.backends import Backend
    from paper_claims.tasks import Request, Task
    from paper_claims.run.settle import Settled, Settler

BackendSource = Union["Backend", Callable[[], "Backend"], None]


def _nothing() -> None:
    """A marker job: done once every job queued before it is."""


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
        # aiohttp's ClientConnectorError (first requests), httpx's ConnectError (re-asks
        # through openai, which may vendor httpx under another module name)
        if type(current).__name__ in ("ClientConnectorError", "ConnectError") or isinstance(
                current, (ConnectionRefusedError, socket.gaierror, ssl.SSLError)):
            return True
        current = current.__cause__ or current.__context__
    return False


class _Watch:
    """What stops a run: the backend's own failure check, or an endpoint that is down."""

    def __init__(self, backend: Backend, settings: Settings, finish: Finish) -> None:
        self.backend = backend
        self.finish = finish
        self.limit = max(1, settings.max_unreachable)
        self.unreachable = 0
        self.pending: list[tuple[Work, ClaimsError]] = []
        self.fatal: Optional[BaseException] = None

    def document_failed(self, work: Work, error: ClaimsError) -> str:
        """What to do with a failed document: "row" (an error row now), "held" (it could not
        connect: an error row only once a later document reaches the endpoint, or the run
        ends, so a run stopped for a dead endpoint leaves none) or "stop" (the run must end)."""
        if self.backend_failure() is not None:
            return "stop"
        if not _unreachable(error):
            self.flush()
            return "row"
        self.pending.append((work, error))
        self.unreachable += 1
        if self.unreachable >= self.limit:
            cause = error.__cause__
            self.fatal = EndpointDown(
                f"the endpoint {self.backend.base_url} is unreachable: {self.unreachable} documents in a row "
                f"failed to connect ({type(cause).__name__}: {' '.join(str(cause).split())[:160]})"
            )
            return "stop"
        return "held"

    def flush(self) -> None:
        """The endpoint answered after all: earlier connection failures are error rows."""
        self.unreachable = 0
        for work, error in self.pending:
            self.error_row(work, error)
        self.pending.clear()

    def error_row(self, work: Work, error: ClaimsError) -> None:
        """The document failed: its error row."""
        attempts = error.attempts or 0
        self.finish(Outcome(work.index, work.key, DocumentResult.failed(work.doc, error.one_line(), attempts),
                            "error", requests=attempts or 1))

    def backend_failure(self) -> Optional[BaseException]:
        if self.fatal is None and self.backend.failure is not None:
            self.fatal = self.backend.failure()
        return self.fatal


class LocalRunner:
    """Finishes documents in this process (see the module docstring).

    ``backend``: an open backend, or a function that opens one, or None to open one from
    the task's settings when the first document needs the model. ``parse_in_worker``: parse and
    ground in a worker process (default: for a remote endpoint with requests in parallel,
    see ``run.settle``). ``nonce_per_document`` (benchmarks only) defeats the server's
    prefix reuse.
    """

    def __init__(self, task: "Task", *, backend: BackendSource = None, say: Say = to_stderr,
                 nonce_per_document: bool = False, window: Optional[int] = None,
                 parse_in_worker: Optional[bool] = None) -> None:
        settings = task.settings
        self.task = task
        self.settings = settings
        self.backend_source = backend
        self.say = say
        self.nonce_per_document = nonce_per_document
        self.window = window or max(64, 32 * settings.resolved_concurrency)
        self.parse_in_worker = parse_in_worker

    def run(self, work: Iterator[Work], finish: Finish) -> None:
        first_work = next(work, None)
        if first_work is None:  # the journal and the result cache settled every document
            return
        import asyncio

        from paper_claims.model.backends import Backend, open_backend
        from paper_claims.run.settle import Settler, worker_is_safe

        in_worker = self.parse_in_worker
        if in_worker is None:
            in_worker = not self.settings.embedded and self.settings.resolved_concurrency > 1 and worker_is_safe()
        with contextlib.ExitStack() as stack, \
                AnswerCache(self.settings.resolved_cache_dir, enabled=self.settings.use_cache) as cache:
            parser = Settler(self.task, cache, in_worker=in_worker, nonce_per_document=self.nonce_per_document)
            stack.callback(parser.close)
            jobs = self._to_ask(parser.settled(itertools.chain([first_work], work)), finish)
            first = next(jobs, None)
            if first is None:  # the rules and the cache settled every document
                return
            # opened here, in the calling thread, not in the event loop: Ctrl-C during the
            # server's start interrupts it, and the server lives as long as this thread
            source = self.backend_source
            if isinstance(source, Backend):
                backend = source
            elif source is not None:
                backend = source()
            else:
                backend = stack.enter_context(open_backend(self.settings, say=self.say))
            asyncio.run(self._run(itertools.chain([first], jobs), backend, parser, finish))

    @staticmethod
    def _to_ask(settled: Iterator["Settled"], finish: Finish) -> Iterator[tuple[Work, "Request"]]:
        """Finish what the rules or the answer cache settled; yield the requests to send."""
        for item in settled:
            if isinstance(item, Outcome):
                finish(item)
            else:
                yield item

    async def _run(self, jobs: Iterator[tuple[Work, "Request"]], backend: "Backend", parser: "Settler", finish: Finish) -> None:
        """Ask the model for every job the iterator yields, ``concurrency`` at a time; the
        iterator parses in a worker thread, so later documents are parsed while requests wait.

        Raises the backend's failure (the embedded server died), ``EndpointDown``, or the
        ``StorageError`` of an output that cannot be written (from whichever thread finished
        the document) as soon as it is seen, cancelling the requests in flight; their
        documents get no row. Stopping never waits for a thread: work queued for the
        finishing thread is dropped, and nothing queues more once the run is stopping.
        """
        import asyncio

        from paper_claims.model.request import LabelAnswer, make_client, request_labels

        settings = self.settings
        loop = asyncio.get_running_loop()
        semaphore = asyncio.Semaphore(settings.resolved_concurrency)
        tasks: set[asyncio.Task[None]] = set()
        groundings: set[Future[Any]] = set()  # answers being grounded or finished off the event loop
        asking = 0  # documents still waiting for an answer
        answered = asyncio.Event()
        stopping = threading.Event()
        client = make_client(backend, settings)

        def stop(error: BaseException) -> None:
            """End the run, from any thread (an output could not be written)."""
            if watch.fatal is None:
                watch.fatal = error
            stopping.set()
            with contextlib.suppress(RuntimeError):  # the event loop has ended already
                loop.call_soon_threadsafe(main.cancel)

        def finish_or_stop(outcome: Outcome) -> None:
            try:
                finish(outcome)
            except StorageError as e:  # the journal, the tables or the cache cannot be written
                stop(e)

        watch = _Watch(backend, settings, finish_or_stop)

        async def one(item: Work, request: "Request") -> None:
            nonlocal asking
            async with semaphore:
                try:
                    answer = await request_labels(client, backend, settings, request.messages, request.schema,
                                                  item.doc.id, request.answer_type, request.max_tokens,
                                                  request.response_model)
                except ClaimsError as e:
                    decision = watch.document_failed(item, e)
                    if decision == "stop":
                        main.cancel()
                    elif decision == "row":
                        watch.error_row(item, e)
                    return
                except Exception as e:  # an unforeseen failure stays this document's problem
                    finish_or_stop(Outcome(item.index, item.key,
                                           DocumentResult.failed(item.doc, f"unexpected {type(e).__name__}: {e}"),
                                           "error"))
                    return
                finally:
                    asking -= 1
                    answered.set()
            watch.flush()
            if stopping.is_set():
                return
            if parser.grounds_in_worker:
                grounding = parser.answered_in_worker(request, answer.labels, answer.attempts)
                grounding.add_done_callback(lambda done: hand_on(item, answer, done))
            else:  # grounded and finished in one job: no callback ever queues more work
                grounded = functools.partial(parser.answered, request, answer.labels, answer.attempts)
                grounding = finishing.submit(finish_answer, item, answer, grounded)
            groundings.add(grounding)
            grounding.add_done_callback(groundings.discard)

        def hand_on(item: Work, answer: LabelAnswer, grounding: Future[DocumentResult]) -> None:
            """Queue a document the worker process grounded for the finishing thread; not once
            the run is stopping (a cancelled grounding, a finishing thread shut down)."""
            if grounding.cancelled() or stopping.is_set():
                return
            with contextlib.suppress(RuntimeError):  # shut down meanwhile
                job = finishing.submit(finish_answer, item, answer, grounding.result)
                groundings.add(job)
                job.add_done_callback(groundings.discard)

        def finish_answer(item: Work, answer: LabelAnswer, grounded: Callable[[], DocumentResult]) -> None:
            """Finish a document once its answer is grounded, in the finishing thread: the event
            loop only sends and receives, and never waits for a lock, a file or SQLite."""
            try:
                result = grounded()
            except StorageError as e:  # the answer cache cannot be written
                stop(e)
                return
            except Exception as e:  # an unforeseen failure stays this document's problem
                result = DocumentResult.failed(item.doc, f"unexpected {type(e).__name__}: {e}", answer.attempts)
            finish_or_stop(Outcome(item.index, item.key, result, "model", requests=answer.requests,
                                   prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens))

        # The thread that parses lives until the run ends: a parse worker process it starts
        # dies with it. Not a with-block: a stopped run must not wait for it (it may be waiting
        # for room in the window); the runner core wakes and ends it.
        parse_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims-parse")
        finishing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims-finish")

        async def feed() -> None:
            nonlocal asking
            loop = asyncio.get_running_loop()
            while True:  # parse the next documents in a thread, while the requests in flight wait
                job = await loop.run_in_executor(parse_thread, next, jobs, None)
                if job is None:
                    break
                task = asyncio.create_task(one(*job))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                asking += 1
                # parse ahead, not without bound: a request ready for every one in flight
                # (documents being grounded do not count: they no longer wait for the endpoint)
                while asking >= 2 * settings.resolved_concurrency:
                    answered.clear()
                    await answered.wait()
            if tasks:
                await asyncio.gather(*tasks)
            while groundings:  # a grounding in the worker hands its document to the finishing thread
                await asyncio.wait([asyncio.wrap_future(grounding) for grounding in list(groundings)])
            await asyncio.wrap_future(finishing.submit(_nothing))  # the documents before it are finished

        async def watch_backend() -> None:
            while watch.backend_failure() is None:
                await asyncio.sleep(0.25)
            main.cancel()

        main = asyncio.ensure_future(feed())
        watcher = [asyncio.ensure_future(watch_backend())] if backend.failure is not None else []
        try:
            await main
        except asyncio.CancelledError:
            if watch.fatal is None:
                raise
        finally:
            stopping.set()
            pending = [*tasks, *watcher]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            with contextlib.suppress(Exception):  # close the connections in this event loop
                await client.close()
            finishing.shutdown(wait=False, cancel_futures=True)
            parser.close()  # the worker process first, then the thread that started it
            parse_thread.shutdown(wait=False)
        if watch.fatal is None:
            watch.flush()
        if watch.fatal is not None:
            raise watch.fatal
