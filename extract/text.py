"""Text utilities every step shares: the one sentence splitter, canonical JSON (hashing),
JSONL reading and writing, and the one stderr printer."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

from paper_claims.errors import InputError

Say = Callable[[str], None]
PathLike = Union[str, Path]

# where the space after a word's full stop was lost: between "costs." and "TinyNAS"
LOST_SPACE = r"(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])"
# a sentence ends at ".", "!" or "?" and space before a capital, a bracket or a quote; or where
# the space after the full stop of a word was lost ("costs.TinyNAS is", "margin.Moreover")
_SENTENCE_END = re.compile(rf"(?<=[.!?])\s+(?=[A-Z(\[\"'$\\])|{LOST_SPACE}|\n+")


def to_stderr(message: str) -> None:
    """Print a message for the user on stderr, at once: on its own line above a text progress bar
    that is drawing (tqdm clears the bar, prints, draws it again), else plainly."""
    bars = sys.modules.get("tqdm.std")
    if bars is not None and getattr(bars.tqdm, "_instances", None):
        bars.tqdm.write(message, file=sys.stderr)
        sys.stderr.flush()
        return
    print(message, file=sys.stderr, flush=True)


def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of ``text`` (a parsed document splits its text once:
    ``parse.document.ParsedDocument.sentences``)."""
    spans, start = [], 0
    for boundary in _SENTENCE_END.finditer(text):
        spans.append((start, boundary.start()))
        start = boundary.end()
    spans.append((start, len(text)))
    return tuple((a, b) for a, b in spans if b > a)


def sentence_around(text: str, start: int, end: int,
                    spans: Optional[Sequence[tuple[int, int]]] = None) -> tuple[int, int]:
    """Offsets of the sentence around ``text[start:end]`` (to ``end`` at least); ``spans``: the
    text's sentences when they were split already."""
    for left, right in sentence_spans(text) if spans is None else spans:
        if left <= start < max(right, left + 1):
            return left, max(right, end)
    return 0, len(text)


def _word_char(c: str) -> bool:
    return c.isalnum() or c in "_-"


def whole_word_spans(text: str, word: str, overlapping: bool = False) -> Iterator[tuple[int, int]]:
    r"""Each (start, end) of ``word`` in ``text`` with no word character or hyphen right
    before or after it: ``re.finditer(r"(?<![\w-])word(?![\w-])")`` (or, ``overlapping``,
    every place ``re.search`` may try) without compiling a pattern per word, which would
    churn the ``re`` module's cache of compiled patterns."""
    if not word:
        return
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not _word_char(text[at - 1])) and (end == len(text) or not _word_char(text[end])):
            yield at, end
            at = text.find(word, at + 1 if overlapping else end)
        else:
            at = text.find(word, at + 1)


def canonical_json(value: Any) -> str:
    """Deterministic JSON, for hashing (sorted keys, no spaces)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def json_line(row: Any) -> str:
    """One JSONL line (with its newline)."""
    return json.dumps(row, ensure_ascii=False) + "\n"


def iter_jsonl(path: PathLike, *, strict: bool = False) -> Iterator[dict[str, Any]]:
    """The JSON objects of a .jsonl file, one per non-blank line, read lazily; none if the
    file is missing. A line that is not a JSON object is skipped (a torn last line of a killed
    run), or with ``strict`` raises InputError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        return
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                if strict:
                    raise InputError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
                continue
            if isinstance(row, dict):
                yield row
            elif strict:
                raise InputError(f"{path}:{number}: not a JSON object")


def read_jsonl(path: PathLike, *, strict: bool = False) -> list[dict[str, Any]]:
    """Every JSON object of a .jsonl file (see ``iter_jsonl``)."""
    return list(iter_jsonl(path, strict=strict))


def jsonl_text(rows: Iterable[Any]) -> str:
    """Rows as JSONL text."""
    return "".join(json_line(row) for row in rows)
