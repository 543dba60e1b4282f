"""Leave-one-set-out figures of the learned decisions over the annotated sets, from cached model
answers only (never starts a model): for each set, decisions learned on the others; the
in-sample figures beside them; and dev4, the set no rule was written on, in parts, each learned
with the other parts (as the packaged decisions learn from it). Usage: .venv/bin/python
eval/folds.py [--sets dev,dev2,dev3,dev4] [--parts 3]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from paper_claims.run.cache import AnswerCache
from paper_claims.settings import Settings
from paper_claims.tasks import task_for
from paper_claims.training.folds import ANNOTATED_SETS as SETS
from paper_claims.training.folds import UNREAD, examples_of, leave_one_set_out, unread_in_parts
from paper_claims.training.train import cached_answers
COLUMNS = ["claim F1", "kind", "dataset", "hardware", "model", "baseline", "metric", "datasets", "hw list",
           "models", "grounded", "ECE", "AUC", "review AUC", "right", "marked", "right marked", "right unmarked",
           "kept", "prec"]


def figures(fold: Any) -> list[float]:
    r = fold.report
    a = r.attributes
    c = fold.calibration
    return [r.claims.f1, r.kind_accuracy, a["dataset"].f1, a["hardware"].f1, a["model"].f1, a["baseline"].f1,
            a["metric"].f1, r.doc_lists["datasets"].f1, r.doc_lists["hardware"].f1, r.doc_lists["models"].f1,
            r.grounded_share, c.get("ece", float("nan")), c.get("auc", float("nan")), c.get("review_auc", float("nan")),
            c.get("right", float("nan")), c.get("marked", float("nan")), c.get("right_marked", float("nan")),
            c.get("right_unmarked", float("nan")),
            c.get("kept", float("nan")), c.get("precision", float("nan"))]


def markdown(title: str, columns: list[str], rows: list[tuple[str, list[float]]]) -> str:
    lines = [title, "| set | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    return "\n".join(lines + [f"| {name} | " + " | ".join(f"{v:.3f}" for v in row) + " |" for name, row in rows])


def table(title: str, folds: list[Any]) -> str:
    matrix = np.asarray([figures(f) for f in folds])
    return markdown(title, COLUMNS, [*((f.name, row) for f, row in zip(folds, matrix.tolist())),
                                     ("mean", matrix.mean(axis=0).tolist()), ("lowest", matrix.min(axis=0).tolist())])


def orders(title: str, folds: list[Any]) -> str:
    names = ["kind", "dataset", "hardware", "model", "baseline"]
    return markdown(title, names, [(f.name, [f.calibration.get(f"auc:{n}", float("nan")) for n in names]) for f in folds])


def errors(title: str, folds: list[Any]) -> str:
    from paper_claims.training.folds import FIELDS

    columns = [f"{kind} {name}" for kind in ("wrong", "only") for name in FIELDS]
    return markdown(title, columns, [(f.name, [f.calibration.get(c.replace(" ", ":", 1), float("nan")) for c in columns])
                                     for f in folds])


def reliability(title: str, folds: list[Any]) -> str:
    """Each held-out set's reliability table as ``claims eval`` counts it (its output's confidences)."""
    lines = [title, "| set | confidence | claims | mean confidence | right in every field |", "|---|---|---|---|---|"]
    for fold in folds:
        found = fold.report.confidence
        for band in found.bins if found is not None else []:
            lines.append(f"| {fold.name} | {band.low:.1f}-{band.high:.1f} | {band.claims} | {band.confidence:.3f} "
                         f"| {band.right:.3f} |")
    return "\n".join(lines)


def unread_calibration(fold: Any) -> list[float]:
    found = fold.report.confidence
    return [found.ece, found.right] if found is not None else [float("nan")] * 2


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="dev,dev2,dev3,dev4")
    parser.add_argument("--out", type=Path, help="keep the held-out outputs here")
    parser.add_argument("--log", type=Path, help="append a line per held-out set to this RESULTS.md")
    parser.add_argument("--note", default="", help="note for the results lines")
    parser.add_argument("--parts", type=int, default=3, help=f"{UNREAD} in this many parts (0: not)")
    args = parser.parse_args(argv)
    settings = Settings.from_env(progress=False)
    task = task_for(settings)
    misses: list[str] = []
    names = args.sets.split(",")
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    with AnswerCache(settings.resolved_cache_dir) as cache:
        answer = cached_answers(cache, misses)
        examples = examples_of([SETS[n] for n in names], task, answer)
        folds, in_sample = leave_one_set_out([SETS[n] for n in names], task, answer, args.out, say=say, examples=examples)
        parts = [unread_in_parts(SETS[UNREAD], task, answer, examples, args.parts, args.out, say=say)] \
            if args.parts > 1 and UNREAD in names else []
    if misses:
        print(f"CACHE MISSES (grounded as unanswered): {len(set(misses))} documents", file=sys.stderr)
    if args.log:
        from paper_claims.evaluation import append_results
        from paper_claims.model.prompt_files import prompt_version

        for fold in folds:
            others = ",".join(n for n in names if n != fold.name)
            append_results(fold.report, args.log, model=settings.model_name, prompt_version=prompt_version(),
                           note=f"{fold.name} held out: decisions learned on {others} {args.note}".strip())
        for fold in parts:
            append_results(fold.report, args.log, model=settings.model_name, prompt_version=prompt_version(),
                           note=f"{fold.name}: each part learned on {','.join(n for n in names if n != UNREAD)} "
                                f"and the other parts {args.note}".strip())
    print(table("Held out (learned on the other sets)", folds))
    print()
    print(table("In sample (learned on every set)", in_sample))
    print()
    print(orders("Held out: how well each decision's own confidence orders its right decisions above its wrong ones (AUC)",
                 folds))
    print()
    print(errors("Held out: the share of claims wrong in each field (wrong), and wrong in that field alone (only)", folds))
    print()
    print(reliability("Held out: the confidence's reliability table (claims eval's count)", folds))
    if parts:
        print()
        title = (f"{UNREAD}, the set no rule was written on, in {args.parts} parts: each part learned on the other sets "
                 "and the other parts (ECE and right in every field as claims eval counts them)")
        rows = [(f.name, [*figures(f)[:11], *unread_calibration(f)]) for f in parts]
        print(markdown(title, [*COLUMNS[:11], "ECE", "right"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
