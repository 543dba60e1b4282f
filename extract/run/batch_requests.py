"""The request lines of a batch run (issue 41): which documents need one, what each key's next
request is (its first, a re-ask with the validation error fed back, or a retry after a server
error, each bounded as the chat path bounds them), and the request files they are written into,
a piece of work at a time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Optional, TextIO, Union

from pydantic import ValidationError

from paper_claims.errors import StorageError
from paper_claims.model.backends import Backend
from paper_claims.model.batches import (MAX_BYTES, custom_id, parse_custom_id, read_labels, renumbered,
                                         request_line, schema_of)
from paper_claims.model.request import chat_body, reask_depth, reask_messages
from paper_claims.run.batch_state import BatchState, Found, Piece
from paper_claims.run.cache import AnswerCache
from paper_claims.run.journal import Journal
from paper_claims.run.runner import RESULT_KEY, Work, run_key
from paper_claims.schemas import Document
from paper_claims.settings import Settings
from paper_claims.tasks import Request, Task

ANSWERED, FINAL = "answered", "final"
Step = Union[str, tuple[int, dict[str, Any]]]  # ANSWERED, FINAL, or (request number, body) of the next request


@dataclass(frozen=True)
class AnswerKinds:
    """How a run's answers are read (one for every request of a run)."""

    answer_type: type[Any]
    response_model: Optional[type[Any]] = None

    @classmethod
    def of(cls, request: Request) -> "AnswerKinds":
        return cls(request.answer_type, request.response_model)

    def labels(self, content: str, schema: dict[str, Any]) -> Any:
        """The labels of an answer (``ValidationError`` if it does not validate)."""
        return read_labels(content, schema, self.answer_type, self.response_model)


def next_step(found: Found, last: Optional[tuple[str, dict[str, Any]]], settings: Settings, kinds: AnswerKinds) -> Step:
    """What a key needs after its latest results ``found`` (``last``: its latest request line):
    nothing (ANSWERED: a valid answer), a re-ask of an answer that failed validation (at most
    ``max_reasks`` in all), a retry after a rate limit, server error or timeout (at most
    ``max_retries``), or nothing more (FINAL: expired, cancelled, refused, or out of tries)."""
    answer = found.answer
    if answer is None or last is None:
        return FINAL
    body = last[1]
    depth = reask_depth(body["messages"])
    if answer.content is not None:
        try:
            kinds.labels(answer.content, schema_of(body))
        except ValidationError as e:
            if depth < settings.max_reasks:
                return answer.n + 1, {**body, "messages": reask_messages(body["messages"], answer.content, e)}
            return FINAL
        return ANSWERED
    if answer.transient and answer.n - 1 - depth < settings.max_retries:
        return answer.n + 1, body
    return FINAL


