"""The Batch API from the model side (issue 41): request lines in OpenAI's batch file format
(which ``vllm run-batch`` reads too), the lines of results files (OpenAI's output and error
files, vLLM's output file), and the files-and-batches endpoints, each call with bounded
network retries of its own (validation re-asks are the run side's, in follow-up batches).

A request line is ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``,
its body what ``/chat/completions`` is sent (``request.chat_body``); its ``custom_id`` is the
document's id and the request's cache key (and, from a document's second request on, its
number): ``doc-17:<64 hex>`` then ``doc-17:<64 hex>:2``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Optional, TypeVar

from paper_claims.errors import BatchError, ClaimsError, StorageError
from paper_claims.model.answer import validate_answer
from paper_claims.model.backends import Backend
from paper_claims.model.request import backoff_delay, completion_content, describe_error, retry_delay, usage_of
from paper_claims.settings import Settings

BATCH_URL = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
MAX_REQUESTS = 50_000  # OpenAI: requests in one batch
MAX_BYTES = 190_000_000  # OpenAI: 200 MB per input file (with room)
ENDED = ("completed", "failed", "expired", "cancelled")
TRANSIENT_CODES = ("429", "500", "502", "503", "504", "request_timeout")
_KEY = re.compile(r"[0-9a-f]{64}")
T = TypeVar("T")


def custom_id(doc_id: str, key: str, n: int = 1) -> str:
    """The ``custom_id`` of a document's ``n``-th request under cache key ``key``."""
    base = f"{doc_id[:100]}:{key}"
    return base if n == 1 else f"{base}:{n}"


def parse_custom_id(value: str) -> tuple[str, int]:
    """(cache key, request number) of a ``custom_id``; ``ValueError`` for one not ours."""
    parts = value.rsplit(":", 2)
    if len(parts) == 3 and parts[2].isdigit() and _KEY.fullmatch(parts[1]):
        return parts[1], int(parts[2])
    if len(parts) >= 2 and _KEY.fullmatch(parts[-1]):
        return parts[-1], 1
    raise ValueError(f"custom_id {value!r} names no cache key")


def renumbered(custom: str, n: int) -> str:
    """The ``custom_id`` of the ``n``-th request of the document of ``custom``."""
    key, _ = parse_custom_id(custom)
    return custom_id(custom[: custom.rindex(key) - 1], key, n)


def schema_of(body: dict[str, Any]) -> dict[str, Any]:
    """The answer schema a request body's ``response_format`` constrains the answer to."""
    response_format = body["response_format"]
    return response_format.get("schema") or response_format["json_schema"]["schema"]  # type: ignore[no-any-return]


def read_labels(content: str, schema: dict[str, Any], answer_type: type[Any],
                response_model: Optional[type[Any]] = None) -> Any:
    """An answer's labels, validated as the chat path validates them (against the document's
    answer schema, or a filled schema's response model); pydantic's ``ValidationError`` if not."""
    if response_model is not None:
        from paper_claims.model.instructor_fill import as_answer

        return as_answer(response_model.model_validate_json(content))
    return validate_answer(schema, content, answer_type)


def request_line(custom: str, body: dict[str, Any]) -> str:
    """One line of a batch request file (with its newline)."""
    record = {"custom_id": custom, "method": "POST", "url": BATCH_URL, "body": body}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass(frozen=True)
class BatchAnswer:
    """One line of a results file: the answer's text, or why there is none."""

    custom_id: str
    key: str
    n: int
    content: Optional[str] = None
    usage: tuple[int, int] = (0, 0)
    error: Optional[str] = None
    code: str = ""  # the HTTP status ("500") or the error's code ("batch_expired")

    @property
    def transient(self) -> bool:
        """A failure worth another try: a rate limit, a server error, a timeout."""
        return self.code in TRANSIENT_CODES


