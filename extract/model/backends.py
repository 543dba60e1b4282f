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
