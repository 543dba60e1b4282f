"""Asking the model for a run's documents on an asyncio event loop: up to ``concurrency``
requests in flight, later documents parsed meanwhile in a thread, answers grounded off the
loop and finished in a finishing thread; what stops the run (the backend died, the endpoint
is down, an output cannot be written) ends it at once."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

from paper_claims.errors import ClaimsError, EndpointDown, StorageError
from paper_claims.run.runner import Finish, Outcome, Work
from paper_claims.schemas import DocumentResult
from paper_claims.settings import Settings

if TYPE_CHECKING:
    from paper_claims.model.backends import Backend
    from paper_claims.model.request import LabelAnswer
    from paper_claims.run.settle import Settler
    from paper_claims.tasks import Request


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


class Asking:
    """One run's requests (see the module docstring), made in the event loop that runs them
    (``ask_all``).

    ``run`` raises the backend's failure (the embedded server died), ``EndpointDown``, or the
    ``StorageError`` of an output that cannot be written (from whichever thread finished the
    document) as soon as it is seen, cancelling the requests in flight; their documents get
    no row. Stopping never waits for a thread: work queued for the finishing thread is
    dropped, and nothing queues more once the run is stopping.
    """

    def __init__(self, backend: Backend, settings: Settings, parser: Settler, finish: Finish) -> None:
        from paper_claims.model.request import make_client

        self.backend = backend
        self.settings = settings
        self.parser = parser
        self.finish = finish
        self.loop = asyncio.get_running_loop()
        self.client = make_client(backend, settings)
        self.watch = _Watch(backend, settings, self.finish_or_stop)
        self.tasks: set[asyncio.Task[None]] = set()
        self.groundings: set[Future[Any]] = set()  # answers being grounded or finished off the event loop
        self.asking = 0  # documents still waiting for an answer
        self.stopping = threading.Event()
        self.semaphore = asyncio.Semaphore(settings.resolved_concurrency)
        self.answered = asyncio.Event()  # a request came back: room to parse ahead again
        self.main: Optional[asyncio.Future[None]] = None  # the feeding task, cancelled to stop the run
        # The thread that parses lives until the run ends: a parse worker process it starts
        # dies with it. Not a with-block: a stopped run must not wait for it (it may be waiting
        # for room in the window); the runner core wakes and ends it.
        self.parse_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims-parse")
        self.finishing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims-finish")

    async def run(self, jobs: Iterator[tuple[Work, Request]]) -> None:
        """Ask for every job the iterator yields (it parses in the parse thread)."""
        main = self.main = asyncio.ensure_future(self._feed(jobs))
        watcher = [asyncio.ensure_future(self._watch_backend())] if self.backend.failure is not None else []
        try:
            await main
        except asyncio.CancelledError:
            if self.watch.fatal is None:
                raise
        finally:
            self.stopping.set()
            pending = [*self.tasks, *watcher]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            with contextlib.suppress(Exception):  # close the connections in this event loop
                await self.client.close()
            self.finishing.shutdown(wait=False, cancel_futures=True)
            self.parser.close()  # the worker process first, then the thread that started it
            self.parse_thread.shutdown(wait=False)
        if self.watch.fatal is None:
            self.watch.flush()
        if self.watch.fatal is not None:
            raise self.watch.fatal

    def stop(self, error: BaseException) -> None:
        """End the run, from any thread (an output could not be written)."""
        if self.watch.fatal is None:
            self.watch.fatal = error
        self.stopping.set()
        with contextlib.suppress(RuntimeError):  # the event loop has ended already
            if self.main is not None:
                self.loop.call_soon_threadsafe(self.main.cancel)

    def _cancel(self) -> None:
        """End the run from the event loop."""
        if self.main is not None:
            self.main.cancel()

    def finish_or_stop(self, outcome: Outcome) -> None:
        try:
            self.finish(outcome)
        except StorageError as e:  # the journal, the tables or the cache cannot be written
            self.stop(e)

    async def _feed(self, jobs: Iterator[tuple[Work, Request]]) -> None:
        limit = 2 * self.settings.resolved_concurrency
        while True:  # parse the next documents in a thread, while the requests in flight wait
            job = await self.loop.run_in_executor(self.parse_thread, next, jobs, None)
            if job is None:
                break
            task = asyncio.create_task(self._ask(*job))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            self.asking += 1
            # parse ahead, not without bound: a request ready for every one in flight
            # (documents being grounded do not count: they no longer wait for the endpoint)
            while self.asking >= limit:
                self.answered.clear()
                await self.answered.wait()
        if self.tasks:
            await asyncio.gather(*self.tasks)
        while self.groundings:  # a grounding in the worker hands its document to the finishing thread
            await asyncio.wait([asyncio.wrap_future(grounding) for grounding in list(self.groundings)])
        await asyncio.wrap_future(self.finishing.submit(_nothing))  # the documents before it are finished

    async def _watch_backend(self) -> None:
        while self.watch.backend_failure() is None:
            await asyncio.sleep(0.25)
        self._cancel()

    async def _ask(self, item: Work, request: Request) -> None:
        """One document's request; its answer grounded and finished off the event loop."""
        from paper_claims.model.request import request_labels

        async with self.semaphore:
            try:
                answer = await request_labels(self.client, self.backend, self.settings, request.messages,
                                              request.schema, item.doc.id, request.answer_type,
                                              request.max_tokens, request.response_model)
            except ClaimsError as e:
                decision = self.watch.document_failed(item, e)
                if decision == "stop":
                    self._cancel()
                elif decision == "row":
                    self.watch.error_row(item, e)
                return
            except Exception as e:  # an unforeseen failure stays this document's problem
                self.finish_or_stop(Outcome(item.index, item.key,
                                            DocumentResult.failed(item.doc, f"unexpected {type(e).__name__}: {e}"),
                                            "error"))
                return
            finally:
                self.asking -= 1
                self.answered.set()
        self.watch.flush()
        if self.stopping.is_set():
            return
        parser = self.parser
        if parser.grounds_in_worker:
            grounding = parser.answered_in_worker(request, answer.labels, answer.attempts)
            grounding.add_done_callback(lambda done: self._hand_on(item, answer, done))
        else:  # grounded and finished in one job: no callback ever queues more work
            grounded = functools.partial(parser.answered, request, answer.labels, answer.attempts)
            grounding = self.finishing.submit(self._finish_answer, item, answer, grounded)
        self._track(grounding)

    def _hand_on(self, item: Work, answer: LabelAnswer, grounding: Future[DocumentResult]) -> None:
        """Queue a document the worker process grounded for the finishing thread; not once
        the run is stopping (a cancelled grounding, a finishing thread shut down)."""
        if grounding.cancelled() or self.stopping.is_set():
            return
        with contextlib.suppress(RuntimeError):  # shut down meanwhile
            job = self.finishing.submit(self._finish_answer, item, answer, grounding.result)
            self._track(job)

    def _track(self, job: Future[Any]) -> None:
        """Count a grounding or finishing job among those the run waits for until it is done."""
        self.groundings.add(job)
        job.add_done_callback(self.groundings.discard)

    def _finish_answer(self, item: Work, answer: LabelAnswer, grounded: Callable[[], DocumentResult]) -> None:
        """Finish a document once its answer is grounded, in the finishing thread: the event
        loop only sends and receives, and never waits for a lock, a file or SQLite."""
        try:
            result = grounded()
        except StorageError as e:  # the answer cache cannot be written
            self.stop(e)
            return
        except Exception as e:  # an unforeseen failure stays this document's problem
            result = DocumentResult.failed(item.doc, f"unexpected {type(e).__name__}: {e}", answer.attempts)
        self.finish_or_stop(Outcome(item.index, item.key, result, "model", requests=answer.requests,
                                    prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens))


async def ask_all(jobs: Iterator[tuple[Work, Request]], backend: Backend, settings: Settings, parser: Settler,
                  finish: Finish) -> None:
    """Ask the model for every job ``jobs`` yields, ``concurrency`` at a time (``Asking``);
    the client is made here, in the event loop that uses it."""
    await Asking(backend, settings, parser, finish).run(jobs)
