"""tests/fakeserver.py answers the per-document schema the pipeline sends."""

from __future__ import annotations

from paper_claims.model.answer import for_document
from paper_claims.model.prompt import render_messages
from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import candidate_mentions
from paper_claims.schemas import DocumentLabels
from paper_claims.parse.document import parse_text
from tests.invented import marked
from tests.fakeserver import _n_marks, _name_letters, labels_for

TEXT = "We present Corvid, a decoder. Corvid is 2.5x faster than DenseMix on 8 H100 GPUs."


def _request() -> tuple[dict, str, int, int]:
    mentions = candidate_mentions(parse_text(TEXT), find_quantities(TEXT))
    n_names = len(marked(TEXT, mentions).names)
    schema = for_document(marked(TEXT, mentions))
    user = render_messages(marked(TEXT, mentions))[1]["content"]
    return {"response_format": {"type": "json_object", "schema": schema}}, user, len(mentions), n_names


def test_marks_and_letters_come_from_the_schema_or_the_text() -> None:
    body, user, n_mentions, n_names = _request()
    assert (n_mentions, n_names) == (2, 3)
    assert _n_marks(body, user) == n_mentions == _n_marks({}, user)
    assert _name_letters(body, user) == ["A", "B", "C"] == _name_letters({}, user)


def test_labels_for_answers_a_valid_document_label() -> None:
    body, user, n_mentions, _ = _request()
    answer = labels_for(user, _n_marks(body, user), _name_letters(body, user))
    assert answer == {"s": "A", "e": {"A": "model", "B": "dataset", "C": "none"}, "c": {"1": "scale", "2": "scale"}}
    labels = DocumentLabels.model_validate(answer, context={"n_mentions": n_mentions})
    assert [label.n for label in labels.claims()] == [1, 2]
    assert labels_for("no marks here", 0) == {"s": None}
