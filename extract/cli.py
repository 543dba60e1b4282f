"""The ``claims`` command line: each command calls one public function."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from paper_claims.errors import ClaimsError, os_cause
from paper_claims.training import CALIBRATE, MIN_CALIBRATION


def _add_backend_options(parser: argparse.ArgumentParser) -> None:
    """The options that say which model answers (``claims serve`` takes them too)."""
    from paper_claims.options import OPTIONS_BY_NAME

    for name in ("model", "base_url", "model_path", "cache_dir"):
        OPTIONS_BY_NAME[name].add_to(parser)


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    from paper_claims.options import OPTIONS_BY_NAME
    from paper_claims.sources.formats import FORMATS

    OPTIONS_BY_NAME["format"].add_to(parser, choices=tuple(FORMATS))
    OPTIONS_BY_NAME["where"].add_to(parser)
    OPTIONS_BY_NAME["keep_latex"].add_to(parser)


def _add_extract_options(parser: argparse.ArgumentParser) -> None:
    """Every option of ``paper_claims.options`` that has a flag, in the table's order."""
    from paper_claims.options import EXTRACT_OPTIONS
    from paper_claims.sources.formats import FORMATS

    for option in EXTRACT_OPTIONS:
        if option.flag is not None and "stream" in option.functions:
            option.add_to(parser, choices=tuple(FORMATS) if option.name == "format" else None)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="claims", description="Extract grounded quantitative claims from paper abstracts.")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)

    extract = commands.add_parser("extract", help="extract claims into OUT/claims.csv, claims.jsonl, documents.jsonl")
    extract.add_argument("inputs", nargs="+", help="input files (BibTeX, RIS, CSL-JSON, arXiv snapshot, OpenAlex, "
                         "Semantic Scholar, Crossref, JSONL, CSV, text; plain, .gz or .zst) or folders of them")
    _add_extract_options(extract)

    quantities = commands.add_parser("quantities", help="the quantity parser alone: one JSONL line per numeric mention")
    quantities.add_argument("inputs", nargs="+", help="input files or folders, in any format extract reads")
    _add_input_options(quantities)
    quantities.add_argument("--out", help="JSONL file (default: standard output)")

    evaluate = commands.add_parser("eval", help="score an output directory against annotations")
    evaluate.add_argument("out_dir", help="an output folder of claims extract")
    evaluate.add_argument("--gold", required=True, help="annotations JSONL (format of eval/gold/dev.jsonl)")
    evaluate.add_argument("--json", action="store_true", help="print the figures as JSON")
    evaluate.add_argument("--log", help="append a line with the figures to this RESULTS.md")
    evaluate.add_argument("--note", default="", help="note for the results line")

    report = commands.add_parser("report", help="write OUT_DIR/report.html")
    report.add_argument("out_dir", help="an output folder of claims extract")
    report.add_argument("--max-abstracts", type=int, default=500,
                        help="abstracts written into the page (default 500; summary and charts cover all)")
    report.add_argument("--all", action="store_true", help="write every abstract into the page")

    review = commands.add_parser("review", help="review OUT_DIR's claims in the browser: accept, edit, reject, add")
    review.add_argument("out_dir", help="an output folder of claims extract (its review.jsonl is written there)")
    review.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    review.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: a free one)")
    review.add_argument("--reviewer", help="name logged with each decision (default: your login name)")
    review.add_argument("--export", metavar="GOLD_JSONL",
                        help="instead of serving: write the reviewed documents as annotations to this file, "
                             "and OUT_DIR/claims.reviewed.csv/.jsonl and OUT_DIR/reviewed/")

    train = commands.add_parser("train", help="learn the decisions again with your reviewed annotations; "
                                              "write a file for claims extract --decisions")
    train.add_argument("--gold", required=True, help="your reviewed annotations (claims review OUT --export GOLD)")
    train.add_argument("--inputs", help="their texts (default: GOLD's <stem>_inputs.jsonl, which the export writes)")
    train.add_argument("--out", default="decisions.json", help="the decisions file to write (default decisions.json)")
    train.add_argument("--weight", type=float, default=3.0,
                       help="how much one of your examples counts against a packaged one (default 3)")
    train.add_argument("--calibrate", choices=CALIBRATE, default="all",
                       help="the held-out claims the confidence is calibrated on: every annotated set's (all, the "
                            f"default) or your reviewed abstracts' alone (yours; at least {MIN_CALIBRATION} claims)")
    _add_backend_options(train)

    serve = commands.add_parser("serve", help="run the embedded model server in the foreground")
    _add_backend_options(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    return parser


class _Version(argparse.Action):
    """``--version``: the installed package's version (looked up only when asked: every start counts)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("paper-claims")
        except PackageNotFoundError:  # run from a checkout that is not installed
            found = "(not installed)"
        print(f"claims {found}")
        parser.exit()


def _extract(args: argparse.Namespace) -> int:
    from paper_claims import EXTRACT_OPTIONS, write_claims

    options = {o.name: o.from_args(args) for o in EXTRACT_OPTIONS if o.flag is not None and "stream" in o.functions}
    stats = write_claims(args.inputs, **options)
    if options["write_batch"]:  # the request file only: the run said what it wrote
        return 0
    parquet = ", claims.parquet, documents.parquet" if options["runner"] == "ray" else ""
    db = "" if options["db"] is False else (f", {options['db']}" if options["db"] is not True else ", claims.db")
    print(f"Wrote {Path(args.out) / 'claims.csv'}, claims.jsonl, documents.jsonl{parquet}{db}"
          + (", report.html" if options["report"] else ""), file=sys.stderr)
    print(stats.summary(), file=sys.stderr)
    for doc_id, error in stats.first_errors:
        print(f"  error {doc_id}: {error}", file=sys.stderr)
    return 1 if stats.errors else 0


def _quantities(args: argparse.Namespace) -> int:
    from paper_claims.api import extract_quantities, iter_quantities

    read, skipped = 0, 0
    listed: list[tuple[str, str]] = []  # the first records without text: (id, why)

    def seen(doc_id: str, error: Optional[str]) -> None:
        nonlocal read, skipped
        read += 1
        if error is not None:
            skipped += 1
            if len(listed) < MAX_LISTED:
                listed.append((doc_id, error))

    reading = dict(format=args.format, where=args.where, keep_latex=args.keep_latex, seen=seen)
    if args.out:
        rows = extract_quantities(args.inputs, out=args.out, **reading)
        print(f"Wrote {len(rows)} mentions to {args.out}", file=sys.stderr)
    else:
        for row in iter_quantities(args.inputs, **reading):
            print(json.dumps(row, ensure_ascii=False))
    if skipped:
        print(f"{skipped} of {read} records skipped (no text to parse):", file=sys.stderr)
        for doc_id, error in listed:
            print(f"  skipped {doc_id}: {error}", file=sys.stderr)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from paper_claims.evaluation import evaluate

    report = evaluate(args.gold, args.out_dir, log=args.log, note=args.note)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


def _report(args: argparse.Namespace) -> int:
    from paper_claims.outputs.report import write_report

    limit = None if args.all else args.max_abstracts
    print(f"Wrote {write_report(args.out_dir, max_abstracts=limit)}", file=sys.stderr)
    return 0


def _review(args: argparse.Namespace) -> int:
    from paper_claims.outputs.review import export_review, serve_review

    if args.export:
        print(export_review(args.out_dir, args.export).describe(), file=sys.stderr)
        return 0
    return serve_review(args.out_dir, host=args.host, port=args.port, reviewer=args.reviewer)


def _train(args: argparse.Namespace) -> int:
    from paper_claims.training.train import train_decisions

    trained = train_decisions(args.gold, out=args.out, inputs=args.inputs, weight=args.weight, model=args.model,
                              base_url=args.base_url, cache_dir=args.cache_dir, calibrate=args.calibrate)
    print(trained.describe(), file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from paper_claims.engines.embedded import serve_model

    return serve_model(model=args.model, model_path=args.model_path, cache_dir=args.cache_dir,
                       host=args.host, port=args.port)


def _exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so the embedded server is stopped on the way out."""
    import signal
    import threading

    def terminate(_signum: int, _frame: object) -> None:
        raise SystemExit(143)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminate)


MAX_LISTED = 10  # records a message lists one by one

COMMANDS = {"extract": _extract, "quantities": _quantities, "eval": _eval, "report": _report, "review": _review,
            "train": _train, "serve": _serve}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``claims`` console script."""
    args = _parser().parse_args(argv)
    _exit_cleanly_on_sigterm()
    try:
        return COMMANDS[args.command](args)
    except ClaimsError as e:
        print(f"claims: error: {e.one_line()}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as other tools do
        _silence_stdout()
        return 141  # 128 + SIGPIPE
    except OSError as e:  # a machine fault no library call named: still one line
        print(f"claims: error: {os_cause(e)}" + (f": {e.filename}" if e.filename else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("claims: interrupted", file=sys.stderr)
        return 130


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file behind stdout
        pass


if __name__ == "__main__":
    sys.exit(main())
