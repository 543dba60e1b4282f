"""Ground documents from cached model answers only (never starts or asks a model).

Every document is read through ``paper_claims.sources`` as ``claims extract`` reads it (text
files of the sample corpus, JSONL inputs, folders), parsed and its request built exactly as a
run does; its answer comes from the answer cache, and a miss is reported, not asked. The
grounded results are written with ``TableWriter`` (claims.csv, claims.jsonl, documents.jsonl),
so two checkouts can be compared with ``diff -r``: a rule change shows as the claims and lists
it changes, a prompt change as cache misses.

Usage: .venv/bin/python eval/cached.py --out DIR NAME=PATH[,PATH...] ...
  e.g. eval/cached.py --out /tmp/after corpus=examples/abstracts dev=eval/gold/dev_inputs.jsonl
It uses only the package's public steps (the run's task: ``prepare`` and ``ground``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable

from paper_claims.outputs.table import TableWriter
from paper_claims.run.cache import AnswerCache
from paper_claims.schemas import Document, DocumentLabels, DocumentResult
from paper_claims.settings import Settings
from paper_claims.sources.inputs import iter_inputs
from paper_claims.tasks import Request, task_for


def ground_cached(documents: Iterable[Document], out: Path) -> tuple[dict[str, tuple[Request, DocumentLabels]], list[str]]:
    """Ground every document from the answer cache into ``out``: (request and labels by id of
    the documents the model would read, ids of those whose answer is not cached)."""
    settings = Settings.from_env()
    task = task_for(settings)
    answers: dict[str, tuple[Request, DocumentLabels]] = {}
    misses: list[str] = []
    writer = TableWriter(out)
    with AnswerCache(settings.resolved_cache_dir, enabled=True) as cache:
        for doc in documents:
            if doc.error:
                writer.add(DocumentResult.failed(doc, doc.error))
                continue
            request = task.prepare(doc)
            if not request.needs_model:
                writer.add(task.settled(request))
                continue
            cached = cache.get(request.key)
            if cached is None:
                misses.append(doc.id)
                labels = DocumentLabels()
            else:
                labels = request.read_answer(cached)
            answers[doc.id] = (request, labels)
            writer.add(task.ground(request, labels, 0))
    writer.close()
    return answers, misses


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", metavar="NAME=PATH[,PATH...]", help="a name for the outputs and its inputs")
    parser.add_argument("--out", type=Path, required=True, help="outputs go to OUT/NAME")
    args = parser.parse_args(argv)
    missed = 0
    for spec in args.sets:
        name, _, paths = spec.partition("=")
        if not name or not paths:
            parser.error(f"expected NAME=PATH, got {spec!r}")
        _, misses = ground_cached(iter_inputs(paths.split(",")), args.out / name)
        missed += len(misses)
        print(f"{name}: {'CACHE MISSES (grounded as unanswered): ' + ', '.join(misses) if misses else 'every answer cached'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
