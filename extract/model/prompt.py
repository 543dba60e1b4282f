"""Prompt files and request rendering: the static prefix first, the marked excerpt last;
the per-document answer schema."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

from paper_claims.parse.candidates import Candidate, find_candidates, letters
from paper_claims.schemas import LabelKind, Mention, NameCode

SYSTEM_PROMPT_FILE = "label_system.txt"


@lru_cache(maxsize=None)
def load_prompt(name: str = SYSTEM_PROMPT_FILE) -> str:
    """The text of a prompt file in the ``prompts`` package."""
    return resources.files("paper_claims.prompts").joinpath(name).read_text(encoding="utf-8")


def prompt_version(name: str = SYSTEM_PROMPT_FILE) -> str:
    """A short content hash that names the prompt's version."""
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:12]


def mark_mentions(text: str, mentions: Sequence[Mention]) -> str:
    """The abstract with ``[n]`` (1-based) inserted before each mention."""
    pieces: list[str] = []
    cursor = 0
    for number, mention in enumerate(mentions, start=1):
        pieces.append(text[cursor : mention.start])
        pieces.append(f"[{number}]")
        cursor = mention.start
    pieces.append(text[cursor:])
    return "".join(pieces)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"'$\\])|\n+")
_INTRODUCES = re.compile(r"\b(?:we|this (?:paper|work))\s+(?:present|introduce|propose|develop|describe|release|build)", re.I)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``."""
    spans, start = [], 0
    for boundary in _SENTENCE_END.finditer(text):
        spans.append((start, boundary.start()))
        start = boundary.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if b > a]


@dataclass(frozen=True)
class NameMark:
    """A distinct candidate name the model labels: its mark letter, its first spelling and
    every place it stands in the text."""

    letter: str
    text: str
    spans: tuple[Candidate, ...]

    @property
    def compared(self) -> bool:
        """Only ever a "than X" phrase: a possible baseline, not typed by the model."""
        return all(span.compared for span in self.spans)


def _kept_sentences(text: str, mentions: Sequence[Mention]) -> list[tuple[int, int]]:
    """The sentences the model reads: those holding marked numbers, and the one that
    introduces the paper's system."""
    spans = sentence_spans(text)
    keep = {i for i, (a, b) in enumerate(spans) if any(a <= m.start < b for m in mentions)}
    intro = next((i for i, (a, b) in enumerate(spans) if _INTRODUCES.search(text[a:b])), None)
    if intro is not None:
        keep.add(intro)
    return [spans[i] for i in sorted(keep)]


MAX_OTHER_NAMES = 12


def name_marks(text: str, mentions: Sequence[Mention]) -> list[NameMark]:
    """The candidate names to label, lettered in reading order: first those in the excerpt's
    sentences, then up to MAX_OTHER_NAMES standing only elsewhere. Repeats share a letter."""
    candidates = find_candidates(text, [(m.start, m.end) for m in mentions])
    sentences = _kept_sentences(text, mentions)
    inside = [c for c in candidates if any(a <= c.start < b for a, b in sentences)]
    keys = list(dict.fromkeys(c.key for c in inside))
    # elsewhere, a "than X" phrase could only be the baseline of a claim the model does not see
    others = [k for k in dict.fromkeys(c.key for c in candidates if not c.compared) if k not in keys]
    keys += others[:MAX_OTHER_NAMES]
    marks = []
    for letter, key in zip(letters(len(keys)), keys):
        spans = tuple(c for c in candidates if c.key == key)
        marks.append(NameMark(letter, spans[0].text, spans))
    return marks


def _marked_span(text: str, start: int, end: int, mentions: Sequence[Mention],
                 names: dict[int, str]) -> str:
    """``text[start:end]`` with ``[n]`` before each number and ``{A}`` after each name."""
    inserts: list[tuple[int, int, str]] = []
    for number, mention in enumerate(mentions, start=1):
        if start <= mention.start < end:
            inserts.append((mention.start, 1, f"[{number}]"))
    for at, letter in names.items():
        if start < at <= end:
            inserts.append((at, 0, f"{{{letter}}}"))
    pieces, cursor = [], start
    for at, _order, mark in sorted(inserts):
        pieces += [text[cursor:at], mark]
        cursor = at
    pieces.append(text[cursor:end])
    return "".join(pieces).strip()


