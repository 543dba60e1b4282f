"""The acceptance of issue 41 end to end: ``claims extract --batch`` against the stand-in
files-and-batches server (``tests/fakebatch.py``, in this process) on 2,000 made-up abstracts.

1. The same documents through ``/v1/chat/completions`` (the reference) and through ``--batch``:
   claims.jsonl, documents.jsonl and claims.csv byte-identical, one batch per piece of work.
2. kill -9 at each step (after the upload, after the batch's creation, while polling, while
   downloading, while grounding) and the same command again: it exits 0, one batch was created
   per piece of work in all, every request ran once, every document has one row, no claim twice,
   the outputs identical to the reference.
3. ``--write-batch`` (no endpoint) answered offline as ``vllm run-batch`` answers it, then
   ``--batch-results``; and the stand-in's own output file of step 1 grounded with
   ``--batch-results``: the reference's claims.

The abstracts are made up here from templates and invented names (no text of any corpus).

    .venv/bin/python benchmarks/batch_e2e.py [--docs 2000] [--batch-size 500]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import kill_when  # noqa: E402
from tests.fakebatch import FakeBatchServer, run_batch_file  # noqa: E402

OUTPUTS = ("claims.jsonl", "documents.jsonl", "claims.csv")
SYLLABLES = ["ka", "lo", "mi", "ren", "tos", "va", "qui", "zen", "dra", "pel", "nox", "sur", "fi", "gar", "hel"]
TEMPLATES = [
    "We present {system}, a {thing} for {task}. On {data} it reaches {acc}% accuracy, {gain} points above {base}, "
    "and runs {speed}x faster on {count} {device}.",
    "Training {model} on {data} takes {hours} hours on {count} {device}; inference costs {ms} ms per {item}.",
    "{system} reduces energy use by {pct}% and memory by {pct2}% compared to {base}, with a throughput of "
    "{tput} {item}s per second.",
    "We release {data}, a benchmark of {size} {item}s. The best model, {model}, solves {pct}% of them, "
    "while {base} solves {pct2}%.",
    "Our method improves {metric} from {low} to {high} on {data} and scales to {count} {device} with {eff}% "
    "efficiency.",
    "We study how {task} systems behave when {device} fail and discuss what remains open.",
    "{system} serves {size} requests per day at a cost of ${cost} per million {item}s, {speed}x cheaper than {base}.",
]
FILLS: dict[str, Callable[[random.Random], Any]] = {
    "thing": lambda r: r.choice(["compiler", "scheduler", "training system", "serving engine", "language model"]),
    "task": lambda r: r.choice(["sparse attention", "graph learning", "code generation", "speech recognition"]),
    "device": lambda r: r.choice(["A100 GPUs", "H100 GPUs", "TPU v4 chips", "CPU cores", "FPGAs"]),
    "item": lambda r: r.choice(["token", "image", "query", "question", "frame"]),
    "metric": lambda r: r.choice(["BLEU", "F1", "top-1 accuracy", "exact match"]),
    "acc": lambda r: f"{r.randint(50, 98)}.{r.randint(0, 9)}",
    "gain": lambda r: f"{r.randint(1, 9)}.{r.randint(0, 9)}",
    "speed": lambda r: f"{r.randint(1, 30)}.{r.randint(1, 9)}",
    "count": lambda r: str(r.choice([4, 8, 16, 64, 256, 1024])),
    "hours": lambda r: str(r.randint(2, 96)),
    "ms": lambda r: f"{r.randint(1, 90)}.{r.randint(0, 9)}",
    "pct": lambda r: str(r.randint(5, 90)),
    "pct2": lambda r: str(r.randint(5, 90)),
    "tput": lambda r: f"{r.randint(1, 90)},{r.randint(100, 999)}",
    "size": lambda r: f"{r.randint(1, 900)},{r.randint(100, 999)}",
    "low": lambda r: f"{r.randint(20, 40)}.{r.randint(0, 9)}",
    "high": lambda r: f"{r.randint(41, 60)}.{r.randint(0, 9)}",
    "eff": lambda r: str(r.randint(60, 99)),
    "cost": lambda r: f"{r.randint(0, 9)}.{r.randint(10, 99)}",
}


def invented(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def made_up_abstracts(n: int, seed: int = 41) -> list[dict[str, str]]:
    """``n`` made-up abstracts of two to four sentences, every tenth or so without a number."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        names = {"system": f"{invented(rng)}-{i}", "model": f"{invented(rng)}-{rng.randint(1, 70)}B",
                 "data": f"{invented(rng, 3)}Bench", "base": invented(rng)}
        sentences = []
        for template in rng.sample(TEMPLATES, rng.randint(2, 4)):
            sentences.append(template.format(**names, **{k: fill(rng) for k, fill in FILLS.items()}))
        if rng.random() < 0.1:
            sentences = [TEMPLATES[5].format(**names, **{k: fill(rng) for k, fill in FILLS.items()})]
        rows.append({"id": f"mu{i:05d}", "title": f"On {names['system']}", "text": " ".join(sentences)})
    return rows


def claims(*args: str) -> list[str]:
    return [sys.executable, "-m", "paper_claims.cli", "extract", *args, "--no-report", "--quiet"]


