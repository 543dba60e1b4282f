"""Batch runs (issue 41): ``--batch`` (an endpoint's Batch API), ``--write-batch FILE`` (the
request lines for ``vllm run-batch`` or an upload by hand) and ``--batch-results FILE`` (a
results file grounded into the usual outputs).

Two passes over the inputs. The first (``run.batch_requests``, ``run.batch_submit``) finds the
documents that need the model and gets every answer into the output folder's batch state:
written, uploaded, batched, polled, downloaded, re-asked. The second is the runner core with
``BatchRunner``: every document settled as the chat path settles it (rules, answer cache), the
rest grounded from its batch answer (and the answer cached), in input order, journaled, so a
later chat run hits the cache and a killed run resumes. The first pass never holds results and
the second never waits: memory grows only with the index of the keys sent (about 200
bytes a request), not with the results.
"""

from __future__ import annotations

import collections
import contextlib
import shutil
import time
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, Sequence, Union

from pydantic import ValidationError

from paper_claims.errors import BatchError, ExtractionError, StorageError
from paper_claims.model.backends import Backend, batch_backend
from paper_claims.model.batches import MAX_BYTES, MAX_REQUESTS, BatchAnswer, read_answers
from paper_claims.model.request import reask_depth
from paper_claims.run.batch_requests import AnswerKinds, Collector, PieceWriter, unfinished
from paper_claims.run.batch_state import BatchState, Found
from paper_claims.run.batch_submit import AGAIN
from paper_claims.run.cache import AnswerCache
from paper_claims.run.journal import Journal
from paper_claims.run.runner import Finish, Outcome, Progress, RunStats, Sink, Work, run
from paper_claims.schemas import Document, DocumentResult
from paper_claims.settings import Settings
from paper_claims.tasks import Request, Task, task_for
from paper_claims.text import Say

if TYPE_CHECKING:
    from paper_claims.run.settle import Settler

NOT_RUN = ("batch_expired", "batch_cancelled")  # a request its batch ended before
MODES = {"submit": "--batch", "write": "--write-batch", "results": "--batch-results"}


@dataclass(frozen=True)
class BatchMode:
    """Which batch path a run takes (``kind`` a key of ``MODES``) and its file."""

    kind: str
    path: Optional[Path] = None

    @classmethod
    def of(cls, batch: bool = False, write_batch: Optional[object] = None,
           batch_results: Optional[object] = None) -> Optional["BatchMode"]:
        """The mode the options ask for (None: no batch); ``BatchError`` for more than one."""
        given = [kind for kind, value in (("submit", batch), ("write", write_batch), ("results", batch_results)) if value]
        if len(given) > 1:
            raise BatchError(f"{' and '.join(MODES[kind] for kind in given)} cannot go together: choose one")
        if not given:
            return None
        path = write_batch if given[0] == "write" else batch_results if given[0] == "results" else None
        return cls(given[0], Path(str(path)).expanduser() if path is not None else None)

    @property
    def offline(self) -> bool:
        return self.kind != "submit"


def run_batch(mode: BatchMode, read: Callable[[], Iterable[Document]], settings: Settings, *, out: Optional[Path],
              sinks: Sequence[Sink], journal: Optional[Journal], total: Optional[int], say: Say) -> RunStats:
    """A batch run into ``out``: ``read`` gives the inputs, once per pass. Its task is the
    settings' with the batch endpoint's identity (answers of a results file are keyed on it)."""
    if out is None or journal is None:
        raise BatchError(f"{MODES[mode.kind]} keeps its state in the output folder: give one (--out, out=)")
    if settings.batch_size < 1:
        raise BatchError(f"--batch-size {settings.batch_size}: a batch holds at least one request")
    started = time.perf_counter()
    backend = batch_backend(settings, offline=mode.offline)
    task = task_for(settings, backend.endpoint_id)
    state = BatchState(out, journal)
    state.remove_leftovers()
    try:
        if mode.kind == "write":
            return replace(_write(mode, read, task, state, backend, total, say),
                           wall_seconds=time.perf_counter() - started)
        if mode.kind == "results":
            assert mode.path is not None
            import_results(state, mode.path, settings.batch_size, say)
        else:
            _submit(read, task, state, backend, total, say)
    except BaseException:
        with contextlib.suppress(StorageError):  # the first failure is the one to tell
            journal.close()
        raise
    runner = BatchRunner(task, state, offline=mode.offline)
    stats = run(read(), task, runner, sinks=sinks, journal=journal, total=total)
    stats.wall_seconds = time.perf_counter() - started  # both passes, the batches' wait included
    return stats


