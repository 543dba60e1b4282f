"""Error analysis of names on the dev sets, from cached model answers only (never starts a model).

For each set, every document is parsed and its request built exactly as a run does; the
answer comes from the answer cache (a miss is reported, not asked). The answers are grounded
with today's rules and scored with ``paper_claims.evaluation``; then, per set, the
false positives and negatives of the document lists (datasets, hardware, models) and of the
claim attributes (dataset, hardware, model, baseline) are listed with a cause:

- ``not proposed``: no candidate span matches the gold name (the parser never marked it);
- ``not chosen``: a candidate matches but it was not typed so / not attached (the model's
  label or a rule; ``label=`` shows the model's own label);
- ``string``: a close candidate exists but the fuzzy match fails (a matching problem);
- ``extra``: a predicted name that matches no gold name.

Usage: .venv/bin/python eval/errors.py [dev|dev2 ...] [--brief] [--out DIR]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path
from typing import Any

from cached import ground_cached  # eval/cached.py, next to this script
from paper_claims.parse.document import parse_text
from paper_claims.evaluation import FUZZY_THRESHOLD, evaluate, format_report, fuzzy_similarity, matched_pairs
from paper_claims.schemas import DocumentLabels
from paper_claims.sources.inputs import iter_inputs
from paper_claims.text import read_jsonl

ROOT = Path(__file__).resolve().parent
SHARED = ROOT.parent.parent / "shared/gold"  # dev3 and dev4 are read where they live, never copied into the project
SETS = {"dev": (ROOT / "gold/dev_inputs.jsonl", ROOT / "gold/dev.jsonl"),
        "dev2": (ROOT / "gold/dev2/dev2_inputs.jsonl", ROOT / "gold/dev2/dev2.jsonl"),
        "dev3": (SHARED / "dev3/dev3_inputs.jsonl", SHARED / "dev3/dev3.jsonl"),
        "dev4": (SHARED / "dev4/dev4_inputs.jsonl", SHARED / "dev4/dev4.jsonl")}


def run_cached(inputs: Path, out: Path) -> tuple[dict[str, Any], list[str]]:
    """Ground every document from the answer cache into ``out``; (answers by id, misses)."""
    return ground_cached(iter_inputs(str(inputs)), out)


def _best(name: str, options: list[str], hardware: bool) -> tuple[float, str]:
    return max(((fuzzy_similarity(name, o, hardware=hardware), o) for o in options), default=(0.0, ""))


def analyse(set_name: str, brief: bool, out_root: Path) -> dict[str, Any]:
    inputs, gold_path = SETS[set_name]
    out = out_root / set_name
    answers, misses = run_cached(inputs, out)
    report = evaluate(gold_path, out, inputs_path=inputs)
    print(f"\n==================== {set_name} ====================")
    if misses:
        print(f"CACHE MISSES (no answer, grounded as unanswered): {', '.join(misses)}")
    print(format_report(report))
    gold = {str(g["id"]): g for g in read_jsonl(gold_path)}
    texts = {str(r["id"]): r["text"] for r in read_jsonl(inputs)}
    docs = {d["doc_id"]: d for d in read_jsonl(out / "documents.jsonl")}
    causes: collections.Counter[str] = collections.Counter()
    lines: list[str] = []
    for doc_id, g in gold.items():
        text = texts[doc_id]
        pred_doc = docs.get(doc_id, {})
        request, labels = answers.get(doc_id, (None, DocumentLabels()))
        marks = request.doc.names if request else parse_text(text, []).names
        label_of = {m.text: (m.letter, labels.e.get(m.letter)) for m in marks}
        cand = [m.text for m in marks]
        for field in ("datasets", "hardware", "models"):
            hw = field == "hardware"
            gl, pl = list(g.get(field) or []), list(pred_doc.get(field) or [])
            used: set[str] = set()
            for name in gl:
                score, hit = _best(name, [p for p in pl if p not in used], hw)
                if score >= FUZZY_THRESHOLD:
                    used.add(hit)
                    continue
                cs, cn = _best(name, cand, hw)
                if cs >= FUZZY_THRESHOLD:
                    cause = f"not chosen (cand '{cn}' {label_of.get(cn)})"
                    causes[f"list {field} FN: not chosen"] += 1
                elif cs > 0:
                    cause = f"not proposed (closest '{cn}' {cs:.2f})"
                    causes[f"list {field} FN: not proposed"] += 1
                else:
                    cause = "not proposed"
                    causes[f"list {field} FN: not proposed"] += 1
                lines.append(f"{doc_id:8} {field:9} FN '{name}': {cause}")
            for name in pl:
                if name in used:
                    continue
                lines.append(f"{doc_id:8} {field:9} FP '{name}' {label_of.get(name)}")
                causes[f"list {field} FP"] += 1
    # claim attributes, on matched pairs
    matched = matched_pairs(gold_path, out)
    for doc_id, gc, pc in matched:
        for attr in ("dataset", "hardware", "model", "baseline"):
            gv, pv = gc.get(attr), pc.get(attr)
            if not gv and not pv:
                continue
            if gv and pv and fuzzy_similarity(gv, pv, hardware=attr == "hardware") >= FUZZY_THRESHOLD:
                continue
            kind = "FN+FP" if gv and pv else ("FN" if gv else "FP")
            causes[f"attr {attr} {kind}"] += 1
            lines.append(f"{doc_id:8} attr {attr:8} {kind:5} gold={gv!r} pred={pv!r}  [{pc.get('kind')} "
                         f"{gc.get('evidence')!r}]")
    if not brief:
        print("\n".join(lines))
    print("\ncauses:")
    for k, v in sorted(causes.items()):
        print(f"  {k:40} {v}")
    return report.to_dict()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=list(SETS))
    parser.add_argument("--brief", action="store_true", help="figures and cause counts only")
    parser.add_argument("--out", type=Path, default=None, help="where to write the outputs (default: a temp dir)")
    args = parser.parse_args(argv)
    out_root = args.out or Path(tempfile.mkdtemp(prefix="claims-errors-"))
    summary = {}
    for name in args.sets:
        r = analyse(name, args.brief, out_root)
        summary[name] = r
    print("\nsummary  claimF1  kind   unit   lists d/h/m          attrs d/h/m/b              metric grounded")
    for name, r in summary.items():
        lists = "/".join(f"{r['doc_lists'][k]['f1']:.3f}" for k in ("datasets", "hardware", "models"))
        attrs = "/".join(f"{r['attributes'][k]['f1']:.3f}" for k in ("dataset", "hardware", "model", "baseline"))
        print(f"{name:8} {r['claims']['f1']:.3f}  {r['kind_accuracy']:.3f}  {r['unit_accuracy']:.3f}  {lists}  {attrs}  "
              f"{r['attributes']['metric']['f1']:.3f}  {r['grounded_share']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
