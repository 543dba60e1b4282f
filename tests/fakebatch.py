"""A stand-in for an OpenAI-compatible Batch API (issue 41), pure standard library.

``FakeBatchServer`` is ``tests.fakeserver.FakeServer`` (the fake ``/v1/chat/completions``) plus
``/v1/files`` (upload as multipart form data, list, retrieve, content) and ``/v1/batches``
(create, retrieve, list newest first, cancel) with the real state machine: ``validating`` ->
``in_progress`` -> ``finalizing`` -> ``completed``; ``failed`` when the request file does not
validate (a bad line, a ``custom_id`` twice, another url, more than ``max_requests``), when the
batches in progress would hold more than ``queue_limit`` requests (OpenAI's
``token_limit_exceeded``: the queue of enqueued tokens is full) or ``fail_next`` says so; ``expired`` after
``expire_after`` requests ran (those in the output file, the rest in the error file as
``batch_expired``); ``cancelling`` -> ``cancelled`` (``cancel()`` or POST .../cancel: the rest
``batch_cancelled``). Each request line is answered exactly as the chat endpoint answers it
(the same fake model, ``plan`` and faults, counted in ``counts`` per document): a 500, 429 or
dropped request goes to the error file, a malformed or bad answer to the output file.

Hooks: ``stall`` holds the points where a request hangs until the server stops: ``upload``
(the file is stored, the answer never comes), ``before_create``, ``create`` (the batch exists,
the answer never comes), ``poll``, ``download`` (half the content is sent). ``arrived[point]``
is set when a request reaches a stalled point. ``api_faults[point]`` (also ``files``, ``list``)
answers that many requests there with a 500. ``created`` counts batches, ``executed`` counts
how often each ``custom_id`` ran.

``python tests/fakebatch.py run-batch -i requests.jsonl -o results.jsonl`` answers a request
file offline in the format of ``vllm run-batch`` (one results file, failures in it too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from collections import Counter
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any, Optional, Sequence
from urllib.parse import parse_qs, urlsplit

if __package__ in (None, ""):  # run as a script: the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fakeserver import FakeServer, _error, _json, _Reply  # noqa: E402

STALL_POINTS = ("upload", "before_create", "create", "poll", "download")
ENDED = ("completed", "failed", "expired", "cancelled")


def _line_result(custom: str, reply: _Reply, number: int) -> tuple[bool, dict[str, Any]]:
    """(answered, the results line) of one request's reply, in OpenAI's output/error format."""
    if reply.drop:
        return False, {"id": f"batch_req_{number:06d}", "custom_id": custom, "response": None,
                       "error": {"code": "request_timeout", "message": "the request timed out"}}
    body = json.loads(reply.body)
    return reply.status == 200, {"id": f"batch_req_{number:06d}", "custom_id": custom, "error": None,
                                 "response": {"status_code": reply.status, "request_id": f"req_{number:06d}",
                                              "body": body}}


class FakeBatchServer(FakeServer):
    """The fake endpoint with files and batches (see the module docstring)."""

    def __init__(self, *, step: float = 0.02, request_seconds: float = 0.0, expire_after: Optional[int] = None,
                 max_requests: int = 50_000, queue_limit: Optional[int] = None, **options: Any) -> None:
        super().__init__(**options)
        self.step, self.request_seconds = step, request_seconds
        self.expire_after, self.max_requests = expire_after, max_requests
        self.queue_limit = queue_limit  # requests the batches in progress may hold together (OpenAI: enqueued tokens)
        self.fail_next: Optional[tuple[str, str]] = None  # (code, message) of the next batch's failed validation
        self.stall: set[str] = set()
        self.arrived = {point: threading.Event() for point in STALL_POINTS}
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = 0
        self.executed: Counter[str] = Counter()
        self._cancel: set[str] = set()
        self._lines = 0
        self.api_faults: Counter[str] = Counter()  # point -> how many of its next requests answer 500

    # --- for tests ----------------------------------------------------------------------

    def cancel(self, batch_id: str) -> None:
        with self._lock:
            self._cancel.add(batch_id)

    def batch_lines(self, batch_id: str) -> list[dict[str, Any]]:
        """The request lines of a batch."""
        content = self.contents[self.batches[batch_id]["input_file_id"]]
        return [json.loads(line) for line in content.splitlines() if line.strip()]

    # --- routes -------------------------------------------------------------------------

    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> _Reply:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        route = parts.path.rstrip("/").split("/v1", 1)[-1].strip("/").split("/")
        if route[0] == "files":
            return await self._files(method, route[1:], headers, body)
        if route[0] == "batches":
            return await self._batches(method, route[1:], body, query)
        return await super()._route(method, path, headers, body)

    def _failing(self, point: str) -> Optional[_Reply]:
        """A 500 for a request at ``point`` while ``api_faults`` asks for one."""
        with self._lock:
            if self.api_faults[point] <= 0:
                return None
            self.api_faults[point] -= 1
        return _json(500, _error(f"the stand-in failed {point} on purpose", "server_error"))

    async def _stalled(self, point: str) -> None:
        if point in self.stall:
            self.arrived[point].set()
            await self.hold()

    async def _files(self, method: str, route: list[str], headers: dict[str, str], body: bytes) -> _Reply:
        failing = self._failing("download" if route[1:] == ["content"] else "upload" if method == "POST" else "files")
        if failing is not None:
            return failing
        if method == "POST" and not route:
            upload = self._upload(headers, body)
            if upload is None:
                return _json(400, _error("expected multipart form data with purpose and file", "invalid_request_error"))
            await self._stalled("upload")
            return _json(200, upload)
        if method == "GET" and not route:
            return _json(200, {"object": "list", "data": list(self.files.values())[::-1], "has_more": False})
        file = self.files.get(route[0]) if route else None
        if file is None or method != "GET":
            return _json(404, _error(f"no such file {route[0] if route else ''}", "invalid_request_error"))
        if route[1:] == ["content"]:
            content = self.contents[file["id"]]
            stall = len(content) // 2 if "download" in self.stall else None
            if stall is not None:
                self.arrived["download"].set()
            return _Reply(status=200, body=content, stall_after=stall, content_type="application/octet-stream")
        return _json(200, file)

    def _upload(self, headers: dict[str, str], body: bytes) -> Optional[dict[str, Any]]:
        message = BytesParser(policy=policy.HTTP).parsebytes(
            b"Content-Type: " + headers.get("content-type", "").encode("latin-1") + b"\r\n\r\n" + body)
        if not message.is_multipart():
            return None
        fields: dict[str, Any] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True))
        if "file" not in fields or "purpose" not in fields:
            return None
        filename, content = fields["file"]
        with self._lock:
            file_id = f"file-{len(self.files) + 1:06d}"
            self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                                   "filename": filename or "upload.jsonl",
                                   "purpose": fields["purpose"][1].decode().strip(), "status": "processed"}
            self.contents[file_id] = content
        return self.files[file_id]

    async def _batches(self, method: str, route: list[str], body: bytes, query: dict[str, str]) -> _Reply:
        failing = self._failing("create" if method == "POST" and not route else "poll" if route else "list")
        if failing is not None:
            return failing
        if method == "POST" and not route:
            return await self._create(json.loads(body or b"{}"))
        if method == "GET" and not route:
            batches = sorted(self.batches.values(), key=lambda b: b["id"], reverse=True)
            if "after" in query:
                batches = [b for b in batches if b["id"] < query["after"]]
            page = batches[: int(query.get("limit", 20))]
            return _json(200, {"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                               "last_id": page[-1]["id"] if page else None, "has_more": len(batches) > len(page)})
        batch = self.batches.get(route[0]) if route else None
        if batch is None:
            return _json(404, _error(f"no such batch {route[0] if route else ''}", "invalid_request_error"))
        if method == "POST" and route[1:] == ["cancel"]:
            self.cancel(batch["id"])
            return _json(200, batch)
        await self._stalled("poll")
        return _json(200, batch)

    async def _create(self, request: dict[str, Any]) -> _Reply:
        if request.get("input_file_id") not in self.files:
            return _json(400, _error("no such input file", "invalid_request_error"))
        await self._stalled("before_create")
        with self._lock:
            self.created += 1
            batch_id = f"batch_{self.created:06d}"
            now = int(time.time())
            self.batches[batch_id] = batch = {
                "id": batch_id, "object": "batch", "endpoint": request.get("endpoint"), "errors": None,
                "input_file_id": request["input_file_id"], "completion_window": request.get("completion_window"),
                "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": now,
                "in_progress_at": None, "expires_at": now + 86400, "finalizing_at": None, "completed_at": None,
                "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": request.get("metadata"),
            }
        asyncio.get_running_loop().create_task(self._run(batch))
        await self._stalled("create")
        return _json(200, batch)

    # --- the state machine --------------------------------------------------------------

    async def _run(self, batch: dict[str, Any]) -> None:
        await asyncio.sleep(self.step)
        lines, problem = self._validate(batch)
        if problem is not None:
            batch.update(status="failed", failed_at=int(time.time()),
                         errors={"object": "list", "data": [problem]})
            return
        batch.update(status="in_progress", in_progress_at=int(time.time()))
        batch["request_counts"]["total"] = len(lines)
        output: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        ended = "completed"
        for number, line in enumerate(lines):
            if batch["id"] in self._cancel:
                batch.update(status="cancelling", cancelling_at=int(time.time()))
                ended = "cancelled"
            elif self.expire_after is not None and number >= self.expire_after:
                ended = "expired"
            if ended != "completed":
                code = "batch_cancelled" if ended == "cancelled" else "batch_expired"
                errors += [{"id": f"batch_req_x{n}", "custom_id": rest["custom_id"], "response": None,
                            "error": {"code": code, "message": f"the request did not run: {code}"}}
                           for n, rest in enumerate(lines[number:])]
                break
            if self.request_seconds:
                await asyncio.sleep(self.request_seconds)
            answered, result = self._execute(line)
            (output if answered else errors).append(result)
            batch["request_counts"]["completed" if answered else "failed"] += 1
        batch.update(status="finalizing", finalizing_at=int(time.time()))
        await asyncio.sleep(self.step)
        for kind, results in (("output_file_id", output), ("error_file_id", errors)):
            if results:
                batch[kind] = self._store(f"{batch['id']}_{kind}.jsonl",
                                          "".join(json.dumps(r) + "\n" for r in results).encode())
        batch.update(status=ended, **{f"{ended}_at": int(time.time())})

    def _validate(self, batch: dict[str, Any]) -> tuple[list[dict[str, Any]], Optional[dict[str, Any]]]:
        """The request lines, or the error that fails the batch."""
        if self.fail_next is not None:
            (code, message), self.fail_next = self.fail_next, None
            return [], {"code": code, "message": message, "param": None, "line": None}
        lines: list[dict[str, Any]] = []
        seen: set[str] = set()
        for number, raw in enumerate(self.contents[batch["input_file_id"]].splitlines(), 1):
            try:
                line = json.loads(raw)
                ok = (line["method"] == "POST" and line["url"] == batch["endpoint"] and line["custom_id"] not in seen
                      and isinstance(line["body"].get("messages"), list))
            except (ValueError, KeyError, TypeError, AttributeError):
                ok = False
            if not ok:
                return [], {"code": "invalid_request", "message": f"line {number} is not a valid request", "line": number}
            seen.add(line["custom_id"])
            lines.append(line)
        if not lines or len(lines) > self.max_requests:
            return [], {"code": "invalid_request", "message": f"{len(lines)} requests (1 to {self.max_requests})",
                        "line": None}
        queued = sum(b["request_counts"]["total"] for b in self.batches.values()
                     if b["status"] in ("in_progress", "finalizing") and b is not batch)
        if self.queue_limit is not None and queued + len(lines) > self.queue_limit:
            return [], {"code": "token_limit_exceeded", "line": None, "param": None,
                        "message": f"Enqueued token limit reached for fake-model. Limit: {self.queue_limit} enqueued "
                                   "requests. Please try again once some in_progress batches have been completed."}
        return lines, None

    def _execute(self, line: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """Answer one request line as the chat endpoint answers it."""
        with self._lock:
            self.executed[line["custom_id"]] += 1
            self._lines += 1
            number = self._lines
        fault, sequence = self._count(line["body"], {}, time.monotonic())
        return _line_result(line["custom_id"], self._reply(line["body"], fault, sequence), number)

    def _store(self, name: str, content: bytes) -> str:
        with self._lock:
            file_id = f"file-{len(self.files) + 1:06d}"
            self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                                   "filename": name, "purpose": "batch_output", "status": "processed"}
            self.contents[file_id] = content
        return file_id


def run_batch_file(requests: Path, results: Path, server: Optional[FakeServer] = None) -> int:
    """Answer a request file offline as ``vllm run-batch`` does: one results line per request
    (``error`` a message string where the request failed); the number of lines."""
    server = server or FakeServer()
    lines = []
    for number, raw in enumerate(requests.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        line = json.loads(raw)
        fault, sequence = server._count(line["body"], {}, time.monotonic())
        reply = server._reply(line["body"], fault, sequence)
        body = None if reply.drop else json.loads(reply.body)
        status = 500 if reply.drop else reply.status
        error = None if status == 200 else (body or {}).get("error", {}).get("message", "request failed")
        lines.append({"id": f"vllm-{number:08x}", "custom_id": line["custom_id"], "error": error,
                      "response": {"status_code": status, "request_id": f"vllm-batch-{number:08x}",
                                   "body": body if status == 200 else None}})
    results.write_text("".join(json.dumps(row) + "\n" for row in lines), encoding="utf-8")
    return len(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="the stand-in Batch API, or an offline batch run")
    commands = parser.add_subparsers(dest="command", required=True)
    offline = commands.add_parser("run-batch", help="answer a request file as vllm run-batch does")
    offline.add_argument("-i", "--input-file", required=True)
    offline.add_argument("-o", "--output-file", required=True)
    args = parser.parse_args(argv)
    count = run_batch_file(Path(args.input_file), Path(args.output_file))
    print(f"{count} requests answered into {args.output_file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
