"""One document, one function: parse its numbers and names, build its request, and turn
the model's answer into a ``DocumentResult``. Every engine goes through these steps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from paper_claims.grounding import ground
from paper_claims.model.answer import for_document
from paper_claims.model.prompt import render_messages
from paper_claims.model.prompt_files import system_prompt
from paper_claims.parse.quantities import find_quantities
from paper_claims.parse.selection import candidate_mentions
from paper_claims.run.cache import cache_key
from paper_claims.schemas import Document, DocumentLabels, DocumentResult, Mention, Status
from paper_claims.settings import Settings


@dataclass
class Request:
    """A parsed document: its marked numbers, the messages and answer model to send, and the
    answer-cache key of that request."""

    doc: Document
    mentions: list[Mention]
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    key: str


def prepare(doc: Document, settings: Settings, endpoint: str, nonce: Optional[str] = None) -> Request:
    """Parse the document's numbers and build its request (``nonce``: benchmarks only, defeats
    the server's prefix reuse)."""
    mentions = candidate_mentions(doc.text, find_quantities(doc.text))
    if not mentions and not settings.label_without_mentions:  # the rules settle it: nothing to ask
        return Request(doc, mentions, [], {}, "")
    messages = render_messages(doc.text, mentions, nonce=nonce, system=system_prompt(settings.prompt_file))
    schema = for_document(doc.text, mentions)
    key = cache_key(model=settings.model_name, endpoint=endpoint, messages=messages,
                    schema=schema, params=settings.generation_params())
    return Request(doc, mentions, messages, schema, key)


def needs_model(request: Request, settings: Settings) -> bool:
    """False when the rules settle the document: no number worth a claim."""
    return bool(request.mentions) or settings.label_without_mentions


def result_of(doc: Document, mentions: Sequence[Mention], labels: DocumentLabels, attempts: int) -> DocumentResult:
    """The document's result: the answer grounded in its text."""
    grounded = ground(doc.text, mentions, labels)
    return DocumentResult(
        doc_id=doc.id, **doc.metadata(), system=grounded.system,
        datasets=grounded.datasets, hardware=grounded.hardware, models=grounded.models,
        claims=grounded.claims, status=Status.ok, attempts=attempts, dropped=grounded.dropped,
        text=doc.text,
    )
