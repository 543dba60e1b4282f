"""The rules' decisions for one document, in order, kept as votes: what each name is, the paper's
system, the document's lists, which marks are claims and their kinds, each claim's baseline,
dataset, hardware, model and metric. The built-in claims are these votes as they stand; the
learned decisions (``paper_claims.decisions``) read them as features."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import NameMark
from paper_claims.parse.name_words import base_name, data_name, merge_names
from paper_claims.rules.attributes import Attributes, claim_attributes
from paper_claims.rules.baselines import baseline_of, compared_name
from paper_claims.rules.devices import counted_devices, with_group
from paper_claims.rules.kinds import rescued_kind, settle_kinds
from paper_claims.rules.metric import metric_of
from paper_claims.rules.names import name_codes, one_name_per_spelling
from paper_claims.rules.system import paper_system, system_type
from paper_claims.schemas import ClaimLabel, DocumentLabels, Kind, LabelKind, Mention, NameCode


@dataclass
class ClaimVote:
    """One claim as the rules decide it: its number, the model's kind, the kind the rules settle,
    its baseline (the name and the phrase), its dataset, hardware and model, its metric."""

    mention: Mention
    label: LabelKind  # the model's own label (a kind, or none for a kind the rules rescued)
    kind: Kind
    baseline: Optional[NameMark]
    baseline_phrase: Optional[str]
    attributes: Attributes
    metric: Optional[str]


@dataclass
class Votes:
    """Every decision of the rules for one document."""

    codes: dict[str, NameCode]  # name letter -> its type
    system: Optional[NameMark]
    typed: dict[NameCode, list[NameMark]]
    datasets: list[str]
    hardware: list[str]
    models: list[str]
    compared: set[str]  # letters of the names compared against
    claims: list[ClaimVote] = field(default_factory=list)
    dropped: int = 0  # labels that point at no mark or no name letter


def vote(doc: ParsedDocument, labels: DocumentLabels) -> Votes:
    """The rules' decisions, in order: what each name is (``rules.names``), the paper's system
    and what it is (``rules.system``), each name listed once; the lists; which marks are claims
    and their kinds (``rules.kinds``: the kind the unit and cue words decide wins over the
    model's); each claim's baseline (``rules.baselines``), dataset, hardware and model
    (``rules.attributes``) and metric (``rules.metric``). A document the model did not read (no
    marks) gets its hardware and dataset lists from class words. A label that points at no mark
    or no name letter is dropped and counted."""
    mentions, marks = doc.mentions, doc.names
    answered = bool(labels.c or labels.e or labels.s)
    codes, dropped = name_codes(doc, labels, answered)
    guess = doc.name(labels.s)
    system = paper_system(doc, marks, guess)
    codes, said = system_type(doc, codes, system, guess)
    if labels.s and guess is None:
        dropped += 1
    codes = one_name_per_spelling(doc, marks, codes, {system.letter: said} if system is not None and said is not None else {})
    typed = {code: [m for m in marks if codes.get(m.letter) == code] for code in NameCode if code != NameCode.none}
    hardware = merge_names([with_group(doc, m) for m in typed[NameCode.hardware]],
                           [name for m in mentions if (name := counted_devices(doc, m))])
    votes = Votes(codes, system, typed, datasets=merge_names([data_name(m.text) for m in typed[NameCode.dataset]]),
                  hardware=hardware, models=merge_names([base_name(m.text) for m in typed[NameCode.model]]),
                  compared={b.letter for m in mentions if (b := compared_name(doc, m, marks))})
    kept: list[tuple[ClaimLabel, LabelKind]] = []
    for label in labels.claims():
        if not 1 <= label.n <= len(mentions):
            dropped += 1
            continue
        if label.b is not None and doc.name(label.b) is None:
            dropped += 1
        said_kind = label.k
        if label.k == LabelKind.none:
            rescued = rescued_kind(doc, mentions[label.n - 1])
            if rescued is None:
                continue
            label = ClaimLabel(n=label.n, k=LabelKind(rescued.value))
        kept.append((label, said_kind))
    kept.sort(key=lambda pair: mentions[pair[0].n - 1].start)
    claimed = [mentions[label.n - 1] for label, _ in kept]
    kinds = settle_kinds(doc, claimed, [Kind(label.k.value) for label, _ in kept])
    baselines = [baseline_of(doc, mention, kind, marks) for mention, kind in zip(claimed, kinds)]
    votes.compared |= {name.letter for name, _ in baselines if name is not None}
    named = [m for m in marks if m.letter in votes.compared or any(m in found for found in typed.values())
             or (system is not None and m.letter == system.letter)]
    names = [(span.start, span.end) for mark in named for span in mark.spans]
    candidates = [(span.start, span.end) for mark in marks for span in mark.spans]
    for (_, said_kind), mention, kind, (baseline, phrase) in zip(kept, claimed, kinds, baselines):
        found = claim_attributes(doc, mention, kind, typed, baseline, system, votes.compared, claimed, votes.hardware)
        votes.claims.append(ClaimVote(mention, said_kind, kind, baseline, phrase, found,
                                      metric_of(doc, mention, mentions, names, candidates)))
    votes.claims.sort(key=lambda claim: claim.mention.start)
    votes.dropped = dropped
    return votes
