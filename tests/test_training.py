"""paper_claims.training: the learned decisions are fitted deterministically from annotated
examples, the packaged examples keep no text, and ``claims train`` learns a lab's own convention
from its reviewed abstracts (invented abstracts, answered by the fake server)."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sklearn")

from paper_claims.api import extract_claims  # noqa: E402
from paper_claims.cli import main  # noqa: E402
from paper_claims.decisions.model import DecisionModels  # noqa: E402
from paper_claims.errors import InputError  # noqa: E402
from paper_claims.evaluation import evaluate  # noqa: E402
from paper_claims.run.cache import AnswerCache  # noqa: E402
from paper_claims.settings import Settings  # noqa: E402
from paper_claims.sources.inputs import iter_inputs  # noqa: E402
from paper_claims.tasks import task_for  # noqa: E402
from paper_claims.text import jsonl_text, read_jsonl  # noqa: E402
from paper_claims.training.examples import set_examples  # noqa: E402
from paper_claims.training.learn import fit_decisions  # noqa: E402
from paper_claims.training.store import read_examples, write_examples  # noqa: E402
from paper_claims.training.train import cached_answers, train_decisions  # noqa: E402
from tests.fakeserver import FakeServer  # noqa: E402

SYSTEMS = ["Kite", "Lark", "Wren", "Tern", "Rook", "Finch", "Heron", "Crane", "Egret", "Stork", "Swift", "Robin"]
DEVICES = ["ZX-100", "QV-220", "TR-8", "MK-40", "PL-350", "BX-9"]
DATA = ["Fooset", "BarQA", "Quxbench", "Norset", "Zeta-10k", "Omnibench"]
BASES = ["Barnet", "Clovis", "Dagger", "Ember", "Flint"]


def invented(n: int, seed: int) -> list[dict[str, Any]]:
    """Abstracts of one shape: a system on a device board, an accuracy on a benchmark, a speedup."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        system, device, data, base = (rng.choice(SYSTEMS) + str(rng.randint(2, 9)), rng.choice(DEVICES),
                                      rng.choice(DATA), rng.choice(BASES))
        accuracy, speedup = round(rng.uniform(60, 95), 1), round(rng.uniform(1.5, 9.5), 1)
        text = (f"We present {system}, a compiler for sparse models. We implement {system} on a {device} FPGA board. "
                f"On the {data} benchmark, {system} reaches {accuracy}% accuracy. "
                f"It runs {speedup}x faster than {base}.")
        rows.append({"id": f"inv{seed}-{i}", "text": text, "device": f"{device} FPGA board", "data": data,
                     "accuracy": accuracy, "speedup": speedup, "base": base, "system": system})
    return rows


def gold(rows: list[dict[str, Any]], accuracy_on_device: bool) -> list[dict[str, Any]]:
    """Annotations of the invented abstracts; ``accuracy_on_device``: the lab's convention that an
    accuracy is measured on the device the system runs on."""
    return [{"id": r["id"], "system": r["system"], "datasets": [r["data"]], "hardware": [r["device"]], "models": [],
             "claims": [
                 {"kind": "accuracy", "value": r["accuracy"], "unit": "%", "evidence": f"{r['accuracy']}%",
                  "dataset": r["data"], "hardware": r["device"] if accuracy_on_device else None, "model": None,
                  "baseline": None},
                 {"kind": "speedup", "value": r["speedup"], "unit": "x", "evidence": f"{r['speedup']}x",
                  "dataset": None, "hardware": r["device"], "model": None, "baseline": r["base"]}]}
            for r in rows]


