"""The packaged annotated examples: what the annotated sets teach, as feature rows and labels only
(no text of an abstract, no annotated name), so that ``claims train`` can learn from them and a
lab's own reviewed abstracts together. Of a document's lower-case words (``decisions.paper``) the
store keeps those that at least ``COMMON`` of its documents have, as ``decisions.paper`` learns
from no other. ``make train`` writes them beside the decisions file."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Sequence, Union

from paper_claims.decisions.features import ATTRIBUTES, LISTS
from paper_claims.errors import InputError
from paper_claims.training.examples import ClaimExample, DocumentExamples, Options

EXAMPLES = "examples.json.gz"
ANNOTATED = "(annotated)"  # stands in for an annotated name, which the store does not keep
COMMON = 3  # a word the store keeps is one of at least this many documents (training.words learns from these)


def _options(options: Options) -> dict[str, Any]:
    return {"rows": options.rows, "right": options.right, "annotated": bool(options.gold)}


def _claim(claim: ClaimExample) -> dict[str, Any]:
    return {"kind_row": claim.kind_row, "base": claim.base, "said": claim.said, "rules_kind": claim.rules_kind,
            "gold_kind": claim.gold_kind, "unit_right": claim.unit_right,
            "choices": {a: _options(claim.choices[a]) for a in ATTRIBUTES},
            "fixed": {a: list(v) for a, v in claim.fixed.items()}}


def common_words(examples: Sequence[DocumentExamples], least: int = COMMON) -> set[str]:
    """The lower-case words at least ``least`` of the documents have."""
    counts = Counter(word for e in examples for word in set(e.words))
    return {word for word, n in counts.items() if n >= least}


def to_data(examples: Iterable[DocumentExamples]) -> list[dict[str, Any]]:
    """Examples as JSON-able data without the names themselves (a fixed GUIDELINES choice is kept
    as whether it is right) and only the common words of each."""
    examples = list(examples)
    common = common_words(examples)
    return [{"group": e.group, "annotated": e.annotated, "weight": e.weight,
             "claims": [_claim(c) for c in e.claims],
             "lists": {n: [[row, truth] for row, truth in e.lists[n]] for n in LISTS}, "missed": e.missed,
             "words": [w for w in e.words if w in common], "system_model": e.system_model}
            for e in examples]


def from_data(data: Iterable[dict[str, Any]]) -> list[DocumentExamples]:
    """Examples back from ``to_data`` (an annotated name stands in as ANNOTATED, candidates' names as "")."""
    found = []
    for i, item in enumerate(data):
        claims = []
        for c in item["claims"]:
            choices = {a: Options(o["rows"], o["right"], ["" for _ in o["rows"]], ANNOTATED if o["annotated"] else None)
                       for a, o in c["choices"].items()}
            fixed = {a: (bool(v[0]), bool(v[1])) for a, v in c.get("fixed", {}).items()}
            claims.append(ClaimExample(c["kind_row"], c["base"], c["said"], c["rules_kind"], c["gold_kind"], c["unit_right"],
                                       choices, fixed))
        found.append(DocumentExamples(f"{item['group']}#{i}", item["group"], claims,
                                      {n: [(row, truth) for row, truth in item["lists"][n]] for n in LISTS},
                                      dict(item["missed"]), item["annotated"], float(item.get("weight", 1.0)),
                                      tuple(item.get("words", ())), item.get("system_model")))
    return found


def write_examples(examples: Iterable[DocumentExamples], path: Union[str, Path]) -> Path:
    """The examples as gzip'd JSON (written deterministically: no time stamp in the gzip header)."""
    path = Path(path)
    text = json.dumps(to_data(examples), sort_keys=True, separators=(",", ":"))
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        out.write(text.encode("utf-8"))
    return path


def read_examples(path: Union[str, Path, None] = None) -> list[DocumentExamples]:
    """The examples at ``path``, else the packaged ones (none when the package has none)."""
    try:
        if path is None:
            source = resources.files("paper_claims.decisions").joinpath(EXAMPLES)
            if not source.is_file():
                return []
            raw = source.read_bytes()
        else:
            raw = Path(path).read_bytes()
        return from_data(json.loads(gzip.decompress(raw)))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"cannot read the annotated examples {path or EXAMPLES}: {e}") from None
