"""The built-in claims with marks: the parser marks the numbers the selection rules keep and
every candidate name; the model labels them (a kind per number, a type per name, the paper's
system); the rules' decisions ground the labels into claims and lists."""

from __future__ import annotations

from typing import Optional, Sequence

from paper_claims.model.answer import for_document
from paper_claims.model.prompt import render_messages
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import NameMark
from paper_claims.parse.name_words import base_name, data_name, merge_names
from paper_claims.rules.attributes import claim_attributes
from paper_claims.rules.baselines import baseline_of, compared_name
from paper_claims.rules.devices import counted_devices, with_group
from paper_claims.rules.kinds import rescued_kind, settle_kinds
from paper_claims.rules.metric import metric_of
from paper_claims.rules.names import name_codes, one_name_per_spelling
from paper_claims.rules.selection import candidate_mentions
from paper_claims.rules.system import paper_system, system_type
from paper_claims.schemas import Claim, ClaimLabel, Document, DocumentLabels, Kind, LabelKind, Mention, NameCode
from paper_claims.tasks.base import Grounded, Task
from paper_claims.tasks.request import Request


class ClaimsTask(Task):
    """The built-in ``PaperClaim`` schema, its numbers and names marked (the default)."""

    def prepare(self, document: Document, nonce: Optional[str] = None) -> Request:
        parsed = self._parse(document)
        doc = parsed.marked(candidate_mentions(parsed, parsed.numbers))
        if not self._asks(doc):  # the rules settle it: nothing to ask
            return Request(doc, [], {}, "", DocumentLabels)
        messages = render_messages(doc, nonce=nonce, system=self._system())
        schema = for_document(doc)
        return Request(doc, messages, schema, self._key(messages, schema), DocumentLabels)

    def answer(self, request: Request, labels: DocumentLabels) -> Grounded:
        return ground(request.doc, labels)


def ground(doc: ParsedDocument, labels: DocumentLabels) -> Grounded:
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
    mentions, marks = doc.mentions, doc.names
    answered = bool(labels.c or labels.e or labels.s)
    codes, dropped = name_codes(doc, labels, answered)
    result = Grounded(dropped=dropped)
    guess = doc.name(labels.s)
    system = paper_system(doc, marks, guess)
    codes, said = system_type(doc, codes, system, guess)
    if system is not None:
        result.system = system.text
    if labels.s and guess is None:
        result.dropped += 1
    codes = one_name_per_spelling(doc, marks, codes, {system.letter: said} if system is not None and said is not None else {})
    typed = {code: [m for m in marks if codes.get(m.letter) == code] for code in NameCode if code != NameCode.none}
    result.datasets = merge_names([data_name(m.text) for m in typed[NameCode.dataset]])
    result.hardware = merge_names([with_group(doc, m) for m in typed[NameCode.hardware]],
                                  [name for m in mentions if (name := counted_devices(doc, m))])
    result.models = merge_names([base_name(m.text) for m in typed[NameCode.model]])
    compared = {b.letter for m in mentions if (b := compared_name(doc, m, marks))}
    kept: list[ClaimLabel] = []
    for label in labels.claims():
        if not 1 <= label.n <= len(mentions):
            result.dropped += 1
            continue
        if label.b is not None and doc.name(label.b) is None:
            result.dropped += 1
        if label.k == LabelKind.none:
            rescued = rescued_kind(doc, mentions[label.n - 1])
            if rescued is None:
                continue
            label = ClaimLabel(n=label.n, k=LabelKind(rescued.value))
        kept.append(label)
    kept.sort(key=lambda label: mentions[label.n - 1].start)
    claimed = [mentions[label.n - 1] for label in kept]
    kinds = settle_kinds(doc, claimed, [Kind(label.k.value) for label in kept])
    baselines = [baseline_of(doc, mention, kind, marks) for mention, kind in zip(claimed, kinds)]
    compared |= {name.letter for name, _ in baselines if name is not None}
    named = [m for m in marks if m.letter in compared or any(m in found for found in typed.values())
             or (system is not None and m.letter == system.letter)]
    names = [(span.start, span.end) for mark in named for span in mark.spans]
    candidates = [(span.start, span.end) for mark in marks for span in mark.spans]
    for mention, kind, baseline in zip(claimed, kinds, baselines):
        result.claims.append(_claim(doc, mention, kind, baseline, typed, system, compared, claimed,
                                    (names, candidates), result.hardware))
    result.claims.sort(key=lambda claim: claim.start)
    return result


def _claim(doc: ParsedDocument, mention: Mention, kind: Kind, baseline_found: tuple[Optional[NameMark], Optional[str]],
           typed: dict[NameCode, list[NameMark]], system: Optional[NameMark], compared: set[str],
           claimed: Sequence[Mention], spans: tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]]],
           listed: Sequence[str] = ()) -> Claim:
    """One claim: its number from the mention, its baseline (found by ``rules.baselines``),
    attributes and metric by the rules."""
    text = doc.text
    baseline, phrase = baseline_found
    found = claim_attributes(doc, mention, kind, typed, baseline, system, compared, claimed, listed)
    claim = Claim(
        kind=kind,
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=metric_of(doc, mention, doc.mentions, *spans),
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
