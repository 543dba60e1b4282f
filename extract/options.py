"""Each option of an extraction defined once: its name, default, help, command-line flag and
where it goes. ``claims extract``'s options, ``Settings``' option fields and the internal
plumbing of ``extract_claims`` / ``write_claims`` derive from ``EXTRACT_OPTIONS``; the public
functions keep explicit keyword signatures for their users, and a test checks that they match.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable, Optional

SETTINGS, READ, RUN, WRITE = "settings", "read", "run", "write"  # where an option goes
BOTH, TABLE = ("table", "stream"), ("table",)  # the public functions that take it


@dataclass(frozen=True)
class Option:
    """One option. ``flag``: its command-line flag (None: API only); ``negate``: the flag turns
    a default-True option off (``--no-cache`` for ``use_cache``); ``table_default``: the default
    of ``extract_claims``, which returns a table in memory, where it differs."""

    name: str
    default: Any
    help: str
    goes: str
    flag: Optional[str] = None
    type: Optional[Callable[[str], Any]] = None
    choices: Optional[tuple[str, ...]] = None
    negate: bool = False
    append: bool = False
    metavar: Optional[str] = None
    aliases: tuple[str, ...] = ()
    required: bool = False  # on the command line
    off_flag: Optional[str] = None  # a second flag that sets the option to False (``--no-db``)
    off_help: str = ""
    functions: tuple[str, ...] = BOTH
    table_default: Any = None

    def default_for(self, function: str) -> Any:
        """The default in ``extract_claims`` ("table") or ``write_claims`` / the CLI ("stream")."""
        return self.table_default if function == "table" and self.table_default is not None else self.default

    def add_to(self, parser: argparse.ArgumentParser, choices: Optional[tuple[str, ...]] = None) -> None:
        """Add the command-line flag to ``parser`` (``choices``: computed ones, e.g. the formats)."""
        assert self.flag is not None
        flags = [self.flag, *self.aliases]
        if self.negate:
            parser.add_argument(*flags, dest=self.name, action="store_false", help=self.help)
        elif self.type is bool:
            parser.add_argument(*flags, dest=self.name, action="store_true", help=self.help)
        elif self.append:
            parser.add_argument(*flags, dest=self.name, action="append", default=[], metavar=self.metavar,
                                help=self.help)
        else:
            parser.add_argument(*flags, dest=self.name, type=self.type or str, choices=choices or self.choices,
                                default=None if self.off_flag else self.default, metavar=self.metavar,
                                required=self.required, help=self.help)
        if self.off_flag:
            parser.add_argument(self.off_flag, dest=self.name, action="store_const", const=False, help=self.off_help)

    def from_args(self, args: argparse.Namespace) -> Any:
        """The option's value from parsed command-line arguments."""
        value = getattr(args, self.name)
        return self.default if value is None else value


