"""What a task asks the model for one document: the request, and the answer-cache key that
hashes everything that changes its answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional

from paper_claims.parse.document import ParsedDocument
from paper_claims.schemas import Mention
from paper_claims.text import canonical_json


def cache_key(
    *,
    model: str,
    endpoint: str,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    params: dict[str, Any],
) -> str:
    """sha256 of canonical JSON of model, endpoint, prompt (with the document), schema, params.

    The messages hold the prompt text and the marked document text; the API key is
    deliberately not an input.
    """
    payload = {
        "model": model,
        "endpoint": endpoint,
        "messages": messages,
        "schema": schema,
        "params": params,
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


@dataclass
class Request:
    """A parsed document with its marked numbers, the messages and answer schema to send, and
    the answer-cache key of that request. No messages: the rules settle the document."""

    doc: ParsedDocument
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    key: str
    answer_type: type[Any]  # what the answer is validated as
    max_tokens: Optional[int] = None  # None: the settings' max_tokens
    response_model: Optional[type[Any]] = None  # the instructor fill: the schema filled directly

    @property
    def mentions(self) -> tuple[Mention, ...]:
        """The numbers marked [1]..[n]."""
        return self.doc.mentions

    @property
    def needs_model(self) -> bool:
        """False when the rules settle the document: no number worth a claim."""
        return bool(self.messages)

    def empty_answer(self) -> Any:
        """The answer of a document the model is not asked about."""
        return self.answer_type()

    def read_answer(self, cached: dict[str, Any]) -> Any:
        """A cached answer as this request's answer type, checked against its marks."""
        return self.answer_type.model_validate(cached, context={"n_mentions": len(self.mentions)})
