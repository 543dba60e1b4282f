"""The local runner: this process. Parsing runs in a worker thread while up to
``concurrency`` requests are in flight on an asyncio event loop (``run.asking``); the backend
is opened only when a document needs the model."""

from __future__ import annotations

import contextlib
import itertools
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Union

from paper_claims.run.cache import AnswerCache
from paper_claims.run.runner import Finish, Outcome, Work
from paper_claims.text import Say, to_stderr

if TYPE_CHECKING:  # loaded only once a document needs parsing: a resumed run stays light
    from paper_claims.model.backends import Backend
    from paper_claims.tasks import Request, Task
    from paper_claims.run.settle import Settled

BackendSource = Union["Backend", Callable[[], "Backend"], None]


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
        from paper_claims.run.asking import ask_all
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
            asyncio.run(ask_all(itertools.chain([first], jobs), backend, self.settings, parser, finish))

    @staticmethod
    def _to_ask(settled: Iterator["Settled"], finish: Finish) -> Iterator[tuple[Work, "Request"]]:
        """Finish what the rules or the answer cache settled; yield the requests to send."""
        for item in settled:
            if isinstance(item, Outcome):
                finish(item)
            else:
                yield item
