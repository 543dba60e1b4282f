"""The review log, ``OUT_DIR/review.jsonl``: one JSON line per decision, appended at once.

A line says who decided what and when, on which document and claim, and the claim before and
after the decision. The log is only ever appended to (each line flushed and fsynced), so a
decision survives a crash of the app or the machine; replaying it over the extraction's output
gives the review state back. A line that cannot be read (cut short by a crash, edited by hand)
is reported with its number and skipped, never fatal; the next append starts on a new line so
it cannot be glued to a cut-short one.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ValidationError

from paper_claims.run.folders import OutputLock
from paper_claims.text import json_line

LOG_NAME = "review.jsonl"
Action = Literal["accept", "reject", "edit", "reset", "add", "lists", "confirm"]


def now() -> str:
    """The current UTC time, ISO 8601 to the millisecond."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class ReviewEvent(BaseModel):
    """One decision. ``claim_id`` is None for document actions (``lists``, ``confirm``);
    ``before``/``after`` are the claim (or the document lists) around the decision, ``after``
    None for a rejection."""

    v: int = 1
    at: str
    who: str
    tab: Optional[str] = None
    doc_id: str
    claim_id: Optional[str] = None
    action: Action
    before: Optional[dict[str, Any]] = None
    after: Optional[dict[str, Any]] = None


@dataclass(frozen=True)
class LogProblem:
    """A line of the log that was skipped, and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"{LOG_NAME} line {self.line}: {self.message}; skipped"


class ReviewLog:
    """The append-only decision log of one output folder; an append holds the folder's lock
    (another review app's append is waited for, a run writing there for ``LOCK_WAIT``
    seconds, then ``OutputBusy``)."""

    LOCK_WAIT = 5.0

    def __init__(self, path: Union[str, Path]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def read(self) -> tuple[list[tuple[int, ReviewEvent]], list[LogProblem]]:
        """Every readable event with its line number, and the lines that were skipped."""
        events: list[tuple[int, ReviewEvent]] = []
        problems: list[LogProblem] = []
        if not self.path.is_file():
            return events, problems
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, ValueError) as exc:
                    cut = "" if raw.endswith(b"\n") else " (cut short)"
                    problems.append(LogProblem(number, f"not valid JSON{cut}: {_short(exc)}"))
                    continue
                try:
                    events.append((number, ReviewEvent.model_validate(row)))
                except ValidationError as exc:
                    problems.append(LogProblem(number, f"not a review decision: {_short(exc)}"))
        return events, problems

    def append(self, event: ReviewEvent) -> None:
        """Write one event as a line and make it durable before returning."""
        line = json_line(event.model_dump(mode="json"))
        with self._lock, OutputLock(self.path.parent, wait=True, timeout=self.LOCK_WAIT, say=_quiet):
            with self.path.open("a+b") as handle:
                if handle.tell() > 0:
                    handle.seek(-1, os.SEEK_END)
                    if handle.read(1) != b"\n":  # a cut-short last line: do not extend it
                        handle.write(b"\n")
                handle.write(line.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())


def _quiet(_message: str) -> None:
    """A wait of a moment for the folder's lock is not worth a line on the terminal."""


def _short(exc: Exception) -> str:
    """The first line of an exception's message, at most 120 characters."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
