"""The MeasEval example's converter: claim rows to the task's TSV annotation sets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "measeval"))

from measeval_tsv import annotation_rows, every_number, mods_of, read_tsv, unit_as_written, write_submission, write_tsv  # noqa: E402

TEXT = "The brief peak in Apectodinium at about 2617.4 m indicates freshening."


def _claim(**extra: object) -> dict[str, object]:
    start = TEXT.index("about")
    row: dict[str, object] = {"doc_id": "d1", "start": start, "end": start + len("about 2617.4 m"),
                              "evidence": "about 2617.4 m", "value": 2617.4, "unit": "m", "qualifier": "about"}
    row.update(extra)
    return row


def test_quantity_row_has_unit_as_written_and_modifiers() -> None:
    rows = annotation_rows("d1", [_claim()])
    assert rows == [["d1", 1, "Quantity", 34, 48, "T1-1", "about 2617.4 m",
                     json.dumps({"mods": ["IsApproximate"], "unit": "m"})]]


def test_entity_property_and_qualifier_are_linked_as_measeval_links_them() -> None:
    span = {"entity": "brief peak", "entity_start": 4, "entity_end": 14,
            "context": "in Apectodinium", "context_start": 15, "context_end": 30}
    rows = annotation_rows("d1", [_claim(**span)])
    assert [row[2] for row in rows] == ["Quantity", "MeasuredEntity", "Qualifier"]
    assert json.loads(rows[1][7]) == {"HasQuantity": "T1-1"}
    assert json.loads(rows[2][7]) == {"Qualifies": "T1-1"}
    with_property = annotation_rows("d1", [_claim(**span, property="peak", property_start=10, property_end=14)])
    links = {row[2]: json.loads(row[7]) for row in with_property[1:]}
    assert links == {"MeasuredProperty": {"HasQuantity": "T1-1"}, "MeasuredEntity": {"HasProperty": "T2-1"},
                     "Qualifier": {"Qualifies": "T2-1"}}
    for row in with_property:
        assert TEXT[row[3]:row[4]] == row[6]


def test_modifiers_from_range_count_and_schema_fields() -> None:
    assert mods_of({"value_high": 5.0, "kind": "count"}) == ["IsRange", "IsCount"]
    assert mods_of({"qualifier": "up to", "mean": True, "mods": ["IsRange", "IsList"]}) == ["IsRange", "IsMean", "IsList"]
    assert mods_of({"qualifier": None, "mean": False}) == []


def test_unit_as_written() -> None:
    assert unit_as_written({"evidence": "1.66–4.88 mmol/L", "unit": "mmol/l"}) == "mmol/L"
    assert unit_as_written({"evidence": "12 participants", "unit": "participants"}) == "participants"
    assert unit_as_written({"evidence": "2.25", "unit": None}) is None
    assert unit_as_written({"evidence": "1.3 ± 0.5 wt.%", "unit": "%"}) == "wt.%"  # the sign stays
    assert unit_as_written({"evidence": "16 times", "unit": "x"}) == "times"
    assert unit_as_written({"evidence": "100×", "unit": "x"}) == "×"
    assert unit_as_written({"evidence": "less than one day", "unit": "days"}) == "day"


def test_one_file_per_paragraph_written_as_the_gold_is(tmp_path: Path) -> None:
    claims = [_claim(), {**_claim(), "doc_id": "d2"}]
    assert write_submission(tmp_path, claims) == 2
    lines = (tmp_path / "d1.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["docId", "annotSet", "annotType", "startOffset", "endOffset", "annotId", "text", "other"]
    assert lines[1].split("\t")[7] == '{"mods": ["IsApproximate"], "unit": "m"}'  # no CSV quoting


def test_an_assigned_variable_is_not_part_of_the_quantity() -> None:
    text = "The cohort (n = 8815) was followed."
    start = text.index("n = ")
    rows = annotation_rows("d", [{"start": start, "end": start + 8, "evidence": "n = 8815", "value": 8815.0}])
    assert rows[0][3:7] == [start + 4, start + 8, "T1-1", "8815"]


def test_modifiers_read_the_number_and_the_words_before_it() -> None:
    text = "The mean temperature was ∼300 ± 15 °C."
    start = text.index("∼")
    row = {"evidence": "∼300 ± 15 °C", "start": start, "end": len(text) - 1}
    assert mods_of(row, text) == ["IsApproximate", "HasTolerance", "IsMean"]
    assert mods_of(row) == ["IsApproximate", "HasTolerance"]  # without the paragraph: no mean


def test_every_number_adds_the_numbers_the_model_let_go_once() -> None:
    text = "We sampled 274 participants over 12 years and 2.5 kg of soil at 4 sites (Fig. 3)."
    kept = {"doc_id": "d1", "kind": "measurement", "start": text.index("2.5"), "end": text.index("2.5") + 6,
            "evidence": "2.5 kg", "value": 2.5, "unit": "kg", "entity": "soil"}
    rows = every_number([kept], text, "d1")
    assert [(r["evidence"], r["kind"]) for r in rows] == [
        ("274 participants", "count"), ("over 12 years", "measurement"), ("2.5 kg", "measurement"), ("4 sites", "count")]
    assert rows[2]["entity"] == "soil"  # the model's own row stays as it was, once
    assert all(r["doc_id"] == "d1" for r in rows)


def _row(annot_set: str, kind: str, start: int, end: int, annot_id: str, other: dict[str, object] | None = None) -> dict[str, str]:
    return {"docId": "d", "annotSet": annot_set, "annotType": kind, "startOffset": str(start), "endOffset": str(end),
            "annotId": annot_id, "text": "x", "other": json.dumps(other) if other else ""}


def test_annotated_quantities_take_the_spans_of_the_submitted_quantity_they_overlap(tmp_path: Path) -> None:
    from ceiling import with_annotated_quantities

    gold = [_row("1", "Quantity", 40, 48, "T1-1", {"unit": "m"}), _row("1", "MeasuredEntity", 0, 9, "T2-1", {"HasQuantity": "T1-1"}),
            _row("2", "Quantity", 60, 64, "T5-2", {"mods": ["IsCount"]})]
    submitted = [_row("1", "Quantity", 5, 7, "T1-1"),  # a number no annotation holds: left out, with its span
                 _row("1", "MeasuredEntity", 20, 25, "T2-1", {"HasQuantity": "T1-1"}),
                 _row("2", "Quantity", 44, 50, "T1-2", {"unit": "cm"}),
                 _row("2", "MeasuredProperty", 10, 15, "T2-2", {"HasQuantity": "T1-2"}),
                 _row("2", "MeasuredEntity", 0, 8, "T3-2", {"HasProperty": "T2-2"})]
    rows = with_annotated_quantities(gold, submitted)
    assert [(r["annotSet"], r["annotType"], r["startOffset"]) for r in rows] == [
        ("1", "Quantity", "40"), ("1", "MeasuredProperty", "10"), ("1", "MeasuredEntity", "0"), ("2", "Quantity", "60")]
    assert rows[0]["other"] == json.dumps({"unit": "m"})  # the annotated unit, not the submitted "cm"
    prop, entity = rows[1], rows[2]
    assert json.loads(prop["other"]) == {"HasQuantity": "T1-1"}  # pointed at the annotated quantity's id
    assert json.loads(entity["other"]) == {"HasProperty": prop["annotId"]}
    assert len({(r["annotSet"], r["annotId"]) for r in rows}) == len(rows)  # the scorer wants them unique
    write_tsv(tmp_path / "d.tsv", rows)
    assert read_tsv(tmp_path / "d.tsv") == rows
    assert read_tsv(tmp_path / "missing.tsv") == []
