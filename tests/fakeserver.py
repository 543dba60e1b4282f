"""A fake OpenAI-compatible chat-completions server for tests and benchmarks.

Pure standard library (asyncio streams, HTTP/1.1 with keep-alive), so it needs no extra
package and can sustain many concurrent connections with simulated latency.

``POST /v1/chat/completions`` answers a ``chat.completion`` whose message content is a
``DocumentLabels`` JSON computed from the request: every mark ``[n]`` of the document
(the first user message) is labelled as kind ``"scale"``, the first marked name is the
system and a model, the second a dataset. For a claim schema of your own (each mark of the
request's schema an object with a ``kind``) every mark gets the schema's first kind, its
first span field the word right after the number and the rest null, its plain fields their
first value (``schema_answer_for``). A schema filled directly (``--fill instructor``: the
request's schema has a ``claims`` array) gets one claim per figure of the text (the figure's
digits, the first kind, the word after it as the first span field) plus one claim whose number
is not in the text (``filled_answer_for``). The marks and name letters are read from the
request's JSON schema (``c.required``, ``e.properties``) when present, otherwise from the
text (``[1]``, ``[2]``, ... in sequence; ``{A}``, ``{B}``, ...).

Faults: ``fault_rate`` of the calls (decided by a seeded RNG keyed on the document and
its request number, so the outcome does not depend on arrival order) fail as one of
``fault_kinds``:

* ``"500"``       HTTP 500 with an OpenAI-style error body
* ``"429"``       HTTP 429 with ``Retry-After: <retry_after>``
* ``"malformed"`` HTTP 200 whose content is not valid JSON (instructor re-asks)
* ``"badmark"``   HTTP 200 whose content points at a mark that does not exist
* ``"drop"``      the connection is closed without an answer
* ``"echo_auth"`` HTTP 401 whose error message echoes the Authorization header

``plan(doc_key, index, text)`` (index = 0-based request number of that document) may
override the decision for a request: return a fault kind, ``"ok"``, or ``None`` to fall
back to the random draw.

Every chat request is counted per document (``doc_key`` = sha256 of the first user
message, 16 hex digits); ``GET /_stats`` exposes the counts as JSON (for a server in a
subprocess) and ``GET /v1/models`` lists one model.

Use::

    with FakeServer(latency=0.2, fault_rate=0.3, seed=1) as server:
        extract_claims(..., base_url=server.base_url, api_key="sk-test")
        server.counts            # {doc_key: requests}

or from a shell: ``python tests/fakeserver.py --port 8123 --latency 0.2`` (prints
``READY <base_url>`` on stdout once it listens; SIGTERM/SIGINT stop it).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

FAULT_KINDS = ("500", "429", "malformed", "drop")
Plan = Callable[[str, int, str], Optional[str]]

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
            429: "Too Many Requests", 500: "Internal Server Error"}


def doc_key(user_message: str) -> str:
    """The key the server counts a document's requests under."""
    return hashlib.sha256(user_message.encode("utf-8")).hexdigest()[:16]


def doc_key_for_text(text: str) -> str:
    """The key of a document given its plain text (marks inserted as the pipeline does)."""
    from paper_claims.model.prompt import render_messages
    from paper_claims.parse.document import parse_text
    from paper_claims.rules.selection import candidate_mentions

    doc = parse_text(text)
    return doc_key(render_messages(doc.marked(candidate_mentions(doc, doc.numbers)))[1]["content"])


@dataclass
class RequestRecord:
    """One chat request as the server saw it."""

    doc: str
    index: int
    fault: Optional[str]
    received: float
    n_messages: int
    system: str = ""  # the system message


@dataclass
class _Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False
    stall_after: Optional[int] = None  # send this many bytes of the body, then hang (a download cut short)
    content_type: str = "application/json"


