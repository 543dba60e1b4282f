"""paper_claims.model.request: backoff with jitter and Retry-After, and which errors are retried."""

from __future__ import annotations

import asyncio
import random
from typing import Iterator

import httpx
import openai
import pytest

from paper_claims.model.request import _network_cause, _retry_after, _retryable, backoff_delay
from paper_claims.settings import Settings

URL = "http://127.0.0.1:9/v1/chat/completions"


def request() -> httpx.Request:
    return httpx.Request("POST", URL)


def response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers or {}, request=request())


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    classes = {
        400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError,
        404: openai.NotFoundError, 422: openai.UnprocessableEntityError, 429: openai.RateLimitError,
    }
    cls = classes.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(f"HTTP {status}", response=response(status, headers), body=None)


@pytest.fixture(autouse=True)
def _restore_random_state() -> Iterator[None]:
    """The tests seed the global RNG that backoff_delay uses; put it back afterwards."""
    state = random.getstate()
    yield
    random.setstate(state)


# ---------------------------------------------------------------------------
# backoff_delay
# ---------------------------------------------------------------------------


def test_retry_after_wins_when_below_the_cap() -> None:
    settings = Settings(backoff_base=0.5, backoff_cap=30.0)
    assert backoff_delay(1, settings, retry_after=7.0) == 7.0
    assert backoff_delay(5, settings, retry_after=0.0) == 0.0


def test_retry_after_is_capped() -> None:
    settings = Settings(backoff_base=0.5, backoff_cap=30.0)
    assert backoff_delay(1, settings, retry_after=3600.0) == 30.0
    assert backoff_delay(2, Settings(backoff_cap=2.5), retry_after=10.0) == 2.5


@pytest.mark.parametrize("attempt", [1, 2, 3, 4, 5, 6])
def test_backoff_grows_exponentially_with_jitter_within_bounds(attempt: int) -> None:
    settings = Settings(backoff_base=0.5, backoff_cap=1000.0)
    ceiling = 0.5 * 2 ** (attempt - 1)
    random.seed(attempt)
    delays = [backoff_delay(attempt, settings) for _ in range(200)]
    assert all(ceiling / 2 <= d <= ceiling for d in delays)
    assert len(set(delays)) > 150  # jittered, not a constant
    assert max(delays) - min(delays) > ceiling / 4  # spread over the window


def test_backoff_windows_double_each_attempt() -> None:
    settings = Settings(backoff_base=0.25, backoff_cap=1000.0)
    random.seed(0)
    means = [sum(backoff_delay(a, settings) for _ in range(400)) / 400 for a in range(1, 6)]
    for earlier, later in zip(means, means[1:]):
        assert 1.6 < later / earlier < 2.4


def test_backoff_is_capped() -> None:
    settings = Settings(backoff_base=0.5, backoff_cap=3.0)
    random.seed(1)
    delays = [backoff_delay(attempt, settings) for attempt in range(1, 30) for _ in range(20)]
    assert max(delays) <= 3.0
    late = [backoff_delay(20, settings) for _ in range(50)]
    assert all(1.5 <= d <= 3.0 for d in late)


def test_backoff_is_deterministic_under_a_seed() -> None:
    settings = Settings()
    random.seed(42)
    first = [backoff_delay(a, settings) for a in range(1, 6)]
    random.seed(42)
    assert [backoff_delay(a, settings) for a in range(1, 6)] == first


# ---------------------------------------------------------------------------
# _retry_after
# ---------------------------------------------------------------------------


def test_retry_after_header_is_read_from_the_error() -> None:
    assert _retry_after(status_error(429, {"Retry-After": "12"})) == 12.0
    assert _retry_after(status_error(503, {"retry-after": "0.5"})) == 0.5
    assert _retry_after(status_error(429, {"Retry-After": "-3"})) == 0.0
    assert _retry_after(status_error(429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None
    assert _retry_after(status_error(429)) is None
    assert _retry_after(ValueError("no response")) is None


# ---------------------------------------------------------------------------
# _retryable
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 529])
def test_rate_limits_and_server_errors_are_retryable(status: int) -> None:
    assert _retryable(status_error(status))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retryable(status: int) -> None:
    assert not _retryable(status_error(status))


def test_connection_and_timeout_errors_are_retryable() -> None:
    assert _retryable(openai.APIConnectionError(request=request()))
    assert _retryable(openai.APITimeoutError(request=request()))
    # first requests go over aiohttp: its connection errors and timeouts are network failures too
    import aiohttp

    assert _retryable(aiohttp.ServerDisconnectedError())
    assert _retryable(aiohttp.ClientConnectionError("reset"))
    assert _retryable(asyncio.TimeoutError())


@pytest.mark.parametrize(("status", "retry"), [(429, True), (500, True), (503, True), (400, False), (401, False)])
def test_first_request_status_errors_retry_on_rate_limits_and_server_errors(status: int, retry: bool) -> None:
    from paper_claims.model.request import EndpointStatusError

    error = EndpointStatusError(status, {"error": {"message": "no"}}, httpx.Response(status, headers={"retry-after": "2"}))
    assert _retryable(error) is retry
    assert str(error).startswith(f"Error code: {status} - ")


@pytest.mark.parametrize("error", [ValueError("bad json"), RuntimeError("x"), KeyboardInterrupt()])
def test_other_errors_are_not_retryable(error: BaseException) -> None:
    assert not _retryable(error)


def _raised_from(error: openai.APIStatusError) -> RuntimeError:
    """Another error raised from ``error``, as a library wraps what it caught."""
    try:
        try:
            raise error
        except openai.APIStatusError as e:
            raise RuntimeError("wrapper") from e
    except RuntimeError as wrapper:
        return wrapper


def test_network_cause_finds_a_wrapped_retryable_error() -> None:
    inner = status_error(503)
    assert _network_cause(_raised_from(inner)) is inner
    assert _network_cause(_raised_from(status_error(400))) is None