def _collected(read: Callable[[], Iterable[Document]], task: Task, state: BatchState, collector: Collector,
               total: Optional[int]) -> int:
    """Pass one over the inputs: each document parsed as the chat path parses it (in the parse
    worker process where it can run), those that need the model into the collector; how many
    documents were read."""
    from paper_claims.run.settle import Settler, worker_is_safe

    settings = task.settings
    progress = Progress(total, settings.progress, desc="reading")
    read_count = 0

    def counted() -> Iterator[Document]:
        nonlocal read_count
        for doc in read():
            yield doc
            read_count += 1
            progress.update(0)

    try:
        with AnswerCache(settings.resolved_cache_dir, enabled=settings.use_cache) as cache:
            parser = Settler(task, cache, in_worker=worker_is_safe())
            try:
                for item in parser.settled(unfinished(counted(), task, state.journal, cache)):
                    if not isinstance(item, Outcome):  # the rules or the answer cache settle the rest
                        collector.add(item[0].doc, item[1])
            finally:
                parser.close()
    finally:
        progress.close()
    return read_count


def _submit(read: Callable[[], Iterable[Document]], task: Task, state: BatchState, backend: Backend,
            total: Optional[int], say: Say) -> None:
    """``--batch``: pass one (each piece submitted as it fills), then every batch driven to its end."""
    from paper_claims.model.batches import BatchClient
    from paper_claims.run.batch_submit import Submitter

    settings = task.settings
    client = BatchClient(backend, settings)
    try:
        submitter = Submitter(state, client, settings, say)
        collector = Collector(state, backend, settings, PieceWriter(state, settings.batch_size),
                              submit=submitter.submit)
        _collected(read, task, state, collector, total)
        collector.close()
        if collector.waiting:
            say(f"{collector.tally.waiting} requests are in {len(collector.waiting)} batches submitted before: "
                "polling them")
        for piece in collector.waiting.values():  # submitted (or written) by an earlier run: resumed
            submitter.submit(piece)
        submitter.drive(collector.kinds)
    finally:
        client.close()


def _write(mode: BatchMode, read: Callable[[], Iterable[Document]], task: Task, state: BatchState,
           backend: Backend, total: Optional[int], say: Say) -> RunStats:
    """``--write-batch FILE``: pass one into request files of ``batch_size`` lines, then FILE
    made of them."""
    assert mode.path is not None
    collector = Collector(state, backend, task.settings, PieceWriter(state, task.settings.batch_size, to=str(mode.path)))
    documents = _collected(read, task, state, collector, total)
    collector.close()
    state.journal.close()
    try:
        mode.path.parent.mkdir(parents=True, exist_ok=True)
        with mode.path.open("wb") as target:
            for piece in collector.sealed:
                with state.path(str(piece.requests)).open("rb") as part:
                    shutil.copyfileobj(part, target)
    except OSError as e:
        raise StorageError.of(e, mode.path) from e
    tally = collector.tally
    waiting = f"; {tally.waiting} are in batches still running (--batch collects them)" if tally.waiting else ""
    say(f"Wrote {tally.written} requests to {mode.path}{waiting}; run them (vllm run-batch -i {mode.path} -o "
        f"results.jsonl --model {backend.model}) and ground the results with --batch-results results.jsonl")
    if tally.written > MAX_REQUESTS or mode.path.stat().st_size > MAX_BYTES:
        say(f"OpenAI's Batch API takes at most {MAX_REQUESTS} requests and 200 MB a file: split {mode.path} "
            "to upload it by hand, or use --batch")
    return RunStats(documents=documents)


@dataclass
class Grounding:
    """A document's answer being grounded: ``how`` it was answered ("model", "cache"), its
    batch ``answer`` (what it cost)."""

    item: Work
    how: str
    result: "Future[DocumentResult]"
    answer: Optional[BatchAnswer] = None

    def outcome(self) -> Outcome:
        """Its outcome once grounded (the grounding's own failure raised)."""
        answer = self.answer or BatchAnswer("", "", 0)
        return Outcome(self.item.index, self.item.key, self.result.result(), self.how, requests=answer.n,
                       prompt_tokens=answer.usage[0], completion_tokens=answer.usage[1])


def _ground(parser: "Settler", request: Request, labels: object, attempts: int) -> "Future[DocumentResult]":
    """Ground an answer in its document: in the parse worker when it has taken over, else here."""
    if parser.grounds_in_worker:
        return parser.answered_in_worker(request, labels, attempts)
    done: Future[DocumentResult] = Future()
    done.set_result(parser.answered(request, labels, attempts))
    return done


def import_results(state: BatchState, path: Path, size: int, say: Say) -> None:
    """``--batch-results FILE``: the file's lines checked and copied into the batch state, in
    pieces of ``size`` lines, each recorded ``imported``."""
    count = 0
    chunk: list[str] = []
    ids: list[str] = []

    def flush() -> None:
        piece = state.next_piece_id("r")
        name = f"{piece}.results.jsonl"
        with state.writing(name) as handle:
            handle.writelines(chunk)
        state.record("imported", piece, results=[name], ids=list(ids))
        chunk.clear()
        ids.clear()

    for _, line, answer in read_answers(path):  # BatchError names a line that is not one
        chunk.append(line)
        ids.append(answer.custom_id)
        count += 1
        if len(chunk) >= size:
            flush()
    if chunk:
        flush()
    say(f"Read {count} answers from {path}")


