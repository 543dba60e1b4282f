"""The claim models: what paper-claims extracts and exports."""

from paper_claims.schemas.claim_schema import (
    ClaimSchema,
    SchemaClaim,
    SchemaError,
    SchemaInfo,
    Span,
    describe,
    load_schema,
)
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
    PaperClaim,
    Qualifier,
    Status,
    builtin_schema,
)

__all__ = [
    "Claim",
    "ClaimSchema",
    "PaperClaim",
    "SchemaClaim",
    "SchemaError",
    "SchemaInfo",
    "Span",
    "describe",
    "load_schema",
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
    "builtin_schema",
]
