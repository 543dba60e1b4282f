"""``make train``: the packaged decisions learned from every annotated set, and the examples they
teach. python -m paper_claims.training [--sets dev,dev2,dev3,dev4] [--out extract/decisions]

Every set's abstracts must have been extracted with the embedded model before (``make train``
does it), so each answer is in the answer cache; a missing answer stops the build."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paper_claims.run.cache import AnswerCache
from paper_claims.settings import Settings
from paper_claims.tasks import task_for
from paper_claims.training.folds import ANNOTATED_SETS, examples_of
from paper_claims.training.learn import fit_decisions
from paper_claims.training.store import EXAMPLES, write_examples
from paper_claims.training.train import cached_answers
from paper_claims.decisions.model import PACKAGED


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m paper_claims.training", description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(ANNOTATED_SETS), help="annotated sets to learn from")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "decisions",
                        help="where the decisions file and the examples go")
    args = parser.parse_args(argv)
    settings = Settings.from_env(progress=False)
    missing: list[str] = []
    with AnswerCache(settings.resolved_cache_dir) as cache:
        examples = examples_of([ANNOTATED_SETS[name] for name in args.sets.split(",")], task_for(settings),
                               cached_answers(cache, missing))
    if missing:
        print(f"error: {len(missing)} abstracts have no cached answer (run make train, which extracts them first): "
              f"{', '.join(missing[:8])}", file=sys.stderr)
        return 2
    decisions = fit_decisions(examples, about={"sets": args.sets})
    (args.out / PACKAGED).write_text(json.dumps(decisions, sort_keys=True, separators=(",", ":")) + "\n",
                                     encoding="utf-8")
    write_examples(examples, args.out / EXAMPLES)
    about = decisions["about"]
    print(f"Wrote {args.out / PACKAGED} and {args.out / EXAMPLES}: {about['documents']} abstracts, {about['claims']} "
          f"claims; thresholds {about['thresholds']}; confidence for 90% all-right claims: {about['confident']:.3f}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
