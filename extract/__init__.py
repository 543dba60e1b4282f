"""paper-claims: grounded quantitative claims from research-paper abstracts.

Data flows one way: sources -> documents -> numbers and names (parse) -> model labels
(model) -> grounded claims (pipeline) -> many documents (run) -> tables, report, review,
evaluation (outputs).
"""

from paper_claims.api import aextract_claims, extract_claims, extract_quantities, iter_quantities, write_claims
from paper_claims.errors import (
    BackendError,
    ClaimsError,
    EndpointDown,
    EngineCrashed,
    ExtractionError,
    InputError,
    ModelFileError,
    RunStopped,
)
from paper_claims.extractor import Extractor
from paper_claims.outputs.table import ClaimTable
from paper_claims.run.runner import RunStats
from paper_claims.schemas import Claim, ClaimSchema, Document, DocumentResult, PaperClaim, SchemaError, Span
from paper_claims.settings import Settings

__all__ = [
    "BackendError", "Claim", "ClaimSchema", "ClaimTable", "ClaimsError", "Document", "DocumentResult", "EndpointDown",
    "EngineCrashed", "ExtractionError", "Extractor", "InputError", "ModelFileError", "PaperClaim", "RunStats",
    "RunStopped", "SchemaError", "Settings", "Span", "aextract_claims", "extract_claims", "extract_quantities", "iter_quantities", "write_claims",
]
