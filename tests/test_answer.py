"""The answer format has one definition: the schema; the validating model is generated from it.

The server enforces the schema as a grammar and paper-claims validates answers against the
schema (``conforms``, the fast path) or with the generated Pydantic model (whose errors a
re-ask feeds back), so all three must accept and reject exactly the same answers.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from paper_claims.model.answer import answer_model, conforms, labels_schema, to_labels, validate_answer
from paper_claims.parse.marks import letters as name_letters


def _pydantic_accepts(schema: dict[str, Any], answer: Any) -> bool:
    try:
        answer_model(schema).model_validate(answer)
    except ValidationError:
        return False
    return True


def _answers(n_marks: int, n_names: int) -> list[Any]:
    """Answers right and wrong in every way the format can be got wrong."""
    letters = name_letters(n_names)
    marks = {str(n): "speedup" for n in range(1, n_marks + 1)}
    good: dict[str, Any] = {"s": letters[0] if letters else None}
    if letters:
        good["e"] = {letter: "dataset" for letter in letters}
    if n_marks:
        good["c"] = marks
    wrong = [
        {**good, "s": "Z"},                                              # a letter that is not marked
        {**good, "x": 1},                                                # a key the format lacks
        {k: v for k, v in good.items() if k != "s"},                     # a key left out
    ]
    if n_marks:
        wrong += [{**good, "c": {**marks, str(n_marks + 1): "scale"}},   # a mark that does not exist
                  {**good, "c": {**marks, "1": "fast"}},                 # not a kind
                  {**good, "c": {k: v for k, v in marks.items() if k != "1"}}]  # a mark skipped
        if letters:
            wrong.append({**good, "c": {**marks, "1": f"speedup {letters[-1]}"}})
            good_with_baseline = {**good, "c": {**marks, "1": f"improvement {letters[-1]}"}}
            wrong.append({**good, "c": {**marks, "1": "speedup Z"}})       # baseline letter not marked
            return [good, good_with_baseline, *wrong]
    if letters:
        wrong.append({**good, "e": {**good["e"], letters[0]: "city"}})    # not a name type
    return [good, *wrong]


@pytest.mark.parametrize(("n_marks", "n_names"), list(itertools.product([0, 1, 3], [0, 1, 2, 27])))
def test_the_generated_model_accepts_exactly_what_the_schema_accepts(n_marks: int, n_names: int) -> None:
    schema = labels_schema(n_marks, n_names)
    validator = jsonschema.Draft202012Validator(schema)
    for answer in _answers(n_marks, n_names):
        assert _pydantic_accepts(schema, answer) == validator.is_valid(answer), answer
        assert conforms(schema, answer) == validator.is_valid(answer), answer
    assert _pydantic_accepts(schema, _answers(n_marks, n_names)[0])


@pytest.mark.parametrize(("n_marks", "n_names"), [(0, 0), (2, 0), (2, 3)])
def test_validate_answer_gives_the_generated_models_labels_or_its_error(n_marks: int, n_names: int) -> None:
    schema = labels_schema(n_marks, n_names)
    for answer in _answers(n_marks, n_names):
        content = json.dumps(answer)
        try:
            expected = to_labels(answer_model(schema).model_validate_json(content))
        except ValidationError:
            with pytest.raises(ValidationError):
                validate_answer(schema, content)
        else:
            assert validate_answer(schema, content) == expected
    for broken in ('{"s": null, "c": {"1": "sca', "not json", "[1, 2]", '{"s": 1}', '{"s": true}'):
        with pytest.raises(ValidationError):
            validate_answer(schema, broken)


def test_untyped_names_may_not_be_typed() -> None:
    schema = labels_schema(1, 3, typed=["A", "C"])
    assert _pydantic_accepts(schema, {"s": "B", "e": {"A": "model", "C": "none"}, "c": {"1": "scale B"}})
    assert not _pydantic_accepts(schema, {"s": "B", "e": {"A": "model", "B": "model", "C": "none"}, "c": {"1": "scale"}})


def test_a_validated_answer_becomes_the_labels_grounding_reads() -> None:
    schema = labels_schema(2, 2)
    answer = answer_model(schema).model_validate_json('{"s": "A", "e": {"A": "model", "B": "dataset"}, '
                                                      '"c": {"1": "speedup B", "2": "none"}}')
    labels = to_labels(answer)
    assert labels.s == "A" and labels.e == {"A": "model", "B": "dataset"}
    assert [(label.n, label.k.value, label.b) for label in labels.claims()] == [(1, "speedup", "B"), (2, "none", None)]


def test_one_model_per_schema_shape() -> None:
    assert answer_model(labels_schema(3, 2)) is answer_model(labels_schema(3, 2))
    assert answer_model(labels_schema(3, 2)) is not answer_model(labels_schema(3, 3))
