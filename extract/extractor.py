"""Extractor: one backend for many calls (the embedded server starts once), or a client you have."""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Optional, Union

from paper_claims.api import extract_claims
from paper_claims.model.backends import Backend, open_backend
from paper_claims.sources.inputs import Source
from paper_claims.settings import Settings
from paper_claims.outputs.table import ClaimTable


def _client_endpoint(client: Any) -> dict[str, Optional[str]]:
    """The base URL and key of an ``openai.OpenAI``/``AsyncOpenAI`` client or an instructor client."""
    raw = getattr(client, "client", None) or client  # instructor keeps the openai client as .client
    base_url = getattr(raw, "base_url", None)
    if base_url is None:
        raise TypeError(f"not an OpenAI-compatible client: {type(client).__name__} has no base_url")
    return {"base_url": str(base_url).rstrip("/"), "api_key": getattr(raw, "api_key", None) or None}


class Extractor:
    """A reusable extractor that holds its model backend until closed.

    ``with Extractor() as ex: ex.extract(batch1); ex.extract(batch2)`` starts the embedded server
    once. ``Extractor(client=openai.OpenAI(base_url=..., api_key=...))`` sends documents to that
    client's endpoint (its base URL and key; requests are made by paper-claims, with its own
    retries). Options are those of ``extract_claims``, e.g. ``Extractor(prompt_file="my_prompt.txt")``
    for a system prompt of your own. Every call runs in one thread the
    Extractor owns, so it works the same inside a notebook's event loop, and the embedded
    server (which dies with the thread that started it) lives as long as the Extractor.
    """

    def __init__(self, *, client: Any = None, settings: Optional[Settings] = None, **options: Any) -> None:
        if client is not None:
            options = {**_client_endpoint(client), **{k: v for k, v in options.items() if v is not None}}
        self.settings = settings or Settings.from_env(**options)
        self._stack = contextlib.ExitStack()
        self._backend: Optional[Backend] = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paper-claims")

    def _run(self, sources: Any, kwargs: dict[str, Any]) -> ClaimTable:
        if self._backend is None:
            self._backend = self._stack.enter_context(open_backend(self.settings))
        return extract_claims(sources, settings=self.settings, backend=self._backend, **kwargs)

    def extract(self, sources: Union[Source, Iterable[Source]], *, out: Optional[str] = None, report: bool = False,
                text_column: Optional[str] = None, id_column: Optional[str] = None, format: Optional[str] = None,
                where: Union[str, Iterable[str]] = (), keep_latex: bool = False,
                db: Union[bool, str] = True) -> ClaimTable:
        """Extract claims (see ``extract_claims``) with this Extractor's backend."""
        kwargs = {"out": out, "report": report, "text_column": text_column, "id_column": id_column,
                  "format": format, "where": where, "keep_latex": keep_latex, "db": db}
        return self._thread.submit(self._run, sources, kwargs).result()

    async def aextract(self, sources: Union[Source, Iterable[Source]], **kwargs: Any) -> ClaimTable:
        """``extract`` for async code."""
        return await asyncio.wrap_future(self._thread.submit(self._run, sources, kwargs))

    def close(self) -> None:
        """Stop the backend (the embedded server) and the Extractor's thread."""
        with contextlib.suppress(RuntimeError):  # already shut down
            self._thread.submit(self._stack.close).result()
        self._backend = None
        self._thread.shutdown(wait=True)

    def __enter__(self) -> "Extractor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
