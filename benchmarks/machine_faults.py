"""Faults of the machine around a run, measured as a user meets them (issue 28's acceptance).

Every run is ``claims extract docs.jsonl --out OUT`` against the fake server (``tests/fakeserver.py``,
in this process), 400 synthetic abstracts at 20 ms per request, ``--concurrency 8``.

* **Disk full**, ``--runs`` times per case. With a real small file system (a 300 KB tmpfs;
  needs root and ``mount``, else these cases are skipped and said so): ``outputs`` (OUT on
  it: the journal and the tables fill it, whichever write comes first), ``tables`` (OUT holds
  the complete journal of an earlier run, so only the tables are written) and ``cache``
  (``CLAIMS_CACHE_DIR`` on it). With a write that fails ``ENOSPC`` part way
  (``tests/faults.py``; always): ``journal``, ``tables``, ``cache``. For each run: the exit
  code, whether stderr is one line without a traceback and names the writer, the seconds
  from the first failed write to the exit (tmpfs: from the moment it had less than 64 KiB
  free, which is no later), temporary files left; then space is freed (the tmpfs remounted
  at 64 MB; the fault removed) and a rerun must exit 0 with every document exactly once and
  no document the journal kept asked again.
* **Two runs into one folder**, ``--runs`` times, started 0.5 s apart: one exits 2 with one
  line naming the other's pid (the seconds from its start to its exit), the other exits 0
  with whole outputs; and ``--runs`` times with ``--wait`` on the second: both exit 0, the
  second resumes everything (0 LLM calls).
* **Paths checked before the run**: ``--out`` naming a file, a cache directory under /proc, a
  cache directory that is a file: exit 2, one line, no request sent.

    .venv/bin/python benchmarks/machine_faults.py [--runs 20] [--docs 400]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.run.folders import LOCK_NAME  # noqa: E402
from paper_claims.run.journal import JOURNAL_NAME, Journal  # noqa: E402
from tests.fakeserver import FakeServer, doc_key_for_text, synthetic_abstracts  # noqa: E402

API_KEY = "sk-bench-machine-faults"
NAMED = {"journal": re.escape(JOURNAL_NAME), "tables": r"(claims\.csv|claims\.jsonl|documents\.jsonl)",
         "cache": r"the answer cache \S+", "outputs": r"\S+"}
LIMITS = {"journal": 60_000, "tables": 60_000, "cache": 40}  # bytes, bytes, cache writes


def command(args: list[str], fault: Optional[tuple[str, int]] = None) -> list[str]:
    if fault is None:
        return [sys.executable, "-m", "paper_claims.cli", *args]
    return [sys.executable, "-m", "tests.faults", fault[0], str(fault[1]), *args]


def extract_args(source: Path, out: Path, *extra: str) -> list[str]:
    return ["extract", str(source), "--out", str(out), "--no-report", "--quiet", "--concurrency", "8", *extra]


def journaled(out: Path) -> set[str]:
    """The documents the output folder's journal holds a complete line for."""
    return set(Journal(out).index(ok_only=False))


def leftovers(out: Path) -> list[str]:
    if not out.is_dir():
        return []
    return [p.name for p in out.iterdir() if p.name.endswith(".tmp") or p.name.startswith((LOCK_NAME, ".claims-probe"))]


def one_line(stderr: str) -> Optional[str]:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[0] if len(lines) == 1 and "Traceback" not in stderr else None


def documents_once(out: Path, ids: list[str]) -> bool:
    try:
        rows = [json.loads(line)["doc_id"] for line in (out / "documents.jsonl").read_text().splitlines() if line]
    except (OSError, ValueError, KeyError):
        return False
    return rows == ids


class Tmpfs:
    """A small tmpfs at ``path`` while in use; ``grow`` frees space."""

    def __init__(self, path: Path, size: str) -> None:
        self.path, self.size = path, size

    def __enter__(self) -> "Tmpfs":
        self.path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size}", "tmpfs", str(self.path)], check=True,
                       capture_output=True)
        return self

    def grow(self) -> None:
        subprocess.run(["mount", "-o", "remount,size=64m", str(self.path)], check=True)

    def free(self) -> int:
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)


def can_mount(work: Path) -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    try:
        with Tmpfs(work / "probe-mount", "64k"):
            return True
    except subprocess.CalledProcessError:
        return False


