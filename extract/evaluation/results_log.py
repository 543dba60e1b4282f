"""The results log: one markdown table line of an evaluation's figures appended to RESULTS.md."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from paper_claims.evaluation.figures import ATTRIBUTES, DOC_LISTS, EvalReport
from paper_claims.evaluation.reading import PathLike

_RESULTS_COLUMNS = (
    "| date (UTC) | set | model | prompt | claim P | claim R | claim F1 | kind acc "
    "| per kind R (kind ignored) / kind acc / typed F1 | claim dataset/hardware/model/baseline F1 | metric F1 "
    "| unit acc | datasets F1 "
    "| hardware F1 | models F1 | grounded | missing docs | note |"
)
_RESULTS_HEADER = (
    "# Evaluation results\n\n" + _RESULTS_COLUMNS + "\n"
    "|" + "---|" * _RESULTS_COLUMNS.count(" | ") + "---|\n"
)
_KIND_ABBREV = {"accuracy": "acc", "efficiency": "eff", "improvement": "imp", "scale": "scl",
                "speedup": "spd", "other": "oth"}


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _per_kind_cell(report: EvalReport) -> str:
    """"acc .91/.88/.80 · …": recall, kind accuracy and typed F1 of each gold kind."""
    def short(x: float) -> str:
        return f"{x:.2f}".removeprefix("0")

    return " · ".join(f"{_KIND_ABBREV.get(k, k)} {short(s.recall)}/{short(s.kind_accuracy)}"
                      f"/{short(s.typed.f1)}"
                      for k, s in report.per_kind.items() if s.n_gold)


def _set_of(gold_path: PathLike) -> str:
    """The annotation set a gold file holds: its file stem ("dev", "dev2")."""
    return Path(gold_path).stem


def append_results(report: EvalReport, results_path: PathLike, *, model: str,
                   prompt_version: str, note: str = "", set_name: Optional[str] = None) -> None:
    """Append one markdown table line for ``report`` to ``results_path``.

    The header is written when the file is new, and again (a new table) when the file's
    tables have other columns.  The set defaults to the gold file's stem.
    """
    path = Path(results_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    builtin = "metric" in report.attributes  # a custom schema's report scores its own fields
    missing = str(len(report.missing_docs))
    if report.error_docs:
        missing += f" (+{len(report.error_docs)} error)"
    cells = [
        datetime.now(timezone.utc).isoformat(timespec="seconds"),
        _cell(set_name or _set_of(report.gold_path)),
        _cell(model), _cell(prompt_version),
        f"{report.claims.precision:.3f}", f"{report.claims.recall:.3f}", f"{report.claims.f1:.3f}",
        f"{report.kind_accuracy:.3f}", _per_kind_cell(report),
        ("/".join(f"{report.attributes[name].f1:.2f}" for name in ATTRIBUTES) if builtin
         else "/".join(f"{score.f1:.2f}" for score in report.attributes.values())),  # a custom schema's fields
        f"{report.attributes['metric'].f1:.3f}" if builtin else "-", f"{report.unit_accuracy:.3f}",
        *(f"{report.doc_lists[name].f1:.3f}" if name in report.doc_lists else "-" for name in DOC_LISTS),
        f"{report.grounded_share:.3f}", missing, _cell(note),
    ]
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    with path.open("a", encoding="utf-8") as fh:
        if not old.strip():
            fh.write(_RESULTS_HEADER)
        elif _RESULTS_COLUMNS not in old:
            fh.write(("\n" if old.endswith("\n") else "\n\n") + _RESULTS_HEADER.split("\n", 2)[2])
        fh.write("| " + " | ".join(cells) + " |\n")
