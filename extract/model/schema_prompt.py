"""What the model is asked for a schema of your own: the system prompt generated from the
schema class (its docstring, the kinds and field descriptions, its few-shot examples), the
text with every number marked, and the answer schema.

The answer keeps one fixed path for the grammar: ``{"c": {"1": {"kind": ..., <field>: ...},
"2": ...}}``, one object per mark in order, every key required; a span field is the words of
the text (a string, or null), a plain field one of its values. ``kind`` is one of the schema's
kinds or "none" (the number is no claim).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Optional, Sequence

from pydantic import BaseModel, Field, ValidationInfo, model_validator

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.quantities import find_quantities
from paper_claims.schemas import Mention, SchemaInfo
from paper_claims.schemas.claim_schema import NO_CLAIM as NONE
TOKENS_PER_MARK = 48  # output tokens a mark's answer may take, beyond the base max_tokens


class SchemaAnswer(BaseModel):
    """The model's answer for one text under a schema of your own: mark -> its fields."""

    c: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _marks_exist(self, info: ValidationInfo) -> "SchemaAnswer":
        n_mentions = (info.context or {}).get("n_mentions")
        if n_mentions is None:
            return self
        bad = sorted(key for key in self.c if not (key.isdigit() and 1 <= int(key) <= n_mentions))
        if bad:
            raise ValueError(f"labels point at marks {bad} that are not in the text; its marks are [1] to [{n_mentions}]")
        return self


def mark_text(text: str, mentions: Sequence[Mention]) -> str:
    """The text with ``[n]`` (1-based) before each number."""
    pieces, cursor = [], 0
    for number, mention in enumerate(mentions, start=1):
        pieces += [text[cursor:mention.start], f"[{number}]"]
        cursor = mention.start
    pieces.append(text[cursor:])
    return "".join(pieces)


def _value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _field_lines(info: SchemaInfo) -> list[str]:
    kinds = ", ".join(_value_text(value) for value in info.kind.values)
    about = f"{info.kind.description.rstrip('.')}. " if info.kind.description else ""
    lines = [f"- kind: {about}One of {kinds}; or \"none\" when the number is not one of them."]
    for field in info.fields:
        about = f"{field.description.rstrip('.')}. " if field.description else ""
        if field.span:
            lines.append(f"- {field.name}: {about}The exact words of the text, copied; null when the text does not say.")
        else:
            choices = ", ".join(_value_text(value) for value in field.choices)
            lines.append(f"- {field.name}: {about}One of {choices}" + ("; or null." if field.optional else "."))
    return lines


def _example_answer(info: SchemaInfo, text: str, claims: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """An example as the model sees it: the marked text and the answer its claims give."""
    mentions = find_quantities(text)
    answer: dict[str, dict[str, Any]] = {}
    for number, mention in enumerate(mentions, start=1):
        words = text[mention.start:mention.end]
        claim = next((c for c in claims if str(c.get("number", "")).strip() and
                      (str(c["number"]).strip() in words or words in str(c["number"]))), None)
        row: dict[str, Any] = {"kind": claim.get("kind", NONE) if claim else NONE}
        for field in info.fields:
            default = None if field.span or field.optional else (False if field.choices == (True, False) else field.choices[0])
            row[field.name] = claim.get(field.name, default) if claim else default
        answer[str(number)] = row
    return mark_text(text, mentions), json.dumps({"c": answer}, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=32)
def system_prompt(info: SchemaInfo) -> str:
    """The system prompt of a schema of your own (the same for every text, so the server reuses it)."""
    fields = ", ".join([f'"kind": ...'] + [f'"{field.name}": ...' for field in info.fields])
    lines = [
        "You label the numbers of a text. Each number is marked before it, like [3].",
        *( [f"A claim is: {info.description}"] if info.description else []),
        f'Answer with compact JSON: {{"c": {{mark: {{{fields}}}}}}} for every mark, in order.',
        "Fields of a mark:",
        *_field_lines(info),
    ]
    for example in info.examples:
        marked, answer = _example_answer(info, example["text"], example.get("claims", []))
        lines += ["", "Example:", marked, answer]
    return "\n".join(lines) + "\n"


def render_messages(info: SchemaInfo, doc: ParsedDocument, nonce: Optional[str] = None) -> list[dict[str, str]]:
    """Chat messages for one text under a schema of your own."""
    system = system_prompt(info)
    if nonce:
        system = f"Request {nonce}.\n{system}"
    return [{"role": "system", "content": system}, {"role": "user", "content": mark_text(doc.text, doc.mentions)}]


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def answer_schema(info: SchemaInfo, n_mentions: int) -> dict[str, Any]:
    """The answer schema for a text with ``n_mentions`` marks."""
    mark: dict[str, Any] = {"kind": {"enum": [*info.kind.values, NONE]}}
    for field in info.fields:
        if field.span:
            mark[field.name] = {"anyOf": [{"type": "string"}, {"type": "null"}]}
        else:
            choice: dict[str, Any] = {"enum": list(field.choices)}
            mark[field.name] = {"anyOf": [choice, {"type": "null"}]} if field.optional else choice
    return _object({"c": _object({str(n): _object(dict(mark)) for n in range(1, n_mentions + 1)})})


def max_tokens(base: int, n_mentions: int) -> int:
    """Output tokens for a text's answer: the base plus room for every mark's fields."""
    return base + TOKENS_PER_MARK * n_mentions
