"""CPU time per document of the parse side from cached answers: ``run.settle.settle`` (parse,
marks, prompt, answer schema, cache key, cache read, grounding) over the sample corpus, dev and
dev2, each document settled once as a run settles it, after a warm-up on other texts (dev3 and
dev4 where ``../shared`` has them, else the first documents); the best of several such runs,
each in a fresh process (a cache keyed by a document's text would otherwise answer a second
pass). Every answer must be in the answer cache (a miss is a request settle hands back without
grounding, so it is cheaper: the count is printed). ``--no-decisions`` settles with the rules'
votes alone. Compare two checkouts by running it in each.

    .venv/bin/python benchmarks/settle_cached.py [--runs 3] [--schema FILE.py:Class] [--no-decisions]
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


WARM = [ROOT.parent / "shared/gold/dev3/dev3_inputs.jsonl", ROOT.parent / "shared/gold/dev4/dev4_inputs.jsonl"]


def once(schema: str | None, decisions: bool) -> tuple[float, int, int]:
    """One run in this process: (CPU seconds over the documents, documents, misses)."""
    settings = Settings(progress=False, schema=schema)
    task = task_for(settings)
    if not decisions and hasattr(task, "decisions"):
        task.decisions = None
    docs = list(iter_inputs([str(p) for p in INPUTS]))
    warm = list(iter_inputs([str(p) for p in WARM if p.is_file()])) or docs[:20]
    with AnswerCache(settings.resolved_cache_dir) as cache:
        for index, doc in enumerate(warm):
            settle(Work(index, doc, ""), task, cache)
        started, misses = time.process_time(), 0
        for index, doc in enumerate(docs):
            misses += not isinstance(settle(Work(index, doc, ""), task, cache), Outcome)
        return time.process_time() - started, len(docs), misses


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes, the best counts (default 3)")
    ap.add_argument("--schema", help="a claim schema of your own (default the built-in one)")
    ap.add_argument("--no-decisions", action="store_true", help="the rules' votes alone, no learned decisions")
    ap.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # one run, in this process
    args = ap.parse_args(argv)
    if args.once:
        seconds, n, misses = once(args.schema, not args.no_decisions)
        print(f"{seconds} {n} {misses}")
        return
    import subprocess

    results = []
    for _ in range(args.runs):
        command = [sys.executable, __file__, "--once", *(["--schema", args.schema] if args.schema else []),
                   *(["--no-decisions"] if args.no_decisions else [])]
        seconds, n, misses = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
        results.append(float(seconds))
    best = min(results)
    print(f"{n} documents ({misses} not in the answer cache), each settled once: {1000 * best / int(n):.2f} ms CPU per "
          f"document (best of {args.runs} runs: {' '.join(f'{r:.3f}' for r in results)} s)")


if __name__ == "__main__":
    main()
