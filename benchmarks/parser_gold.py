"""Score the parser's claim candidates (after the selection rules) against gold claims.

For each annotation set (dev, dev2) separately: the candidates are
``candidate_mentions(parse_text(text), find_quantities(text))``; a gold claim is *found* when a
candidate overlaps its evidence in the text and has the same value (rounding, %/fraction
and magnitudes as in ``paper_claims.evaluation.values_match``), one candidate per claim. A found
claim is *exact* when value_high and the normalised unit agree too. Every candidate not
matched to a gold claim is an *extra* (a mark the model has to label ``none``).

Run: ``python benchmarks/parser_gold.py [--show N] [--set dev|dev2]``
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.evaluation import normalise_unit, values_match  # noqa: E402
from paper_claims.parse.document import parse_text  # noqa: E402
from paper_claims.parse.quantities import find_quantities  # noqa: E402
from paper_claims.rules.selection import candidate_mentions  # noqa: E402
from paper_claims.schemas import Mention  # noqa: E402

SETS = {
    "dev": (ROOT / "eval/gold/dev.jsonl", ROOT / "eval/gold/dev_inputs.jsonl"),
    "dev2": (ROOT / "eval/gold/dev2/dev2.jsonl", ROOT / "eval/gold/dev2/dev2_inputs.jsonl"),
}


@dataclass
class Score:
    """Counts over one set, and the misses and extras to show."""

    docs: int = 0
    gold: int = 0
    found: int = 0
    exact: int = 0
    mentions: int = 0
    candidates: int = 0
    ruled_out_gold: int = 0  # a mention of a gold claim that the selection rules dropped
    misses: list[str] = field(default_factory=list)
    inexact: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _same_value(claim: dict[str, Any], m: Mention) -> bool:
    return values_match(float(claim["value"]), claim.get("unit"), m.value, m.unit)


def _exact(claim: dict[str, Any], m: Mention) -> bool:
    high = claim.get("value_high")
    if (high is None) != (m.value_high is None):
        return False
    if high is not None and not values_match(float(high), claim.get("unit"), m.value_high, m.unit):
        return False
    return normalise_unit(claim.get("unit")) == normalise_unit(m.unit)


def _match(claim: dict[str, Any], span: Optional[tuple[int, int]], pool: list[Mention],
           used: set[int]) -> Optional[int]:
    """Index of the first unused mention overlapping the evidence with the claim's value."""
    for i, m in enumerate(pool):
        if i in used or not _same_value(claim, m):
            continue
        if span is None or (m.start < span[1] and span[0] < m.end):
            return i
    return None


def score_set(gold_path: Path, inputs_path: Path) -> Score:
    """Score the candidates of every abstract of one set."""
    texts = {r["id"]: r["text"] for r in _read_jsonl(inputs_path)}
    s = Score()
    for doc in _read_jsonl(gold_path):
        text = texts[doc["id"]]
        mentions = find_quantities(text)
        cands = candidate_mentions(parse_text(text), mentions)
        s.docs += 1
        s.mentions += len(mentions)
        s.candidates += len(cands)
        used: set[int] = set()
        for claim in doc["claims"]:
            s.gold += 1
            at = text.find(claim["evidence"])
            span = (at, at + len(claim["evidence"])) if at >= 0 else None
            i = _match(claim, span, cands, used)
            label = f"{doc['id']}: {claim['evidence']!r} = {claim['value']} {claim.get('unit')}"
            if i is None:
                if _match(claim, span, mentions, set()) is not None:
                    s.ruled_out_gold += 1
                    label += "  (ruled out by selection)"
                s.misses.append(label)
                continue
            used.add(i)
            s.found += 1
            m = cands[i]
            if _exact(claim, m):
                s.exact += 1
            else:
                s.inexact.append(f"{label}  <- {m.text!r} = {m.value}..{m.value_high} {m.unit}")
        s.extras += [f"{doc['id']}: {m.text!r} = {m.value} {m.unit}"
                     for i, m in enumerate(cands) if i not in used]
    return s


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.3f}" if b else f"{a}/0"


def report(name: str, s: Score, show: int) -> None:
    """Print the figures of one set (and up to ``show`` misses, inexact finds and extras)."""
    print(f"[{name}] {s.docs} abstracts, {s.gold} gold claims, {s.mentions} mentions, "
          f"{s.candidates} candidates after selection")
    print(f"  found (overlap + value): {_ratio(s.found, s.gold)}")
    print(f"  exact (+ value_high, unit): {_ratio(s.exact, s.gold)}")
    print(f"  extra candidates: {s.candidates - s.found} "
          f"(share of candidates {_ratio(s.candidates - s.found, s.candidates)}; "
          f"{(s.candidates - s.found) / max(1, s.docs):.2f} per abstract)")
    print(f"  gold claims lost to the selection rules: {s.ruled_out_gold}")
    for title, rows in (("MISS", s.misses), ("INEXACT", s.inexact), ("EXTRA", s.extras)):
        for row in rows[:show]:
            print(f"    {title} {row}")


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), action="append", help="default: all sets")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print up to N misses, inexact finds and extras per set")
    args = ap.parse_args(argv)
    for name in args.set or list(SETS):
        gold, inputs = SETS[name]
        if gold.is_file() and inputs.is_file():
            report(name, score_set(gold, inputs), args.show)
        else:
            print(f"[{name}] not found at {gold}; skipping")


if __name__ == "__main__":
    main()
