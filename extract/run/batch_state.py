"""What a batch run has done, kept in its output folder (issue 41): the request files it wrote
and the results it downloaded or imported, under ``OUT/.claims-batch/``, and each step in the
run's journal (``{"batch": {"event": ...}}`` records), so a killed run resumes where it stood:
a request already submitted is never submitted again, an answer downloaded is never lost.

Events, in the order they happen to a piece of work (a request file):

* ``written``  {piece, requests (file name), ids (custom_ids), to (the user's file for --write-batch, else null)}
* ``uploaded`` {piece, file_id, at}
* ``created``  {piece, batch_id}
* ``ended``    {piece, batch_id, status, results (file names), message, counts [total, completed, failed]}
* ``imported`` {piece, results, ids}: a results file grounded with --batch-results

A cache key's state is its latest request and its latest results: results newer than the
request are its answer (or why it has none); a request without newer results is waiting.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, TypeVar

from paper_claims.errors import StorageError
from paper_claims.model.batches import BatchAnswer, answer_at, parse_custom_id, read_answers
from paper_claims.run.journal import Journal

T = TypeVar("T")
BATCH_DIR = ".claims-batch"
KIND = "batch"  # the journal records' kind


@dataclass
class Piece:
    """One request file (or one imported results file) and what became of it."""

    id: str
    keys: list[str]  # the cache keys of its lines (the objects the state's indexes hold)
    requests: Optional[str] = None  # the request lines' file in BATCH_DIR (None: an imported results file)
    to: Optional[str] = None  # --write-batch: the file written for a batch runner elsewhere
    file_id: Optional[str] = None
    uploaded_at: float = 0.0
    batch_id: Optional[str] = None
    status: Optional[str] = None  # the batch's last status once its results are in ("imported" for a file)
    results: list[str] = field(default_factory=list)
    message: str = ""
    counts: list[int] = field(default_factory=list)
    written: int = 0  # the event number of its request file
    ended_at: int = 0  # the event number of its results

    @property
    def waiting(self) -> bool:
        """Submitted (or to be submitted) to the endpoint, results not in yet."""
        return self.to is None and self.requests is not None and self.status is None

    @property
    def name(self) -> str:
        return self.batch_id or self.id


@dataclass(frozen=True)
class Found:
    """A key's latest results: its answer (None: the results have no line for it) and the
    piece they came with."""

    answer: Optional[BatchAnswer]
    piece: Piece
    event: int


class BatchState:
    """The pieces of work of an output folder and, by cache key, their requests and results.

    Loaded from the journal; every step is journaled as it happens (``record``). Results files
    are indexed (cache key -> line) the first time a key of theirs is asked for.
    """

    def __init__(self, out: Path, journal: Journal) -> None:
        self.folder = Path(out) / BATCH_DIR
        self.journal = journal
        self.pieces: dict[str, Piece] = {}
        self.events = 0
        self.requested: dict[str, tuple[int, str]] = {}  # key -> (event, piece) of its latest request
        self.answered: dict[str, tuple[int, str]] = {}  # key -> (event, piece) of its latest results
        # by piece, the lines of its results and request files (key -> (file, offset), (custom_id, offset)), for the
        # few pieces read last: the inputs come back in the order the pieces were written
        self._lines: collections.OrderedDict[str, dict[str, tuple[str, int]]] = collections.OrderedDict()
        self._bodies: collections.OrderedDict[str, dict[str, tuple[str, int]]] = collections.OrderedDict()
        for record in journal.notes(KIND):
            self._apply(record)
        self.loaded = self.events  # events after this one happened in this run

    # --- the record -------------------------------------------------------------------------

    def record(self, event: str, piece: str, **fields: Any) -> Piece:
        """Journal a step (fsynced: it names work the endpoint holds) and apply it."""
        entry = {"event": event, "piece": piece, **fields}
        self.journal.note(KIND, entry, durable=True)
        return self._apply(entry)

    def _apply(self, entry: dict[str, Any]) -> Piece:
        self.events += 1
        event, name = entry["event"], str(entry["piece"])
        if event in ("written", "imported"):
            keys = [key for key in map(_key_of, entry["ids"]) if key is not None]
            piece = self.pieces[name] = Piece(name, keys, entry.get("requests"), entry.get("to"), written=self.events)
            self._lines.pop(name, None)
            self._bodies.pop(name, None)
            self._index(piece, self.requested if event == "written" else self.answered)
            if event == "imported":
                piece.status, piece.results, piece.ended_at = "imported", list(entry["results"]), self.events
            return piece
        piece = self.pieces[name]
        if event == "uploaded":
            piece.file_id, piece.uploaded_at = entry["file_id"], float(entry.get("at") or 0)
        elif event == "created":
            piece.batch_id = entry["batch_id"]
        elif event == "ended":
            piece.status, piece.results = entry["status"], list(entry["results"])
            piece.message, piece.counts, piece.ended_at = entry.get("message", ""), list(entry.get("counts", [])), self.events
            self._index(piece, self.answered)
        return piece

    def _index(self, piece: Piece, index: dict[str, tuple[int, str]]) -> None:
        """Point each key of ``piece`` at it, as of this event (one tuple for them all: an index of
        a million keys costs their strings and a pointer each)."""
        entry = (self.events, piece.id)
        for key in piece.keys:
            index[key] = entry

    def next_piece_id(self, prefix: str = "p") -> str:
        return f"{prefix}{len(self.pieces) + 1:05d}"

    # --- files ------------------------------------------------------------------------------

    def remove_leftovers(self) -> None:
        """Remove the half-written files of a killed run (this run holds the output folder)."""
        for partial in self.folder.glob("*.part"):
            with contextlib.suppress(OSError):
                partial.unlink()

    def path(self, name: str) -> Path:
        return self.folder / name

    @contextlib.contextmanager
    def writing(self, name: str) -> Iterator[Any]:
        """A file of BATCH_DIR written whole or not at all (a temporary file renamed, fsynced)."""
        path = self.path(name)
        partial = path.with_name(path.name + ".part")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with partial.open("w", encoding="utf-8") as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, path)
        except OSError as e:
            raise StorageError.of(e, path) from e
        finally:
            with contextlib.suppress(OSError):
                partial.unlink()

    # --- by cache key -----------------------------------------------------------------------

    def requested_since_load(self, key: str) -> bool:
        """Whether this run wrote a request for ``key``."""
        requested = self.requested.get(key)
        return requested is not None and requested[0] > self.loaded

    def waiting_piece(self, key: str) -> Optional[Piece]:
        """The piece whose batch holds ``key``'s latest request, results not in yet."""
        requested = self.requested.get(key)
        if requested is None or self.latest(key) is not None:
            return None
        piece = self.pieces[requested[1]]
        return piece if piece.waiting else None

    def latest(self, key: str) -> Optional[Found]:
        """``key``'s results when they are newer than its latest request, else None."""
        answered = self.answered.get(key)
        requested = self.requested.get(key)
        if answered is None or (requested is not None and requested[0] > answered[0]):
            return None
        piece = self.pieces[answered[1]]
        where = self._results_index(piece).get(key)
        return Found(answer_at(self.path(where[0]), where[1]) if where else None, piece, answered[0])

    def last_request(self, key: str) -> Optional[tuple[str, dict[str, Any]]]:
        """(custom_id, body) of ``key``'s latest request line."""
        requested = self.requested.get(key)
        if requested is None:
            return None
        piece = self.pieces[requested[1]]
        where = self._request_index(piece).get(key)
        if where is None or piece.requests is None:
            return None
        with self._reading(piece.requests), self.path(piece.requests).open("rb") as handle:
            handle.seek(where[1])
            return where[0], json.loads(handle.readline())["body"]

    def _results_index(self, piece: Piece) -> dict[str, tuple[str, int]]:
        """key -> (results file, offset) of a piece's results lines."""
        def build() -> dict[str, tuple[str, int]]:
            return {answer.key: (name, offset) for name in piece.results
                    for offset, _, answer in read_answers(self.path(name))}

        return _recent(self._lines, piece.id, build)

    def _request_index(self, piece: Piece) -> dict[str, tuple[str, int]]:
        """key -> (custom_id, offset) of the lines of a piece's request file."""
        def build() -> dict[str, tuple[str, int]]:
            offsets: dict[str, tuple[str, int]] = {}
            if piece.requests is not None:
                with self._reading(piece.requests), self.path(piece.requests).open("rb") as handle:
                    offset = 0
                    for line in handle:
                        custom = json.loads(line)["custom_id"]
                        offsets[parse_custom_id(custom)[0]] = (custom, offset)
                        offset += len(line)
            return offsets

        return _recent(self._bodies, piece.id, build)

    def custom_ids(self, piece: Piece) -> list[str]:
        """The ``custom_id`` of each line of a piece's request file."""
        return [custom for custom, _ in self._request_index(piece).values()]

    @contextlib.contextmanager
    def _reading(self, name: str) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            raise StorageError.of(e, self.path(name), "reading") from e


RECENT = 8  # pieces whose lines stay indexed


def _recent(indexes: "collections.OrderedDict[str, T]", name: str, build: Callable[[], T]) -> T:
    """``indexes[name]``, built if missing; only the ``RECENT`` used last are kept."""
    if name in indexes:
        indexes.move_to_end(name)
    else:
        indexes[name] = build()
        while len(indexes) > RECENT:
            indexes.popitem(last=False)
    return indexes[name]


def _key_of(custom: str) -> Optional[str]:
    """The cache key of a ``custom_id`` (None for a line of someone else's in an imported file)."""
    try:
        return parse_custom_id(custom)[0]
    except ValueError:
        return None
