"""The ``claims`` command line: each command calls one public function."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Optional, Sequence

from paper_claims.errors import ClaimsError, os_cause


def _add_backend_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="model name (env CLAIMS_MODEL)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
    parser.add_argument("--model-path", help="a .gguf file or Hugging Face repo id for the embedded server")
    parser.add_argument("--cache-dir", help="cache directory (env CLAIMS_CACHE_DIR)")


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    from paper_claims.sources.formats import FORMATS

    parser.add_argument("--format", choices=list(FORMATS),
                        help="the format of every input file (default: told by each file's name or content)")
    parser.add_argument("--where", action="append", default=[], metavar="CONDITION",
                        help="keep records meeting it: FIELD~TEXT (contains), FIELD=TEXT, FIELD!~TEXT, FIELD!=TEXT; "
                             "FIELD may be a dotted path (repeat for more, all must hold)")
    parser.add_argument("--keep-latex", action="store_true",
                        help="keep LaTeX as written (default: BibTeX and arXiv fields and titles read as text)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="claims", description="Extract grounded quantitative claims from paper abstracts.")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)

    extract = commands.add_parser("extract", help="extract claims into OUT/claims.csv, claims.jsonl, documents.jsonl")
    extract.add_argument("inputs", nargs="+", help="input files (BibTeX, RIS, CSL-JSON, arXiv snapshot, OpenAlex, "
                         "Semantic Scholar, Crossref, JSONL, CSV, text; plain, .gz or .zst) or folders of them")
    extract.add_argument("--out", required=True, help="output directory")
    _add_input_options(extract)
    extract.add_argument("--db", help="where to write the SQLite file (default OUT/claims.db)")
    extract.add_argument("--no-db", action="store_true", help="do not write the SQLite file")
    _add_backend_options(extract)
    extract.add_argument("--concurrency", type=int, help="requests in flight (default 1 embedded, 8 remote)")
    extract.add_argument("--max-unreachable", type=int,
                         help="stop when this many documents in a row cannot connect to the endpoint (default 3)")
    extract.add_argument("--no-cache", action="store_true", help="do not read or write the answer cache")
    extract.add_argument("--no-report", action="store_true", help="do not write OUT/report.html")
    extract.add_argument("--quiet", action="store_true", help="no progress bar")
    extract.add_argument("--engine", choices=["local", "ray"], default="local",
                         help="local: this process; ray: Ray Data workers (needs the [ray] extra)")
    extract.add_argument("--ray-address", help="Ray cluster address (default: RAY_ADDRESS or a local instance)")
    extract.add_argument("--workers", type=int, help="Ray workers (default 2), each with --concurrency requests in flight")
    extract.add_argument("--prompt-file", help="a system prompt of your own instead of prompts/label_system.txt")
    extract.add_argument("--schema", help="a claim schema of your own: package.module:Class or path/to/file.py:Class "
                                          "(a paper_claims.ClaimSchema); default the built-in one")
    extract.add_argument("--fill", choices=["marks", "instructor"],
                         help="marks (default): the model labels the numbers the parser marks; instructor: the model "
                              "fills the schema directly (strong models), every number and span grounded afterwards")
    extract.add_argument("--wait", action="store_true",
                         help="if another run is writing to OUT, wait for it to end (default: exit at once)")

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
    from pathlib import Path

    from paper_claims.api import write_claims

    stats = write_claims(
        args.inputs, args.out, model=args.model, base_url=args.base_url, model_path=args.model_path,
        cache_dir=args.cache_dir, use_cache=not args.no_cache, concurrency=args.concurrency,
        progress=not args.quiet, report=not args.no_report,
        engine=args.engine, ray_address=args.ray_address, workers=args.workers,
        max_unreachable=args.max_unreachable, prompt_file=args.prompt_file, wait=args.wait, schema=args.schema, fill=args.fill,
        format=args.format, where=args.where, keep_latex=args.keep_latex, db=False if args.no_db else (args.db or True),
    )
    parquet = ", claims.parquet, documents.parquet" if args.engine == "ray" else ""
    db = "" if args.no_db else (f", {args.db}" if args.db else ", claims.db")
    print(f"Wrote {Path(args.out) / 'claims.csv'}, claims.jsonl, documents.jsonl{parquet}{db}"
          + ("" if args.no_report else ", report.html"), file=sys.stderr)
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
    from paper_claims.outputs.evaluate import append_results, evaluate, format_report
    from paper_claims.model.prompt_files import prompt_version
    from paper_claims.settings import Settings

    report = evaluate(args.gold, args.out_dir)
    print(json.dumps(report.to_dict(), indent=2) if args.json else format_report(report))
    if args.log:
        model = Settings.from_env(model=None).model_name
        append_results(report, args.log, model=model, prompt_version=prompt_version(), note=args.note)
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


def _serve(args: argparse.Namespace) -> int:
    from paper_claims.model.backends import serve
    from paper_claims.settings import Settings

    settings = Settings.from_env(model=args.model, model_path=args.model_path, cache_dir=args.cache_dir)
    return serve(settings, host=args.host, port=args.port)


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
            "serve": _serve}


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
