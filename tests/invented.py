"""Invented abstracts (no annotated text) that the rules' tests share, and helpers to mark them."""

from __future__ import annotations

from typing import Optional

from paper_claims.parse.marks import NameMark, name_marks
from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import candidate_mentions
from paper_claims.rules.system import system_code
from paper_claims.schemas import Mention, NameCode

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


def setup(text: str) -> tuple[list[Mention], dict[str, str], dict[str, str]]:
    """The mentions the model would label, the name letters by name and the marks by number text."""
    mentions = candidate_mentions(text, find_quantities(text))
    letters = {mark.text: mark.letter for mark in name_marks(text, mentions)}
    marks = {m.text: str(i) for i, m in enumerate(mentions, start=1)}
    return mentions, letters, marks


def marks_by_text(text: str) -> dict[str, NameMark]:
    """The name marks of ``text`` by their text."""
    return {m.text: m for m in name_marks(text, candidate_mentions(text, find_quantities(text)))}


def system_type_of(text: str, system: str) -> Optional[NameCode]:
    """What the text says the name ``system`` is (``rules.system.system_code``)."""
    return system_code(text, marks_by_text(text)[system])