def read_answer_line(record: dict[str, Any]) -> BatchAnswer:
    """A results line: OpenAI's (``response`` with ``status_code`` and ``body``; ``error``
    with ``code`` and ``message``) or vLLM's (``error`` a message string)."""
    custom = str(record["custom_id"])
    key, n = parse_custom_id(custom)
    response = record.get("response") or {}
    error = record.get("error")
    status = response.get("status_code")
    body = response.get("body") or {}
    if status == 200 and not error and body.get("choices"):
        return BatchAnswer(custom, key, n, completion_content(body), usage_of(body))
    if isinstance(error, dict):
        return BatchAnswer(custom, key, n, error=str(error.get("message") or error), code=str(error.get("code") or ""))
    detail = body.get("error") if isinstance(body, dict) else None
    message = (detail.get("message") if isinstance(detail, dict) else detail) or error or "no answer"
    return BatchAnswer(custom, key, n, error=f"HTTP {status}: {message}" if status else str(message),
                       code=str(status or ""))


def read_answers(path: Path) -> Iterator[tuple[int, str, BatchAnswer]]:
    """(byte offset, line, answer) of every line of a results file; ``BatchError`` names a
    line that is not one."""
    with _reading(path), path.open("rb") as handle:
        offset = 0
        for number, raw in enumerate(handle, 1):
            if raw.strip():
                try:
                    line = raw.decode("utf-8")
                    yield offset, line if line.endswith("\n") else line + "\n", read_answer_line(json.loads(line))
                except (ValueError, KeyError, TypeError, AttributeError) as e:
                    raise BatchError(f"{path}:{number}: not a batch results line ({e})") from e
            offset += len(raw)


def answer_at(path: Path, offset: int) -> BatchAnswer:
    """The results line at ``offset`` (from ``read_answers``)."""
    with _reading(path), path.open("rb") as handle:
        handle.seek(offset)
        return read_answer_line(json.loads(handle.readline()))


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[None]:
    try:
        yield
    except OSError as e:
        raise BatchError(f"cannot read the batch file {path}: {e.strerror or e}") from e


