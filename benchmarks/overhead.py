"""Client overhead of the local runner against a fake endpoint with fixed latency.

Starts ``tests/fakeserver.py`` in a subprocess (so its CPU is not charged to the client)
at 200 ms per request, runs 1,000 synthetic abstracts through ``extract_claims`` at
concurrency 16 with a fresh cache directory, and prints the wall time, the ideal time
(requests x latency / concurrency) and their ratio (target <= 1.25).

    .venv/bin/python benchmarks/overhead.py [--docs 1000] [--latency 0.2] [--concurrency 16] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeserver import fetch_stats, synthetic_abstracts  # noqa: E402

TARGET = 1.25


@contextlib.contextmanager
def fake_server(*args: str) -> Iterator[str]:
    """A fake OpenAI-compatible server in a subprocess; yields its base URL."""
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakeserver.py"), *args],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"fake server did not start: {line!r}")
        yield line.split()[1]
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--profile", help="write a cProfile of the extraction to this file")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = parser.parse_args()

    from paper_claims.api import extract_claims
    from paper_claims.model.request import make_client  # noqa: F401  (loads the request layer before timing)
    from paper_claims.run.settle import Settler  # noqa: F401
    from paper_claims.settings import Settings
    from paper_claims.schemas import Document

    documents = [Document(id=r["id"], text=r["text"], source="synthetic") for r in synthetic_abstracts(args.docs, seed=42)]
    with tempfile.TemporaryDirectory(prefix="claims-overhead-") as tmp, \
            fake_server("--latency", str(args.latency)) as base_url:
        settings = Settings(base_url=base_url, api_key="sk-bench", cache_dir=Path(tmp) / "cache",
                            concurrency=args.concurrency, progress=False)
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        started, cpu_started = time.perf_counter(), time.process_time()
        table = extract_claims(documents, out=Path(tmp) / "out", settings=settings, say=lambda _m: None)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        requests = fetch_stats(base_url)["total"]
    ideal = requests * args.latency / args.concurrency
    ratio = wall / ideal if ideal else float("inf")
    figures = {
        "documents": len(documents), "errors": len(table.errors), "requests": requests,
        "concurrency": args.concurrency, "latency_s": args.latency, "wall_s": round(wall, 2),
        "client_cpu_s": round(cpu, 2), "cpu_ms_per_request": round(1000 * cpu / max(requests, 1), 1),
        "ideal_s": round(ideal, 2), "ratio": round(ratio, 3), "target": TARGET,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{len(documents)} documents, {requests} requests, concurrency {args.concurrency}, latency {args.latency * 1000:.0f} ms")
        print(f"wall   {wall:8.2f} s   (client CPU {cpu:.2f} s = {figures['cpu_ms_per_request']} ms per request)")
        print(f"ideal  {ideal:8.2f} s   (requests x latency / concurrency)")
        print(f"ratio  {ratio:8.3f}     target <= {TARGET}: {'PASS' if ratio <= TARGET else 'MISS'}")
    return 0 if ratio <= TARGET and not table.errors else 1


if __name__ == "__main__":
    sys.exit(main())
