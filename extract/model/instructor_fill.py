"""Filling a schema directly (instructor's way), for endpoints that serve strong models: the
model reads the whole text and returns a list of claims in the schema's shape, each with the
words of its number; grounding then finds every number and span in the text (``--fill
instructor``). The embedded small model keeps the marks-and-labels path by default.

The response model is generated from the schema class: ``{"claims": [{"number": words of the
number, "kind": one of the kinds, <span field>: words or null, <plain field>: a value}]}``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from paper_claims.parse.document import ParsedDocument
from paper_claims.schemas import SchemaInfo

NUMBER_HELP = "the number exactly as the text writes it, with its unit (\"2.5 GPa\", \"3x\", \"71.3%\")"


class FilledAnswer(BaseModel):
    """A filled answer: the claims the model listed (checked against the response model)."""

    model_config = ConfigDict(extra="ignore")

    claims: list[dict[str, Any]] = Field(default_factory=list)


@lru_cache(maxsize=32)
def fill_model(info: SchemaInfo) -> type[BaseModel]:
    """The response model instructor validates the answer with (generated from the schema)."""
    fields: dict[str, Any] = {
        "number": (str, Field(..., description=NUMBER_HELP)),
        "kind": (Literal[info.kind.values], Field(..., description=info.kind.description or "the kind of claim")),  # type: ignore[valid-type]
    }
    for field in info.fields:
        if field.span:
            fields[field.name] = (Optional[str], Field(None, description=(field.description or field.name)
                                                       + " (words of the text, or null)"))
        else:
            annotation: Any = Literal[field.choices]  # type: ignore[valid-type]
            if field.optional:
                annotation = Optional[annotation]
            fields[field.name] = (annotation, Field(..., description=field.description or field.name))
    item = create_model(f"{info.name}Item", __config__=ConfigDict(extra="forbid"), **fields)
    filled: type[BaseModel] = create_model(f"{info.name}Claims", __config__=ConfigDict(extra="forbid"),
                                           claims=(list[item], Field(default_factory=list)))  # type: ignore[valid-type]
    filled.__doc__ = f"Every claim of the text: {info.description}"
    return filled


def _inline(schema: Any, defs: dict[str, Any]) -> Any:
    """A JSON schema with its ``$ref``s to ``$defs`` replaced by the definitions (servers that
    turn a schema into a grammar do not all follow references)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline(v, defs) for v in schema]
    return schema


@lru_cache(maxsize=32)
def _response_schema_json(info: SchemaInfo) -> str:
    schema = fill_model(info).model_json_schema()
    return json.dumps(_inline(schema, schema.get("$defs", {})))  # in declaration order: number first


def response_schema(info: SchemaInfo) -> dict[str, Any]:
    """The response model's JSON schema, references inlined (part of the cache key)."""
    return json.loads(_response_schema_json(info))  # type: ignore[no-any-return]


@lru_cache(maxsize=32)
def system_prompt(info: SchemaInfo) -> str:
    """The instructions: what a claim is, its fields, the few-shot examples as JSON."""
    lines = ["Extract every claim of the text as JSON: {\"claims\": [...]}, one object per claim, in reading order.",
             *( [f"A claim is: {info.description}"] if info.description else []),
             f"- number: {NUMBER_HELP}",
             f"- kind: {info.kind.description.rstrip('.') + '. ' if info.kind.description else ''}"
             f"One of {', '.join(json.dumps(v) for v in info.kind.values)}"]
    for field in info.fields:
        about = field.description.rstrip(".") + ". " if field.description else ""
        if field.span:
            lines.append(f"- {field.name}: {about}The exact words of the text, or null.")
        else:
            lines.append(f"- {field.name}: {about}One of {', '.join(json.dumps(v) for v in field.choices)}.")
    lines.append("A number that is not a claim is left out. Copy words; never write words the text does not have.")
    for example in info.examples:
        claims = [{k: v for k, v in claim.items()} for claim in example.get("claims", [])]
        lines += ["", "Example:", example["text"], json.dumps({"claims": claims}, ensure_ascii=False)]
    return "\n".join(lines) + "\n"


def render_messages(info: SchemaInfo, doc: ParsedDocument, nonce: Optional[str] = None) -> list[dict[str, str]]:
    """Chat messages for one text, filled directly."""
    system = system_prompt(info)
    if nonce:
        system = f"Request {nonce}.\n{system}"
    return [{"role": "system", "content": system}, {"role": "user", "content": doc.text}]


def as_answer(value: Union[BaseModel, dict[str, Any]]) -> FilledAnswer:
    """A validated response (or its cached JSON) as the answer grounding reads."""
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    return FilledAnswer.model_validate(data)
