"""Ask the model which marked numbers are results and what they measure.

The first answer is requested directly and validated against the document's marks;
an answer that fails validation is re-asked through instructor with the error fed back
(bounded by ``max_reasks``). Network failures are retried separately here, with backoff,
jitter and ``Retry-After``, bounded by ``max_retries``.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from pydantic import BaseModel

from paper_claims.model.answer import answer_model, to_labels, validate_answer
from paper_claims.model.backends import Backend
from paper_claims.errors import ExtractionError
from paper_claims.settings import Settings
from paper_claims.schemas import DocumentLabels


_CALLS: ContextVar[list[int]] = ContextVar("claims_model_calls")


def _count_call(*_args: Any, **_kwargs: Any) -> None:
    """instructor hook: one more model call in the current document's task."""
    counter = _CALLS.get(None)
    if counter is not None:
        counter[0] += 1


@dataclass
class LabelAnswer:
    """A validated answer and what it cost."""

    labels: Any  # DocumentLabels for the built-in schema, a SchemaAnswer for a custom one
    attempts: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0


@lru_cache(maxsize=512)
def _instructor_model(answer: type[BaseModel]) -> type[BaseModel]:
    """The answer model as instructor's response model (its JSON schema computed once).

    Made only on a re-ask: importing instructor costs about a second.
    """
    from instructor import OpenAISchema

    schema = answer.model_json_schema()

    class InstructedAnswer(answer, OpenAISchema):  # type: ignore[misc, valid-type]
        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
            return super().model_json_schema(*args, **kwargs) if args or kwargs else schema

    InstructedAnswer.__name__ = InstructedAnswer.__qualname__ = "DocumentLabels"
    return InstructedAnswer


class EndpointStatusError(Exception):
    """The endpoint answered a first request with an HTTP error status."""

    def __init__(self, status_code: int, body: Any, response: Any) -> None:
        super().__init__(f"Error code: {status_code} - {body}")
        self.status_code = status_code
        self.body = body
        self.response = response  # its headers carry Retry-After, as on the SDK's errors