def run(command: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return time.perf_counter() - started, done


def differs(out: Path, reference: Path, names: tuple[str, ...] = OUTPUTS) -> list[str]:
    return [name for name in names if (out / name).read_bytes() != (reference / name).read_bytes()]


def rows_once(out: Path, ids: list[str]) -> bool:
    documents = [json.loads(line)["doc_id"] for line in (out / "documents.jsonl").open()]
    spans = [(c["doc_id"], c["start"]) for c in map(json.loads, (out / "claims.jsonl").open())]
    return documents == ids and len(spans) == len(set(spans))


def journaled(out: Path) -> int:
    journal = out / ".claims-journal.jsonl"
    return journal.read_bytes().count(b'{"key"') if journal.is_file() else 0


def killed_at(point: str, server: FakeBatchServer, command: list[str], env: dict[str, str], out: Path,
              docs: int) -> float:
    """Start the command, kill -9 it at ``point`` (grounding: once half the documents are
    journaled); the seconds it ran."""
    if point != "grounding":
        server.stall.add(point)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ready = (lambda: journaled(out) >= docs // 2) if point == "grounding" else server.arrived[point].is_set
    try:
        kill_when(process, ready, timeout=600)
    finally:
        server.stall.clear()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=500, help="requests per batch (pieces of work)")
    parser.add_argument("--keep", help="keep the work folder here")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="claims-batch-e2e-"))
    folder.mkdir(parents=True, exist_ok=True)
    rows = made_up_abstracts(args.docs)
    ids = [row["id"] for row in rows]
    source = folder / "docs.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    failures: list[str] = []

    def check(what: str, ok: bool) -> None:
        print(f"  {'ok ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    with FakeBatchServer() as server:
        base = dict(os.environ, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.base_url, CLAIMS_BATCH_POLL="0.2",
                    PYTHONPATH=str(ROOT))

        def env(name: str, endpoint: bool = True) -> dict[str, str]:
            values = dict(base, CLAIMS_CACHE_DIR=str(folder / f"cache-{name}"))
            if not endpoint:
                del values["OPENAI_BASE_URL"]
            return values

        chat_seconds, _ = run(claims(str(source), "--out", str(folder / "chat"), "--concurrency", "16"), env("chat"))
        requests = server.total_requests
        print(f"chat:  {args.docs} documents, {requests} requests through /v1/chat/completions, {chat_seconds:.1f} s")
        server.reset()
        batch = claims(str(source), "--out", str(folder / "batch"), "--batch", "--batch-size", str(args.batch_size))
        batch_seconds, done = run(batch, env("batch"))
        pieces = server.created
        print(f"batch: {pieces} batches of at most {args.batch_size} requests, {sum(server.executed.values())} requests "
              f"run, {batch_seconds:.1f} s (polling every 0.2 s)")
        print("  " + done.stderr.strip().splitlines()[-1])
        check("every document once, no claim twice", rows_once(folder / "batch", ids))
        check(f"outputs identical to the chat run ({', '.join(OUTPUTS)})", not differs(folder / "batch", folder / "chat"))
        check("every request ran once", set(server.executed.values()) == {1} and sum(server.executed.values()) == requests)

        for point in ("upload", "create", "poll", "download", "grounding"):
            out = folder / f"killed-{point}"
            server.created, server.executed = 0, Counter()
            command = claims(str(source), "--out", str(out), "--batch", "--batch-size", str(args.batch_size))
            ran = killed_at(point, server, command, env(point), out, args.docs)
            before = server.created
            rerun_seconds, done = run(command, env(point))
            print(f"kill -9 {'at ' + point:13} after {ran:5.1f} s ({before} batches created); rerun {rerun_seconds:5.1f} s: "
                  f"{done.stderr.strip().splitlines()[-1][:110]}")
            check(f"{point}: one batch per piece of work ({server.created} of {pieces})", server.created == pieces)
            check(f"{point}: every request ran once", set(server.executed.values()) == {1}
                  and sum(server.executed.values()) == requests)
            check(f"{point}: every document once, no claim twice", rows_once(out, ids))
            check(f"{point}: outputs identical to the chat run", not differs(out, folder / "chat"))

        offline = folder / "offline"
        write_seconds, _ = run(claims(str(source), "--out", str(offline), "--model", "fake-model", "--write-batch",
                                      str(folder / "requests.jsonl")), env("offline", endpoint=False))
        lines = run_batch_file(folder / "requests.jsonl", folder / "results.jsonl")
        results_seconds, _ = run(claims(str(source), "--out", str(offline), "--model", "fake-model",
                                        "--batch-results", str(folder / "results.jsonl")), env("offline", endpoint=False))
        print(f"--write-batch {write_seconds:.1f} s ({lines} requests), answered as vllm run-batch answers, "
              f"--batch-results {results_seconds:.1f} s")
        check("round trip: every document once, no claim twice", rows_once(offline, ids))
        check("round trip: outputs identical to the chat run", not differs(offline, folder / "chat"))
        outputs = sorted((folder / "batch" / ".claims-batch").glob("*.output.jsonl"))
        stand_in = folder / "stand-in-results.jsonl"
        stand_in.write_bytes(b"".join(path.read_bytes() for path in outputs))
        regrounded = folder / "regrounded"
        run(claims(str(source), "--out", str(regrounded), "--batch-results", str(stand_in)), env("regrounded"))
        check("the stand-in's results file grounded offline: outputs identical", not differs(regrounded, folder / "chat"))
    print(f"{'PASS' if not failures else 'FAIL'}: {len(failures)} checks failed; work folder {folder}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
