"""Score ``paper_claims.parse.quantities.find_quantities`` from the outside.

1. MeasEval (SemEval-2021 Task 8) quantity-span detection, per split (train, eval):
   gold = the ``Quantity`` spans of each document's TSV (identical spans across annotation
   sets counted once), pred = ``find_quantities`` spans; a prediction and a gold span match
   when their characters overlap, one-to-one (maximum bipartite matching). Precision, recall
   and F1 are printed next to a plain number-regex baseline (``\\d+(?:\\.\\d+)?``).
2. Dev gold claims (``eval/gold/dev.jsonl``): how many claim numbers have a mention that
   overlaps the claim's evidence with the same value, and how many mentions there are.

Run: ``.venv/bin/python benchmarks/measeval_parser.py [--measeval DIR] [--show-errors N]``
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples" / "measeval"))

from measeval_tsv import split_rows  # noqa: E402
from paper_claims.parse.quantities import find_quantities  # noqa: E402

Span = tuple[int, int]
_BASELINE_RE = re.compile(r"\d+(?:\.\d+)?")


def parser_spans(text: str) -> list[Span]:
    """Spans of the quantity parser."""
    return [(m.start, m.end) for m in find_quantities(text)]


def baseline_spans(text: str) -> list[Span]:
    """Spans of the plain number regex."""
    return [m.span() for m in _BASELINE_RE.finditer(text)]


def load_split(directory: Path) -> list[tuple[str, str, list[Span]]]:
    """(docId, text, gold Quantity spans) for every document of a split that has a TSV."""
    return [(doc_id, text, sorted({(int(row["startOffset"]), int(row["endOffset"])) for row in rows
                                   if row["annotType"] == "Quantity"}))
            for doc_id, text, rows in split_rows(directory)]


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def match_count(gold: list[Span], pred: list[Span]) -> int:
    """Size of a maximum one-to-one matching between overlapping gold and predicted spans."""
    adj = [[j for j, p in enumerate(pred) if _overlaps(g, p)] for g in gold]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in adj[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    return sum(augment(i, set()) for i in range(len(gold)))


def score(
    docs: Iterable[tuple[str, str, list[Span]]], predict: Callable[[str], list[Span]]
) -> tuple[float, float, float, int, int, int]:
    """Micro precision, recall, F1 (and tp, n_pred, n_gold) of ``predict`` over ``docs``."""
    tp = n_pred = n_gold = 0
    for _, text, gold in docs:
        pred = predict(text)
        tp += match_count(gold, pred)
        n_pred += len(pred)
        n_gold += len(gold)
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f, tp, n_pred, n_gold


def show_errors(docs: list[tuple[str, str, list[Span]]], limit: int) -> None:
    """Print unmatched gold (FN) and predicted (FP) spans with a little context."""
    shown = 0
    for doc_id, text, gold in docs:
        pred = parser_spans(text)
        for kind, spans, other in (("FN", gold, pred), ("FP", pred, gold)):
            for s, e in spans:
                if not any(_overlaps((s, e), o) for o in other):
                    ctx = text[max(0, s - 40) : s] + "[[" + text[s:e] + "]]" + text[e : e + 30]
                    print(f"{kind} {doc_id}: {ctx!r}")
                    shown += 1
                    if shown >= limit:
                        return


def measeval_report(root: Path, splits: tuple[str, ...] = ("train", "eval")) -> None:
    """Print P/R/F1 per split for the parser and the regex baseline."""
    print("MeasEval quantity spans (overlap, one-to-one)")
    print(f"{'split':<6} {'system':<9} {'P':>6} {'R':>6} {'F1':>6} {'tp':>5} {'pred':>5} {'gold':>5}")
    for split in splits:
        docs = load_split(root / split)
        for name, fn in (("parser", parser_spans), ("regex", baseline_spans)):
            p, r, f, tp, n_pred, n_gold = score(docs, fn)
            print(f"{split:<6} {name:<9} {p:6.3f} {r:6.3f} {f:6.3f} {tp:5d} {n_pred:5d} {n_gold:5d}")


def dev_gold_report(gold_path: Path, inputs_path: Path) -> None:
    """Claim-number recall of the parser on the dev gold, and its total mention count."""
    texts = {}
    with inputs_path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            texts[row["id"]] = row["text"]
    n_claims = hit = n_mentions = exact_span = 0
    misses = []
    with gold_path.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            text = texts[doc["id"]]
            mentions = find_quantities(text)
            n_mentions += len(mentions)
            for claim in doc["claims"]:
                n_claims += 1
                start = text.find(claim["evidence"])
                end = start + len(claim["evidence"])
                value = claim["value"]
                ok = [
                    m
                    for m in mentions
                    if m.start < end and start < m.end and abs(m.value - value) <= 1e-6 * max(1.0, abs(value))
                ]
                if ok:
                    hit += 1
                    exact_span += any(m.text == claim["evidence"] for m in ok)
                else:
                    misses.append(f"{doc['id']}: {claim['evidence']!r} = {value}")
    print()
    print("Dev gold claims (eval/gold/dev.jsonl)")
    print(f"claim numbers found (overlapping evidence, same value): {hit}/{n_claims} = {hit / max(1, n_claims):.3f}")
    print(f"  of which the mention text equals the evidence exactly: {exact_span}")
    print(f"mentions in total over {len(texts)} abstracts: {n_mentions} ({n_mentions - hit} not a gold claim number)")
    for miss in misses:
        print("  MISS", miss)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measeval", type=Path, default=Path("/work/shared/measeval"))
    ap.add_argument("--gold", type=Path, default=ROOT / "eval/gold/dev.jsonl")
    ap.add_argument("--inputs", type=Path, default=ROOT / "eval/gold/dev_inputs.jsonl")
    ap.add_argument("--show-errors", type=int, default=0, metavar="N",
                    help="print N unmatched spans of the train split (development aid)")
    args = ap.parse_args(argv)
    if args.measeval.is_dir():
        measeval_report(args.measeval)
        if args.show_errors:
            show_errors(load_split(args.measeval / "train"), args.show_errors)
    else:
        print(f"MeasEval not found at {args.measeval}; skipping")
    if args.gold.exists() and args.inputs.exists():
        dev_gold_report(args.gold, args.inputs)


if __name__ == "__main__":
    main()
