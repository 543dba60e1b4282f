"""The model's answer for one document: a Pydantic model built for the document's marks and
names. The JSON schema the server turns into a grammar is generated from it, and the same
model validates the answer, so the format has one definition.

The answer keeps compact keys (every output token costs about 0.1 s on the embedded model):
``s`` is the letter of the paper's system among the marked names (or null); ``e`` gives the
type of every typed name by its letter; ``c`` has one label per mark, keyed "1".."N" in
order: a kind, optionally followed by the letter of the name it is compared with
("speedup C"). Every key is fixed and in order, so the grammar is a single path (cheap to
sample) and the model can neither skip a mark nor point at a number or name not marked.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field, create_model

from paper_claims.model.prompt import name_marks
from paper_claims.parse.candidates import letters
from paper_claims.schemas import DocumentLabels, LabelKind, Mention, NameCode

_STRICT = ConfigDict(extra="forbid")


def _letter_pattern(names: Sequence[str]) -> str:
    """A regex alternation matching exactly the given mark letters (A..Z, AA..)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name[:-1], []).append(name[-1])
    parts = [f"{head}[{tails[0]}-{tails[-1]}]" for head, tails in groups.items()]
    return parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")"


def _choice(values: Sequence[str]) -> Any:
    return Literal[tuple(values)]  # type: ignore[valid-type]


def _label(names: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    """One mark's label: a kind, or (when there are names) a kind and an optional letter."""
    kinds = [kind.value for kind in LabelKind]
    if not names:
        return _choice(kinds), {}
    return str, {"pattern": f"^({'|'.join(kinds)})( {_letter_pattern(names)})?$"}


@lru_cache(maxsize=1024)
def answer_model(n_mentions: int, n_names: int = 0, typed: Optional[tuple[str, ...]] = None) -> type[BaseModel]:
    """The answer model of a document with ``n_mentions`` marks and ``n_names`` lettered names,
    of which ``typed`` (default all) get a type."""
    names = letters(n_names)
    typed_names = names if typed is None else [letter for letter in names if letter in set(typed)]
    fields: dict[str, Any] = {
        "s": (Optional[_choice(names)], ...) if names else (None, ...),
    }
    if typed_names:
        codes = _choice([code.value for code in NameCode])
        types = create_model("Types", __config__=_STRICT, **{letter: (codes, ...) for letter in typed_names})
        fields["e"] = (types, ...)
    if n_mentions:  # with no marks there is nothing to label: no "c" at all
        kind, constraints = _label(names)
        marks = {f"m{n}": (kind, Field(..., alias=str(n), **constraints)) for n in range(1, n_mentions + 1)}
        fields["c"] = (create_model("Marks", __config__=_STRICT, **marks), ...)
    return create_model("Answer", __config__=_STRICT, **fields)


_ORDER = ("type", "anyOf", "enum", "pattern", "properties", "required", "additionalProperties")


def _compact(node: Any, defs: dict[str, Any]) -> Any:
    """The schema without what a grammar does not need (titles, defaults, $refs inlined,
    ``type`` beside ``enum``), keys in a fixed order."""
    if isinstance(node, list):
        return [_compact(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _compact(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    out = {key: _compact(value, defs) if key != "properties" else {k: _compact(v, defs) for k, v in value.items()}
           for key, value in node.items() if key not in ("title", "default", "$defs", "description")}
    if "enum" in out:
        out.pop("type", None)
    if "const" in out:  # a one-letter choice: an enum of one, as for more letters
        out["enum"] = [out.pop("const")]
        out.pop("type", None)
    return {key: out[key] for key in sorted(out, key=lambda k: _ORDER.index(k) if k in _ORDER else len(_ORDER))}


@lru_cache(maxsize=1024)
def answer_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of an answer model, as the server's grammar needs it."""
    schema = model.model_json_schema(by_alias=True)
    return _compact(schema, schema.get("$defs", {}))


def for_document(text: str, mentions: Sequence[Mention]) -> type[BaseModel]:
    """The answer model of one document: its marks, its name letters, the names to type."""
    marks = name_marks(text, mentions)
    return answer_model(len(mentions), len(marks), tuple(m.letter for m in marks if not m.compared))


def to_labels(answer: BaseModel) -> DocumentLabels:
    """A validated answer as the document-independent ``DocumentLabels`` grounding reads."""
    return DocumentLabels.model_validate(answer.model_dump(mode="json", by_alias=True))


def labels_schema(n_mentions: int, n_names: int = 0, typed: Optional[Sequence[str]] = None) -> dict[str, Any]:
    """The answer schema of a document shape (``answer_schema(answer_model(...))``)."""
    return answer_schema(answer_model(n_mentions, n_names, None if typed is None else tuple(typed)))
