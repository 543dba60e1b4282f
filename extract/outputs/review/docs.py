"""The documents under review: a claim and a document as extracted and as they stand, and
what a reviewer may change in a claim (the built-in schema's fields or an output's own schema)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from paper_claims.outputs.table import read_manifest
from paper_claims.schemas import Claim, Kind
from paper_claims.schemas.claims import certainty, uncertain
from paper_claims.schemas.columns import SENTENCE_COLUMNS

Row = dict[str, Any]
CLAIM_KEYS: tuple[str, ...] = tuple(Claim.model_fields)
EDITABLE: tuple[str, ...] = ("kind", "metric", "dataset", "hardware", "model", "baseline", "qualifier")
NAME_FIELDS: tuple[str, ...] = ("dataset", "hardware", "model", "baseline")
LIST_FIELDS: tuple[str, ...] = ("system", "datasets", "hardware", "models")


@dataclass(frozen=True)
class ReviewSchema:
    """What a reviewer may change in a claim: the built-in schema's fields, or those of the
    claim schema an output folder was written with (``schema.json``)."""

    kinds: tuple[str, ...]
    keys: tuple[str, ...]  # a claim row's keys (without doc_id)
    spans: tuple[str, ...]  # fields that are words of the text
    choices: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # plain fields and their values
    builtin: bool = True

    @classmethod
    def of(cls, out_dir: Union[str, Path]) -> "ReviewSchema":
        manifest = read_manifest(out_dir)
        if manifest is None:
            return BUILTIN
        fields = manifest["fields"]
        derived = ("doc_id", *SENTENCE_COLUMNS)  # the sentence follows from the evidence
        return cls(tuple(manifest["kinds"]), tuple(c for c in manifest["columns"] if c not in derived),
                   tuple(f["name"] for f in fields if f["span"]),
                   tuple((f["name"], tuple(f["choices"]) + ((None,) if f["optional"] else ())) for f in fields
                         if not f["span"]), builtin=False)

    @property
    def editable(self) -> tuple[str, ...]:
        return EDITABLE if self.builtin else ("kind", *self.spans, *(name for name, _ in self.choices))

    def to_json(self) -> Optional[Row]:
        """The fields the page edits (None: the built-in schema's own form)."""
        if self.builtin:
            return None
        return {"spans": list(self.spans), "choices": {name: list(values) for name, values in self.choices}}


BUILTIN = ReviewSchema(tuple(k.value for k in Kind), CLAIM_KEYS, NAME_FIELDS)


@dataclass
class ClaimState:
    """One claim under review: as extracted (None when added), as it stands, and its last decision."""

    id: str
    original: Optional[Row]
    current: Row
    decision: Optional[str] = None
    rev: int = 0
    last: Optional[Row] = None  # who, at, tab and action of the last decision
    confidence: Optional[float] = None  # as extracted: the probability that every field is right
    certainty: tuple[float, float] = (1.0, 1.0)  # as extracted: schemas.claims.certainty
    uncertain: bool = False  # as extracted: a decision below even odds (schemas.claims.uncertain)

    @property
    def status(self) -> str:
        if self.decision == "reject":
            return "rejected"
        if self.original is None:
            return "added"
        if self.decision in (None, "reset"):
            return "pending"
        return "accepted" if same(self.current, self.original) else "edited"

    def to_json(self) -> Row:
        return {"id": self.id, "status": self.status, "rev": self.rev, "claim": self.current,
                "original": self.original, "last": self.last, "confidence": self.confidence,
                "uncertain": self.uncertain}


@dataclass
class DocState:
    """One document under review: its row, its claims in reading order, its lists."""

    row: Row
    claims: dict[str, ClaimState]
    lists: Row
    original_lists: Row
    decisions: int = 0
    schema: ReviewSchema = BUILTIN

    @property
    def doc_id(self) -> str:
        return str(self.row.get("doc_id"))

    @property
    def text(self) -> str:
        text = self.row.get("text")
        return text if isinstance(text, str) else ""

    @property
    def pending(self) -> int:
        return sum(c.status == "pending" for c in self.claims.values())

    @property
    def reviewed(self) -> bool:
        return self.decisions > 0 and self.pending == 0

    @property
    def least_certainty(self) -> tuple[float, float]:
        """How sure the decisions were of its least certain claim (``certainty``: the confidence,
        then the weakest decision; 1 when no claim has one)."""
        return min((c.certainty for c in self.claims.values()), default=(1.0, 1.0))

    def ordered(self) -> list[ClaimState]:
        """The claims by position in the text."""
        return sorted(self.claims.values(),
                      key=lambda c: (as_offset(c.current.get("start")), as_offset(c.current.get("end"))))

    def known_names(self) -> set[str]:
        """Names the output already gave this document (kept even where not verbatim in the text)."""
        names = {str(self.original_lists.get("system") or "")}
        for key in LIST_FIELDS[1:]:
            names.update(str(n) for n in self.original_lists.get(key) or [])
        for claim in self.claims.values():
            if claim.original:
                names.update(str(claim.original.get(k) or "") for k in self.schema.spans)
        return names - {""}

    def to_json(self) -> Row:
        return {
            "doc_id": self.doc_id, "title": self.row.get("title"), "source": self.row.get("source"),
            "status": self.row.get("status") or "ok", "error": self.row.get("error"), "text": self.text,
            "lists": self.lists, "claims": [c.to_json() for c in self.ordered()],
            "reviewed": self.reviewed, "pending": self.pending, "decisions": self.decisions,
        }


def doc_state(row: Row, claims: list[Row], schema: ReviewSchema = BUILTIN) -> DocState:
    """A document as extracted: claims with ids unique in the document, its lists."""
    states: dict[str, ClaimState] = {}
    for index, claim in enumerate(claims):
        start, end = as_offset(claim.get("start")), as_offset(claim.get("end"))
        base = f"{start}-{end}" if start >= 0 and end >= 0 else f"i{index}"
        claim_id, n = base, 1
        while claim_id in states:
            n += 1
            claim_id = f"{base}.{n}"
        content = {k: claim.get(k) for k in schema.keys}
        confidence = claim.get("confidence")
        states[claim_id] = ClaimState(claim_id, content, dict(content),
                                      confidence=float(confidence) if isinstance(confidence, (int, float)) else None,
                                      certainty=certainty(claim), uncertain=uncertain(claim))
    lists = {"system": row.get("system") or None,
             **{k: [str(n) for n in row.get(k) or [] if n] for k in LIST_FIELDS[1:]}}
    return DocState(row=row, claims=states, lists=lists, original_lists={k: v for k, v in lists.items()},
                    schema=schema)


def as_offset(value: Any) -> int:
    """A claim's start or end offset; -1 when it has none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def same(a: Row, b: Row, keys: tuple[str, ...] = CLAIM_KEYS) -> bool:
    """Whether two claim rows agree on every key."""
    return all(a.get(k) == b.get(k) for k in keys)
