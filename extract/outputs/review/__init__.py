"""Review an extraction in the browser: accept, edit, reject or add claims; export the corrections.

``serve_review(out_dir)`` runs the local web app (needs the ``review`` extra: FastAPI, uvicorn);
``export_review(out_dir, gold_path)`` writes the reviewed documents as annotations and the
corrected claim tables (standard library only). Decisions live in ``OUT_DIR/review.jsonl``.
"""

from paper_claims.outputs.review.export import ExportSummary, export_review
from paper_claims.outputs.review.server import serve_review

__all__ = ["ExportSummary", "export_review", "serve_review"]