def write_set(folder: Path, name: str, rows: list[dict[str, Any]], annotations: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_inputs.jsonl").write_text(jsonl_text({"id": r["id"], "text": r["text"]} for r in rows))
    path = folder / f"{name}.jsonl"
    path.write_text(jsonl_text(annotations))
    return path


def answered(rows: list[dict[str, Any]], settings: Settings) -> None:
    """The fake server's answers for ``rows`` in the answer cache (as an extraction leaves them)."""
    extract_claims([{"id": r["id"], "text": r["text"]} for r in rows], settings=settings, say=lambda _m: None)


def examples_of(rows: list[dict[str, Any]], annotations: list[dict[str, Any]], settings: Settings, group: str) -> list:
    with AnswerCache(settings.resolved_cache_dir) as cache:
        return set_examples(task_for(settings), iter_inputs([{"id": r["id"], "text": r["text"]} for r in rows]),
                            {g["id"]: g for g in annotations}, group, cached_answers(cache, []))


def packaged_stand_in(rows: list[dict[str, Any]], settings: Settings) -> list:
    """The packaged examples' stand-in: the invented abstracts in two sets, a score without a device."""
    half = len(rows) // 2
    return examples_of(rows[:half], gold(rows[:half], False), settings, "p1") + \
        examples_of(rows[half:], gold(rows[half:], False), settings, "p2")


def hardware_of_accuracy(out: Path) -> list[Any]:
    return [row["hardware"] for row in read_jsonl(out / "claims.jsonl") if row["kind"] == "accuracy"]


def test_fitting_is_deterministic_and_the_store_keeps_no_text(tmp_path: Path) -> None:
    rows = invented(24, seed=1)
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        answered(rows, settings)
        examples = examples_of(rows[:12], gold(rows[:12], False), settings, "a") + \
            examples_of(rows[12:], gold(rows[12:], True), settings, "b")
    first, second = fit_decisions(examples), fit_decisions(examples)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    stored = write_examples(examples, tmp_path / "examples.json.gz")
    raw = gzip.decompress(stored.read_bytes()).decode("utf-8")
    for r in rows:  # no sentence and no name of an abstract in the store
        assert r["text"][:40] not in raw and r["device"] not in raw and r["base"] not in raw
    again = read_examples(stored)
    assert json.dumps(fit_decisions(again), sort_keys=True) == json.dumps(first, sort_keys=True)
    DecisionModels.from_dict(first)  # the file the fit writes is one the package reads


def test_claims_train_learns_a_labs_convention_and_fixes_it_on_abstracts_it_did_not_see(tmp_path: Path) -> None:
    """Packaged annotations (stand-in: invented abstracts annotated without a device for an
    accuracy) against a lab that gives every accuracy the device the system runs on: after
    claims train on half of the lab's reviewed abstracts, the other half gets the device."""
    packaged_rows, lab_rows = invented(30, seed=7), invented(40, seed=8)
    reviewed, unseen = lab_rows[:20], lab_rows[20:]
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        answered(packaged_rows + lab_rows, settings)
        packaged = packaged_stand_in(packaged_rows, settings)
        before = fit_decisions(packaged)
        (tmp_path / "packaged.json").write_text(json.dumps(before))
        gold_path = write_set(tmp_path / "lab", "reviewed", reviewed, gold(reviewed, True))
        trained = train_decisions(gold_path, out=tmp_path / "ours.json", examples=packaged, base_url=server.base_url,
                                  cache_dir=tmp_path / "cache", say=lambda _m: None)
        assert trained.documents == 20 and trained.claims == 40 and not trained.missing
        unseen_records = [{"id": r["id"], "text": r["text"]} for r in unseen]
        common = dict(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", report=False,
                      say=lambda _m: None)
        extract_claims(unseen_records, out=tmp_path / "before", decisions=tmp_path / "packaged.json", **common)
        extract_claims(unseen_records, out=tmp_path / "after", decisions=tmp_path / "ours.json", **common)
    assert not any(hardware_of_accuracy(tmp_path / "before"))  # the packaged convention: no device for a score
    after = hardware_of_accuracy(tmp_path / "after")
    devices = {r["id"]: r["device"] for r in unseen}
    rows = [row for row in read_jsonl(tmp_path / "after" / "claims.jsonl") if row["kind"] == "accuracy"]
    assert len(after) == 20 and all(row["hardware"] == devices[row["doc_id"]] for row in rows)


def test_claims_train_can_calibrate_the_confidence_on_the_labs_own_abstracts(tmp_path: Path) -> None:
    """``--calibrate yours``: the confidence is calibrated on the lab's own reviewed abstracts
    alone. A lab that counts none of the numbers the rules keep as a claim (its annotations have
    no claims): calibrated on its abstracts, the confidence is 0 whatever the claim, and every
    claim of its unseen abstracts has it, as right as it is (``claims eval``'s calibration error
    0); calibrated on every set, the packaged claims, which are right, give it steps up to 1. Too
    few reviewed claims to calibrate on is an error. (On real abstracts, where the confidence's
    features cannot tell a lab's abstracts from the packaged ones as they can these invented ones:
    DEVELOPERS, "claims train --calibrate yours".)"""
    def lab_gold(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**g, "claims": []} for g in gold(rows, False)]

    packaged_rows, lab_rows = invented(30, seed=11), invented(40, seed=12)
    reviewed, unseen = lab_rows[:30], lab_rows[30:]
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        answered(packaged_rows + lab_rows, settings)
        packaged = packaged_stand_in(packaged_rows, settings)
        gold_path = write_set(tmp_path / "lab", "reviewed", reviewed, lab_gold(reviewed))
        unseen_gold = write_set(tmp_path / "lab", "unseen", unseen, lab_gold(unseen))
        common = dict(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", report=False,
                      say=lambda _m: None)
        confidences, errors, steps = {}, {}, {}
        for how in ("all", "yours"):
            trained = train_decisions(gold_path, out=tmp_path / f"{how}.json", examples=packaged, calibrate=how,
                                      base_url=server.base_url, cache_dir=tmp_path / "cache", say=lambda _m: None)
            learned = json.loads(trained.path.read_text())
            assert learned["about"]["calibrated_on"] == how
            steps[how] = learned["calibration"]["values"]
            extract_claims([{"id": r["id"], "text": r["text"]} for r in unseen], out=tmp_path / how,
                           decisions=trained.path, **common)
            confidences[how] = [row["confidence"] for row in read_jsonl(tmp_path / how / "claims.jsonl")]
            found = evaluate(unseen_gold, tmp_path / how).confidence
            assert found is not None and found.claims == 20 and found.right == 0.0
            errors[how] = found.ece
        with pytest.raises(InputError, match="at least 50"):
            train_decisions(write_set(tmp_path / "few", "few", reviewed[:10], lab_gold(reviewed[:10])),
                            out=tmp_path / "few.json", examples=packaged, calibrate="yours", base_url=server.base_url,
                            cache_dir=tmp_path / "cache", say=lambda _m: None)
    assert steps["yours"] == [0.0, 0.0] and confidences["yours"] == [0.0] * 20 and errors["yours"] == 0.0
    assert max(steps["all"]) == 1.0


