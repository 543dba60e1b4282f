"""What ``claims train --calibrate yours`` does for a lab, from cached model answers only (never
starts a model): dev4, the set no rule was written on, stands in for a lab's abstracts. In turn,
two of its three parts are the lab's reviewed abstracts and the other sets the packaged examples;
``claims train`` learns the decisions with the confidence calibrated on every set (all) and on the
lab's abstracts alone (yours), and the third part is scored as the learner counts. It prints, pooled
over the three parts, the confidence's expected calibration error, its mean, the share of claims
right in every field, and how well it orders them (AUC).

Usage: .venv/bin/python eval/calibrate_yours.py [--parts 3] (about four minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from paper_claims.decisions.model import DecisionModels
from paper_claims.evaluation.reliability import calibration_error
from paper_claims.run.cache import AnswerCache
from paper_claims.settings import Settings
from paper_claims.tasks import task_for
from paper_claims.training import CALIBRATE
from paper_claims.training.folds import ANNOTATED_SETS, UNREAD, calibrated_confidence, examples_of, parts_of, rank_auc
from paper_claims.training.learn import decided, score
from paper_claims.training.train import cached_answers, train_decisions


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, default=3)
    args = parser.parse_args(argv)
    settings = Settings.from_env(progress=False)
    sets = list(ANNOTATED_SETS.values())
    lab = ANNOTATED_SETS[UNREAD]
    with AnswerCache(settings.resolved_cache_dir) as cache:
        examples = examples_of(sets, task_for(settings), cached_answers(cache, []))
    packaged = [e for e in examples if e.group != UNREAD]
    ids = [e.doc_id for e in examples if e.group == UNREAD]
    part_of = parts_of(ids, args.parts)
    annotations = lab.annotations()
    found: dict[str, tuple[list[float], list[bool]]] = {how: ([], []) for how in CALIBRATE}
    with tempfile.TemporaryDirectory() as tmp:
        for part in range(args.parts):
            reviewed = Path(tmp) / f"reviewed{part}.jsonl"
            reviewed.write_text("".join(json.dumps(annotations[i]) + "\n" for i in ids if part_of[i] != part))
            held = [e for e in examples if e.group == UNREAD and part_of[e.doc_id] == part]
            for how in CALIBRATE:
                print(f"part {part + 1} of {args.parts}: calibrated on {how}", file=sys.stderr)
                trained = train_decisions(reviewed, out=Path(tmp) / f"{how}{part}.json", inputs=lab.inputs,
                                          examples=packaged, calibrate=how, say=lambda _m: None)
                decisions = json.loads(trained.path.read_text())
                models = DecisionModels.from_dict(decisions)
                thresholds = decisions["about"]["thresholds"]
                scored, _ = score(decisions, held)
                found[how][0].extend(calibrated_confidence(models, decisions, scored).tolist())
                found[how][1].extend(decided(one, thresholds)[3] for one in scored)
    print("| calibrated on | claims | ECE | mean confidence | right in every field | AUC |")
    print("|---|---|---|---|---|---|")
    for how, (confidence, right) in found.items():
        c, r = np.asarray(confidence), np.asarray(right, dtype=bool)
        print(f"| {how} | {len(c)} | {calibration_error(c, r):.3f} | {c.mean():.3f} | {r.mean():.3f} "
              f"| {rank_auc(c, r):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
