"""Pydantic models for documents, numeric mentions, model labels and grounded claims.

The shapes follow ``eval/gold/GUIDELINES.md``: a claim is one number of an abstract, its
meaning (kind, metric, dataset, hardware, model, baseline) and where it stands in the text.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, ClassVar, Optional, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationInfo, model_validator

from paper_claims.schemas.claim_schema import ClaimSchema, SchemaClaim, SchemaInfo, Span, describe

from paper_claims.schemas.columns import CLAIM_COLUMNS, DOCUMENT_COLUMNS, sentence_columns
from paper_claims.text import sentence_spans


class Kind(str, Enum):
    """What a claim's number measures."""

    speedup = "speedup"
    efficiency = "efficiency"
    accuracy = "accuracy"
    improvement = "improvement"
    scale = "scale"
    other = "other"


# made from Kind: the kinds are written once
LabelKind = Enum("LabelKind", [(kind.name, kind.value) for kind in Kind] + [("none", "none")],  # type: ignore[misc]
                 type=str, module=__name__, qualname="LabelKind")
LabelKind.__doc__ = "The model's choice for one mark: a claim kind, or none (not a result of the paper)."


class Qualifier(str, Enum):
    """How the abstract hedges a number."""

    up_to = "up to"
    over = "over"
    about = "about"
    at_least = "at least"


class Status(str, Enum):
    """Outcome of one document's extraction."""

    ok = "ok"
    error = "error"


class Document(BaseModel):
    """One abstract to extract from, with whatever metadata its layout carries."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    source: str = ""
    title: Optional[str] = None
    authors: Optional[str] = None
    doi: Optional[str] = None
    year: Optional[int] = None
    error: Optional[str] = None  # a bad record: kept so it becomes an error row

    def metadata(self) -> dict[str, Any]:
        """What a result carries of its document besides the text: source, title, DOI, year."""
        return {"source": self.source, "title": self.title, "doi": self.doi, "year": self.year}


class Mention(BaseModel):
    """A numeric mention found by the quantity parser, with offsets into the text."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    value: float
    value_high: Optional[float] = None
    unit: Optional[str] = None
    qualifier: Optional[Qualifier] = None

    @model_validator(mode="after")
    def _ordered(self) -> "Mention":
        if self.end < self.start:
            raise ValueError("end before start")
        return self


class Claim(BaseModel):
    """A grounded quantitative claim: parser-measured numbers plus model-given meaning."""

    kind: Kind
    value: float
    value_high: Optional[float] = None
    unit: Optional[str] = None
    qualifier: Optional[Qualifier] = None
    metric: Optional[str] = None
    dataset: Optional[str] = None
    hardware: Optional[str] = None
    hardware_canonical: Optional[str] = None
    model: Optional[str] = None
    baseline: Optional[str] = None
    evidence: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)  # that every field is right (learned decisions)
    # the probability of each decision (its kind; each attribute's value, or that it has none)
    kind_confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)
    dataset_confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)
    hardware_confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)
    model_confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)
    baseline_confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)

    def check_grounded(self, text: str) -> None:
        """Raise ValueError unless the evidence is exactly ``text[start:end]``."""
        if text[self.start : self.end] != self.evidence:
            raise ValueError(
                f"evidence {self.evidence!r} is not text[{self.start}:{self.end}]"
            )


# the probability of each decision of a claim (its kind, each attribute), as its row carries them
DECISION_CONFIDENCES = tuple(name for name in Claim.model_fields if name.endswith("_confidence"))


def _decisions(row: dict[str, Any]) -> list[float]:
    """The probabilities of the claim's decisions its row has."""
    return [float(v) for name in DECISION_CONFIDENCES if isinstance(v := row.get(name), (int, float))]


def certainty(row: dict[str, Any]) -> tuple[float, float]:
    """How sure the decisions were of a claim, from its row, to order claims by: its confidence,
    then its least sure decision (the calibrated confidence takes few values; the weakest
    decision orders claims of equal confidence). 1 where a row has none."""
    confidence = row.get("confidence")
    return (float(confidence) if isinstance(confidence, (int, float)) else 1.0, min(_decisions(row), default=1.0))


UNCERTAIN = 0.5  # a decision below even odds: the claim is marked, check it before citing it


def uncertain(row: dict[str, Any]) -> bool:
    """Whether one of the claim's decisions was below even odds (a row with no decision's own
    probability: its confidence). Not the confidence itself: it is below 0.5 for nearly every
    claim (calibrated on sets where a third to two thirds of claims are right in every field)."""
    decisions = _decisions(row)
    return (min(decisions) if decisions else certainty(row)[0]) < UNCERTAIN


class PaperClaim(ClaimSchema):
    """A quantitative result of the paper's own work in a machine-learning abstract, with the
    dataset, hardware and model it refers to and the baseline it is compared with."""

    prompt_file: ClassVar[Optional[str]] = "label_system.txt"

    kind: Kind = Field(description="speedup: faster, more throughput, lower latency; efficiency: less memory, "
                                   "cost, energy or parameters; accuracy: an absolute score; improvement: a quality "
                                   "gain over a baseline; scale: size or count of the paper's data, model or "
                                   "evaluation; other: another result")
    dataset: Optional[Span] = Field(None, description="the dataset or benchmark the number is measured on")
    hardware: Optional[Span] = Field(None, description="the device the number is measured on")
    model: Optional[Span] = Field(None, description="the model the number is about")
    baseline: Optional[Span] = Field(None, description="what the number is compared with")