class BatchRunner:
    """Pass two: the runner core's runner for a batch run. Each document is parsed (in the parse
    worker process where it can run) and settled by the rules as the chat path settles it; then
    by its batch answer, which is cached (a later chat run asks nothing), else by the answer
    cache, else it is an error row saying why it has no answer. The batch answer comes first, so
    a document answered by this folder's batches always shows how (attempts), killed or not."""

    window = 256  # above the groundings in flight and the parse worker's look-ahead
    IN_FLIGHT = 64

    def __init__(self, task: Task, state: BatchState, *, offline: bool) -> None:
        self.task, self.settings, self.state, self.offline = task, task.settings, state, offline

    def run(self, work: Iterator[Work], finish: Finish) -> None:
        from paper_claims.run.settle import Settler, worker_is_safe

        settings = self.settings
        grounding: collections.deque[Grounding] = collections.deque()
        # the settler settles by the rules (its worker too: a task without the cache); the caches are read here
        rules_only = task_for(replace(settings, use_cache=False), self.task.endpoint)
        with AnswerCache(settings.resolved_cache_dir, enabled=settings.use_cache) as cache:
            parser = Settler(rules_only, AnswerCache(settings.resolved_cache_dir, enabled=False),
                             in_worker=worker_is_safe())
            try:
                for item in parser.settled(work):
                    answered = item if isinstance(item, Outcome) else self._answered(parser, cache, *item)
                    if isinstance(answered, Outcome):
                        finish(answered)
                    else:
                        grounding.append(answered)
                    while grounding and (grounding[0].result.done() or len(grounding) >= self.IN_FLIGHT):
                        finish(grounding.popleft().outcome())
                while grounding:
                    finish(grounding.popleft().outcome())
            finally:
                parser.close()

    def _answered(self, parser: "Settler", cache: AnswerCache, item: Work, request: Request) -> Union["Grounding", Outcome]:
        """A document's answer being grounded (in the parse worker where it runs): its batch
        answer (cached now), else the cached one; or its error row."""
        found = self.state.latest(request.key)
        answer = found.answer if found is not None else None
        ran = answer is not None and answer.code not in NOT_RUN  # the request reached the model
        attempts = self._depth(request.key) + ran  # answers the model gave, as the chat path counts them
        error: Optional[ValidationError] = None
        if answer is not None and answer.content is not None:
            try:
                labels = AnswerKinds.of(request).labels(answer.content, request.schema)
            except ValidationError as e:
                error = e
            else:
                cache.set(request.key, labels.model_dump(mode="json"))
                return Grounding(item, "model", _ground(parser, request, labels, attempts), answer)
        cached = cache.get(request.key)
        if cached is not None:
            return Grounding(item, "cache", _ground(parser, request, request.read_answer(cached), 0))
        why = self._invalid(request.key, error) if error is not None else self._unanswered(request.key, found)
        failure = ExtractionError(why, doc_id=item.doc.id, attempts=attempts)
        return Outcome(item.index, item.key, DocumentResult.failed(item.doc, failure.one_line(), attempts), "error",
                       requests=answer.n - (not ran) if answer is not None else 0)

    def _depth(self, key: str) -> int:
        """The re-asks in ``key``'s latest request."""
        last = self.state.last_request(key)
        return reask_depth(last[1]["messages"]) if last is not None else 0

    def _invalid(self, key: str, error: ValidationError) -> str:
        message = f"model answer failed validation: {' '.join(str(error).split())[:300]}"
        if self.offline and self._depth(key) < self.settings.max_reasks:
            message += "; --write-batch writes its re-ask"
        return message

    def _unanswered(self, key: str, found: Optional[Found]) -> str:
        """Why a document has no answer, and what brings one."""
        again = "--write-batch writes it again" if self.offline else f"{AGAIN} to submit it again"
        if found is None:
            waiting = self.state.waiting_piece(key)
            if waiting is not None:
                return f"batch {waiting.name} is still running; --batch collects it"
            return "no answer in the batch results; --write-batch writes its request" if self.offline else \
                f"no batch answered it; {again}"
        piece, answer = found.piece, found.answer
        if answer is None:
            if piece.status == "failed":
                return f"batch {piece.name} failed: {piece.message or 'no reason given'}; {again}"
            if piece.status in ("expired", "cancelled"):
                return f"batch {piece.name} {piece.status} before this request ran; {again}"
            return f"batch {piece.name} has no answer for it; {again}"
        if answer.code in NOT_RUN:
            return f"batch {piece.name} {answer.code.split('_')[1]} before this request ran; {again}"
        if answer.transient:
            return f"endpoint kept failing: {answer.error} ({answer.n} requests); {again}"
        return f"model request failed: {answer.error}"
