"""Seconds per abstract with the embedded model, with and without KV-cache prefix reuse.

Both passes run in one process against one embedded server, cache disabled, on the same
abstracts of the sample corpus (those with numbers, the ones the model sees). Without
reuse, a per-request nonce at the start of the system prompt forces the server to read
the whole prompt again. Usage: python benchmarks/prefix_reuse.py [--limit N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.model.backends import open_backend  # noqa: E402
from paper_claims.run.local import LocalRunner  # noqa: E402
from paper_claims.run.runner import run  # noqa: E402
from paper_claims.parse.quantities import find_quantities  # noqa: E402
from paper_claims.settings import Settings  # noqa: E402
from paper_claims.sources.files import load_documents  # noqa: E402
from paper_claims.tasks import task_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=12, help="abstracts per pass (default 12)")
    args = parser.parse_args()
    docs = [d for d in load_documents([ROOT / "examples/abstracts"]) if find_quantities(d.text)][: args.limit]
    settings = Settings.from_env(use_cache=False, progress=True)
    task = task_for(settings)

    def run_batch(batch: list, nonce: bool) -> object:
        runner = LocalRunner(task, backend=backend, nonce_per_document=nonce)
        return run(batch, task, runner, use_result_cache=False)

    with open_backend(settings) as backend:
        run_batch(docs[:1], False)  # warm up: the static prefix is read once
        timings = {}
        for name, nonce in (("with prefix reuse", False), ("without prefix reuse", True)):
            started = time.perf_counter()
            stats = run_batch(docs, nonce)
            timings[name] = (time.perf_counter() - started) / len(docs)
            print(f"{name:>22}: {timings[name]:6.2f} s per abstract ({len(docs)} abstracts, "
                  f"{stats.prompt_tokens} prompt + {stats.completion_tokens} completion tokens)")
    ratio = timings["without prefix reuse"] / timings["with prefix reuse"]
    print(f"ratio without/with: {ratio:.2f}x")


if __name__ == "__main__":
    main()
