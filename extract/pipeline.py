"""One document, one function: parse its numbers and names, build its request, and turn
the model's answer into a ``DocumentResult`` by the rules' decisions, in order (``ground``).
Every engine goes through these steps, for every claim schema: the built-in schema
(``PaperClaim``) marks names and applies the rules written for its kinds; a schema of your
own marks every number the parser finds, asks for the fields its class declares and grounds
each span field's words in the text (``ground_schema``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from paper_claims.model import generic, instructed
from paper_claims.model.answer import for_document
from paper_claims.model.prompt import render_messages
from paper_claims.model.prompt_files import system_prompt
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.marks import NameMark, name_marks
from paper_claims.parse.name_words import base_name, data_name, merge_names
from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.attributes import claim_attributes
from paper_claims.rules.baselines import baseline_of, compared_name
from paper_claims.rules.devices import counted_devices, with_group
from paper_claims.rules.kinds import rescued_kind, settle_kinds
from paper_claims.rules.metric import metric_of
from paper_claims.rules.names import name_codes, one_name_per_spelling
from paper_claims.rules.selection import candidate_mentions
from paper_claims.rules.fields import filled_claims, schema_claims
from paper_claims.rules.system import paper_system, system_type
from paper_claims.run.cache import cache_key
from paper_claims.schemas import (Claim, ClaimLabel, Document, DocumentLabels, DocumentResult, Kind, LabelKind, Mention,
                                  NameCode, SchemaInfo, Status)
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
    answer_type: type[Any] = DocumentLabels  # what the answer is validated as
    max_tokens: Optional[int] = None  # None: the settings' max_tokens
    response_model: Optional[type[Any]] = None  # --fill instructor: the schema filled directly

    def empty_answer(self) -> Any:
        """The answer of a document the model is not asked about."""
        return self.answer_type()


def prepare(doc: Document, settings: Settings, endpoint: str, nonce: Optional[str] = None) -> Request:
    """Parse the document's numbers and build its request for the settings' claim schema
    (``nonce``: benchmarks only, defeats the server's prefix reuse)."""
    info = settings.schema_info
    if settings.fill == "instructor":
        return _prepare_filled(info, doc, settings, endpoint, nonce)
    if not info.builtin:
        return _prepare_schema(info, doc, settings, endpoint, nonce)
    mentions = candidate_mentions(doc.text, find_quantities(doc.text))
    if not mentions and not settings.label_without_mentions:  # the rules settle it: nothing to ask
        return Request(doc, mentions, [], {}, "")
    messages = render_messages(doc.text, mentions, nonce=nonce, system=system_prompt(settings.prompt_file))
    schema = for_document(doc.text, mentions)
    key = cache_key(model=settings.model_name, endpoint=endpoint, messages=messages,
                    schema=schema, params=settings.generation_params())
    return Request(doc, mentions, messages, schema, key)


def _prepare_schema(info: SchemaInfo, doc: Document, settings: Settings, endpoint: str,
                    nonce: Optional[str]) -> Request:
    """A schema of your own: every number the parser finds is marked (the built-in schema's
    selection rules are written for its kinds only); the prompt, the answer schema and the
    answer's room come from the schema class."""
    mentions = find_quantities(doc.text)
    if not mentions and not settings.label_without_mentions:
        return Request(doc, mentions, [], {}, "", generic.SchemaAnswer)
    if settings.prompt_file is not None:
        messages = [{"role": "system", "content": system_prompt(settings.prompt_file)},
                    {"role": "user", "content": generic.mark_text(doc.text, mentions)}]
    else:
        messages = generic.render_messages(info, doc.text, mentions, nonce)
    schema = generic.answer_schema(info, len(mentions))
    tokens = generic.max_tokens(settings.max_tokens, len(mentions))
    key = cache_key(model=settings.model_name, endpoint=endpoint, messages=messages, schema=schema,
                    params={**settings.generation_params(), "max_tokens": tokens})
    return Request(doc, mentions, messages, schema, key, generic.SchemaAnswer, tokens)


def _prepare_filled(info: SchemaInfo, doc: Document, settings: Settings, endpoint: str,
                    nonce: Optional[str]) -> Request:
    """``--fill instructor``: the model reads the whole text and fills the schema's response
    model; the parser's numbers are what its claims are grounded on."""
    mentions = find_quantities(doc.text)
    if not mentions and not settings.label_without_mentions:
        return Request(doc, mentions, [], {}, "", instructed.FilledAnswer)
    messages = instructed.render_messages(info, doc.text, nonce)
    if settings.prompt_file is not None:
        messages[0] = {"role": "system", "content": system_prompt(settings.prompt_file)}
    schema = instructed.response_schema(info)
    tokens = generic.max_tokens(settings.max_tokens, len(mentions))
    key = cache_key(model=settings.model_name, endpoint=endpoint, messages=messages, schema=schema,
                    params={**settings.generation_params(), "max_tokens": tokens, "fill": "instructor"})
    return Request(doc, mentions, messages, schema, key, instructed.FilledAnswer, tokens, instructed.fill_model(info))


def read_answer(request: Request, cached: dict[str, Any]) -> Any:
    """A cached answer as its request's answer type, checked against the document's marks."""
    return request.answer_type.model_validate(cached, context={"n_mentions": len(request.mentions)})


def needs_model(request: Request, settings: Settings) -> bool:
    """False when the rules settle the document: no number worth a claim."""
    return bool(request.mentions) or settings.label_without_mentions


@dataclass
class Grounded:
    """Claims and document lists that survived grounding, and how many answers did not."""

    system: Optional[str] = None
    datasets: list[str] = field(default_factory=list)
    hardware: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    claims: list[Any] = field(default_factory=list)  # Claim, or SchemaClaim for a custom schema
    dropped: int = 0


def ground(text: str, mentions: Sequence[Mention], labels: DocumentLabels) -> Grounded:
    """Claims whose numbers, offsets and evidence come from the parser's mentions, and names
    that are candidate spans of the text (``parse.marks``): the model only chooses among them by
    mark number and name letter, so every value is grounded by construction.

    The decisions, in order: what each name is (``rules.names``), the paper's system and what
    it is (``rules.system``), each name listed once; the lists; which marks are claims and their
    kinds (``rules.kinds``: the kind the unit and cue words decide wins over the model's); each
    claim's baseline (``rules.baselines``), dataset, hardware and model (``rules.attributes``)
    and metric (``rules.metric``). A document the model did not read (no marks) gets its
    hardware and dataset lists from class words. A label that points at no mark or no name
    letter is dropped and counted.
    """
    marks = name_marks(text, mentions)
    by_letter = {mark.letter: mark for mark in marks}
    answered = bool(labels.c or labels.e or labels.s)
    codes, dropped = name_codes(labels, marks, answered, text)
    result = Grounded(dropped=dropped)
    guess = by_letter.get(labels.s or "")
    system = paper_system(text, marks, guess)
    codes, said = system_type(text, codes, system, guess)
    if system is not None:
        result.system = system.text
    if labels.s and labels.s not in by_letter:
        result.dropped += 1
    codes = one_name_per_spelling(text, marks, codes, {system.letter: said} if system is not None and said is not None else {})
    typed = {code: [m for m in marks if codes.get(m.letter) == code] for code in NameCode if code != NameCode.none}
    result.datasets = merge_names([data_name(m.text) for m in typed[NameCode.dataset]])
    result.hardware = merge_names([with_group(text, m) for m in typed[NameCode.hardware]],
                                  [name for m in mentions if (name := counted_devices(text, m))])
    result.models = merge_names([base_name(m.text) for m in typed[NameCode.model]])
    compared = {b.letter for m in mentions if (b := compared_name(text, m, marks))}
    kept: list[ClaimLabel] = []
    for label in labels.claims():
        if not 1 <= label.n <= len(mentions):
            result.dropped += 1
            continue
        if label.b is not None and label.b not in by_letter:
            result.dropped += 1
        if label.k == LabelKind.none:
            rescued = rescued_kind(text, mentions[label.n - 1])
            if rescued is None:
                continue
            label = ClaimLabel(n=label.n, k=LabelKind(rescued.value))
        kept.append(label)
    kept.sort(key=lambda label: mentions[label.n - 1].start)
    claimed = [mentions[label.n - 1] for label in kept]
    kinds = settle_kinds(text, claimed, [Kind(label.k.value) for label in kept])
    baselines = [baseline_of(text, mention, kind, marks) for mention, kind in zip(claimed, kinds)]
    compared |= {name.letter for name, _ in baselines if name is not None}
    named = [m for m in marks if m.letter in compared or any(m in found for found in typed.values())
             or (system is not None and m.letter == system.letter)]
    names = [(span.start, span.end) for mark in named for span in mark.spans]
    candidates = [(span.start, span.end) for mark in marks for span in mark.spans]
    for mention, kind, baseline in zip(claimed, kinds, baselines):
        result.claims.append(_claim(text, mention, kind, baseline, typed, system, compared, claimed, mentions,
                                    (names, candidates), result.hardware))
    result.claims.sort(key=lambda claim: claim.start)
    return result


def _claim(text: str, mention: Mention, kind: Kind, baseline_found: tuple[Optional[NameMark], Optional[str]],
           typed: dict[NameCode, list[NameMark]], system: Optional[NameMark], compared: set[str],
           claimed: Sequence[Mention], mentions: Sequence[Mention],
           spans: tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]]], listed: Sequence[str] = ()) -> Claim:
    """One claim: its number from the mention, its baseline (found by ``rules.baselines``),
    attributes and metric by the rules."""
    baseline, phrase = baseline_found
    found = claim_attributes(text, mention, kind, typed, baseline, system, compared, claimed, listed)
    claim = Claim(
        kind=kind,
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=metric_of(text, mention, mentions, *spans),
        dataset=found.dataset,
        hardware=found.hardware,
        hardware_canonical=canonical_hardware(found.hardware),
        model=found.model,
        baseline=phrase,
        evidence=text[mention.start : mention.end],
        start=mention.start,
        end=mention.end,
    )
    claim.check_grounded(text)
    return claim


