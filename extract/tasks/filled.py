"""A schema filled directly (``--fill instructor``), for endpoints that serve strong models: the
model reads the whole text and fills the schema's response model (``model.instructor_fill``);
the parser's numbers are what its claims are grounded on (``rules.fields``)."""

from __future__ import annotations

from typing import Optional

from paper_claims.model import instructor_fill
from paper_claims.model.schema_prompt import max_tokens
from paper_claims.parse.name_words import merge_names
from paper_claims.rules.fields import filled_claims
from paper_claims.schemas import Document
from paper_claims.tasks.base import Grounded, Task
from paper_claims.tasks.request import Request


class FilledTask(Task):
    """Any claim schema (the built-in one too), filled through instructor."""

    name = "instructor"

    def prepare(self, document: Document, nonce: Optional[str] = None) -> Request:
        parsed = self._parse(document)
        doc = parsed.marked(parsed.numbers)
        if not self._asks(doc):
            return Request(doc, [], {}, "", instructor_fill.FilledAnswer)
        messages = instructor_fill.render_messages(self.schema, doc, nonce)
        system = self._system()
        if system is not None:
            messages[0] = {"role": "system", "content": system}
        schema = instructor_fill.response_schema(self.schema)
        tokens = max_tokens(self.settings.max_tokens, len(doc.mentions))
        key = self._key(messages, schema, max_tokens=tokens, fill="instructor")
        return Request(doc, messages, schema, key, instructor_fill.FilledAnswer, tokens,
                       instructor_fill.fill_model(self.schema))

    def answer(self, request: Request, labels: instructor_fill.FilledAnswer) -> Grounded:
        claims, dropped = filled_claims(self.schema, request.doc, labels.claims)
        result = Grounded(claims=claims, dropped=dropped)
        if self.schema.builtin:  # the built-in schema's document lists come from its claims' names
            result.datasets = merge_names([c.dataset for c in claims if c.dataset])
            result.hardware = merge_names([c.hardware for c in claims if c.hardware])
            result.models = merge_names([c.model for c in claims if c.model])
        return result