class LabelClient:
    """First answers over aiohttp (one POST per document, no SDK on the way: about 0.4 ms of
    CPU a request against 1.6 ms for httpx, which matters at hundreds of requests a second),
    and an instructor client over the openai SDK, made on the first re-ask only: importing
    openai and instructor costs over a second, which a run whose answers all validate never
    pays."""

    def __init__(self, base_url: str, api_key: str, timeout: float) -> None:
        self.base_url, self.api_key, self.timeout = base_url.rstrip("/"), api_key, timeout
        self.headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json",
                        "User-Agent": "paper-claims"}
        self._session: Any = None
        self._raw: Any = None
        self._instructed: Any = None

    async def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST /chat/completions; the completion as JSON, or EndpointStatusError."""
        import aiohttp

        if self._session is None:  # made in the running event loop, as aiohttp requires
            self._session = aiohttp.ClientSession(
                headers=self.headers, trust_env=True, timeout=aiohttp.ClientTimeout(total=self.timeout))
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        async with self._session.post(f"{self.base_url}/chat/completions", data=content) as response:
            raw = await response.read()
        if response.status >= 400:
            try:
                detail: Any = json.loads(raw)
            except ValueError:
                detail = raw.decode("utf-8", "replace")
            raise EndpointStatusError(response.status, detail, response)
        return json.loads(raw)  # type: ignore[no-any-return]

    @property
    def instructed(self) -> Any:
        if self._instructed is None:
            import instructor
            import openai

            self._raw = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0,
                                           timeout=self.timeout)
            self._instructed = instructor.from_openai(self._raw, mode=instructor.Mode.JSON_SCHEMA)
            self._instructed.on("completion:kwargs", _count_call)
        return self._instructed

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._raw is not None:
            await self._raw.close()


def make_client(backend: Backend, settings: Settings) -> LabelClient:
    """Clients for ``backend`` (network retries are ours, not the SDK's)."""
    return LabelClient(backend.base_url, backend.api_key, settings.timeout)


def _retryable(error: BaseException) -> bool:
    """A network failure or a 429/5xx answer: worth another try."""
    import aiohttp

    if isinstance(error, (aiohttp.ClientError, asyncio.TimeoutError)):  # connect, disconnect, timeout
        return True
    if isinstance(error, EndpointStatusError):
        return error.status_code == 429 or error.status_code >= 500
    if "openai" in sys.modules:  # the re-ask path goes through the SDK
        import openai

        if isinstance(error, (openai.APIConnectionError, openai.APITimeoutError)):
            return True
        if isinstance(error, openai.APIStatusError):
            return error.status_code == 429 or error.status_code >= 500
    return False


def _retry_after(error: BaseException) -> Optional[float]:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def backoff_delay(attempt: int, settings: Settings, retry_after: Optional[float] = None) -> float:
    """Exponential backoff with full jitter; a server's Retry-After wins (capped)."""
    if retry_after is not None:
        return min(retry_after, settings.backoff_cap)
    ceiling = min(settings.backoff_cap, settings.backoff_base * (2 ** (attempt - 1)))
    return random.uniform(ceiling / 2, ceiling)


def _network_cause(error: BaseException) -> Optional[BaseException]:
    """The network error inside an instructor wrapper, if that is what failed."""
    seen = 0
    current: Optional[BaseException] = error
    while current is not None and seen < 5:
        if _retryable(current):
            return current
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def _is_reask_failure(error: BaseException) -> bool:
    """instructor gave up on a re-ask (instructor is imported only once a re-ask happened)."""
    if "instructor" not in sys.modules:
        return False
    from instructor.core.exceptions import InstructorRetryException

    return isinstance(error, InstructorRetryException)


def _is_api_error(error: Optional[BaseException]) -> bool:
    openai = sys.modules.get("openai")
    return isinstance(error, EndpointStatusError) or (openai is not None and isinstance(error, openai.APIError))


def completion_content(completion: Any) -> str:
    """The answer text of a completion's JSON ("" when it has none)."""
    try:
        return completion["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        return ""


def usage_of(completion: Any) -> tuple[int, int]:
    """(prompt, completion) tokens of a completion: JSON from a first request, or an SDK object."""
    usage = completion.get("usage") if isinstance(completion, dict) else getattr(completion, "usage", None)
    if isinstance(usage, dict):
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    return int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)


def describe_error(error: BaseException, backend: Backend, limit: int = 300) -> str:
    """An error as one short line, with the API key redacted (a proxy may echo it)."""
    text = " ".join(str(error).split())
    if backend.api_key and len(backend.api_key) >= 8:
        text = text.replace(backend.api_key, "***")
    return text[:limit]


def _last_output(error: BaseException) -> Optional[str]:
    completion = getattr(error, "last_completion", None)
    try:
        return completion.choices[0].message.content  # type: ignore[union-attr]
    except (AttributeError, IndexError, TypeError):
        return None


REASK = (
    "Your JSON did not validate: {error}\n"
    "Answer again with corrected JSON for the same marks, nothing else."
)


def chat_body(backend: Backend, settings: Settings, messages: list[dict[str, str]], schema: dict[str, Any],
              max_tokens: int) -> dict[str, Any]:
    """The body of a first request for ``messages``: what ``/chat/completions`` is sent, and
    what a batch request line carries."""
    return {"model": backend.model, "messages": messages, "temperature": settings.temperature,
            "max_tokens": max_tokens, "response_format": backend.response_format(schema)}


def reask_messages(messages: list[dict[str, str]], content: str, error: BaseException) -> list[dict[str, str]]:
    """``messages`` followed by the answer that failed validation and the error fed back."""
    return [*messages, {"role": "assistant", "content": content},
            {"role": "user", "content": REASK.format(error=" ".join(str(error).split())[:600])}]


def reask_depth(messages: list[dict[str, Any]]) -> int:
    """How many re-asks ``messages`` carry (each ends in a ``REASK`` message)."""
    opening = REASK.split("{", 1)[0]
    return sum(m.get("role") == "user" and str(m.get("content", "")).startswith(opening) for m in messages)


def retry_delay(error: BaseException, attempt: int, settings: Settings) -> Optional[float]:
    """Seconds to wait after network attempt ``attempt`` failed with ``error`` (backoff, or the
    server's Retry-After), or None when it is no network failure or ``max_retries`` are used."""
    if attempt > settings.max_retries or not _retryable(error):
        return None
    return backoff_delay(attempt, settings, _retry_after(error))


async def _answer(
    client: LabelClient, backend: Backend, settings: Settings, messages: list[dict[str, str]],
    schema: dict[str, Any], doc_id: str, answer_type: type[Any], max_tokens: int,
) -> tuple[Any, list[Any]]:
    """A validated answer and the completions it took.

    The first request goes straight through the openai client (the common case, and
    the cheap one); only an answer that fails validation goes to instructor, which
    re-asks with the error fed back, at most ``max_reasks`` times in all.
    """
    from pydantic import ValidationError

    _count_call()
    completion = await client.complete(chat_body(backend, settings, messages, schema, max_tokens))
    content = completion_content(completion)
    try:
        return validate_answer(schema, content, answer_type), [completion]
    except ValidationError as e:
        error = e
    if settings.max_reasks < 1:
        raise ExtractionError(f"model answer failed validation: {describe_error(error, backend)}",
                              doc_id=doc_id, attempts=1, last_output=content)
    reask = reask_messages(messages, content, error)
    labels, again = await client.instructed.chat.completions.create_with_completion(
        model=backend.model, messages=reask, response_model=_instructor_model(answer_model(schema)),
        max_retries=settings.max_reasks - 1, temperature=settings.temperature,
        max_tokens=max_tokens, extra_body={"response_format": backend.response_format(schema)},
    )
    return to_labels(labels, answer_type), [completion, again]


async def _fill(
    client: LabelClient, backend: Backend, settings: Settings, messages: list[dict[str, str]],
    schema: dict[str, Any], response_model: type[BaseModel], max_tokens: int,
) -> tuple[Any, list[Any]]:
    """A schema filled directly through instructor (``--fill instructor``): instructor
    validates the response model and re-asks with the error, ``max_reasks`` times at most; the
    response format constrains the answer to ``schema`` (the response model's, inlined)."""
    from paper_claims.model.instructor_fill import as_answer

    filled, completion = await client.instructed.chat.completions.create_with_completion(
        model=backend.model, messages=messages, response_model=_instructor_model(response_model),
        max_retries=max(1, settings.max_reasks), temperature=settings.temperature, max_tokens=max_tokens,
        extra_body={"response_format": backend.response_format(schema)},
    )
    return as_answer(filled), [completion]


async def request_labels(
    client: LabelClient,
    backend: Backend,
    settings: Settings,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    doc_id: str,
    answer_type: type[Any] = DocumentLabels,
    max_tokens: Optional[int] = None,
    response_model: Optional[type[BaseModel]] = None,
) -> LabelAnswer:
    """One document's labels (an ``answer_type``), validated by the answer model of its
    ``schema``; ``max_tokens`` (default the settings') bounds the answer. With a
    ``response_model`` the schema is filled directly through instructor instead."""
    requests = 0
    for network_attempt in range(1, settings.max_retries + 2):
        calls = [0]
        token = _CALLS.set(calls)
        try:
            if response_model is not None:
                labels, completions = await _fill(client, backend, settings, messages, schema, response_model,
                                                  max_tokens or settings.max_tokens)
            else:
                labels, completions = await _answer(client, backend, settings, messages, schema, doc_id, answer_type,
                                                    max_tokens or settings.max_tokens)
        except ExtractionError:
            raise
        except Exception as e:
            requests += max(calls[0], 1)
            if _is_reask_failure(e):
                cause = _network_cause(e)
                if cause is None:
                    attempts = calls[0] or int(getattr(e, "n_attempts", 0) or 1)
                    what = "model request failed" if _is_api_error(e.__cause__) else "model answer failed validation"
                    raise ExtractionError(
                        f"{what}: {describe_error(e, backend)}",
                        doc_id=doc_id, attempts=attempts, last_output=_last_output(e),
                    ) from e
                error: BaseException = cause
            elif _retryable(e):  # a network error raised before instructor wrapped it
                error = e
            else:
                raise ExtractionError(f"model request failed: {describe_error(e, backend)}",
                                      doc_id=doc_id, attempts=requests) from e
        else:
            requests += max(calls[0], 1)
            usages = [usage_of(c) for c in completions]
            return LabelAnswer(
                labels=labels,
                attempts=max(calls[0], 1),
                prompt_tokens=sum(p for p, _ in usages),
                completion_tokens=sum(c for _, c in usages),
                requests=requests,
            )
        finally:
            _CALLS.reset(token)
        if network_attempt > settings.max_retries:
            raise ExtractionError(
                f"endpoint kept failing: {type(error).__name__}: {describe_error(error, backend, 200)}",
                doc_id=doc_id, attempts=requests,
            ) from error
        await asyncio.sleep(backoff_delay(network_attempt, settings, _retry_after(error)))
    raise AssertionError("unreachable")
