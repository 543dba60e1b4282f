"""Export a review: the reviewed documents as annotations, and the corrected claim tables.

``export_review(out_dir, gold_path)`` replays ``OUT_DIR/review.jsonl`` and writes

* ``gold_path``: every reviewed document (a decision made, no claim pending) in the format of
  ``eval/gold`` (GUIDELINES.md), so ``claims eval --gold gold_path RUN`` scores any run against
  the reviewer's corrections, and beside it ``<gold stem>_inputs.jsonl``, their texts (what
  ``claims eval`` and ``claims train --gold gold_path`` read them with);
* ``OUT_DIR/claims.reviewed.csv`` and ``.jsonl``: the claims with corrections applied (rejected
  ones left out) and a ``review`` column: accepted, edited, added, or pending;
* ``OUT_DIR/reviewed/``: the corrected output as an output folder (``documents.jsonl`` with the
  edited lists, ``claims.jsonl``), which ``claims eval`` and ``claims report`` read.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from paper_claims.outputs.review.docs import DocState
from paper_claims.outputs.review.state import ReviewState
from paper_claims.outputs.files import atomic_write_text
from paper_claims.schemas.columns import CLAIM_COLUMNS, SENTENCE_COLUMNS, sentence_columns
from paper_claims.outputs.table import SCHEMA_FILE
from paper_claims.run.folders import OutputLock
from paper_claims.text import jsonl_text

Row = dict[str, Any]
GOLD_CLAIM_FIELDS = ("kind", "value", "value_high", "unit", "qualifier", "metric", "dataset", "hardware",
                     "model", "baseline", "evidence")
REVIEWED_COLUMNS = [*CLAIM_COLUMNS, "review"]
REVIEWED_DIR = "reviewed"


@dataclass
class ExportSummary:
    """What an export wrote."""

    gold_path: Path
    reviewed_docs: int
    gold_claims: int
    partial_docs: list[str] = field(default_factory=list)  # decisions made, claims still pending
    files: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # skipped lines of review.jsonl

    def describe(self) -> str:
        """A few lines for the terminal."""
        lines = [f"Wrote {self.gold_path}: {self.reviewed_docs} reviewed document(s), {self.gold_claims} claim(s)"]
        lines += [f"Wrote {path}" for path in self.files if path != self.gold_path]
        if self.partial_docs:
            lines.append(f"not exported, claims still pending: {', '.join(self.partial_docs[:10])}"
                         + (" ..." if len(self.partial_docs) > 10 else ""))
        if not self.reviewed_docs:
            lines.append("warning: no document is fully reviewed yet, so the annotations are empty")
        lines += [f"warning: {p}" for p in self.problems]
        return "\n".join(lines)


def gold_document(doc: DocState) -> Row:
    """One reviewed document as a line of the annotation format (eval/gold/GUIDELINES.md)."""
    head, _, tail = doc.doc_id.partition("#")
    source = str(doc.row.get("source") or "")
    fields = GOLD_CLAIM_FIELDS if doc.schema.builtin else doc.schema.keys  # a custom schema: gold in its shape
    claims = [{k: c.current.get(k) for k in fields} for c in doc.ordered() if c.status != "rejected"]
    return {
        "id": doc.doc_id,
        "file": Path(source).name or None,
        "index": int(tail) if tail.isdigit() else None,
        "first_words": " ".join(doc.text.split()[:8]),
        "system": doc.lists.get("system"),
        "datasets": list(doc.lists.get("datasets") or []),
        "hardware": list(doc.lists.get("hardware") or []),
        "models": list(doc.lists.get("models") or []),
        "claims": claims,
    }


def corrected_claims(state: ReviewState) -> list[Row]:
    """Every claim that is not rejected, as a ``claims.jsonl`` row (its sentence that of its
    evidence now) with its ``review`` status."""
    keys = [k for k in CLAIM_COLUMNS[1:] if k not in SENTENCE_COLUMNS] if state.schema.builtin else state.schema.keys
    return [{"doc_id": doc.doc_id, **{k: claim.current.get(k) for k in keys},
             **sentence_columns(doc.text, claim.current.get("start"), claim.current.get("end")), "review": claim.status}
            for doc, claim in state.iter_claims() if claim.status != "rejected"]


def corrected_documents(state: ReviewState) -> list[Row]:
    """The ``documents.jsonl`` rows with the edited lists and the corrected claim counts."""
    rows = []
    for doc in state.docs.values():
        n_claims = sum(c.status != "rejected" for c in doc.claims.values())
        rows.append({**doc.row, **doc.lists, "n_claims": n_claims})
    return rows


def _csv(rows: list[Row], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def export_review(out_dir: Union[str, Path], gold_path: Union[str, Path], *,
                  state: Optional[ReviewState] = None) -> ExportSummary:
    """Write the annotations of the reviewed documents to ``gold_path`` and the corrected
    tables into ``out_dir`` (see the module docstring). ``state`` defaults to the folder's
    output with its review log replayed."""
    out = Path(out_dir)
    with OutputLock(out):  # no run or review app writes there meanwhile
        return _export(out, gold_path, state or ReviewState.load(out))


def _export(out: Path, gold_path: Union[str, Path], state: ReviewState) -> ExportSummary:
    reviewed = [doc for doc in state.docs.values() if doc.reviewed]
    gold = [gold_document(doc) for doc in reviewed]
    claims = corrected_claims(state)
    columns = REVIEWED_COLUMNS if state.schema.builtin else ["doc_id", *state.schema.keys, *SENTENCE_COLUMNS, "review"]
    gold_file = Path(gold_path)
    texts = [{"id": doc.doc_id, "text": doc.text} for doc in reviewed]  # what `claims eval` and `claims train` read
    files = [
        atomic_write_text(gold_file, jsonl_text(gold)),
        atomic_write_text(gold_file.with_name(f"{gold_file.stem}_inputs.jsonl"), jsonl_text(texts)),
        atomic_write_text(out / "claims.reviewed.csv", _csv(claims, columns)),
        atomic_write_text(out / "claims.reviewed.jsonl", jsonl_text(claims)),
        atomic_write_text(out / REVIEWED_DIR / "documents.jsonl", jsonl_text(corrected_documents(state))),
        atomic_write_text(out / REVIEWED_DIR / "claims.jsonl", jsonl_text(claims)),
    ]
    if (out / SCHEMA_FILE).is_file():  # the corrected folder keeps its schema for eval and report
        files.append(atomic_write_text(out / REVIEWED_DIR / SCHEMA_FILE, (out / SCHEMA_FILE).read_text(encoding="utf-8")))
    partial = [doc.doc_id for doc in state.docs.values() if doc.decisions and not doc.reviewed]
    return ExportSummary(gold_path=Path(gold_path), reviewed_docs=len(reviewed),
                         gold_claims=sum(len(g["claims"]) for g in gold), partial_docs=partial,
                         files=files, problems=list(state.problems))
