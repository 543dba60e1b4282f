"""A claim schema of your own, its numbers marked: every number the parser finds is marked
(the built-in schema's selection rules are written for its kinds only); the prompt, the answer
schema and the answer's room come from the schema class (``model.schema_prompt``); each span
field's words are grounded in the text (``rules.fields``)."""

from __future__ import annotations

from typing import Optional

from paper_claims.model import schema_prompt
from paper_claims.rules.fields import schema_claims
from paper_claims.schemas import Document
from paper_claims.tasks.base import Grounded, Task
from paper_claims.tasks.request import Request


class SchemaTask(Task):
    """A schema of your own, filled by labels of its marked numbers."""

    def prepare(self, document: Document, nonce: Optional[str] = None) -> Request:
        parsed = self._parse(document)
        doc = parsed.marked(parsed.numbers)
        if not self._asks(doc):
            return Request(doc, [], {}, "", schema_prompt.SchemaAnswer)
        system = self._system()
        if system is not None:
            messages = [{"role": "system", "content": system},
                        {"role": "user", "content": schema_prompt.mark_text(doc.text, doc.mentions)}]
        else:
            messages = schema_prompt.render_messages(self.schema, doc, nonce)
        schema = schema_prompt.answer_schema(self.schema, len(doc.mentions))
        tokens = schema_prompt.max_tokens(self.settings.max_tokens, len(doc.mentions))
        key = self._key(messages, schema, max_tokens=tokens)
        return Request(doc, messages, schema, key, schema_prompt.SchemaAnswer, tokens)

    def answer(self, request: Request, labels: schema_prompt.SchemaAnswer) -> Grounded:
        claims, dropped = schema_claims(self.schema, request.doc, labels.c)
        return Grounded(claims=claims, dropped=dropped)
