"""How long a fully cached rerun of the CLI takes, and that it makes no model calls.

In a temporary directory: writes 2,000 synthetic abstracts to docs.jsonl, runs
``claims extract docs.jsonl --out out --no-report --quiet`` once against the fake server
(``tests/fakeserver.py`` in a subprocess, no latency, concurrency 32), then times the SAME
command again in a fresh subprocess with the same ``CLAIMS_CACHE_DIR`` and prints its wall
time and the number of requests the server got during it (must be 0; target <= 1 s).
It also times the command with a new output directory (no journal: the cache alone; target
<= 3 s).

    .venv/bin/python benchmarks/cached_rerun.py [--docs 2000] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.overhead import fake_server  # noqa: E402
from tests.fakeserver import fetch_stats, synthetic_abstracts  # noqa: E402

TARGET_SAME_FOLDER = 1.0  # seconds: journal and cache
TARGET_NEW_FOLDER = 3.0  # seconds: the cache alone


def claims_command() -> list[str]:
    script = Path(sys.executable).parent / "claims"
    return [str(script)] if script.exists() else [sys.executable, "-m", "paper_claims.cli"]


def timed_run(command: list[str], cwd: Path, env: dict[str, str], base_url: str) -> tuple[float, int, subprocess.CompletedProcess[str]]:
    before = fetch_stats(base_url)["total"]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    return wall, fetch_stats(base_url)["total"] - before, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--profile", help="cProfile the cached rerun into this file")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="claims-rerun-") as tmp_name, fake_server("--latency", "0") as base_url:
        tmp = Path(tmp_name)
        (tmp / "docs.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in synthetic_abstracts(args.docs, seed=7)), encoding="utf-8")
        env = dict(os.environ, CLAIMS_CACHE_DIR=str(tmp / "cache"), OPENAI_BASE_URL=base_url,
                   OPENAI_API_KEY="sk-bench", PYTHONPATH=str(ROOT))
        command = claims_command() + ["extract", "docs.jsonl", "--out", "out", "--no-report", "--quiet",
                                      "--concurrency", str(args.concurrency)]
        first_wall, first_requests, first = timed_run(command, tmp, env, base_url)
        if first.returncode != 0:
            print(first.stderr, file=sys.stderr)
            return 1
        print(f"first run:    {first_wall:6.2f} s, {first_requests} requests")

        rerun_command = command
        if args.profile:
            rerun_command = [sys.executable, "-m", "cProfile", "-o", args.profile, "-m", "paper_claims.cli"] + command[len(claims_command()):]
        wall, requests, rerun = timed_run(rerun_command, tmp, env, base_url)
        print(f"cached rerun: {wall:6.2f} s, {requests} requests  (same command, journal + cache)")
        print("  " + (rerun.stderr.strip().splitlines() or ["?"])[-1])

        cache_only = [c if c != "out" else "out-fresh" for c in command]
        wall2, requests2, rerun2 = timed_run(cache_only, tmp, env, base_url)
        print(f"cache only:   {wall2:6.2f} s, {requests2} requests  (new --out, no journal)")
        print("  " + (rerun2.stderr.strip().splitlines() or ["?"])[-1])

        start = time.perf_counter()
        subprocess.run(claims_command() + ["--help"], cwd=tmp, env=env, capture_output=True)
        print(f"bare startup: {time.perf_counter() - start:6.2f} s  (claims --help)")
    ok = (rerun.returncode == 0 and rerun2.returncode == 0 and requests == 0 and requests2 == 0
          and wall <= TARGET_SAME_FOLDER and wall2 <= TARGET_NEW_FOLDER)
    print(f"target: 0 requests, same folder <= {TARGET_SAME_FOLDER:.0f} s, new folder <= {TARGET_NEW_FOLDER:.0f} s: "
          f"{'PASS' if ok else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
