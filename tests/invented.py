"""Invented abstracts (no annotated text) that the rules' tests share, and helpers to mark them."""

from __future__ import annotations

from typing import Optional

from typing import Sequence

from paper_claims.parse.document import ParsedDocument, parse_text
from paper_claims.parse.marks import NameMark
from paper_claims.rules.selection import candidate_mentions
from paper_claims.rules.system import system_code
from paper_claims.schemas import DocumentLabels, Mention, NameCode
from paper_claims.tasks.base import Grounded
from paper_claims.tasks.claims import ground as ground_document

CORVID = (
    "We present Corvid for speech. "
    "On the BirdCall benchmark, Corvid reaches 91.2% accuracy and runs 2.5x faster than DenseMix on 8 H100 GPUs. "
    "It also cuts memory by 40% compared to DenseMix. "
    "We collect 3,000 hours of audio."
)
# the same, with a description that makes Corvid a model (a system the text does not
# describe is no model on the model's word alone)
CORVID_LM = CORVID.replace("Corvid for speech.", "Corvid, a speech model.")
LEDGER = (
    "We release Ledger, a benchmark of 1,200 accounting questions. "
    "The best model, Heron-9B, answers 47% of them. "
    "Training takes 6 hours on a single TPU v5e chip."
)


def marked(text: str, mentions: Optional[Sequence[Mention]] = None) -> ParsedDocument:
    """``text`` parsed, with ``mentions`` marked (default: those the selection rules keep)."""
    doc = parse_text(text)
    return doc.marked(candidate_mentions(doc, doc.numbers) if mentions is None else mentions)


def setup(text: str) -> tuple[list[Mention], dict[str, str], dict[str, str]]:
    """The mentions the model would label, the name letters by name and the marks by number text."""
    doc = marked(text)
    letters = {mark.text: mark.letter for mark in doc.names}
    marks = {m.text: str(i) for i, m in enumerate(doc.mentions, start=1)}
    return list(doc.mentions), letters, marks


def marks_by_text(text: str) -> dict[str, NameMark]:
    """The name marks of ``text`` by their text."""
    return {m.text: m for m in marked(text).names}


def ground(text: str, mentions: Sequence[Mention], labels: DocumentLabels) -> Grounded:
    """The built-in task's grounding of ``labels`` for ``text`` with ``mentions`` marked."""
    return ground_document(marked(text, mentions), labels)


def system_type_of(text: str, system: str) -> Optional[NameCode]:
    """What the text says the name ``system`` is (``rules.system.system_code``)."""
    return system_code(parse_text(text), marks_by_text(text)[system])
