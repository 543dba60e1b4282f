"""The built-in claims with marks: the parser marks the numbers the selection rules keep and
every candidate name; the model labels them (a kind per number, a type per name, the paper's
system); the rules' decisions ground the labels into claims and lists."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from paper_claims.model.answer import for_document
from paper_claims.model.prompt import render_messages
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.document import ParsedDocument
from paper_claims.rules.attributes import Attributes
from paper_claims.rules.selection import candidate_mentions
from paper_claims.rules.votes import ClaimVote, vote
from paper_claims.schemas import Claim, Document, DocumentLabels, Kind, SchemaInfo
from paper_claims.settings import Settings
from paper_claims.tasks.base import Grounded, Task
from paper_claims.tasks.request import Request

if TYPE_CHECKING:  # loaded (with numpy) once a document is grounded: a resumed run never needs them
    from paper_claims.decisions.model import DecisionModels

PACKAGED = "packaged"  # the decisions the package holds, read when a document is first grounded


class ClaimsTask(Task):
    """The built-in ``PaperClaim`` schema, its numbers and names marked (the default).
    ``decisions``: the learned decisions that decide kinds, attributes and lists from the rules'
    votes; ``PACKAGED`` (default): the settings' decisions file, else the packaged one, read when
    the first document is grounded; None: the votes as they stand."""

    def __init__(self, settings: Settings, schema: SchemaInfo, endpoint: str,
                 decisions: Union[DecisionModels, str, None] = PACKAGED) -> None:
        super().__init__(settings, schema, endpoint)
        self._decisions = decisions

    @property
    def decisions(self) -> Optional[DecisionModels]:
        if self._decisions == PACKAGED:
            from paper_claims.decisions.model import load_decisions

            self._decisions = load_decisions(self.settings.decisions)
        return self._decisions  # type: ignore[return-value]

    @decisions.setter
    def decisions(self, models: Optional[DecisionModels]) -> None:
        self._decisions = models

    def prepare(self, document: Document, nonce: Optional[str] = None) -> Request:
        parsed = self._parse(document)
        doc = parsed.marked(candidate_mentions(parsed, parsed.numbers))
        if not self._asks(doc):  # the rules settle it: nothing to ask
            return Request(doc, [], {}, "", DocumentLabels)
        messages = render_messages(doc, nonce=nonce, system=self._system())
        schema = for_document(doc)
        return Request(doc, messages, schema, self._key(messages, schema), DocumentLabels)

    def identity(self) -> dict[str, Any]:
        identity = super().identity()
        if self.settings.decisions is not None:  # the packaged decisions are part of the code version
            identity["decisions"] = _digest(self.settings.decisions)
        return identity

    def answer(self, request: Request, labels: DocumentLabels) -> Grounded:
        if self.decisions is None:
            return ground(request.doc, labels)
        return ground_decided(request.doc, labels, self.decisions)


def _digest(path: Path) -> str:
    """What identifies a decisions file of your own (its bytes; "" when it cannot be read: the
    run then stops on it when the first document is grounded)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def ground(doc: ParsedDocument, labels: DocumentLabels) -> Grounded:
    """Claims whose numbers, offsets and evidence come from the parser's mentions, and names
    that are candidate spans of the text (``parse.marks``): the model only chooses among them by
    mark number and name letter, so every value is grounded by construction. What the rules
    decide (``rules.votes``) is the claims and the lists."""
    votes = vote(doc, labels)
    result = Grounded(system=votes.system.text if votes.system is not None else None, datasets=votes.datasets,
                      hardware=votes.hardware, models=votes.models, dropped=votes.dropped)
    result.claims = [_claim(doc, claim) for claim in votes.claims]
    return result


def ground_decided(doc: ParsedDocument, labels: DocumentLabels, models: DecisionModels) -> Grounded:
    """The claims and lists the learned decisions make of the rules' votes, each claim with its
    confidence."""
    from paper_claims.decisions.decide import confidence_columns, decide_claims, decide_lists
    from paper_claims.decisions.features import Reading

    votes = vote(doc, labels)
    reading = Reading(doc, labels, votes, models.system_model_probability(doc.text))
    lists = decide_lists(models, reading)
    result = Grounded(system=votes.system.text if votes.system is not None else None, datasets=lists.datasets,
                      hardware=lists.hardware, models=lists.models, dropped=votes.dropped)
    for one in decide_claims(models, reading, lists):
        chosen = {name: choice.value for name, choice in one.attributes.items()}
        claim = _claim(doc, one.vote, one.kind, Attributes(chosen["dataset"], chosen["hardware"], chosen["model"]),
                       chosen["baseline"])
        for column, value in confidence_columns(one.confidence, one.kind_probability, one.attributes).items():
            setattr(claim, column, value)
        result.claims.append(claim)
    return result


def _claim(doc: ParsedDocument, vote: ClaimVote, kind: Optional[Kind] = None, found: Optional[Attributes] = None,
           baseline: Optional[str] = None) -> Claim:
    """One claim: its number from the mention, its kind, baseline, attributes and metric as
    decided (by default the rules' votes)."""
    text, mention = doc.text, vote.mention
    if found is None:
        found, baseline = vote.attributes, vote.baseline_phrase
    claim = Claim(
        kind=kind or vote.kind,
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=vote.metric,
        dataset=found.dataset,
        hardware=found.hardware,
        hardware_canonical=canonical_hardware(found.hardware),
        model=found.model,
        baseline=baseline,
        evidence=text[mention.start : mention.end],
        start=mention.start,
        end=mention.end,
    )
    claim.check_grounded(text)
    return claim
