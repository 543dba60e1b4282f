"""``claims extract`` on an arXiv-metadata-snapshot-shaped file, as a user runs it, against
``tests/fakeserver.py`` (no latency, a fresh cache each run):

1. writes ``arxiv-metadata-oai-snapshot.json`` files (one JSON object a line, the snapshot's
   fields; abstracts hard-wrapped with the snapshot's indentation) of the sizes asked for, from
   real corpus abstracts (windows of consecutive corpus sentences; once every window is used,
   repeats made distinct by a closing phrase without numbers, as ``memory_scale.py`` does);
2. runs ``claims extract FILE --out out --quiet --concurrency 16`` (report and claims.db
   included) on each and prints the peak RSS of its process tree (parse worker included) and
   the ratio largest / smallest: flat memory means < 1.5 (``memory_scale.py``'s target);
3. checks claims.db of the largest run: as many documents and claims as documents.jsonl and
   claims.jsonl, no duplicate, full-text queries answering (and agreeing with a scan);
4. kills a run of the largest file with SIGKILL once ``--kill-at`` documents are journaled,
   reruns it and checks the resumed database: every document once, every claim once;
5. with ``--db-cost``, the wall time of the smallest size with and without claims.db (best of
   two runs each; the ratio).

    .venv/bin/python benchmarks/arxiv_scale.py [--sizes 10000 100000] [--kill-at 30000] [--db-cost]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.memory_scale import TARGET, distinct_texts, peak_rss_mb  # noqa: E402
from benchmarks.overhead import fake_server  # noqa: E402

CATEGORIES = ["cs.DC", "cs.LG", "cs.CL cs.LG", "cs.AR cs.DC", "cs.CV", "cs.DC cs.PF", "stat.ML cs.LG", "cs.RO"]


def _wrapped(text: str) -> str:
    """An abstract as the snapshot stores it: two leading spaces, lines wrapped near 80 columns."""
    return "  " + "\n".join(textwrap.wrap(text, width=78)) + "\n"


def write_snapshot(path: Path, n: int) -> None:
    """n records in the arXiv snapshot's shape, abstracts from the sample corpus."""
    with path.open("w", encoding="utf-8") as handle:
        for i, text in enumerate(distinct_texts(n)):
            year, month = 2015 + (i // 12) % 10, 1 + i % 12
            record = {
                "id": f"{year % 100:02d}{month:02d}.{i:05d}", "submitter": "A. Author", "authors": "A. Author, B. Author",
                "title": f"Paper {i}: " + " ".join(text.split()[:8]), "comments": None, "journal-ref": None,
                "doi": None if i % 3 else f"10.5555/arxiv.{i}", "report-no": None,
                "categories": CATEGORIES[i % len(CATEGORIES)], "license": None, "abstract": _wrapped(text),
                "versions": [{"version": "v1", "created": f"Mon, 1 Jan {year} 10:00:00 GMT"}],
                "update_date": f"{year}-{month:02d}-01", "authors_parsed": [["Author", "A.", ""], ["Author", "B.", ""]],
            }
            handle.write(json.dumps(record) + "\n")


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def _complete_lines(path: Path) -> int:
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            try:
                count += isinstance(json.loads(line), dict)
            except ValueError:
                pass
    return count


def check_database(out: Path) -> dict[str, float]:
    """claims.db against the JSONL outputs; full-text queries timed and checked against a scan."""
    db = sqlite3.connect(out / "claims.db")
    documents, claims = _count_lines(out / "documents.jsonl"), _count_lines(out / "claims.jsonl")
    rows = db.execute("select count(*), count(distinct doc_id) from documents").fetchone()
    claim_rows = db.execute("select count(*) from claims").fetchone()[0]
    duplicates = db.execute("select count(*) from (select doc_id, start, [end] from claims "
                            "group by doc_id, start, [end] having count(*) > 1)").fetchone()[0]
    assert rows == (documents, documents), (rows, documents)
    assert claim_rows == claims and duplicates == 0, (claim_rows, claims, duplicates)
    figures: dict[str, float] = {"documents": documents, "claims": claims}
    for label, sql, scan in (
        ("evidence 'times'", "select count(*) from claims_fts where claims_fts match 'times'",
         "select count(*) from claims where ' ' || lower(evidence) || ' ' glob '*[^a-z]times[^a-z]*'"),
        ("abstracts 'GPUs'", "select count(*) from documents_fts where documents_fts match 'GPUs'",
         "select count(*) from documents where ' ' || lower(text) || ' ' glob '*[^a-z]gpus[^a-z]*'"),
    ):
        started = time.perf_counter()
        found = db.execute(sql).fetchone()[0]
        fts_ms = 1000 * (time.perf_counter() - started)
        started = time.perf_counter()
        scanned = db.execute(scan).fetchone()[0]
        scan_ms = 1000 * (time.perf_counter() - started)
        assert found == scanned and found > 0, (label, found, scanned)
        figures[label] = found
        print(f"    FTS {label}: {found} rows in {fts_ms:.1f} ms (a full scan: {scan_ms:.0f} ms, same rows)")
    started = time.perf_counter()
    speedups = db.execute("select count(*) from claims where kind = 'scale'").fetchone()[0]
    print(f"    indexed query kind = 'scale': {speedups} rows in {1000 * (time.perf_counter() - started):.1f} ms")
    db.close()
    return figures


def kill_and_resume(snapshot: Path, tmp: Path, env: dict[str, str], kill_at: int) -> None:
    out = tmp / "killed"
    command = [sys.executable, "-m", "paper_claims", "extract", str(snapshot), "--out", str(out), "--quiet",
               "--concurrency", "16", "--no-report"]
    journal = out / ".claims-journal.jsonl"
    run_env = dict(env, CLAIMS_CACHE_DIR=str(tmp / "cache-killed"))
    process = subprocess.Popen(command, cwd=tmp, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while process.poll() is None and (not journal.exists() or journal.stat().st_size < kill_at * 900):
        time.sleep(0.2)
    while process.poll() is None and _complete_lines(journal) < kill_at:
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    finished = _complete_lines(journal)
    temporary = [p.name for p in out.glob(".*.tmp")]
    print(f"  killed (SIGKILL) after {finished:,} documents were journaled; left behind: {', '.join(temporary)}")
    started = time.perf_counter()
    rerun = subprocess.run(command, cwd=tmp, env=run_env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if rerun.returncode not in (0, 1):
        raise RuntimeError(rerun.stderr[-2000:])
    summary = rerun.stderr.strip().splitlines()[-1]
    print(f"  rerun: {wall:.1f} s wall; {summary}")
    figures = check_database(out)
    left = [p.name for p in out.glob(".*.tmp")]
    print(f"  resumed claims.db: {int(figures['documents']):,} documents, {int(figures['claims']):,} claims, "
          f"no duplicate; temporary files left: {len(left)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--kill-at", type=int, default=30000, help="journaled documents before the kill (0: no kill)")
    parser.add_argument("--db-cost", action="store_true", help="also time the smallest size without claims.db")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="claims-arxiv-") as tmp_name, fake_server("--latency", "0") as base_url:
        tmp = Path(tmp_name)
        env = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench", PYTHONPATH=str(ROOT))
        snapshots = {}
        for n in args.sizes:
            snapshots[n] = tmp / f"snapshot-{n}" / "arxiv-metadata-oai-snapshot.json"
            snapshots[n].parent.mkdir()
            write_snapshot(snapshots[n], n)
            out = tmp / f"out-{n}"
            command = [sys.executable, "-m", "paper_claims", "extract", str(snapshots[n]), "--out", str(out),
                       "--quiet", "--concurrency", "16"]
            rss, tree, wall, _ = peak_rss_mb(command, tmp, dict(env, CLAIMS_CACHE_DIR=str(tmp / f"cache-{n}")))
            size = snapshots[n].stat().st_size / 1e6
            db = (out / "claims.db").stat().st_size / 1e6
            rows.append((n, tree, wall))
            print(f"{n:>7} records ({size:.0f} MB): peak RSS {rss:6.1f} MB (process tree {tree:6.1f} MB), {wall:6.1f} s "
                  f"wall ({1000 * wall / n:.2f} ms per record), claims.db {db:.1f} MB", flush=True)
            if n == max(args.sizes):
                check_database(out)
        ratio = rows[-1][1] / rows[0][1]
        print(f"peak RSS of the process tree, {rows[-1][0]:,} / {rows[0][0]:,} records: {ratio:.2f}x   "
              f"target < {TARGET}: {'PASS' if ratio < TARGET else 'MISS'}", flush=True)
        if args.db_cost:  # the smallest size again, with and without claims.db, twice each (the faster counts)
            n = min(args.sizes)
            walls: dict[str, list[float]] = {"with": [], "without": []}
            for attempt in range(2):
                for label, extra in (("without", ["--no-db"]), ("with", [])):
                    name = f"cost-{label}-{attempt}"
                    command = [sys.executable, "-m", "paper_claims", "extract", str(snapshots[n]), "--out",
                               str(tmp / name), "--quiet", "--concurrency", "16", *extra]
                    walls[label].append(peak_rss_mb(command, tmp, dict(env, CLAIMS_CACHE_DIR=str(tmp / name)))[2])
            with_db, without = min(walls["with"]), min(walls["without"])
            print(f"claims.db cost at {n:,} records: {with_db:.1f} s with, {without:.1f} s without (best of 2): "
                  f"{with_db / without:.2f}x", flush=True)
        if args.kill_at:
            kill_and_resume(snapshots[max(args.sizes)], tmp, env, args.kill_at)
    return 0


if __name__ == "__main__":
    sys.exit(main())
