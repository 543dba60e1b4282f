"""paper-claims: grounded quantitative claims from research-paper abstracts.

Data flows one way: sources -> documents -> numbers and names (parse) -> model labels
(model) -> grounded claims (pipeline) -> many documents (run) -> tables, report, review,
evaluation (outputs).

The public names load on first use (PEP 562), so ``claims`` starts without importing what
its command does not need: a second run into a busy folder says so within a fraction of a
second, even while the first run keeps both cores busy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see
    from paper_claims.api import aextract_claims, extract_claims, extract_quantities, iter_quantities, write_claims
    from paper_claims.errors import (
        BackendError,
        ClaimsError,
        EndpointDown,
        EngineCrashed,
        ExtractionError,
        InputError,
        MissingExtra,
        ModelFileError,
        OutputBusy,
        RunStopped,
        StorageError,
    )
    from paper_claims.extractor import Extractor
    from paper_claims.outputs.table import ClaimTable
    from paper_claims.run.runner import RunStats
    from paper_claims.schemas import Claim, ClaimSchema, Document, DocumentResult, PaperClaim, SchemaError, Span
    from paper_claims.settings import Settings

_MODULES = {
    "paper_claims.api": ["aextract_claims", "extract_claims", "extract_quantities", "iter_quantities", "write_claims"],
    "paper_claims.errors": ["BackendError", "ClaimsError", "EndpointDown", "EngineCrashed", "ExtractionError",
                            "InputError", "MissingExtra", "ModelFileError", "OutputBusy", "RunStopped",
                            "StorageError"],
    "paper_claims.extractor": ["Extractor"],
    "paper_claims.outputs.table": ["ClaimTable"],
    "paper_claims.run.runner": ["RunStats"],
    "paper_claims.schemas": ["Claim", "ClaimSchema", "Document", "DocumentResult", "PaperClaim", "SchemaError", "Span"],
    "paper_claims.settings": ["Settings"],
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'paper_claims' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
