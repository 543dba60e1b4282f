"""One document, one function: parse its numbers and names, build its request, and turn
the model's answer into a ``DocumentResult`` by the rules' decisions, in order (``ground``).
Every engine goes through these steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from paper_claims.model.answer import for_document
from paper_claims.model.prompt import render_messages
from paper_claims.model.prompt_files import system_prompt
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.marks import NameMark, name_marks
from paper_claims.parse.name_words import merge_names
from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.attributes import claim_attributes
from paper_claims.rules.baselines import baseline_of, compared_name
from paper_claims.rules.devices import counted_devices, with_group
from paper_claims.rules.kinds import rescued_kind, settle_kinds
from paper_claims.rules.metric import metric_of
from paper_claims.rules.names import name_codes, one_name_per_spelling
from paper_claims.rules.selection import candidate_mentions
from paper_claims.rules.system import paper_system, system_type
from paper_claims.run.cache import cache_key
from paper_claims.schemas import (Claim, ClaimLabel, Document, DocumentLabels, DocumentResult, Kind, LabelKind, Mention,
                                  NameCode, Status)
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


@dataclass
class Grounded:
    """Claims and document lists that survived grounding, and how many answers did not."""

    system: Optional[str] = None
    datasets: list[str] = field(default_factory=list)
    hardware: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
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
    result.datasets = merge_names([m.text for m in typed[NameCode.dataset]])
    result.hardware = merge_names([with_group(text, m) for m in typed[NameCode.hardware]],
                                  [name for m in mentions if (name := counted_devices(text, m))])
    result.models = merge_names([m.text for m in typed[NameCode.model]])
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
    for mention, kind in zip(claimed, kinds):
        result.claims.append(_claim(text, mention, kind, marks, typed, system, compared, claimed))
    result.claims.sort(key=lambda claim: claim.start)
    return result


def _claim(text: str, mention: Mention, kind: Kind, marks: Sequence[NameMark], typed: dict[NameCode, list[NameMark]],
           system: Optional[NameMark], compared: set[str], claimed: Sequence[Mention]) -> Claim:
    """One claim: its number from the mention, its baseline, attributes and metric by the rules."""
    baseline, phrase = baseline_of(text, mention, kind, marks)
    found = claim_attributes(text, mention, kind, typed, baseline, system, compared, claimed)
    claim = Claim(
        kind=kind,
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=metric_of(text, mention),
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


def result_of(doc: Document, mentions: Sequence[Mention], labels: DocumentLabels, attempts: int) -> DocumentResult:
    """The document's result: the answer grounded in its text."""
    grounded = ground(doc.text, mentions, labels)
    return DocumentResult(
        doc_id=doc.id, source=doc.source, title=doc.title, system=grounded.system,
        datasets=grounded.datasets, hardware=grounded.hardware, models=grounded.models,
        claims=grounded.claims, status=Status.ok, attempts=attempts, dropped=grounded.dropped,
        text=doc.text,
    )
