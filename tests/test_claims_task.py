"""paper_claims.tasks.claims.ground: the rules' decisions in order turn the model's labels into claims and lists
that hold nothing not in the text (invented abstracts)."""

from __future__ import annotations

from paper_claims.schemas import DocumentLabels, Kind
from tests.invented import CORVID_LM, CORVID, setup, ground


def test_lists_and_system_are_the_labelled_candidates() -> None:
    mentions, L, _ = setup(CORVID_LM)
    labels = DocumentLabels(s=L["Corvid"], e={L["Corvid"]: "model", L["BirdCall benchmark"]: "dataset",
                                              L["DenseMix"]: "model", L["8 H100 GPUs"]: "hardware"})
    result = ground(CORVID_LM, mentions, labels)
    assert result.system == "Corvid"
    assert result.models == ["Corvid", "DenseMix"]
    assert result.datasets == ["BirdCall benchmark"]
    assert result.hardware == ["8 H100 GPUs"]
    assert result.claims == [] and result.dropped == 0


def test_claims_take_numbers_from_mentions_and_attributes_from_labelled_names() -> None:
    mentions, L, M = setup(CORVID)
    labels = DocumentLabels(
        s=L["Corvid"],
        e={L["BirdCall benchmark"]: "dataset", L["DenseMix"]: "model", L["8 H100 GPUs"]: "hardware"},
        c={M["91.2%"]: "accuracy", M["2.5x"]: f"speedup {L['DenseMix']}", M["8 H100 GPUs"]: "scale",
           M["40%"]: f"efficiency {L['DenseMix']}", M["3,000 hours"]: "none"},
    )
    result = ground(CORVID, mentions, labels)
    by = {c.evidence: c for c in result.claims}
    assert list(by) == ["91.2%", "2.5x", "8 H100 GPUs", "40%"]
    for claim in result.claims:
        assert CORVID[claim.start:claim.end] == claim.evidence
    acc, speed, gpus, memory = result.claims
    assert (acc.kind, acc.value, acc.unit, acc.metric) == (Kind.accuracy, 91.2, "%", "accuracy")
    assert acc.dataset == "BirdCall benchmark" and acc.hardware is None  # a score is not on a device
    assert acc.baseline is None  # DenseMix is the baseline of another claim only
    assert speed.baseline == "DenseMix" and speed.model is None  # a claim's baseline is not its model
    assert speed.hardware == "8 H100 GPUs" and speed.hardware_canonical == "NVIDIA H100"
    assert gpus.hardware == "8 H100 GPUs"  # the count phrase holds its own mention
    # the third sentence names no dataset: the document's only dataset stands in
    assert memory.dataset == "BirdCall benchmark" and memory.hardware is None
    assert result.dropped == 0


def test_unknown_letters_and_marks_are_dropped_and_counted() -> None:
    mentions, L, M = setup(CORVID)
    labels = DocumentLabels(s="Q", e={"Z": "model", L["DenseMix"]: "model"},
                            c={M["2.5x"]: "speedup Y", "99": "speedup"})
    result = ground(CORVID, mentions, labels)
    assert result.system == "Corvid"  # from "We present Corvid", not the unknown letter
    assert result.models == ["DenseMix"]
    (claim,) = result.claims
    assert claim.baseline == "DenseMix"  # from "faster than DenseMix", not the unknown letter
    assert result.dropped == 4  # the system letter, the name letter, the mark and the baseline letter


def test_labels_parse_kind_and_baseline_letter_and_refuse_other_text() -> None:
    import pytest
    from pydantic import ValidationError

    labels = DocumentLabels(c={"2": "speedup C", "1": "none"})
    assert [(label.n, label.k.value, label.b) for label in labels.claims()] == [(1, "none", None), (2, "speedup", "C")]
    with pytest.raises(ValidationError):
        DocumentLabels(c={"1": "fast"})
    with pytest.raises(ValidationError):
        DocumentLabels.model_validate({"c": {"3": "scale"}}, context={"n_mentions": 2})
