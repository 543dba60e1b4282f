"""Pieces of work to the endpoint's Batch API (issue 41): each request file uploaded and a batch
created from it (each step journaled before the next, and a batch created by a run killed
before it journaled it found again by its input file, never created twice), the batches polled
with their own request counts, their output and error files downloaded, and what did not
validate or met a server error sent again in follow-up batches, until every request has its
last answer."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, Optional

from paper_claims.model.batches import BatchClient, BatchInfo, parse_custom_id, renumbered
from paper_claims.run.batch_requests import AnswerKinds, PieceWriter, next_step
from paper_claims.run.batch_state import BatchState, Piece
from paper_claims.settings import Settings
from paper_claims.text import Say

AGAIN = "rerun the same command"
QUEUE_FULL = "token_limit_exceeded"  # OpenAI's code for a batch refused because the queue of enqueued tokens is full


def ended_line(info: BatchInfo, piece: Piece) -> str:
    """One line on a batch that ended: what it answered, and what goes to the next run."""
    total = info.total or len(piece.keys)
    rest = total - info.completed
    if info.status == "completed":
        failed = f", {info.failed} failed" if info.failed else ""
        return f"batch {info.id} completed: {info.completed} of {total} requests answered{failed}"
    if info.status == "failed":
        return (f"batch {info.id} failed: {info.message or 'no reason given'}; its {total} requests go to the "
                f"next run ({AGAIN})")
    what = "expired" if info.status == "expired" else "was cancelled"
    return (f"batch {info.id} {what}: {info.completed} of {total} requests answered and kept; the other {rest} "
            f"go to the next run ({AGAIN})")


class Submitter:
    """Submits pieces and drives them to their end (see the module docstring)."""

    def __init__(self, state: BatchState, client: BatchClient, settings: Settings, say: Say) -> None:
        self.state, self.client, self.settings, self.say = state, client, settings, say
        self.pending: dict[str, Piece] = {}
        self.started = time.time()

    def submit(self, piece: Piece) -> None:
        """Upload the piece and create its batch, as far as that has not happened yet."""
        if piece.requests is None:
            return
        if piece.file_id is None:
            file_id = self.client.upload(self.state.path(piece.requests))
            piece = self.state.record("uploaded", piece.id, file_id=file_id, at=time.time())
        if piece.batch_id is None:
            assert piece.file_id is not None
            info = None
            if piece.uploaded_at < self.started:  # uploaded by a run killed before it journaled a batch
                info = self.client.created_from(piece.file_id, piece.uploaded_at)
            if info is None:
                info = self.client.create(piece.file_id, {"created_by": "paper-claims", "piece": piece.id})
            piece = self.state.record("created", piece.id, batch_id=info.id)
            self.say(f"batch {info.id}: {len(piece.keys)} requests submitted ({piece.requests})")
        self.pending[piece.id] = piece

    def drive(self, kinds: Optional[AnswerKinds]) -> None:
        """Poll every pending batch until it ends; collect its results and submit its follow-ups.
        A batch refused because the account's queue of enqueued tokens is full (it ran nothing)
        waits for another of this run to end and is made again from the same file; with none
        left to wait for, it ends failed, and the next run submits its requests."""
        bar = self._bar()
        waiting: list[Piece] = []  # refused for the queue limit
        try:
            while self.pending or waiting:
                infos = {name: self.client.retrieve(str(piece.batch_id)) for name, piece in self.pending.items()}
                self._show(bar, infos)
                ended = [self.pending.pop(name) for name, info in infos.items() if info.ended]
                refused = [piece for piece in ended if infos[piece.id].code == QUEUE_FULL]
                done = [piece for piece in ended if piece not in refused]
                for piece in refused:
                    if self.pending or done:
                        self.say(f"batch {piece.batch_id}: the queue of enqueued tokens is full; its {len(piece.keys)} "
                                 "requests wait for another batch to end")
                        waiting.append(piece)
                    else:
                        done.append(piece)
                for piece in done:
                    self._collect(piece, infos[piece.id])
                if done and kinds is not None:
                    self._follow_up(done, kinds)
                if waiting and (done or not self.pending):
                    for piece in waiting:
                        self._again(piece)
                    waiting.clear()
                if self.pending:
                    time.sleep(self.settings.batch_poll)
        finally:
            if bar is not None:
                bar.close()

    def _again(self, piece: Piece) -> None:
        """Make a batch again from a piece's uploaded file (its last batch was refused and ran
        nothing), unless a run killed after making it left it unrecorded: then that one."""
        assert piece.file_id is not None
        newest = self.client.created_from(piece.file_id, piece.uploaded_at)
        if newest is not None and newest.id != piece.batch_id and newest.code != QUEUE_FULL:
            info = newest
        else:
            info = self.client.create(piece.file_id, {"created_by": "paper-claims", "piece": piece.id})
        piece = self.state.record("created", piece.id, batch_id=info.id)
        self.say(f"batch {info.id}: {len(piece.keys)} requests submitted again ({piece.requests})")
        self.pending[piece.id] = piece

    def _collect(self, piece: Piece, info: BatchInfo) -> None:
        """Download the output and error files, then record the batch ended."""
        results = []
        for kind, file_id in (("output", info.output_file_id), ("errors", info.error_file_id)):
            if file_id:
                name = f"{piece.id}.{kind}.jsonl"
                self.client.download(file_id, self.state.path(name))
                results.append(name)
        self.state.record("ended", piece.id, batch_id=info.id, status=info.status, results=results,
                          message=info.message, counts=[info.total, info.completed, info.failed])
        self.say(ended_line(info, piece))

    def _follow_up(self, ended: list[Piece], kinds: AnswerKinds) -> None:
        """The re-asks and retries of the ended pieces, in follow-up batches."""
        writer = PieceWriter(self.state, self.settings.batch_size)
        for piece in ended:
            for custom in self.state.custom_ids(piece):
                key = parse_custom_id(custom)[0]
                found = self.state.latest(key)
                if found is None or found.piece is not piece:
                    continue
                step = next_step(found, self.state.last_request(key), self.settings, kinds)
                if isinstance(step, tuple):
                    sealed = writer.add(renumbered(custom, step[0]), step[1])
                    if sealed is not None:
                        self.submit(sealed)
        sealed = writer.seal()
        if sealed is not None:
            self.submit(sealed)

    def _bar(self) -> Any:
        if not self.settings.progress or not self.pending:
            return None
        from paper_claims.progress import progress_bar

        return progress_bar(total=0, unit="req", desc="batches", dynamic_ncols=True)

    @staticmethod
    def _show(bar: Any, infos: dict[str, BatchInfo]) -> None:
        """The batches' own counts on the bar: requests done of all, and how many batches are in which state."""
        if bar is None:
            return
        bar.total = sum(info.total for info in infos.values())
        bar.n = sum(info.completed + info.failed for info in infos.values())
        states = Counter(info.status for info in infos.values())
        bar.set_postfix_str(", ".join(f"{n} {status}" for status, n in sorted(states.items())), refresh=False)
        bar.refresh()
