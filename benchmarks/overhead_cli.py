"""Whole-process overhead of ``claims extract`` on real corpus text, report included.

Builds 1,000 documents from the sample corpus (windows of three consecutive sentences of its
abstracts, so every text is real and distinct; many have no number, as in real paragraphs),
starts ``tests/fakeserver.py`` in a subprocess at 200 ms per request, and times the whole
command as a user runs it: ``claims extract docs.jsonl --out out --concurrency 16`` with a fresh
cache directory, report included. Prints the wall time, the ideal (requests x latency /
concurrency) and their ratio (target <= 1.25). The package's modules are byte-compiled first,
as a wheel install leaves them (an editable install does not, and without bytecode every
process start, the parse worker's included, compiles them again).

    .venv/bin/python benchmarks/overhead_cli.py [--docs 1000] [--latency 0.2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.overhead import fake_server  # noqa: E402
from paper_claims.sources.files import load_documents  # noqa: E402
from tests.fakeserver import fetch_stats  # noqa: E402

TARGET = 1.25


def corpus_windows(n: int) -> list[dict[str, str]]:
    """``n`` distinct documents of three consecutive corpus sentences each."""
    sentences = []
    for doc in load_documents([ROOT / "examples" / "abstracts"]):
        sentences.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", doc.text) if s.strip())
    docs, seen, start = [], set(), 0
    while len(docs) < n and start < len(sentences) * 3:
        width = 3 + (start // len(sentences))  # wider windows once every start was used
        text = " ".join(sentences[start % len(sentences):start % len(sentences) + width])
        if text not in seen:
            seen.add(text)
            docs.append({"id": f"w{len(docs)}", "text": text})
        start += 1
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--profile", help="record the command with py-spy into this file (collapsed stacks)")
    args = parser.parse_args()
    for folder in ("extract", "schemas", "prompts"):
        compileall.compile_dir(str(ROOT / folder), quiet=1)
    with tempfile.TemporaryDirectory(prefix="claims-overhead-cli-") as tmp_name, \
            fake_server("--latency", str(args.latency)) as base_url:
        tmp = Path(tmp_name)
        docs = corpus_windows(args.docs)
        (tmp / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
        env = dict(os.environ, CLAIMS_CACHE_DIR=str(tmp / "cache"), OPENAI_BASE_URL=base_url,
                   OPENAI_API_KEY="sk-bench", PYTHONPATH=str(ROOT))
        command = [sys.executable, "-m", "paper_claims.cli", "extract", "docs.jsonl", "--out", "out", "--quiet",
                   "--concurrency", str(args.concurrency)]
        if args.profile:
            command = ["py-spy", "record", "--format", "raw", "-r", "200", "-o", str(Path(args.profile).resolve()),
                       "--", *command]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        requests = fetch_stats(base_url)["total"]
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
        return 1
    ideal = requests * args.latency / args.concurrency
    print(f"{len(docs)} corpus documents, {requests} requests, concurrency {args.concurrency}, "
          f"latency {args.latency * 1000:.0f} ms, report included")
    print(f"wall   {wall:8.2f} s   (the whole claims extract process)")
    print(f"ideal  {ideal:8.2f} s   (requests x latency / concurrency)")
    print(f"ratio  {wall / ideal:8.3f}     target <= {TARGET}: {'PASS' if wall / ideal <= TARGET else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
