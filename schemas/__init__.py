"""The claim models: what paper-claims extracts and exports."""

from paper_claims.schemas.claims import (
    Claim,
    ClaimLabel,
    Document,
    DocumentLabels,
    DocumentResult,
    Kind,
    LabelKind,
    Mention,
    NameCode,
    Qualifier,
    Status,
)

__all__ = [
    "Claim",
    "ClaimLabel",
    "Document",
    "DocumentLabels",
    "DocumentResult",
    "Kind",
    "LabelKind",
    "Mention",
    "NameCode",
    "Qualifier",
    "Status",
]