class PieceWriter:
    """Request lines into request files of at most ``limit`` lines (and OpenAI's 200 MB),
    each recorded ``written`` in the state when it is sealed (``to``: the user's file that
    --write-batch makes of them)."""

    def __init__(self, state: BatchState, limit: int, to: Optional[str] = None) -> None:
        self.state, self.limit, self.to = state, limit, to
        self.ids: list[str] = []
        self.keys: set[str] = set()  # the cache keys of the piece being written
        self.bytes = 0
        self.name = ""
        self._handle: Optional[TextIO] = None

    def add(self, custom: str, body: dict[str, Any]) -> Optional[Piece]:
        """Write one line; the piece sealed first when the line does not fit in it."""
        line = request_line(custom, body)
        size = len(line.encode("utf-8"))
        sealed = None
        if self.ids and (len(self.ids) >= self.limit or self.bytes + size > MAX_BYTES):
            sealed = self.seal()
        if self._handle is None:
            self.name = f"{self.state.next_piece_id()}.requests.jsonl"
            self._handle = self._io(lambda: self._open())
        self._io(lambda: self._handle.write(line))  # type: ignore[union-attr]
        self.ids.append(custom)
        self.keys.add(parse_custom_id(custom)[0])
        self.bytes += size
        return sealed

    def seal(self) -> Optional[Piece]:
        """Put the file in place (fsynced) and record it; None when it holds no line."""
        if self._handle is None:
            return None
        handle, self._handle = self._handle, None
        path = self.state.path(self.name)

        def finish() -> None:
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            os.replace(path.with_name(path.name + ".part"), path)

        self._io(finish)
        piece = self.state.record("written", self.name.split(".")[0], requests=self.name, ids=self.ids, to=self.to)
        self.ids, self.keys, self.bytes = [], set(), 0
        return piece

    def _open(self) -> TextIO:
        self.state.folder.mkdir(parents=True, exist_ok=True)
        return self.state.path(self.name + ".part").open("w", encoding="utf-8")

    def _io(self, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except OSError as e:
            raise StorageError.of(e, self.state.path(self.name)) from e


@dataclass
class Tally:
    """What the pass over the documents found."""

    documents: int = 0
    written: int = 0  # request lines written
    waiting: int = 0  # documents whose request is in a batch still running
    answered: int = 0  # documents answered by a batch before (grounded in pass two)


def unfinished(documents: Iterable[Document], task: Task, journal: Journal, cache: AnswerCache) -> Iterator[Work]:
    """The documents to settle: not finished in the journal under the same run key, no result
    cached (as the runner core finds them)."""
    finished = journal.index()
    for index, doc in enumerate(documents):
        if doc.error:
            continue
        key = run_key(doc, task)
        previous = finished.get(doc.id)
        if (previous is None or previous[0] != key) and cache.get(RESULT_KEY + key) is None:
            yield Work(index, doc, key)


class Collector:
    """Each needed document's next request line into the writer, once per cache key; the
    pieces sealed on the way and the waiting pieces whose batch holds a key are handed to
    ``submit`` (``--batch``; None for --write-batch)."""

    def __init__(self, state: BatchState, backend: Backend, settings: Settings, writer: PieceWriter,
                 submit: Optional[Callable[[Piece], None]] = None) -> None:
        self.state, self.backend, self.settings, self.writer, self.submit = state, backend, settings, writer, submit
        self.kinds: Optional[AnswerKinds] = None
        self.waiting: dict[str, Piece] = {}  # pieces of earlier runs whose batches hold needed keys
        self.sealed: list[Piece] = []  # pieces written by this run
        self.tally = Tally()

    def add(self, doc: Document, request: Request) -> None:
        self.tally.documents += 1
        self.kinds = self.kinds or AnswerKinds.of(request)
        key = request.key
        if key in self.writer.keys or self.state.requested_since_load(key):  # the same text again: one request
            return
        piece = self.state.waiting_piece(key)
        if piece is not None:
            self.tally.waiting += 1
            self.waiting[piece.id] = piece
            return
        found = self.state.latest(key)
        step = next_step(found, self.state.last_request(key), self.settings, self.kinds) if found else FINAL
        if step == ANSWERED:
            self.tally.answered += 1
            return
        if step == FINAL:  # never asked, or it ended in an earlier run without an answer: ask anew
            tokens = request.max_tokens or self.settings.max_tokens
            step = 1, chat_body(self.backend, self.settings, request.messages, request.schema, tokens)
        n, body = step
        last = self.state.last_request(key) if n > 1 else None
        self.write(renumbered(last[0], n) if last else custom_id(doc.id, key, n), body)

    def write(self, custom: str, body: dict[str, Any]) -> None:
        self.tally.written += 1
        self._sealed(self.writer.add(custom, body))

    def close(self) -> None:
        """Seal the last piece."""
        self._sealed(self.writer.seal())

    def _sealed(self, piece: Optional[Piece]) -> None:
        if piece is not None:
            self.sealed.append(piece)
            if self.submit is not None:
                self.submit(piece)
