"""A submission with the annotated quantities in place of its own: what its span fields
(MeasuredEntity, MeasuredProperty, Qualifier and their relations) score when every quantity,
unit and modifier is right. A diagnostic of where a system's score is lost, not the task's
score.

Each annotated quantity (its TSV row as annotated, unit and modifiers included) takes the span
rows of the first submitted quantity that overlaps it, their relations pointed at the annotated
quantity; submitted quantities that overlap none are left out with their spans.

    rows = with_annotated_quantities(read_tsv(gold / name), read_tsv(submission / name))

(``read_tsv`` and ``write_tsv`` are measeval_tsv's.)
"""

from __future__ import annotations

import json
from typing import Mapping, Sequence


def _sets(rows: Sequence[Mapping[str, str]]) -> dict[str, list[Mapping[str, str]]]:
    sets: dict[str, list[Mapping[str, str]]] = {}
    for row in rows:
        sets.setdefault(row["annotSet"], []).append(row)
    return sets


def _quantity(rows: Sequence[Mapping[str, str]]) -> Mapping[str, str] | None:
    return next((row for row in rows if row["annotType"] == "Quantity"), None)


def _overlaps(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    return int(a["startOffset"]) < int(b["endOffset"]) and int(b["startOffset"]) < int(a["endOffset"])


def with_annotated_quantities(gold: Sequence[Mapping[str, str]],
                              submitted: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """One paragraph's rows: each annotated quantity with the span rows of the first submitted
    quantity overlapping it (ids renumbered within the annotation set, relations followed)."""
    candidates = [(q, rows) for rows in _sets(submitted).values() if (q := _quantity(rows))]
    out: list[dict[str, str]] = []
    for annot_set, rows in _sets(gold).items():
        quantity = _quantity(rows)
        if quantity is None:
            continue
        out.append(dict(quantity))
        match = next(((q, spans) for q, spans in candidates if _overlaps(q, quantity)), None)
        if match is None:
            continue
        submitted_quantity, spans = match
        ids = {submitted_quantity["annotId"]: quantity["annotId"]}
        others = [row for row in spans if row["annotType"] != "Quantity"]
        for k, row in enumerate(others):
            ids[row["annotId"]] = f"T{9000 + k}-{annot_set}"
        for row in others:
            other = json.loads(row["other"]) if row.get("other") else {}
            relations = {name: ids.get(target, target) for name, target in other.items()}
            out.append({**row, "annotSet": annot_set, "annotId": ids[row["annotId"]],
                        "other": json.dumps(relations) if relations else ""})
    return out
