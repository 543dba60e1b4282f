"""One boundary for model backends: the embedded llama.cpp server (run by ``engines.embedded``) or any
OpenAI-compatible URL."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from paper_claims.errors import BackendError
from paper_claims.engines.modelfile import MODEL_SHA256, resolve_model
from paper_claims.settings import OPENAI_API_URL, Settings
from paper_claims.text import Say, to_stderr

EMBEDDED_API_KEY = "embedded-no-key"


@dataclass(frozen=True)
class Backend:
    """A reachable OpenAI-compatible endpoint and how to ask it for structured output.

    ``failure``, when set, is polled by the runner: it returns the error that must stop the
    run at once (the embedded server died), else None.
    """

    base_url: str
    model: str
    endpoint_id: str
    grammar_schema: bool
    api_key: str = field(default="", repr=False)
    failure: Optional[Callable[[], Optional[BaseException]]] = field(default=None, repr=False, compare=False)

    def response_format(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The ``response_format`` that constrains the answer to ``schema``."""
        if self.grammar_schema:  # llama.cpp server: a grammar from the schema
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "labels", "schema": schema}}


def endpoint_identity(settings: Settings) -> str:
    """What identifies the answering endpoint in cache keys, known before it starts."""
    if not settings.embedded:
        return (settings.base_url or OPENAI_API_URL).rstrip("/")
    if settings.model_path:
        path = Path(settings.model_path).expanduser()
        size = path.stat().st_size if path.is_file() else 0
        return f"embedded:{path.name}:{size}"
    return f"embedded:{MODEL_SHA256}"


@contextlib.contextmanager
def open_backend(settings: Settings, say: Say = to_stderr) -> Iterator[Backend]:
    """Yield a ready backend: the configured endpoint, or the embedded server for the run."""
    problem = settings.problem()
    if problem:
        raise BackendError(problem)
    if not settings.embedded:
        yield Backend(
            base_url=(settings.base_url or OPENAI_API_URL).rstrip("/"),
            model=settings.model_name,
            endpoint_id=endpoint_identity(settings),
            grammar_schema=os.environ.get("CLAIMS_RESPONSE_FORMAT", "json_schema") == "grammar",
            api_key=settings.api_key or EMBEDDED_API_KEY,
        )
        return
    # the process machinery, only when it runs
    from paper_claims.engines.embedded import EmbeddedServer, free_port, server_command
    from paper_claims.model.prompt_files import load_prompt

    cache_dir = settings.resolved_cache_dir
    model_file = resolve_model(settings.model_path, cache_dir, say=say)
    port = free_port()
    command = server_command(model_file, port, settings.model_name, settings.n_threads)
    with EmbeddedServer(command, port, system_prompt=load_prompt(), log_dir=cache_dir / "logs", say=say) as server:
        yield Backend(
            base_url=server.base_url,
            model=settings.model_name,
            endpoint_id=endpoint_identity(settings),
            grammar_schema=True,
            api_key=EMBEDDED_API_KEY,
            failure=server.crashed,
        )


BATCH_FILE_ENDPOINT = "batch-file"  # the endpoint identity of answers from a results file (vllm run-batch)


def batch_backend(settings: Settings, offline: bool = False) -> Backend:
    """The backend whose requests a batch carries (issue 41): the configured endpoint for
    ``--batch``; for a request or results file (``offline``) also no endpoint at all, the
    model named with ``--model`` (answers then cached as the ``batch-file`` endpoint's)."""
    if offline and settings.embedded:
        if not settings.model:
            raise BackendError("a batch file needs --model: the name of the model that runs it "
                               "(as vllm run-batch serves it), or an endpoint with --base-url")
        return Backend(base_url="", model=settings.model, endpoint_id=BATCH_FILE_ENDPOINT,
                       grammar_schema=os.environ.get("CLAIMS_RESPONSE_FORMAT", "json_schema") == "grammar")
    if settings.embedded:
        raise BackendError("--batch needs an endpoint that implements /v1/files and /v1/batches (--base-url, "
                           "or one of OpenAI's models); the embedded model answers without it, or write the "
                           "requests for vllm run-batch with --write-batch")
    with open_backend(settings) as backend:  # a remote endpoint: nothing is started
        return backend
