"""Peak memory of the whole ``claims extract`` command as the input grows (streaming check).

For each size (default 5,000 and 40,000 documents) writes that many corpus-paragraph
abstracts (windows of consecutive sentences of the sample corpus; once every window is
used, repeats made distinct by a closing phrase without numbers) to docs.jsonl, runs
``claims extract docs.jsonl --out out --quiet --concurrency 16`` (report included) against
``tests/fakeserver.py`` (no latency) with a fresh cache, and prints the command's peak RSS,
its wall time and the sizes of the report and claims.jsonl. The larger run must use less
than 1.5x the memory of the smaller (memory that does not grow with the input).

    .venv/bin/python benchmarks/memory_scale.py [--sizes 5000 40000 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.overhead import fake_server  # noqa: E402
from benchmarks.overhead_cli import corpus_windows  # noqa: E402

TARGET = 1.5


_TAGS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


def _tag(i: int) -> str:
    """A distinct phrase without digits for every i (so no new number enters the text)."""
    words = []
    while True:
        i, r = divmod(i, len(_TAGS))
        words.append(_TAGS[r])
        if i == 0:
            return " ".join(words)


def distinct_texts(n: int) -> Iterator[str]:
    """n distinct abstract texts: corpus windows, each repeat made distinct by a closing phrase."""
    windows = corpus_windows(min(n, 3000))
    for i in range(n):
        text = windows[i % len(windows)]["text"]
        if i >= len(windows):
            text += f" Filed under {_tag(i // len(windows))}."
        yield text


def write_documents(path: Path, n: int) -> None:
    """n distinct documents (``distinct_texts``) as JSONL."""
    with path.open("w", encoding="utf-8") as handle:
        for i, text in enumerate(distinct_texts(n)):
            handle.write(json.dumps({"id": f"p{i}", "text": text}) + "\n")


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants (from /proc), in KB."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, StopIteration, ValueError):
            continue
    return total


def peak_rss_mb(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float, str]:
    """Peak RSS (MB) of the command's own process (wait4), peak RSS of its whole process tree
    (sampled every 50 ms: a worker process counts too) and wall time."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    tree_peak = 0
    sampler_done = threading.Event()

    def sample() -> None:
        nonlocal tree_peak
        while not sampler_done.wait(0.05):
            tree_peak = max(tree_peak, _tree_rss_kb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stderr = process.stderr.read() if process.stderr else ""
    _, status, usage = os.wait4(process.pid, 0)
    sampler_done.set()
    sampler.join()
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(stderr[-2000:])
    return usage.ru_maxrss / 1024, tree_peak / 1024, wall, stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 40000])
    args = parser.parse_args()
    rows = []
    with fake_server("--latency", "0") as base_url:
        for n in args.sizes:
            with tempfile.TemporaryDirectory(prefix="claims-memory-") as tmp_name:
                tmp = Path(tmp_name)
                write_documents(tmp / "docs.jsonl", n)
                env = dict(os.environ, CLAIMS_CACHE_DIR=str(tmp / "cache"), OPENAI_BASE_URL=base_url,
                           OPENAI_API_KEY="sk-bench", PYTHONPATH=str(ROOT))
                command = [sys.executable, "-m", "paper_claims", "extract", "docs.jsonl", "--out", "out",
                           "--quiet", "--concurrency", "16"]
                rss, tree, wall, _ = peak_rss_mb(command, tmp, env)
                report = (tmp / "out" / "report.html").stat().st_size / 1e6
                claims = (tmp / "out" / "claims.jsonl").stat().st_size / 1e6
                rows.append((n, tree, wall, report, claims))
                print(f"{n:>7} documents: peak RSS {rss:7.1f} MB (with its worker process {tree:7.1f} MB), "
                      f"{wall:6.1f} s wall, "
                      f"report.html {report:5.2f} MB, claims.jsonl {claims:6.2f} MB", flush=True)
    ratio = rows[-1][1] / rows[0][1]
    print(f"peak RSS of the process tree, {rows[-1][0]:,} / {rows[0][0]:,} documents: {ratio:.2f}x   target < {TARGET}: "
          f"{'PASS' if ratio < TARGET else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
