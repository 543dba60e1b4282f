"""paper_claims.decisions.decide: a claim's dataset and hardware stand in the document's lists
(the packaged decisions on an invented abstract)."""

from __future__ import annotations

from paper_claims.decisions.decide import DecidedLists, decide_claims, decide_lists, in_list
from paper_claims.decisions.features import Reading
from paper_claims.decisions.model import load_decisions
from paper_claims.rules.votes import vote
from paper_claims.schemas import DocumentLabels
from tests.invented import LEDGER, marked, setup


def _reading() -> Reading:
    _, L, M = setup(LEDGER)
    labels = DocumentLabels(s=L["Ledger"], e={L["Ledger"]: "dataset", L["Heron-9B"]: "model",
                                              L["single TPU v5e chip"]: "hardware"},
                            c={M["47%"]: "accuracy", M["6 hours"]: "speedup"})
    doc = marked(LEDGER)
    return Reading(doc, labels, vote(doc, labels))


def test_a_claims_dataset_and_hardware_that_the_lists_leave_out_are_none() -> None:
    models = load_decisions()
    assert models is not None
    reading = _reading()
    lists = decide_lists(models, reading)
    free = decide_claims(models, reading)
    held = decide_claims(models, reading, lists)
    chosen = {a: [one.attributes[a].value for one in free] for a in ("dataset", "hardware", "model")}
    assert "Ledger" in chosen["dataset"] and "single TPU v5e chip" in chosen["hardware"]
    # with the document's own lists nothing it lists changes
    assert [[one.attributes[a].value for a in chosen] for one in held] == \
        [[one.attributes[a].value for a in chosen] for one in free]
    # lists without them: the dataset and hardware go, sure of none as the choice was of the name; the model stays
    empty = decide_claims(models, reading, DecidedLists(datasets=[], hardware=[], models=[]))
    for before, after in zip(free, empty):
        assert after.attributes["dataset"].value is None and after.attributes["hardware"].value is None
        assert after.attributes["model"].value == before.attributes["model"].value
        for a in ("dataset", "hardware"):
            if before.attributes[a].value is not None:
                assert after.attributes[a].probability == 1.0 - before.attributes[a].probability


def test_a_name_is_in_a_list_as_the_scorer_matches_names() -> None:
    assert in_list("A100", ["8 A100 GPUs"], hardware=True)
    assert not in_list("GPU", ["8 MI250X GPUs"], hardware=True)  # a bare class is not a named device
    assert in_list("Fooset", ["Fooset benchmark"], hardware=False)
    assert not in_list("CIFAR-10", ["CIFAR-100"], hardware=False)
