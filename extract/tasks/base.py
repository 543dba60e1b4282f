"""What every task shares: the settings it was built from, the endpoint its answers are keyed
on, the steps a runner calls (``prepare``, ``ground``, ``settled``) and what the run key records of
it (``identity``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from paper_claims.model.prompt_files import system_prompt
from paper_claims.parse.document import ParsedDocument, parse_document
from paper_claims.schemas import Document, DocumentResult, SchemaInfo, Status
from paper_claims.settings import Settings
from paper_claims.tasks.request import Request, cache_key


@dataclass
class Grounded:
    """Claims and document lists that survived grounding, and how many answers did not."""

    system: Optional[str] = None
    datasets: list[str] = field(default_factory=list)
    hardware: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    claims: list[Any] = field(default_factory=list)  # Claim, or SchemaClaim for a custom schema
    dropped: int = 0


class Task:
    """One way of asking the model for a claim schema (langextract's Annotator: prompt, infer,
    resolve, align): ``prepare`` parses a document and builds its request, ``ground`` turns an
    answer into its ``DocumentResult``. Built once from the settings; the runners, the outputs
    and the evaluation receive it and never ask which mode it is."""

    name = ""  # the mode, as the run key records it ("" for the built-in claims with marks)

    def __init__(self, settings: Settings, schema: SchemaInfo, endpoint: str) -> None:
        self.settings = settings
        self.schema = schema
        self.endpoint = endpoint

    def prepare(self, document: Document, nonce: Optional[str] = None) -> Request:
        """Parse the document and build its request (``nonce``: benchmarks only, defeats the
        server's prefix reuse)."""
        raise NotImplementedError

    def answer(self, request: Request, labels: Any) -> Grounded:
        """The answer grounded in the document's text."""
        raise NotImplementedError

    def ground(self, request: Request, answer: Any, attempts: int) -> DocumentResult:
        """The document's result: the answer grounded in its text."""
        grounded = self.answer(request, answer)
        source = request.doc.source
        return DocumentResult(
            doc_id=source.id, **source.metadata(), system=grounded.system,
            datasets=grounded.datasets, hardware=grounded.hardware, models=grounded.models,
            claims=grounded.claims, status=Status.ok, attempts=attempts, dropped=grounded.dropped,
            text=source.text,
        )

    def settled(self, request: Request) -> DocumentResult:
        """The result of a document the model is not asked about."""
        return self.ground(request, request.empty_answer(), 0)

    def identity(self) -> dict[str, Any]:
        """What of this task the run key records beyond the settings (a schema of your own,
        another fill)."""
        identity: dict[str, Any] = {}
        if not self.schema.builtin:  # a schema of your own: its class is no part of the code version
            identity["schema"] = self.schema.fingerprint()
        if self.name:
            identity["fill"] = self.name
        return identity

    # -- shared by the tasks' prepare --------------------------------------------------------

    def _parse(self, document: Document) -> ParsedDocument:
        return parse_document(document)

    def _system(self) -> Optional[str]:
        """A system prompt of the user's own (``--prompt-file``), or None."""
        prompt_file = self.settings.prompt_file
        return system_prompt(prompt_file) if prompt_file is not None else None

    def _key(self, messages: list[dict[str, str]], schema: dict[str, Any], **params: Any) -> str:
        return cache_key(model=self.settings.model_name, endpoint=self.endpoint, messages=messages, schema=schema,
                         params={**self.settings.generation_params(), **params})

    def _asks(self, doc: ParsedDocument) -> bool:
        """Whether the model is asked about this document: it has marked numbers (or the
        settings ask even without)."""
        return bool(doc.mentions) or self.settings.label_without_mentions