@contextlib.contextmanager
def _storage(path: Path) -> Iterator[None]:
    try:
        yield
    except OSError as e:
        raise StorageError.of(e, path) from e


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for writing, flushed to the disk on the way out; ``StorageError`` if it cannot be."""
    with _storage(path):
        handle = path.open("wb")
    try:
        yield handle
        with _storage(path):
            handle.flush()
            os.fsync(handle.fileno())
    finally:
        with contextlib.suppress(OSError):
            handle.close()


def _dropped(error: Exception) -> bool:
    """A connection dropped while a file streamed in: httpx raises its own error there, which
    the SDK does not wrap (worth another try, as the SDK's connection errors are)."""
    return any(kind.__name__ == "TransportError" for kind in type(error).__mro__)


@dataclass(frozen=True)
class BatchInfo:
    """A batch as the endpoint reports it."""

    id: str
    status: str
    input_file_id: str = ""
    output_file_id: Optional[str] = None
    error_file_id: Optional[str] = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    created_at: int = 0
    message: str = ""  # why a batch failed (its errors), else ""
    code: str = ""  # the code of its first error ("token_limit_exceeded")

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @classmethod
    def of(cls, batch: Any) -> "BatchInfo":
        """From the SDK's ``Batch``."""
        counts = batch.request_counts
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        message = "; ".join(f"{e.message}" + (f" (line {e.line})" if getattr(e, "line", None) else "")
                            for e in errors[:3] if getattr(e, "message", None))
        return cls(id=batch.id, status=batch.status, input_file_id=batch.input_file_id,
                   output_file_id=batch.output_file_id, error_file_id=batch.error_file_id,
                   total=counts.total if counts else 0, completed=counts.completed if counts else 0,
                   failed=counts.failed if counts else 0, created_at=int(batch.created_at or 0), message=message,
                   code=str(getattr(errors[0], "code", "") or "") if errors else "")


class BatchClient:
    """``/v1/files`` and ``/v1/batches`` of ``backend`` through the openai SDK (its own
    retries off): each call is retried on network failures, rate limits and server errors,
    ``max_retries`` times with backoff; any other failure is a ``BatchError`` saying which step."""

    def __init__(self, backend: Backend, settings: Settings) -> None:
        import openai

        self.backend, self.settings = backend, settings
        self.client = openai.OpenAI(base_url=backend.base_url, api_key=backend.api_key or "none", max_retries=0,
                                    timeout=settings.timeout)

    def _call(self, what: str, call: Callable[[], T]) -> T:
        for attempt in range(1, self.settings.max_retries + 2):
            try:
                return call()
            except ClaimsError:
                raise
            except Exception as e:
                delay = retry_delay(e, attempt, self.settings)
                if delay is None and _dropped(e) and attempt <= self.settings.max_retries:
                    delay = backoff_delay(attempt, self.settings)
                if delay is None:
                    raise BatchError(self._failed(what, e, attempt)) from e
                time.sleep(delay)
        raise AssertionError("unreachable")

    def _failed(self, what: str, error: BaseException, attempts: int) -> str:
        status = getattr(error, "status_code", None)
        if status in (404, 405) and what == "uploading the requests":
            return (f"the endpoint {self.backend.base_url} does not implement the Batch API (POST /files answered "
                    f"{status}); write the requests with --write-batch for vllm run-batch, or leave out --batch")
        again = f" after {attempts} attempts" if attempts > 1 else ""
        return f"{what} failed{again}: {type(error).__name__}: {describe_error(error, self.backend, 240)}"

    def upload(self, path: Path) -> str:
        """Upload a request file (purpose ``batch``); its file id."""
        def send() -> str:
            with path.open("rb") as handle:
                return str(self.client.files.create(file=(path.name, handle, "application/jsonl"),
                                                    purpose="batch").id)

        return self._call("uploading the requests", send)

    def create(self, file_id: str, metadata: dict[str, str]) -> BatchInfo:
        """Create the batch of an uploaded request file."""
        return BatchInfo.of(self._call("creating the batch", lambda: self.client.batches.create(
            input_file_id=file_id, endpoint=BATCH_URL, completion_window=COMPLETION_WINDOW, metadata=metadata)))

    def created_from(self, file_id: str, since: float) -> Optional[BatchInfo]:
        """The batch already created from ``file_id`` (a run killed while creating it), looked
        for among the batches created since ``since`` (newest first), or None."""
        def find() -> Optional[BatchInfo]:
            for batch in self.client.batches.list(limit=100):
                if batch.input_file_id == file_id:
                    return BatchInfo.of(batch)
                if batch.created_at and batch.created_at < since - 600:  # older than the upload: stop
                    return None
            return None

        return self._call("listing the batches", find)

    def retrieve(self, batch_id: str) -> BatchInfo:
        """The batch now; one the endpoint no longer knows (404) as failed, so its requests go to the next run."""
        import openai

        def poll() -> BatchInfo:
            try:
                return BatchInfo.of(self.client.batches.retrieve(batch_id))
            except openai.NotFoundError:
                return BatchInfo(batch_id, "failed", message="the endpoint no longer knows this batch")

        return self._call(f"polling batch {batch_id}", poll)

    def download(self, file_id: str, path: Path) -> None:
        """A file's content into ``path``, whole or not at all (a temporary file renamed)."""
        partial = path.with_name(path.name + ".part")

        def fetch() -> None:
            with self.client.files.with_streaming_response.content(file_id) as response, \
                    _writing(partial) as out:
                for chunk in response.iter_bytes(1 << 20):
                    out.write(chunk)

        try:
            self._call(f"downloading file {file_id}", fetch)
            with _storage(path):
                os.replace(partial, path)
        finally:
            with contextlib.suppress(OSError):
                partial.unlink()

    def close(self) -> None:
        self.client.close()