def run_until_exit(cmd: list[str], env: dict[str, str], fs: Optional[Tmpfs] = None,
                   timeout: float = 120) -> tuple[int, str, float, Optional[float]]:
    """Run; return (exit code, stderr, seconds it ran, seconds from the moment the tmpfs had
    less than 64 KiB free to the exit: when that happened after the last look, every 5 ms,
    the time since that look, which is no shorter)."""
    full: list[float] = []
    looked = [time.time()]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set() and not full:
            if fs is not None and fs.free() < 64 * 1024:
                full.append(time.time())
            looked[0] = time.time()
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    started = time.time()
    process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    watcher.start()
    try:
        stderr = process.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        process.kill()
        stderr = process.communicate()[1] + f"\n(killed after {timeout} s)"
    ended = time.time()
    done.set()
    watcher.join()
    if not full and fs is not None and fs.free() < 64 * 1024:  # filled after the last look
        full.append(looked[0])
    return process.returncode, stderr, ended - started, (ended - full[0]) if full else None


def disk_full_case(case: str, real: bool, runs: int, docs: int, work: Path, server: FakeServer) -> dict[str, Any]:
    records = synthetic_abstracts(docs, seed=28)
    ids = [r["id"] for r in records]
    keys = {r["id"]: doc_key_for_text(r["text"]) for r in records}
    source = work / "docs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    complete_journal: Optional[Path] = None
    if real and case == "tables":  # a finished run's journal: the rerun writes only the tables
        done = work / "complete"
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(work / "complete-cache"))
        subprocess.run(command(extract_args(source, done, "--no-cache")), cwd=ROOT, env=env, check=True,
                       capture_output=True)
        complete_journal = done / JOURNAL_NAME
    figures: dict[str, Any] = {"exit 2": 0, "one line naming the writer": 0, "temporary files left": 0,
                               "seconds to exit": [], "rerun exit 0, each document once": 0,
                               "journaled documents asked again": 0, "named": {}}
    for attempt in range(runs):
        base = work / f"{case}-{attempt}"
        base.mkdir()
        log = base / "first-failure"
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(base / "cache"), FAULT_LOG=str(log))
        fs: Optional[Tmpfs] = None
        out = base / "out"
        if real:
            size = "300k" if complete_journal is None else f"{complete_journal.stat().st_size // 1024 + 100}k"
            fs = Tmpfs(base / "small", size).__enter__()
            if case == "cache":
                env["CLAIMS_CACHE_DIR"] = str(fs.path / "cache")
            else:
                out = fs.path / "out"
            if complete_journal is not None:
                out.mkdir()
                shutil.copy(complete_journal, out / JOURNAL_NAME)
        try:
            fault = None if real else (case, LIMITS[case])
            code, stderr, _, after_full = run_until_exit(command(extract_args(source, out), fault), env, fs)
            ended = time.time()
            line = one_line(stderr)
            figures["exit 2"] += code == 2
            named = re.match(rf"claims: error: disk full (writing|opening) \S*{NAMED[case]}; run stopped", line or "")
            figures["one line naming the writer"] += bool(named)
            if line:
                writer = re.sub(r"^claims: error: disk full (writing|opening) (.*?);.*$", r"\2", line).split("/")[-1]
                figures["named"][writer] = figures["named"].get(writer, 0) + 1
            if not real and log.exists():
                figures["seconds to exit"].append(ended - float(log.read_text()))
            elif after_full is not None:
                figures["seconds to exit"].append(after_full)
            figures["temporary files left"] += len(leftovers(out))
            finished = journaled(out)
            before = server.snapshot()["per_doc"]
            if fs is not None:
                fs.grow()
            rerun = subprocess.run(command(extract_args(source, out)), cwd=ROOT, env=env, capture_output=True, text=True,
                                   timeout=300)
            after = server.snapshot()["per_doc"]
            figures["rerun exit 0, each document once"] += rerun.returncode == 0 and documents_once(out, ids) \
                and not leftovers(out)
            figures["journaled documents asked again"] += sum(after.get(keys[d], 0) > before.get(keys[d], 0)
                                                              for d in finished)
            if code != 2 or not named:
                print(f"  {case} run {attempt}: exit {code}: {stderr.strip()[-400:]}", file=sys.stderr)
        finally:
            if fs is not None:
                fs.__exit__()
        shutil.rmtree(base, ignore_errors=True)
    return figures


