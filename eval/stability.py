"""How far the leave-one-set-out figures move when one training abstract is left out: the learned
decisions' noise floor, from cached model answers only (never starts a model).

For each perturbation one annotated abstract is left out of every training pool it is in (the
held-out sets are scored whole); the decisions are learned as ``make eval`` learns them and each
held-out set is scored as the learner counts (``training.folds.learner_figures``: near, not equal to,
``make eval``'s figures). It prints, per figure and set, the figure with every abstract and the
lowest and highest with one left out. A change whose fold figures move less than this has not been
told apart from which abstracts happen to be annotated.

Usage: .venv/bin/python eval/stability.py [--drops 6] [--sets dev,dev2,dev3,dev4]
(each perturbation learns the decisions once per set: about a minute on 2 cores)
"""

from __future__ import annotations

import argparse
import sys

from paper_claims.run.cache import AnswerCache
from paper_claims.settings import Settings
from paper_claims.tasks import task_for
from paper_claims.training.folds import ANNOTATED_SETS, examples_of, learner_figures
from paper_claims.training.train import cached_answers


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="dev,dev2,dev3,dev4")
    parser.add_argument("--drops", type=int, default=6, help="perturbations: abstracts left out one at a time")
    args = parser.parse_args(argv)
    names = args.sets.split(",")
    settings = Settings.from_env(progress=False)
    misses: list[str] = []
    with AnswerCache(settings.resolved_cache_dir) as cache:
        examples = examples_of([ANNOTATED_SETS[n] for n in names], task_for(settings), cached_answers(cache, misses))
    if misses:
        print(f"CACHE MISSES: {len(set(misses))} documents (`make answers` first)", file=sys.stderr)
        return 2
    # abstracts spread over the sets, the same ones on every run
    drops = [(round(i * len(examples) / args.drops) + 5) % len(examples) for i in range(args.drops)]
    whole = {held: learner_figures(examples, held) for held in names}
    moved: dict[str, list[dict[str, float]]] = {held: [] for held in names}
    for n, index in enumerate(drops, 1):
        print(f"{n}/{len(drops)}: {examples[index].doc_id} left out", file=sys.stderr)
        for held in names:
            moved[held].append(learner_figures(examples, held, index))
    print("| figure | " + " | ".join(f"{held} [lowest, highest]" for held in names) + " | widest |")
    print("|---" * (len(names) + 2) + "|")
    for figure in whole[names[0]]:  # kind, each attribute, each list
        cells, widest = [], 0.0
        for held in names:
            values = [m[figure] for m in moved[held]]
            cells.append(f"{whole[held][figure]:.3f} [{min(values):.3f}, {max(values):.3f}]")
            widest = max(widest, max(values) - min(values), *(abs(v - whole[held][figure]) for v in values))
        print(f"| {figure} | " + " | ".join(cells) + f" | {widest:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
