"""paper-claims: grounded quantitative claims from research-paper abstracts.

Data flows one way: sources -> documents -> the parsed document: numbers, sentences, names and
marks (parse) -> model labels (model, asking the embedded server of engines or an endpoint) -> the
rules' votes (rules) -> the learned decisions (decisions) -> grounded claims (tasks: one task per
mode) -> many documents (run: the runner core and its runners) -> tables, report, review (outputs)
and evaluation; training learns the decisions from annotated abstracts. Every option of an
extraction is defined once, in ``options``.

Each ``claims`` command calls one function exported here: ``write_claims`` (extract),
``extract_quantities``/``iter_quantities`` (quantities), ``evaluate`` (eval), ``write_report``
(report), ``serve_review``/``export_review`` (review), ``train_decisions`` (train), ``serve_model``
(serve).

The public names load on first use (PEP 562), so ``claims`` starts without importing what
its command does not need: a second run into a busy folder says so within a fraction of a
second, even while the first run keeps both cores busy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see
    from paper_claims.api import aextract_claims, extract_claims, extract_quantities, iter_quantities, write_claims
    from paper_claims.engines.embedded import serve_model
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
    from paper_claims.evaluation import EvalReport, evaluate
    from paper_claims.extractor import Extractor
    from paper_claims.options import EXTRACT_OPTIONS
    from paper_claims.outputs.report import write_report
    from paper_claims.outputs.review import ExportSummary, export_review, serve_review
    from paper_claims.outputs.table import ClaimTable
    from paper_claims.run.runner import RunStats
    from paper_claims.schemas import Claim, ClaimSchema, Document, DocumentResult, PaperClaim, SchemaError, Span
    from paper_claims.settings import Settings
    from paper_claims.training.train import Trained, train_decisions

_MODULES = {
    "paper_claims.api": ["aextract_claims", "extract_claims", "extract_quantities", "iter_quantities", "write_claims"],
    "paper_claims.engines.embedded": ["serve_model"],
    "paper_claims.errors": ["BackendError", "ClaimsError", "EndpointDown", "EngineCrashed", "ExtractionError",
                            "InputError", "MissingExtra", "ModelFileError", "OutputBusy", "RunStopped",
                            "StorageError"],
    "paper_claims.evaluation": ["EvalReport", "evaluate"],
    "paper_claims.extractor": ["Extractor"],
    "paper_claims.options": ["EXTRACT_OPTIONS"],
    "paper_claims.outputs.report": ["write_report"],
    "paper_claims.outputs.review": ["ExportSummary", "export_review", "serve_review"],
    "paper_claims.outputs.table": ["ClaimTable"],
    "paper_claims.run.runner": ["RunStats"],
    "paper_claims.schemas": ["Claim", "ClaimSchema", "Document", "DocumentResult", "PaperClaim", "SchemaError", "Span"],
    "paper_claims.settings": ["Settings"],
    "paper_claims.training.train": ["Trained", "train_decisions"],
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
