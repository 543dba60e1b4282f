"""Prompt files and request rendering: the static prefix first, the marked abstract last."""

from __future__ import annotations

import hashlib
import json
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


def render_messages(
    text: str, mentions: Sequence[Mention], *, nonce: str | None = None
) -> list[dict[str, str]]:
    """Chat messages for one abstract.

    The system message is byte-identical for every document so the server reuses its
    KV cache; ``nonce`` (benchmarks only) defeats that reuse on purpose.
    """
    system = load_prompt()
    if nonce:
        system = f"Request {nonce}.\n{system}"
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": mark_mentions(text, mentions)},
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
            "d": _optional_text(),
            "h": _optional_text(),
            "mo": _optional_text(),
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
    properties.update({
        "s": {"anyOf": [_optional_text(), {"type": "null"}]},
        "d": _name_list(),
        "h": _name_list(),
        "mo": _name_list(),
    })
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def canonical_json(value: Any) -> str:
    """Deterministic JSON used for hashing."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
