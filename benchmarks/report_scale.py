"""Report time and size for a large run, against the time it takes just to read its outputs.

Builds an output folder of N documents (default 100,000) by repeating the rows of a real run
(``--from OUT``, default ``out/`` as left by ``make run``) under new ids, then times
``claims report`` as a user runs it (a whole process) and, as the ideal, a process that only
parses every line of claims.jsonl and documents.jsonl. Prints both, the ratio and the page size.
Usage: python benchmarks/report_scale.py [--from out] [--documents 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READ_ONLY = ("import json,sys\nfor name in ('documents.jsonl','claims.jsonl'):\n"
             "    for line in open(sys.argv[1]+'/'+name, encoding='utf-8'): json.loads(line)\n")


def build(source: Path, target: Path, n_docs: int) -> None:
    docs = [json.loads(line) for line in (source / "documents.jsonl").read_text().splitlines() if line.strip()]
    claims = [json.loads(line) for line in (source / "claims.jsonl").read_text().splitlines() if line.strip()]
    by_doc: dict[str, list[dict]] = {}
    for claim in claims:
        by_doc.setdefault(claim["doc_id"], []).append(claim)
    with (target / "documents.jsonl").open("w") as d_out, (target / "claims.jsonl").open("w") as c_out:
        for i in range(n_docs):
            doc = docs[i % len(docs)]
            new_id = f"{doc['doc_id']}~{i // len(docs)}"
            d_out.write(json.dumps({**doc, "doc_id": new_id}) + "\n")
            for claim in by_doc.get(doc["doc_id"], []):
                c_out.write(json.dumps({**claim, "doc_id": new_id}) + "\n")


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", default=str(ROOT / "out"), help="a finished run's output folder")
    parser.add_argument("--documents", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        build(Path(args.source), out, args.documents)
        size_in = sum((out / n).stat().st_size for n in ("documents.jsonl", "claims.jsonl"))
        ideal = timed([sys.executable, "-c", READ_ONLY, str(out)])
        report = timed([sys.executable, "-m", "paper_claims.cli", "report", str(out)])
        page = (out / "report.html").stat().st_size
    print(f"{args.documents} documents ({size_in / 1e6:.1f} MB of JSONL): report {report:.2f} s, "
          f"reading the JSONL alone {ideal:.2f} s, ratio {report / ideal:.2f}; report.html {page / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