def _claim_shape(row: Any) -> str:
    """Which claim model a stored row is: the built-in schema's rows carry hardware_canonical."""
    if isinstance(row, BaseModel):
        return "builtin" if isinstance(row, Claim) else "schema"
    return "builtin" if isinstance(row, dict) and "hardware_canonical" in row else "schema"


AnyClaim = Annotated[Union[Annotated[Claim, Tag("builtin")], Annotated[SchemaClaim, Tag("schema")]],
                     Discriminator(_claim_shape)]


class NameCode(str, Enum):
    """The model's type for a marked candidate name."""

    dataset = "dataset"
    model = "model"
    hardware = "hardware"
    none = "none"


class ClaimLabel(BaseModel):
    """The model's label for one numbered mention: its kind and its baseline's name letter."""

    n: int = Field(description="number of the marked mention, as in [n]")
    k: LabelKind = Field(description="kind of claim, or none when the number is not a result")
    b: Optional[str] = Field(default=None, description="letter of the baseline's marked name")


def _split_label(value: str) -> tuple[LabelKind, Optional[str]]:
    """"speedup C" -> (speedup, "C"); "none" -> (none, None)."""
    kind, _, letter = value.strip().partition(" ")
    return LabelKind(kind), (letter.strip() or None)


class DocumentLabels(BaseModel):
    """What the model returns for one abstract (compact keys keep the output short).

    ``s`` is the letter of the paper's system, ``e`` maps a name letter to its type, and
    ``c`` maps each mark "1".."N" to its kind, optionally followed by the letter of the
    name it is compared against ("speedup C").
    """

    s: Optional[str] = Field(default=None, description="letter of the system the paper introduces")
    e: dict[str, NameCode] = Field(default_factory=dict, description="type of each marked name")
    c: dict[str, str] = Field(default_factory=dict, description="kind (and baseline letter) of each mark")

    def claims(self) -> list[ClaimLabel]:
        """The per-mark labels in mark order (keys that are not numbers are skipped)."""
        labels = []
        for key, value in self.c.items():
            if key.isdigit():
                kind, letter = _split_label(value)
                labels.append(ClaimLabel(n=int(key), k=kind, b=letter))
        return sorted(labels, key=lambda label: label.n)

    @model_validator(mode="after")
    def _marks_exist(self, info: ValidationInfo) -> "DocumentLabels":
        """Every label must be a kind (and a letter); with ``{"n_mentions": N}`` as context,
        every label must point at a mark 1..N."""
        for value in self.c.values():
            try:
                _split_label(value)
            except ValueError:
                kinds = ", ".join(kind.value for kind in LabelKind)
                raise ValueError(f"label {value!r} is not a kind ({kinds}) with an optional name letter") from None
        n_mentions = (info.context or {}).get("n_mentions")
        if n_mentions is None:
            return self
        bad = sorted({key for key in self.c if not (key.isdigit() and 1 <= int(key) <= n_mentions)})
        if bad:
            marks = f"[1] to [{n_mentions}]" if n_mentions else "none, so c must be {}"
            raise ValueError(
                f"labels point at marks {bad} that are not in the abstract; its marks are {marks}"
            )
        return self


class DocumentResult(BaseModel):
    """Everything extracted from one document, and how it went."""

    doc_id: str
    source: str = ""
    title: Optional[str] = None
    doi: Optional[str] = None
    year: Optional[int] = None
    system: Optional[str] = None
    datasets: list[str] = Field(default_factory=list)
    hardware: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    claims: list[AnyClaim] = Field(default_factory=list)
    status: Status = Status.ok
    error: Optional[str] = None
    attempts: int = 0
    dropped: int = 0  # model answers rejected by grounding
    text: Optional[str] = None

    @classmethod
    def failed(cls, doc: Document, message: str, attempts: int = 0) -> "DocumentResult":
        """The error row of a document that could not be extracted (the message on one line)."""
        return cls(doc_id=doc.id, **doc.metadata(), status=Status.error,
                   error=" ".join(message.split()), attempts=attempts, text=doc.text)

    @property
    def n_claims(self) -> int:
        return len(self.claims)

    def document_row(self) -> dict[str, Any]:
        """The documents.jsonl row: the ``DOCUMENT_COLUMNS`` of the column contract."""
        row = self.model_dump(mode="json", exclude={"claims"})
        row["n_claims"] = self.n_claims
        return {name: row[name] for name in DOCUMENT_COLUMNS}

    def claim_rows(self) -> list[dict[str, Any]]:
        """The claims.csv / claims.jsonl rows: the ``CLAIM_COLUMNS`` of the column contract (a
        custom schema's claims: every field of the row, which the writers put in its columns'
        order), each with the sentence it stands in."""
        rows = []
        spans = sentence_spans(self.text) if self.text and self.claims else ()
        for claim in self.claims:
            row = {"doc_id": self.doc_id, **claim.model_dump(mode="json"),
                   **sentence_columns(self.text, claim.start, claim.end, spans)}
            rows.append({name: row[name] for name in CLAIM_COLUMNS} if isinstance(claim, Claim) else row)
        return rows


def builtin_schema() -> SchemaInfo:
    """The built-in ``PaperClaim`` schema, described (what an output without a schema of its own holds)."""
    return describe(PaperClaim)