def ground_schema(info: SchemaInfo, text: str, mentions: Sequence[Mention], answer: generic.SchemaAnswer) -> Grounded:
    """Claims of a schema of your own from the labels of its marks (``rules.fields``)."""
    claims, dropped = schema_claims(info, text, mentions, answer.c)
    return Grounded(claims=claims, dropped=dropped)


def ground_filled(info: SchemaInfo, text: str, mentions: Sequence[Mention], answer: instructed.FilledAnswer) -> Grounded:
    """Claims of a schema filled directly (``rules.fields``); the built-in schema's document
    lists come from its claims' names."""
    claims, dropped = filled_claims(info, text, mentions, answer.claims)
    result = Grounded(claims=claims, dropped=dropped)
    if info.builtin:
        result.datasets = merge_names([c.dataset for c in claims if c.dataset])
        result.hardware = merge_names([c.hardware for c in claims if c.hardware])
        result.models = merge_names([c.model for c in claims if c.model])
    return result


def result_of(doc: Document, mentions: Sequence[Mention], labels: Any, attempts: int,
              info: Optional[SchemaInfo] = None) -> DocumentResult:
    """The document's result: the answer grounded in its text (``info``: the claim schema of
    a custom or filled answer)."""
    if isinstance(labels, instructed.FilledAnswer):
        if info is None:
            raise ValueError("a filled answer needs its schema to be grounded")
        grounded = ground_filled(info, doc.text, mentions, labels)
    elif isinstance(labels, generic.SchemaAnswer):
        if info is None:
            raise ValueError("a custom schema's answer needs its schema to be grounded")
        grounded = ground_schema(info, doc.text, mentions, labels)
    else:
        grounded = ground(doc.text, mentions, labels)
    return DocumentResult(
        doc_id=doc.id, **doc.metadata(), system=grounded.system,
        datasets=grounded.datasets, hardware=grounded.hardware, models=grounded.models,
        claims=grounded.claims, status=Status.ok, attempts=attempts, dropped=grounded.dropped,
        text=doc.text,
    )
