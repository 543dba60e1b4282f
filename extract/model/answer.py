"""The model's answer for one document: its JSON schema, which the server turns into a
grammar, is the one definition; the Pydantic model that validates an answer is generated
from that schema (only when an answer arrives), so the two cannot drift.

The answer keeps compact keys (every output token costs about 0.1 s on the embedded model):
``s`` is the letter of the paper's system among the marked names (or null); ``e`` gives the
type of every typed name by its letter; ``c`` has one label per mark, keyed "1".."N" in
order: a kind, optionally followed by the letter of the name it is compared with
("speedup C"). Every key is fixed and in order, so the grammar is a single path (cheap to
sample) and the model can neither skip a mark nor point at a number or name not marked.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Literal, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field, create_model

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import letters
from paper_claims.schemas import DocumentLabels, LabelKind, NameCode
from paper_claims.text import canonical_json


def _letter_pattern(names: Sequence[str]) -> str:
    """A regex alternation matching exactly the given mark letters (A..Z, AA..)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name[:-1], []).append(name[-1])
    parts = [f"{head}[{tails[0]}-{tails[-1]}]" for head, tails in groups.items()]
    return parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")"


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def labels_schema(n_mentions: int, n_names: int = 0, typed: Optional[Sequence[str]] = None) -> dict[str, Any]:
    """The answer schema of a document with ``n_mentions`` marks and ``n_names`` lettered
    names, of which ``typed`` (default all) get a type."""
    names = letters(n_names)
    typed_names = names if typed is None else [letter for letter in names if letter in set(typed)]
    kinds = [kind.value for kind in LabelKind]
    properties: dict[str, Any] = {
        "s": {"anyOf": [{"enum": names}, {"type": "null"}]} if names else {"type": "null"},
    }
    if typed_names:
        codes = [code.value for code in NameCode]
        properties["e"] = _object({letter: {"enum": codes} for letter in typed_names})
    if n_mentions:  # with no marks there is nothing to label: no "c" at all
        label: dict[str, Any] = {"enum": kinds}
        if names:
            label = {"type": "string", "pattern": f"^({'|'.join(kinds)})( {_letter_pattern(names)})?$"}
        properties["c"] = _object({str(n): label for n in range(1, n_mentions + 1)})
    return _object(properties)


def for_document(doc: ParsedDocument) -> dict[str, Any]:
    """The answer schema of one document: its marks, its name letters, the names to type."""
    marks = doc.names
    return labels_schema(len(doc.mentions), len(marks), [m.letter for m in marks if not m.compared])


def conforms(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` (parsed JSON) is valid under ``schema`` (the subset ``labels_schema``
    writes: objects with required properties and nothing else, enums, null, patterns)."""
    if "anyOf" in schema:
        return any(conforms(part, value) for part in schema["anyOf"])
    if "enum" in schema:
        return any(type(value) is type(choice) and value == choice for choice in schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "string":
        return isinstance(value, str) and ("pattern" not in schema or re.search(schema["pattern"], value) is not None)
    if kind == "object":
        properties = schema["properties"]
        if not isinstance(value, dict) or any(key not in value for key in schema.get("required", ())):
            return False
        if schema.get("additionalProperties") is False and any(key not in properties for key in value):
            return False
        return all(conforms(properties[key], item) for key, item in value.items() if key in properties)
    raise ValueError(f"answer schema: unsupported {schema}")


def validate_answer(schema: dict[str, Any], content: str, answer_type: type[Any] = DocumentLabels) -> Any:
    """The labels of an answer to ``schema`` (an ``answer_type``: the built-in schema's
    ``DocumentLabels`` or a custom schema's answer); pydantic's ``ValidationError`` (from the
    model generated from the schema) for an answer that does not conform."""
    try:
        value = json.loads(content)
    except ValueError:
        pass  # not JSON: the generated model says so
    else:
        if conforms(schema, value):
            return answer_type.model_validate(value)
    return to_labels(answer_model(schema).model_validate_json(content), answer_type)


def answer_model(schema: dict[str, Any]) -> type[BaseModel]:
    """The Pydantic model that validates answers to ``schema`` (generated from it, cached)."""
    return _model_for(canonical_json(schema))


@lru_cache(maxsize=1024)
def _model_for(schema_json: str) -> type[BaseModel]:
    return _model("Answer", json.loads(schema_json))


def _model(name: str, schema: dict[str, Any]) -> type[BaseModel]:
    """A model for one of our object schemas: every property required, nothing else allowed."""
    fields: dict[str, Any] = {}
    for key, spec in schema["properties"].items():
        annotation, constraints = _field(key, spec)
        fields[f"f_{key}"] = (annotation, Field(..., alias=key, **constraints))
    return create_model(name, __config__=ConfigDict(extra="forbid", populate_by_name=False), **fields)


def _field(key: str, spec: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The annotation and constraints of one property (the subset ``labels_schema`` writes)."""
    if "anyOf" in spec:
        inner = [part for part in spec["anyOf"] if part.get("type") != "null"]
        annotation, constraints = _field(key, inner[0])
        return Optional[annotation], constraints
    if "enum" in spec:
        return Literal[tuple(spec["enum"])], {}  # type: ignore[valid-type]
    if spec.get("type") == "null":
        return type(None), {}
    if spec.get("type") == "object":
        return _model(key.upper(), spec), {}
    if spec.get("type") == "string":
        return str, ({"pattern": spec["pattern"]} if "pattern" in spec else {})
    if spec.get("type") == "boolean":
        return bool, {}
    raise ValueError(f"answer schema property {key!r}: unsupported {spec}")


def to_labels(answer: BaseModel, answer_type: type[Any] = DocumentLabels) -> Any:
    """A validated answer as the document-independent labels grounding reads
    (``DocumentLabels`` for the built-in schema)."""
    return answer_type.model_validate(answer.model_dump(mode="json", by_alias=True))