def _first_user_message(messages: Sequence[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def _schema(body: dict[str, Any]) -> Any:
    response_format = body.get("response_format") or {}
    return response_format.get("schema") or (response_format.get("json_schema") or {}).get("schema")


def _n_marks(body: dict[str, Any], text: str) -> int:
    """How many marks the document has: from the request schema, else from the text."""
    try:
        return len(_schema(body)["properties"]["c"]["required"])
    except (KeyError, TypeError, AttributeError):
        pass
    n = 0
    while f"[{n + 1}]" in text:
        n += 1
    return n


def _name_letters(body: dict[str, Any], text: str) -> list[str]:
    """The name letters of the document: from the request schema, else the text's ``{A}``."""
    schema = _schema(body)
    if isinstance(schema, dict) and "properties" in schema:  # the answer model's schema decides
        return list(schema["properties"].get("e", {}).get("properties", {}))
    return list(dict.fromkeys(_LETTER.findall(text)))


_LETTER = re.compile(r"\{([A-Z]{1,2})\}")


def labels_for(text: str, n_marks: int, letters: Sequence[str] = ()) -> dict[str, Any]:
    """The DocumentLabels JSON the fake model answers for a document: every mark a scale
    claim, the first name the system and a model, the second a dataset, the rest none."""
    answer: dict[str, Any] = {"s": letters[0] if letters else None}
    if letters:
        codes = ["model", "dataset"] + ["none"] * max(0, len(letters) - 2)
        answer["e"] = dict(zip(letters, codes))
    if n_marks:
        answer["c"] = {str(n): "scale" for n in range(1, n_marks + 1)}
    return answer


def _mark_schema(body: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The answer schema of one mark when the request is for a custom claim schema."""
    try:
        mark = _schema(body)["properties"]["c"]["properties"]["1"]
    except (KeyError, TypeError, AttributeError):
        return None
    return mark if isinstance(mark, dict) and "kind" in mark.get("properties", {}) else None


def schema_answer_for(text: str, n_marks: int, mark: dict[str, Any]) -> dict[str, Any]:
    """The fake model's answer under a custom claim schema (see the module docstring)."""
    answer: dict[str, Any] = {}
    for n in range(1, n_marks + 1):
        after = text.split(f"[{n}]", 1)[1] if f"[{n}]" in text else ""
        words = re.findall(r"[A-Za-z][\w-]*", after)
        word = words[1] if len(words) > 1 else None  # the first word is mostly the unit
        row: dict[str, Any] = {}
        spans = 0
        for name, spec in mark["properties"].items():
            choices = spec.get("enum") or next((part["enum"] for part in spec.get("anyOf", []) if "enum" in part), None)
            if choices:
                row[name] = choices[0]
            else:
                row[name] = word if spans == 0 else None
                spans += 1
        answer[str(n)] = row
    return {"c": answer}


def _item_schema(body: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The schema of one claim when the request fills a schema directly."""
    try:
        item = _schema(body)["properties"]["claims"]["items"]
    except (KeyError, TypeError, AttributeError):
        return None
    return item if isinstance(item, dict) else None


INVENTED_NUMBER = "31337"  # a number the fake model adds that no text has


def filled_answer_for(text: str, item: dict[str, Any]) -> dict[str, Any]:
    """The fake model's answer when it fills a schema directly (see the module docstring)."""
    claims = []
    for figure in [*re.finditer(r"\d+(?:\.\d+)?", text), None]:
        row: dict[str, Any] = {"number": figure.group() if figure else INVENTED_NUMBER}
        words = re.findall(r"[A-Za-z][\w-]*", text[figure.end():]) if figure else []
        spans = 0
        for name, spec in item["properties"].items():
            if name == "number":
                continue
            choices = spec.get("enum") or next((part["enum"] for part in spec.get("anyOf", []) if "enum" in part), None)
            if choices is None and "const" in spec:
                choices = [spec["const"]]
            if choices:
                row[name] = choices[0]
            else:
                row[name] = words[1] if spans == 0 and len(words) > 1 else None
                spans += 1
        claims.append(row)
    return {"claims": claims}


class FakeServer:
    """The fake endpoint; ``start()`` runs it in a daemon thread, ``stop()`` ends it."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        fault_kinds: Sequence[str] = FAULT_KINDS,
        seed: int = 0,
        retry_after: str = "0",
        plan: Optional[Plan] = None,
        model: str = "fake-model",
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.latency = latency
        self.fault_rate = fault_rate
        self.fault_kinds = tuple(fault_kinds)
        self.seed = seed
        self.retry_after = retry_after
        self.plan = plan
        self.model = model
        self.host = host
        self.port = port
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.records: list[RequestRecord] = []
        self.auth_seen: set[str] = set()
        self.connections = 0
        self.max_in_flight = 0
        self._in_flight = 0
        self._sequence = 0
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._server: Optional[asyncio.base_events.Server] = None
        self._thread: Optional[threading.Thread] = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._held: set[asyncio.Future[None]] = set()  # requests held until the server stops (kept from the GC)

    # --- public helpers ------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def total_requests(self) -> int:
        with self._lock:
            return sum(self.counts.values())

    def count_for_text(self, text: str) -> int:
        """Requests made so far for the document with this plain text."""
        with self._lock:
            return self.counts.get(doc_key_for_text(text), 0)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "total": sum(self.counts.values()),
                "per_doc": dict(self.counts),
                "faults": dict(self.faults),
                "connections": self.connections,
                "max_in_flight": self.max_in_flight,
            }

    def reset(self) -> None:
        with self._lock:
            self.counts.clear()
            self.faults.clear()
            self.records.clear()
            self.auth_seen.clear()
            self.connections = 0
            self.max_in_flight = 0

    # --- lifecycle ----------------------------------------------------------------------

    async def start_async(self) -> None:
        self._server = await asyncio.start_server(self._serve_connection, self.host, self.port,
                                                  backlog=1024, reuse_address=True)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop_async(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in list(self._writers):
                writer.close()
            current = asyncio.current_task()
            tasks = [t for t in asyncio.all_tasks() if t is not current]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self._server.wait_closed()
            self._server = None

    def start(self) -> "FakeServer":
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start_async())
            except BaseException as e:  # pragma: no cover - e.g. port in use
                failure.append(e)
                ready.set()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self.stop_async())
                loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
        self._loop = self._thread = None

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- HTTP/1.1 --------------------------------------------------------------------------

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            self.connections += 1
        self._writers.add(writer)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                method, path, headers, body = request
                reply = await self._handle(method, path, headers, body)
                if reply.drop:
                    writer.close()
                    break
                keep_alive = headers.get("connection", "").lower() != "close"
                head = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}",
                        f"Content-Length: {len(reply.body)}",
                        f"Content-Type: {reply.content_type}",
                        f"Connection: {'keep-alive' if keep_alive else 'close'}"]
                head += [f"{k}: {v}" for k, v in reply.headers.items()]
                body = reply.body if reply.stall_after is None else reply.body[:reply.stall_after]
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
                await writer.drain()
                if reply.stall_after is not None:
                    await self.hold()
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:  # stop(): end quietly (a cancelled task would be logged)
            pass
        finally:
            self._writers.discard(writer)
            if not writer.transport.is_closing():
                writer.close()

    @staticmethod
    async def _read_request(reader: asyncio.StreamReader) -> Optional[tuple[str, str, dict[str, str], bytes]]:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, path, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            body = b"".join(chunks)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
        return method, path, headers, body

    # --- the fake model ------------------------------------------------------------------

    async def _handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> _Reply:
        path = path.split("?", 1)[0].rstrip("/")
        if method == "GET" and path.endswith("/models"):
            return _json(200, {"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 0, "owned_by": "fake"}]})
        if method == "GET" and path == "/_stats":
            return _json(200, self.snapshot())
        if path.endswith("/chat/completions"):
            if method != "POST":
                return _json(405, _error("method not allowed", "invalid_request_error"))
            return await self._chat(headers, body)
        return await self._route(method, path, headers, body)

    async def hold(self) -> None:
        """Wait until the server stops (a request that never gets its answer)."""
        held: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._held.add(held)
        await held

    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> _Reply:
        """The routes of a subclass (the files and batches of ``tests.fakebatch``)."""
        return _json(404, _error(f"no route {path}", "invalid_request_error"))

    def _decide(self, key: str, index: int, text: str) -> Optional[str]:
        if self.plan is not None:
            planned = self.plan(key, index, text)
            if planned is not None:
                return None if planned == "ok" else planned
        if self.fault_rate <= 0 or not self.fault_kinds:
            return None
        rng = random.Random(f"{self.seed}:{key}:{index}")
        if rng.random() < self.fault_rate:
            return rng.choice(self.fault_kinds)
        return None

    async def _chat(self, headers: dict[str, str], raw: bytes) -> _Reply:
        received = time.monotonic()
        try:
            body = json.loads(raw)
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            return _json(400, _error("request body is not a chat request", "invalid_request_error"))
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        fault, sequence = self._count(body, headers, received)
        try:
            if self.latency > 0:
                await asyncio.sleep(self.latency)
        finally:
            with self._lock:
                self._in_flight -= 1
        return self._reply(body, fault, sequence, headers)

    def _count(self, body: dict[str, Any], headers: dict[str, str], received: float) -> tuple[Optional[str], int]:
        """Count and record one chat request; its fault (or None) and its sequence number."""
        messages = body["messages"]
        text = _first_user_message(messages)
        key = doc_key(text)
        with self._lock:
            index = self.counts[key]
            self.counts[key] += 1
            self._sequence += 1
            sequence = self._sequence
            if "authorization" in headers:
                self.auth_seen.add(headers["authorization"])
        fault = self._decide(key, index, text)
        with self._lock:
            system = next((str(m.get("content", "")) for m in messages if isinstance(m, dict) and m.get("role") == "system"), "")
            self.records.append(RequestRecord(key, index, fault, received, len(messages), system))
            if fault:
                self.faults[fault] += 1
        return fault, sequence

    def _reply(self, body: dict[str, Any], fault: Optional[str], sequence: int, headers: Optional[dict[str, str]] = None) -> _Reply:
        """The reply to a chat request: its fault, or the fake model's completion."""
        headers = headers or {}
        messages = body["messages"]
        text = _first_user_message(messages)
        if fault == "drop":
            return _Reply(drop=True)
        if fault == "500":
            return _json(500, _error("the fake server failed on purpose", "server_error"))
        if fault == "429":
            return _json(429, _error("rate limited on purpose", "rate_limit_exceeded"),
                         {"Retry-After": self.retry_after})
        if fault == "echo_auth":
            return _json(401, _error(f"Incorrect API key provided: {headers.get('authorization', '')}",
                                     "invalid_api_key"))
        n_marks = _n_marks(body, text)
        mark, item = _mark_schema(body), _item_schema(body)
        if item is not None:
            labels = filled_answer_for(text, item)
        elif mark is not None:
            labels = schema_answer_for(text, n_marks, mark)
        else:
            labels = labels_for(text, n_marks, _name_letters(body, text))
        if fault == "badmark":
            labels["c"] = {str(n_marks + 7): "scale"}
        content = json.dumps(labels)
        if fault == "malformed":
            content = content[: max(1, len(content) // 2)] + ' <not json'
        prompt_chars = sum(len(str(m.get("content", ""))) for m in messages)
        return _json(200, {
            "id": f"chatcmpl-fake-{sequence}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }],
            "usage": {
                "prompt_tokens": max(1, prompt_chars // 4),
                "completion_tokens": max(1, len(content) // 4),
                "total_tokens": max(1, prompt_chars // 4) + max(1, len(content) // 4),
            },
        })


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def _json(status: int, payload: Any, headers: Optional[dict[str, str]] = None) -> _Reply:
    return _Reply(status=status, body=json.dumps(payload).encode("utf-8"), headers=headers or {})


_SYSTEMS = ["FlashServe", "QuickTune", "SparseMix", "DeepPack", "TurboKV", "NanoRoute", "GraphLift", "MemSqueeze"]
_DATASETS = ["ImageNet", "GLUE", "SQuAD", "COCO", "WikiText", "LibriSpeech", "MMLU", "HumanEval"]
_HARDWARE = ["A100 GPUs", "H100 GPUs", "TPU v4 chips", "V100 GPUs", "CPU cores"]


def synthetic_abstracts(n: int, seed: int = 0, prefix: str = "doc") -> list[dict[str, str]]:
    """``n`` distinct abstract-like records ``{"id", "text"}``, each with a few numbers."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        system, dataset, hardware = rng.choice(_SYSTEMS), rng.choice(_DATASETS), rng.choice(_HARDWARE)
        text = (
            f"We present {system}-{i}, a system for efficient training and inference of large models. "
            f"On {dataset} it reaches {rng.randint(50, 98)}.{rng.randint(0, 9)}% accuracy while using "
            f"{rng.choice([8, 16, 32, 64, 128])} {hardware}, and it delivers a {rng.randint(2, 19)}.{rng.randint(1, 9)}x "
            f"speedup over the strongest baseline. Memory use drops by {rng.randint(10, 80)}% "
            f"and throughput grows to {rng.randint(2, 900)} requests per second in our evaluation."
        )
        records.append({"id": f"{prefix}{i:05d}", "text": text})
    return records


def fetch_stats(base_url: str) -> dict[str, Any]:
    """``GET /_stats`` of a fake server (e.g. one running in a subprocess)."""
    import urllib.request

    root = base_url.rstrip("/").removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/_stats", timeout=10) as response:
        return json.loads(response.read())


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="fake OpenAI-compatible chat-completions server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--faults", default=",".join(FAULT_KINDS), help="comma-separated fault kinds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retry-after", default="0")
    args = parser.parse_args(argv)
    server = FakeServer(latency=args.latency, fault_rate=args.fault_rate,
                        fault_kinds=[k for k in args.faults.split(",") if k], seed=args.seed,
                        retry_after=args.retry_after, host=args.host, port=args.port)

    async def serve() -> None:
        await server.start_async()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        print(f"READY {server.base_url}", flush=True)
        await stop.wait()
        await server.stop_async()

    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