EXTRACT_OPTIONS: tuple[Option, ...] = (
    # where the model is and how it is asked (Settings fields)
    Option("model", None, "model name (env CLAIMS_MODEL)", SETTINGS, "--model"),
    Option("base_url", None, "OpenAI-compatible endpoint (env OPENAI_BASE_URL)", SETTINGS, "--base-url"),
    Option("api_key", None, "API key (env OPENAI_API_KEY; never part of a cache key, a log line or an output)",
           SETTINGS, functions=TABLE),
    Option("model_path", None, "a .gguf file or Hugging Face repo id for the embedded server", SETTINGS,
           "--model-path"),
    Option("cache_dir", None, "cache directory (env CLAIMS_CACHE_DIR)", SETTINGS, "--cache-dir"),
    Option("use_cache", True, "do not read or write the answer cache", SETTINGS, "--no-cache", negate=True),
    Option("concurrency", None, "requests in flight (default 1 embedded, 8 remote)", SETTINGS, "--concurrency",
           type=int),
    Option("max_unreachable", None, "stop when this many documents in a row cannot connect to the endpoint "
           "(default 3)", SETTINGS, "--max-unreachable", type=int),
    Option("progress", True, "no progress bar", SETTINGS, "--quiet", negate=True, table_default=False),
    Option("prompt_file", None, "a system prompt of your own instead of prompts/label_system.txt", SETTINGS,
           "--prompt-file"),
    Option("schema", None, "a claim schema of your own: package.module:Class or path/to/file.py:Class "
           "(a paper_claims.ClaimSchema); default the built-in one", SETTINGS, "--schema"),
    Option("fill", None, "marks (default): the model labels the numbers the parser marks; instructor: the model "
           "fills the schema directly (strong models), every number and span grounded afterwards", SETTINGS,
           "--fill", choices=("marks", "instructor")),
    Option("decisions", None, "learned decisions of your own (a file claims train wrote) instead of the packaged ones",
           SETTINGS, "--decisions"),
    # what is read
    Option("format", None, "the format of every input file (default: told by each file's name or content)", READ,
           "--format"),
    Option("where", (), "keep records meeting it: FIELD~TEXT (contains), FIELD=TEXT, FIELD!~TEXT, FIELD!=TEXT; "
           "FIELD may be a dotted path (repeat for more, all must hold)", READ, "--where", append=True,
           metavar="CONDITION"),
    Option("keep_latex", False, "keep LaTeX as written (default: BibTeX and arXiv fields and titles read as text)",
           READ, "--keep-latex", type=bool),
    Option("text_column", None, "a DataFrame's or records' column holding the text", READ, functions=TABLE),
    Option("id_column", None, "a DataFrame's or records' column holding the id", READ, functions=TABLE),
    # how the run goes
    Option("runner", "local", "local: this process; ray: Ray Data workers (needs the [ray] extra)", RUN,
           "--runner", choices=("local", "ray"), aliases=("--engine",)),
    Option("ray_address", None, "Ray cluster address (default: RAY_ADDRESS or a local instance)", RUN,
           "--ray-address"),
    Option("workers", None, "Ray workers (default 2), each with --concurrency requests in flight", RUN,
           "--workers", type=int),
    Option("wait", False, "if another run is writing to OUT, wait for it to end (default: exit at once)", RUN,
           "--wait", type=bool),
    # the batch APIs
    Option("batch", False, "send the requests through the endpoint's Batch API (/v1/files, /v1/batches: half the "
           "price, answers within a day); a rerun resumes its batches", RUN, "--batch", type=bool),
    Option("batch_size", None, "--batch: requests per batch (default 10000; OpenAI takes up to 50000)", SETTINGS,
           "--batch-size", type=int),
    Option("write_batch", None, "only write the requests into FILE in the batch format (for vllm run-batch or an "
           "upload by hand); no endpoint needed", RUN, "--write-batch", metavar="FILE"),
    Option("batch_results", None, "ground the answers of a batch results file (of the requests --write-batch "
           "wrote) into the outputs", RUN, "--batch-results", metavar="FILE"),
    # what is written
    Option("out", None, "output directory", WRITE, "--out", required=True),
    Option("min_confidence", None, "keep only the claims whose confidence is at least this (0 to 1)", WRITE,
           "--min-confidence", type=float),
    Option("db", True, "where to write the SQLite file (default OUT/claims.db)", WRITE, "--db",
           off_flag="--no-db", off_help="do not write the SQLite file"),
    Option("report", True, "do not write OUT/report.html", WRITE, "--no-report", negate=True, table_default=False),
)
OPTIONS_BY_NAME = {option.name: option for option in EXTRACT_OPTIONS}


def option_values(function: str, given: dict[str, Any]) -> dict[str, Any]:
    """Every option of ``function`` ("table" or "stream") with its value: given, else its default."""
    return {o.name: given.get(o.name, o.default_for(function)) for o in EXTRACT_OPTIONS if function in o.functions}


def settings_options(values: dict[str, Any]) -> dict[str, Any]:
    """The options among ``values`` that are ``Settings`` fields."""
    return {name: value for name, value in values.items() if OPTIONS_BY_NAME[name].goes == SETTINGS}