def test_claims_train_from_the_command_line_says_what_it_learned(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rows = invented(16, seed=3)
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        answered(rows, settings)
        examples = examples_of(rows[:8], gold(rows[:8], False), settings, "p")
        write_examples(examples, tmp_path / "examples.json.gz")
        gold_path = write_set(tmp_path, "reviewed", rows[8:], gold(rows[8:], True))
        import paper_claims.training.train as train

        # the packaged examples' stand-in
        monkeypatch.setattr(train, "read_examples", lambda path=None: read_examples(tmp_path / "examples.json.gz"))
        code = main(["train", "--gold", str(gold_path), "--out", str(tmp_path / "d.json"), "--base-url",
                     server.base_url, "--cache-dir", str(tmp_path / "cache")])
    assert code == 0
    assert "decisions learned from 8 of your reviewed documents (16 claims)" in capsys.readouterr().err
    DecisionModels.from_dict(json.loads((tmp_path / "d.json").read_text()))
    assert main(["train", "--gold", str(tmp_path / "missing.jsonl")]) == 2


def test_rank_auc_orders_as_scikit_learn_does_ties_included() -> None:
    """The AUC ``make eval`` prints for the confidence is the area under the ROC curve: equal to
    scikit-learn's on scores with many ties, 0.5 for a constant score, nan for one class."""
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from paper_claims.training.folds import rank_auc

    rng = random.Random(3)
    truth = np.array([rng.random() < 0.4 for _ in range(300)])
    score = np.array([round(rng.random() * 0.5 + 0.3 * t, 1) for t in truth])  # coarse: ties everywhere
    assert rank_auc(score, truth) == pytest.approx(roc_auc_score(truth, score))
    assert rank_auc(np.full(10, 0.4), truth[:10]) == pytest.approx(0.5)
    assert rank_auc(-score, truth) == pytest.approx(1 - roc_auc_score(truth, score))
    assert np.isnan(rank_auc(score[:5], np.ones(5, dtype=bool)))


def test_field_orders_scores_each_decision_by_its_own_confidence() -> None:
    """``make eval``'s per-decision AUC: a kind decided surely and rightly, another unsurely and
    wrongly, order perfectly; a dataset chosen surely but wrongly orders backwards; claims the
    annotations do not have are left out."""
    import numpy as np

    from paper_claims.decisions.features import ATTRIBUTES
    from paper_claims.training.examples import ClaimExample, Options
    from paper_claims.training.folds import field_orders
    from paper_claims.training.learn import Scored, decided

    def claim(gold_kind: Any, dataset_gold: Any, dataset_right: bool) -> ClaimExample:
        choices = {a: Options([{}], [False], ["X"], None) for a in ATTRIBUTES}
        choices["dataset"] = Options([{}], [dataset_right], ["ImageNet"], dataset_gold)
        return ClaimExample({}, {}, "speedup", "speedup", gold_kind, True, choices)

    def scored(one: ClaimExample, kinds: dict[str, float], dataset_p: float) -> Scored:
        attributes = {a: np.array([0.1]) for a in ATTRIBUTES}
        attributes["dataset"] = np.array([dataset_p])
        return Scored(one, kinds, attributes)

    thresholds = {a: 0.5 for a in ATTRIBUTES}
    claims = [scored(claim("speedup", "ImageNet", False), {"speedup": 0.9, "accuracy": 0.1}, 0.95),
              scored(claim("accuracy", "ImageNet", True), {"speedup": 0.6, "accuracy": 0.4}, 0.55),
              scored(claim(None, None, False), {"speedup": 0.2, "accuracy": 0.8}, 0.99)]
    orders = field_orders(claims, [decided(one, thresholds) for one in claims])
    assert orders["auc:kind"] == 1.0
    assert orders["auc:dataset"] == 0.0
    assert np.isnan(orders["auc:model"])  # every model decision right (none chosen, none annotated)


def test_field_errors_say_which_fields_keep_claims_from_being_right() -> None:
    """``make eval``'s breakdown of "right in every field": each claim counts once in every field
    it has wrong and in "only" when that field is its one error; a number the annotations lack is
    "not a claim" whatever its fields; a claim with no wrong field is exactly one ``decided``
    calls right."""
    import numpy as np

    from paper_claims.decisions.features import ATTRIBUTES
    from paper_claims.training.examples import ClaimExample, Options
    from paper_claims.training.folds import FIELDS, field_errors
    from paper_claims.training.learn import Scored, decided

    def one(gold_kind: Any, unit_right: bool, dataset_gold: Any, dataset_right: bool, kinds: dict[str, float]) -> Scored:
        choices = {a: Options([{}], [False], ["X"], None) for a in ATTRIBUTES}
        choices["dataset"] = Options([{}], [dataset_right], ["ImageNet"], dataset_gold)
        attributes = {a: np.array([0.1]) for a in ATTRIBUTES}
        attributes["dataset"] = np.array([0.9])
        return Scored(ClaimExample({}, {}, "speedup", "speedup", gold_kind, unit_right, choices), kinds, attributes)

    fast, good = {"speedup": 0.9, "accuracy": 0.1}, {"speedup": 0.1, "accuracy": 0.9}
    claims = [one("speedup", True, "ImageNet", True, fast),  # right in every field
              one("speedup", True, "COCO", False, fast),  # the dataset alone
              one("speedup", False, "ImageNet", True, good),  # kind and unit
              one(None, False, None, False, fast)]  # not a claim
    outcomes = [decided(c, {a: 0.5 for a in ATTRIBUTES}) for c in claims]
    errors = field_errors(claims, outcomes)
    assert errors["wrong:dataset"] == errors["only:dataset"] == 0.25
    assert errors["wrong:kind"] == errors["wrong:unit"] == 0.25 and errors["only:kind"] == errors["only:unit"] == 0.0
    assert errors["wrong:not a claim"] == errors["only:not a claim"] == 0.25
    assert errors["wrong:model"] == errors["wrong:baseline"] == 0.0
    assert set(errors) == {f"{k}:{f}" for k in ("wrong", "only") for f in FIELDS}
    assert [o[3] for o in outcomes] == [True, False, False, False]


def test_review_order_breaks_ties_of_the_confidence_by_the_weakest_decision() -> None:
    """``make eval``'s "review AUC" ranks claims as ``claims review`` orders them: by the confidence
    (rounded as the outputs write it), then by the least sure decision; the confidence comes first."""
    import numpy as np

    from paper_claims.decisions.decide import Choice
    from paper_claims.training.folds import output_rows, rank_auc, review_order

    def outcome(kind_p: float, dataset_p: float, right: bool) -> Any:
        return ("speedup", kind_p, {"dataset": Choice("ImageNet", dataset_p), "model": Choice(None, 0.9)}, right)

    outcomes = [outcome(0.9, 0.2, False), outcome(0.9, 0.8, True), outcome(0.7, 0.6, True), outcome(0.95, 0.9, False)]
    confidence = np.array([0.38831, 0.38829, 0.38830, 0.1])  # the same 0.3883 as written, but the last
    order = review_order(output_rows(outcomes, confidence))
    assert order.tolist() == [1.0, 3.0, 2.0, 0.0]  # 0.1 first; then the weakest decision: 0.2, 0.6, 0.8
    right = np.array([o[3] for o in outcomes])
    assert rank_auc(confidence.round(4), right) < rank_auc(order, right)


def test_each_part_of_the_unread_set_is_learned_without_itself() -> None:
    from paper_claims.training.examples import DocumentExamples
    from paper_claims.training.folds import learned_without, parts_of

    unread_ids = [f"u{i}" for i in range(7)]
    examples = [DocumentExamples(f"a{i}", "a") for i in range(3)] + [DocumentExamples(i, "u") for i in unread_ids]
    part_of = parts_of(unread_ids, 3)
    assert sorted(part_of) == sorted(unread_ids) and sorted(set(part_of.values())) == [0, 1, 2]
    for part in range(3):
        learned = learned_without(examples, "u", part_of, part)
        assert {e.doc_id for e in learned if e.group == "a"} == {"a0", "a1", "a2"}
        rest = {e.doc_id for e in learned if e.group == "u/rest"}
        assert rest == {i for i in unread_ids if part_of[i] != part}  # the other parts, as one more set
        assert not any(e.group == "u" for e in learned)


def test_the_unread_set_in_parts_scores_every_document_once(tmp_path: Path) -> None:
    from paper_claims.training.folds import AnnotatedSet, unread_in_parts

    learned_rows, unread_rows = invented(12, seed=3), invented(12, seed=4)
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        answered(learned_rows + unread_rows, settings)
        annotations = gold(unread_rows, True)
        examples = examples_of(learned_rows, gold(learned_rows, False), settings, "p") + \
            examples_of(unread_rows, annotations, settings, "u")
        gold_path = write_set(tmp_path / "u", "u", unread_rows, annotations)
        with AnswerCache(settings.resolved_cache_dir) as cache:
            fold = unread_in_parts(AnnotatedSet("u", tmp_path / "u" / "u_inputs.jsonl", gold_path), task_for(settings),
                                   cached_answers(cache, []), examples, parts=3, out=tmp_path / "out",
                                   say=lambda _m: None)
    assert fold.name == "u in 3 parts"
    assert fold.report.n_gold_docs == fold.report.n_output_docs == 12 and fold.report.n_gold_claims == 24
    assert fold.report.claims.f1 > 0.9


def test_the_hardware_list_is_labelled_one_device_one_name_as_the_scorer_counts_it() -> None:
    from paper_claims.evaluation.matching import list_matches
    from paper_claims.training.examples import list_labels

    values = ["ZX-100 boards", "4 ZX-100 boards", "QV-220", "Fooset"]
    rows = [{"n": float(i)} for i in range(len(values))]
    annotated = ["4 ZX-100 boards", "QV-220"]
    labelled = list_labels("hardware", rows, values, annotated)
    kept = [values[int(row["n"])] for row, _ in labelled]
    listed = [values[int(row["n"])] for row, truth in labelled if truth]
    # both boards are the one annotated device: one of them is right, the other left out (neither
    # right nor wrong)
    assert len(kept) == 3 and kept[1:] == ["QV-220", "Fooset"] and kept[0] in values[:2]
    assert listed == [kept[0], "QV-220"]
    assert list_matches(annotated, listed, hardware=True) == len(listed)  # every name labelled right scores
    # a name written again is one name in the list: both spellings are right
    assert [t for _, t in list_labels("hardware", rows[:2], ["QV-220", "qv-220"], ["QV-220"])] == [True, True]
    # the other lists keep any name that matches an annotated one
    assert [t for _, t in list_labels("datasets", rows, values, annotated)] == [True, True, True, False]


def test_learner_figures_score_the_held_set_by_what_the_other_sets_teach(tmp_path: Path) -> None:
    from paper_claims.training.folds import learner_figures

    learned_rows, held_rows = invented(16, seed=5), invented(12, seed=6)
    with FakeServer() as server:
        settings = Settings(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        answered(learned_rows + held_rows, settings)
        held = examples_of(held_rows, gold(held_rows, True), settings, "u")
        same = examples_of(learned_rows, gold(learned_rows, True), settings, "p") + held
        other = examples_of(learned_rows, gold(learned_rows, False), settings, "p") + held
    taught = learner_figures(same, "u")
    assert taught["dataset"] == taught["list:datasets"] == 1.0
    # the held set's convention (an accuracy is on the device) learned from sets that keep it, or not
    assert taught["hardware"] == 1.0 > learner_figures(other, "u")["hardware"]
