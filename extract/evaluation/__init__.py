"""Scoring an extraction against hand annotations (``claims eval``), beside the outputs.

``evaluate`` scores an output folder (``score.py``: counts, per kind, attributes, document lists)
and can log the figures (``results_log.py``: a line of RESULTS.md). What it rests on, one module
each: reading the annotations and the output (``reading.py``), claim values and units
(``values.py``), names and metrics matched fuzzily (``names.py``), the one-to-one assignment
(``assignment.py``), gold and predicted claims paired (``matching.py``), and the figures with
their terminal table (``figures.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from paper_claims.evaluation.figures import PRF, AttributeScore, EvalReport, KindScore, format_report
from paper_claims.evaluation.matching import matched_pairs
from paper_claims.evaluation.names import FUZZY_THRESHOLD, fuzzy_similarity, metric_similar
from paper_claims.evaluation.results_log import append_results
from paper_claims.evaluation.score import score
from paper_claims.evaluation.values import normalise_unit, parse_numbers, values_match
from paper_claims.model.prompt_files import prompt_version
from paper_claims.settings import Settings

__all__ = ["FUZZY_THRESHOLD", "PRF", "AttributeScore", "EvalReport", "KindScore", "append_results", "evaluate",
           "format_report", "fuzzy_similarity", "matched_pairs", "metric_similar", "normalise_unit", "parse_numbers",
           "score", "values_match"]


def evaluate(gold_path: Union[str, Path], out_dir: Union[str, Path], *, inputs_path: Optional[Union[str, Path]] = None,
             log: Optional[Union[str, Path]] = None, note: str = "", model: Optional[str] = None) -> EvalReport:
    """Score the extraction output folder ``out_dir`` against the annotations at ``gold_path``
    (``claims eval OUT_DIR --gold GOLD``); the figures come back as an ``EvalReport``
    (``.to_text()``: the terminal table, ``.to_dict()``: JSON-able data).

    Document texts come from the output's ``documents.jsonl``, else from ``inputs_path``
    (default ``<gold stem>_inputs.jsonl`` next to the gold file). With ``log``, one line of the
    figures is appended to that RESULTS.md, with ``note``, the prompt version and ``model``
    (default: the model configured by ``CLAIMS_MODEL`` / ``OPENAI_BASE_URL``, as ``claims
    extract`` would choose it). Raises ``InputError`` when a file is missing or unreadable.
    """
    report = score(gold_path, out_dir, inputs_path=inputs_path)
    if log:
        model = model or Settings.from_env(model=None).model_name
        append_results(report, log, model=model, prompt_version=prompt_version(), note=note)
    return report
