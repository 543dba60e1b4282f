"""Time per abstract of the sample corpus with the embedded model: one checkout against another.

Runs ``claims extract examples/abstracts/*.txt --no-cache`` as a user runs it (the whole
command, the embedded model, no answer cache) with each checkout's own ``.venv``, back to back
on this machine, and prints seconds per abstract, CPU seconds (the model server's included),
requests, tokens and the ratios after/before (issue 25: at most 1.1). Machines differ by 2x, so only the ratio on one machine means much.

    .venv/bin/python benchmarks/corpus_speed.py --before /path/to/old/checkout [--after .]
"""

from __future__ import annotations

import argparse
import glob
import re
import resource
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.1
SUMMARY = re.compile(r"(\d+) documents .*?(\d+) LLM calls.*?(\d+)\+(\d+) tokens")


def run_corpus(checkout: Path, files: list[str]) -> dict[str, float]:
    """Wall time, documents, requests and tokens of one whole run of ``checkout`` on ``files``."""
    with tempfile.TemporaryDirectory() as out:
        command = [str(checkout / ".venv" / "bin" / "claims"), "extract", *files,
                   "--out", out, "--no-cache", "--no-report"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=checkout, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: claims extract exited {done.returncode}: {done.stderr.strip()[-300:]}")
    found = SUMMARY.search(done.stderr + done.stdout)
    if found is None:
        raise SystemExit(f"{checkout}: no summary line in the output")
    docs, calls, prompt, answer = (int(g) for g in found.groups())
    return {"wall": wall, "cpu": cpu, "docs": docs, "calls": calls, "prompt": prompt, "answer": answer}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare against")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout measured (default: this one)")
    args = parser.parse_args()
    files = sorted(glob.glob(str(ROOT / "examples" / "abstracts" / "*.txt")))
    results = {}
    for name, checkout in (("before", args.before), ("after", args.after)):
        r = results[name] = run_corpus(checkout.resolve(), files)
        print(f"{name:6} {checkout}: {r['docs']:.0f} abstracts, {r['wall']:.1f} s, "
              f"{r['wall'] / r['docs']:.2f} s per abstract, CPU {r['cpu']:.0f} s, {r['calls']:.0f} requests, "
              f"{r['prompt']:.0f}+{r['answer']:.0f} tokens", flush=True)
    ratio = (results["after"]["wall"] / results["after"]["docs"]) / (
        results["before"]["wall"] / results["before"]["docs"])
    cpu = results["after"]["cpu"] / results["before"]["cpu"]
    print(f"ratio after/before: time per abstract {ratio:.3f}, CPU (the model server's included) {cpu:.3f} "
          f"(target <= {TARGET}; the CPU ratio is the steadier one when other work shares the machine)")


if __name__ == "__main__":
    main()
