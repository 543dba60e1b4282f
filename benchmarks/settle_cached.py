"""CPU time per document of the parse side from cached answers: ``run.settle.settle`` (parse,
marks, prompt, answer schema, cache key, cache read, grounding) over the sample corpus, dev and
dev2, the best of several passes. Every answer must be in the answer cache (a miss is a request
settle hands back without grounding, so it is cheaper: the count is printed). Compare two
checkouts by running it in each.

    .venv/bin/python benchmarks/settle_cached.py [--passes 7] [--schema FILE.py:Class]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.run.cache import AnswerCache  # noqa: E402
from paper_claims.run.settle import settle  # noqa: E402
from paper_claims.run.runner import Outcome, Work  # noqa: E402
from paper_claims.settings import Settings  # noqa: E402
from paper_claims.sources.inputs import iter_inputs  # noqa: E402
from paper_claims.tasks import task_for  # noqa: E402

INPUTS = [ROOT / "examples" / "abstracts", ROOT / "eval/gold/dev_inputs.jsonl", ROOT / "eval/gold/dev2/dev2_inputs.jsonl"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--schema", help="a claim schema of your own (default the built-in one)")
    args = ap.parse_args(argv)
    docs = list(iter_inputs([str(p) for p in INPUTS]))
    settings = Settings(progress=False, schema=args.schema)
    task = task_for(settings)
    passes = []
    with AnswerCache(settings.resolved_cache_dir) as cache:
        for _ in range(args.passes):
            started, misses = time.process_time(), 0
            for index, doc in enumerate(docs):
                misses += not isinstance(settle(Work(index, doc, ""), task, cache), Outcome)
            passes.append(time.process_time() - started)
    best = min(passes)
    print(f"{len(docs)} documents ({misses} not in the answer cache): {1000 * best / len(docs):.2f} ms CPU per document "
          f"(best of {args.passes} passes: {' '.join(f'{p:.3f}' for p in passes)} s)")


if __name__ == "__main__":
    main()