def two_runs(runs: int, wait: bool, work: Path, server: FakeServer) -> dict[str, Any]:
    records = synthetic_abstracts(80, seed=30)
    ids = [r["id"] for r in records]
    source = work / "two.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    if wait:
        figures: dict[str, Any] = {"both exit 0, second resumed all": 0}
    else:
        figures = {"one exits 2 naming the other": 0, "seconds from its start to exit 2": [],
                   "the first started won": 0}
    figures.update({"no traceback": 0, "outputs whole": 0})
    for attempt in range(runs):
        out = work / f"two-{wait}-{attempt}"
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url,
                   CLAIMS_CACHE_DIR=str(work / f"two-cache-{wait}-{attempt}"))
        args = extract_args(source, out, *(["--wait"] if wait else []))
        first = subprocess.Popen(command(args), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        second_started = time.time()
        second = subprocess.Popen(command(args), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        ends: dict[str, float] = {}

        def reap(name: str, process: "subprocess.Popen[str]", into: dict[str, Any]) -> None:
            into[name] = process.communicate(timeout=300)[1]
            ends[name] = time.time()

        errs: dict[str, Any] = {}
        threads = [threading.Thread(target=reap, args=(n, p, errs)) for n, p in (("first", first), ("second", second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        codes = {"first": first.returncode, "second": second.returncode}
        pids = {"first": first.pid, "second": second.pid}
        figures["no traceback"] += not any("Traceback" in e for e in errs.values())
        figures["outputs whole"] += documents_once(out, ids) and not leftovers(out)
        if wait:
            ok = codes == {"first": 0, "second": 0} and "0 LLM calls" in errs["second"] \
                and f"{len(ids)} resumed" in errs["second"]
            figures["both exit 0, second resumed all"] += ok
        else:
            loser = [n for n, c in codes.items() if c == 2]
            if len(loser) == 1:
                other = "first" if loser[0] == "second" else "second"
                line = one_line(errs[loser[0]]) or ""
                if f"(pid {pids[other]}, started" in line and codes[other] == 0:
                    figures["one exits 2 naming the other"] += 1
                    start = second_started if loser[0] == "second" else second_started - 0.5
                    figures["seconds from its start to exit 2"].append(ends[loser[0]] - start)
                    figures["the first started won"] += loser[0] == "second"
            else:
                print(f"  two runs {attempt}: exits {codes}: {errs}", file=sys.stderr)
        shutil.rmtree(out, ignore_errors=True)
    return figures


def checked_before(work: Path, server: FakeServer) -> dict[str, Any]:
    source = work / "few.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in synthetic_abstracts(5, seed=31)))
    a_file = work / "results.csv"
    a_file.write_text("x\n")
    cases = {"--out names a file": (a_file, work / "cache-ok"), "cache under /proc": (work / "o1", Path("/proc/x")),
             "cache is a file": (work / "o2", a_file)}
    figures = {}
    for name, (out, cache) in cases.items():
        server.reset()
        env = dict(os.environ, OPENAI_API_KEY=API_KEY, OPENAI_BASE_URL=server.base_url, CLAIMS_CACHE_DIR=str(cache))
        done = subprocess.run(command(extract_args(source, out)), cwd=ROOT, env=env, capture_output=True, text=True)
        figures[name] = {"exit": done.returncode, "line": one_line(done.stderr), "requests": server.total_requests}
    return figures


def summary(figures: dict[str, Any], runs: int) -> str:
    parts = []
    for key, value in figures.items():
        if isinstance(value, list):
            if value:
                parts.append(f"{key}: median {statistics.median(value):.2f}, max {max(value):.2f} ({len(value)} measured)")
            else:
                parts.append(f"{key}: none measured")
        elif isinstance(value, dict):
            parts.append(f"{key}: {dict(sorted(value.items()))}")
        else:
            parts.append(f"{key}: {value}/{runs}" if "left" not in key and "again" not in key else f"{key}: {value}")
    return "; ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--docs", type=int, default=400)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="machine-faults-"))
    try:
        with FakeServer(latency=0.02) as server:
            real = can_mount(work)
            print(f"{args.docs} abstracts, fake server 20 ms/request, --concurrency 8, {args.runs} runs per case")
            for case in ("outputs", "tables", "cache") if real else ():
                figures = disk_full_case(case, True, args.runs, args.docs, work, server)
                print(f"disk full, 300 KB tmpfs, {case}: {summary(figures, args.runs)}", flush=True)
            if not real:
                print("disk full on a real tmpfs: skipped (mounting is not permitted here)")
            for case in ("journal", "tables", "cache"):
                figures = disk_full_case(case, False, args.runs, args.docs, work, server)
                print(f"disk full, ENOSPC injected, {case}: {summary(figures, args.runs)}", flush=True)
            print(f"two runs, 0.5 s apart: {summary(two_runs(args.runs, False, work, server), args.runs)}", flush=True)
            print(f"two runs, the second with --wait: {summary(two_runs(args.runs, True, work, server), args.runs)}",
                  flush=True)
            for name, result in checked_before(work, server).items():
                print(f"checked before the run, {name}: exit {result['exit']}, {result['requests']} requests, "
                      f"line: {result['line']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
