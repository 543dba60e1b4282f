"""Scoring an extraction against hand annotations (``claims eval``)."""

from paper_claims.evaluation.score import (
    PRF,
    AttributeScore,
    EvalReport,
    KindScore,
    append_results,
    evaluate,
    format_report,
    fuzzy_similarity,
    metric_similar,
    normalise_unit,
    parse_numbers,
    values_match,
)

__all__ = ["PRF", "AttributeScore", "EvalReport", "KindScore", "append_results", "evaluate", "format_report",
           "fuzzy_similarity", "metric_similar", "normalise_unit", "parse_numbers", "values_match"]