def excerpt(text: str, mentions: Sequence[Mention]) -> str:
    """What the model reads: the sentences holding marked numbers, plus the sentence that
    introduces the paper's system, marked, in order, joined by " … "; then the candidate
    names that stand only in other sentences, on one line."""
    marks = name_marks(text, mentions)
    ends = {span.end: mark.letter for mark in marks for span in mark.spans}
    sentences = _kept_sentences(text, mentions)
    body = " … ".join(_marked_span(text, a, b, mentions, ends) for a, b in sentences)
    shown = {letter for a, b in sentences for at, letter in ends.items() if a < at <= b}
    others = [f"{mark.text}{{{mark.letter}}}" for mark in marks if mark.letter not in shown]
    if others:
        body += "\nAlso named: " + ", ".join(others)
    return body.strip()


def render_messages(
    text: str, mentions: Sequence[Mention], *, nonce: str | None = None
) -> list[dict[str, str]]:
    """Chat messages for one abstract.

    The system message is byte-identical for every document so the server reuses its
    KV cache; the user message is the marked excerpt. ``nonce`` (benchmarks only)
    defeats the cache reuse on purpose.
    """
    system = load_prompt()
    if nonce:
        system = f"Request {nonce}.\n{system}"
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": excerpt(text, mentions)},
    ]


def _letter_pattern(names: Sequence[str]) -> str:
    """A regex alternation matching exactly the given mark letters (A..Z, AA..)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name[:-1], []).append(name[-1])
    parts = [f"{head}[{tails[0]}-{tails[-1]}]" for head, tails in groups.items()]
    return parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")"


def labels_schema(n_mentions: int, n_names: int = 0, typed: Sequence[str] | None = None) -> dict[str, Any]:
    """The JSON schema the answer must follow; the server turns it into a grammar.

    ``s`` is the letter of the paper's system among the names (or null); ``e`` gives every
    typed name's type by its letter (``typed``, default all); ``c`` has exactly one label
    per mark, keyed "1".."N" in order: a kind, optionally followed by the letter of the
    baseline it is compared with ("speedup C"). Every key is fixed and in order, so the
    grammar stays a single path (cheap to sample) and the model can neither skip a mark
    nor point at a number or a name that is not marked.
    """
    names = letters(n_names)
    typed = names if typed is None else [letter for letter in names if letter in set(typed)]
    kinds = [kind.value for kind in LabelKind]
    properties: dict[str, Any] = {}
    properties["s"] = {"anyOf": [{"enum": names}, {"type": "null"}]} if names else {"type": "null"}
    if typed:
        properties["e"] = {
            "type": "object",
            "properties": {letter: {"enum": [code.value for code in NameCode]} for letter in typed},
            "required": list(typed),
            "additionalProperties": False,
        }
    if n_mentions:  # with no marks there is nothing to label: no "c" at all
        marks = [str(n) for n in range(1, n_mentions + 1)]
        label: dict[str, Any] = {"enum": kinds}
        if names:
            label = {"type": "string", "pattern": f"^({'|'.join(kinds)})( {_letter_pattern(names)})?$"}
        properties["c"] = {
            "type": "object",
            "properties": {mark: label for mark in marks},
            "required": marks,
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def request_schema(text: str, mentions: Sequence[Mention]) -> dict[str, Any]:
    """The answer schema of one document: its marks, its name letters, the names to type."""
    marks = name_marks(text, mentions)
    return labels_schema(len(mentions), len(marks), [m.letter for m in marks if not m.compared])


def canonical_json(value: Any) -> str:
    """Deterministic JSON used for hashing."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
