"""Prompt files and request rendering: the static prefix first, the marked abstract last."""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

from schemas import LabelKind, Mention

SYSTEM_PROMPT_FILE = "label_system.txt"


@lru_cache(maxsize=None)
def load_prompt(name: str = SYSTEM_PROMPT_FILE) -> str:
    """The text of a prompt file in the ``prompts`` package."""
    return resources.files("prompts").joinpath(name).read_text(encoding="utf-8")


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


def _marked_span(text: str, start: int, end: int, mentions: Sequence[Mention]) -> str:
    pieces, cursor = [], start
    for number, mention in enumerate(mentions, start=1):
        if start <= mention.start < end:
            pieces += [text[cursor : mention.start], f"[{number}]"]
            cursor = mention.start
    pieces.append(text[cursor:end])
    return "".join(pieces).strip()


def excerpt(text: str, mentions: Sequence[Mention]) -> str:
    """What the model reads: the sentences holding marked numbers, plus the sentence that
    introduces the paper's system, marked, in order, joined by " … "."""
    spans = sentence_spans(text)
    keep = {i for i, (a, b) in enumerate(spans) if any(a <= m.start < b for m in mentions)}
    intro = next((i for i, (a, b) in enumerate(spans) if _INTRODUCES.search(text[a:b])), None)
    if intro is not None:
        keep.add(intro)
    return " … ".join(_marked_span(text, *spans[i], mentions) for i in sorted(keep))


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


def _name_list() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


def _optional_text() -> dict[str, Any]:
    # no maxLength: llama.cpp expands it into a deeply nested grammar; max_tokens bounds length
    return {"type": "string"}


def _mark_label(number: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "n": {"const": number},
            "k": {"type": "string", "enum": [kind.value for kind in LabelKind]},
            "m": _optional_text(),
            "b": _optional_text(),
        },
        "required": ["n", "k"],
        "additionalProperties": False,
    }


def labels_schema(n_mentions: int) -> dict[str, Any]:
    """The JSON schema the answer must follow; the server turns it into a grammar.

    ``c`` is a tuple with exactly one label per mark, in order, so a constrained model
    can neither skip a mark, repeat one, nor point at a number that is not marked.
    """
    properties: dict[str, Any] = {}
    if n_mentions:  # with no marks there is nothing to label: no "c" at all
        properties["c"] = {
            "type": "array",
            "prefixItems": [_mark_label(n) for n in range(1, n_mentions + 1)],
            "minItems": n_mentions,
            "maxItems": n_mentions,
        }
    properties["s"] = {"anyOf": [_optional_text(), {"type": "null"}]}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def canonical_json(value: Any) -> str:
    """Deterministic JSON used for hashing."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
