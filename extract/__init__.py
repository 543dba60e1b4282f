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
    OutputBusy,
    RunStopped,
    StorageError,
)
from paper_claims.extractor import Extractor
from paper_claims.outputs.table import ClaimTable
from paper_claims.run.runner import RunStats
from paper_claims.schemas import Claim, Document, DocumentResult
from paper_claims.settings import Settings

__all__ = [
    "BackendError", "Claim", "ClaimTable", "ClaimsError", "Document", "DocumentResult", "EndpointDown",
    "EngineCrashed", "ExtractionError", "Extractor", "InputError", "ModelFileError", "OutputBusy", "RunStats",
    "RunStopped", "Settings", "StorageError", "aextract_claims", "extract_claims", "extract_quantities",
    "iter_quantities", "write_claims",
]
