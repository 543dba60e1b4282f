"""Documents per second: the local runner vs the Ray runner, one fake endpoint.

The fake OpenAI-compatible server (tests/fakeserver.py) answers every request after
``--latency`` seconds (200 ms by default), so throughput is bound by requests in flight:
``--concurrency`` for the single process, ``--workers`` x ``--concurrency`` for Ray. Each
run starts with an empty answer cache. Needs the ``[ray]`` extra::

    .venv/bin/python benchmarks/ray_throughput.py [--docs 400] [--latency 0.2] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent


def _quiet(_message: str) -> None:
    pass


def _timed(label: str, n: int, run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    rate = n / seconds
    print(f"{label:<44} {n:>5} docs in {seconds:6.2f} s = {rate:7.1f} docs/s", flush=True)
    return rate


def _steady_rate(batches: list[tuple[float, int]]) -> float:
    """Documents per second between the first and the last finished batch."""
    if len(batches) < 2:
        return float("nan")
    return sum(n for _, n in batches[1:]) / (batches[-1][0] - batches[0][0])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per request at the fake server")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight per process / Ray worker")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    import ray

    from paper_claims.api import extract_claims
    from paper_claims.api import run_ray
    from paper_claims.settings import Settings
    from paper_claims.schemas import Document
    from tests.fakeserver import FakeServer, synthetic_abstracts

    docs = [Document(id=r["id"], text=r["text"], source="bench") for r in synthetic_abstracts(args.docs, seed=7)]
    tmp = Path(tempfile.mkdtemp(prefix="ray-bench-"))
    with FakeServer(latency=args.latency) as server:
        def settings(name: str) -> Settings:
            return Settings(base_url=server.base_url, api_key="sk-test", concurrency=args.concurrency,
                            cache_dir=tmp / name, progress=False)

        print(f"fake endpoint answering in {args.latency * 1000:.0f} ms; {args.concurrency} requests in flight "
              f"per process/worker; cold caches", flush=True)
        single = _timed(f"single process (concurrency {args.concurrency})", len(docs),
                        lambda: extract_claims(docs, settings=settings("single"), say=_quiet))
        started = time.perf_counter()
        ray.init(num_cpus=max(2, args.workers), include_dashboard=False, log_to_driver=False)
        print(f"(ray.init took {time.perf_counter() - started:.1f} s, not counted)", flush=True)
        batches: list[tuple[float, int]] = []
        try:
            label = f"ray, {args.workers} workers x concurrency {args.concurrency}"
            distributed = _timed(label, len(docs), lambda: run_ray(
                docs, settings("ray"), workers=args.workers, say=_quiet,
                on_batch=lambda n: batches.append((time.perf_counter(), n))))
        finally:
            ray.shutdown()
    steady = _steady_rate(batches)
    print(f"ray steady state (first to last finished batch, actor start-up excluded): {steady:7.1f} docs/s")
    print(f"ray / single = {distributed / single:.2f}x end to end, {steady / single:.2f}x steady state", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
