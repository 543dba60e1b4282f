"""A claim schema: the Pydantic model a user writes to say what a claim is.

```python
class Measurement(ClaimSchema):
    \"\"\"A measured quantity in a materials-science paragraph.\"\"\"
    kind: Literal["count", "measurement"] = Field(description="count: a number of things; ...")
    entity: Optional[Span] = Field(None, description="the thing that is measured")
    property: Optional[Span] = Field(None, description="what about it is measured")
    mean: bool = Field(False, description="the number is a mean or average")
```

The parser gives every claim its number: value, range, unit, qualifier, evidence and offsets
(``PARSER_FIELDS``; a schema cannot declare them). A schema declares ``kind`` (a ``Literal``
of strings or a string ``Enum``), text-span fields (``Span`` or ``Optional[Span]``: words of
the text, found in it with their offsets, so grounded by construction) and plain fields the
model fills (``bool``, a ``Literal`` or ``Enum``, optional or not). The class docstring and the
field descriptions are the prompt's definitions; ``examples`` (optional, data) are few-shot
examples. ``describe`` checks a schema before any run and says, in one line, which field
cannot work and why.
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import types
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from paper_claims.errors import ClaimsError

NO_CLAIM = "none"  # the model's kind for a number that is no claim (no schema may name a kind so)
PARSER_FIELDS = ("value", "value_high", "unit", "qualifier", "evidence", "start", "end")
# names the outputs give every row or use for the built-in schema's rows
RESERVED = ("doc_id", "hardware_canonical", "sentence")


class SchemaError(ClaimsError, ValueError):
    """A claim schema the toolkit cannot fill or ground, or cannot load (the message names the
    field or the file, and why)."""


class Span(BaseModel):
    """Words of the text: exactly ``text[start:end]``."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class ClaimSchema(BaseModel):
    """Base of a claim schema (see the module's docstring)."""

    examples: ClassVar[list[dict[str, Any]]] = []
    """Few-shot examples: ``{"text": "...", "claims": [{"number": "2.5 GPa", "kind": "...",
    "entity": "...", ...}]}``; ``number`` is the words of the number as the text writes them,
    a span field is the words of the text; a number not listed is not a claim."""
    prompt_file: ClassVar[Optional[str]] = None
    """A packaged prompt file that replaces the generated system prompt (the built-in schema's)."""


@dataclass(frozen=True)
class KindInfo:
    """The kinds of a schema, in order, with what the schema says of them."""

    name: str
    values: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class FieldInfo:
    """One field the model fills: a text span or a plain choice."""

    name: str
    span: bool
    choices: tuple[Any, ...]  # for a plain field: its values (True/False for a bool)
    optional: bool
    description: str


@dataclass(frozen=True, eq=False)  # one per class (``describe`` is cached): compared and hashed by identity
class SchemaInfo:
    """What a schema class asks for, checked: its kinds, its fields, its few-shot examples."""

    cls: type
    name: str
    description: str
    kind: KindInfo
    fields: tuple[FieldInfo, ...]
    examples: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def builtin(self) -> bool:
        return getattr(self.cls, "prompt_file", None) is not None

    def columns(self) -> list[str]:
        """The claim columns of this schema: the parser's, then the schema's fields (a span as
        its words, start and end), then the evidence and its offsets, then its sentence and
        the sentence's offsets."""
        return list(self.column_types())

    def column_types(self) -> dict[str, str]:
        """The claim columns with their contract types (``schemas/columns.py``): the built-in
        schema's contract, or the parser's columns, the schema's fields, the evidence and its
        sentence."""
        from paper_claims.schemas.columns import BOOLEAN, CLAIM_COLUMN_TYPES, INTEGER, REAL, SENTENCE_COLUMN_TYPES, TEXT

        if self.builtin:
            return dict(CLAIM_COLUMN_TYPES)
        types = {"doc_id": TEXT, "kind": TEXT, "value": REAL, "value_high": REAL, "unit": TEXT, "qualifier": TEXT}
        for info in self.fields:
            if info.span:
                types.update({info.name: TEXT, f"{info.name}_start": INTEGER, f"{info.name}_end": INTEGER})
            elif all(isinstance(c, bool) for c in info.choices):
                types[info.name] = BOOLEAN
            elif all(isinstance(c, int) for c in info.choices):
                types[info.name] = INTEGER
            else:
                types[info.name] = TEXT
        return {**types, "evidence": TEXT, "start": INTEGER, "end": INTEGER, **SENTENCE_COLUMN_TYPES}

    def manifest(self) -> Optional[dict[str, Any]]:
        """What an output folder records of its schema (``schema.json``): the report, review
        and evaluation read its kinds and fields from there (None for the built-in schema, which
        they know)."""
        if self.builtin:
            return None
        return {"name": self.name, "description": self.description, "kinds": list(self.kind.values),
                "fields": [{"name": f.name, "span": f.span, "choices": list(f.choices), "optional": f.optional,
                            "description": f.description} for f in self.fields],
                "columns": self.columns(), "spec": schema_spec(self.cls)}

    def fingerprint(self) -> str:
        """A hash of everything the schema says (names, kinds, descriptions, examples)."""
        payload = {"name": self.name, "description": self.description,
                   "kind": [self.kind.name, list(self.kind.values), self.kind.description],
                   "fields": [[f.name, f.span, [str(c) for c in f.choices], f.optional, f.description]
                              for f in self.fields],
                   "examples": list(self.examples)}
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin is Union or (hasattr(types, "UnionType") and origin is getattr(types, "UnionType")):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], len(args) < len(typing.get_args(annotation))
    return annotation, False


def _choices(annotation: Any) -> Optional[tuple[Any, ...]]:
    """The values of a Literal of strings/bools/ints or of an Enum; None for anything else."""
    if typing.get_origin(annotation) is Literal:
        values = typing.get_args(annotation)
        if values and all(isinstance(v, (str, bool, int)) for v in values):
            return tuple(values)
        return None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(member.value for member in annotation)
    if annotation is bool:
        return (True, False)
    return None


def _doc(obj: Any) -> str:
    text = (getattr(obj, "__doc__", None) or "").strip()
    return " ".join(text.split())


@lru_cache(maxsize=64)
def describe(cls: type) -> SchemaInfo:
    """Check a claim schema and say what it asks for; ``SchemaError`` (one line, naming the
    field and why) for one that cannot work."""
    name = getattr(cls, "__name__", repr(cls))
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise SchemaError(f"{name} is not a claim schema: derive it from paper_claims.ClaimSchema (a Pydantic model)")
    fields = cls.model_fields
    if "kind" not in fields:
        raise SchemaError(f"{name} has no kind field: add kind: Literal[...] (or an Enum) with the kinds of claim")
    kind_annotation, _ = _strip_optional(fields["kind"].annotation)
    kinds = _choices(kind_annotation)
    if not kinds or kind_annotation is bool or not all(isinstance(v, str) for v in kinds):
        raise SchemaError(f"{name}.kind: {_type_name(fields['kind'].annotation)} is not a Literal of strings or a "
                          "string Enum; the model chooses a claim's kind among them")
    if NO_CLAIM in kinds:
        raise SchemaError(f"{name}.kind: 'none' is the model's answer for a number that is no claim; "
                          "choose another name for that kind")
    kind_doc = fields["kind"].description or ""
    if not kind_doc and isinstance(kind_annotation, type) and issubclass(kind_annotation, enum.Enum) \
            and _doc(kind_annotation) != _doc(enum.Enum):
        kind_doc = _doc(kind_annotation)  # the Enum's docstring when the field has no description
    infos = []
    for field_name, spec in fields.items():
        if field_name == "kind":
            continue
        if field_name in PARSER_FIELDS:
            raise SchemaError(f"{name}.{field_name}: the parser fills {field_name} for every claim "
                              f"({', '.join(PARSER_FIELDS)}); leave it out of the schema")
        if field_name in RESERVED or field_name.endswith(("_start", "_end")):
            raise SchemaError(f"{name}.{field_name}: the name is taken by the output columns; choose another")
        annotation, optional = _strip_optional(spec.annotation)
        description = spec.description or ""
        if annotation is Span:
            infos.append(FieldInfo(field_name, True, (), True, description))
            continue
        choices = _choices(annotation)
        if choices is None:
            raise SchemaError(f"{name}.{field_name}: {_type_name(spec.annotation)} is not a field the toolkit can fill "
                              "or ground; use Span (words of the text), bool, a Literal or an Enum")
        infos.append(FieldInfo(field_name, False, choices, optional, description))
    examples = tuple(getattr(cls, "examples", ()) or ())
    for number, example in enumerate(examples, start=1):
        if not isinstance(example, dict) or not isinstance(example.get("text"), str) or \
                not isinstance(example.get("claims", []), list):
            raise SchemaError(f"{name}.examples[{number}]: an example is {{'text': str, 'claims': [dict, ...]}}")
    return SchemaInfo(cls, name, _doc(cls) if cls.__doc__ else "", KindInfo("kind", tuple(kinds), kind_doc),
                      tuple(infos), examples)


def _type_name(annotation: Any) -> str:
    if typing.get_args(annotation):
        return str(annotation).replace("typing.", "")
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def load_schema(spec: Union[str, type]) -> type:
    """A schema class from ``package.module:Class`` or ``path/to/file.py:Class`` (or the class
    itself); ``SchemaError`` when it cannot be loaded. The class remembers its spec, so a
    worker process can load it again."""
    if isinstance(spec, type):
        return spec
    where, _, name = str(spec).rpartition(":")
    if not where or not name:
        raise SchemaError(f"schema {spec!r}: write it as package.module:Class or path/to/file.py:Class")
    try:
        if where.endswith(".py") or "/" in where or "\\" in where:
            module = _module_from_file(Path(where).expanduser())
        else:
            module = _import(where)
    except SchemaError:
        raise
    except Exception as e:  # the user's module failed to import: say what and where
        raise SchemaError(f"schema {spec!r}: cannot import {where}: {type(e).__name__}: {e}") from e
    cls = getattr(module, name, None)
    if cls is None:
        raise SchemaError(f"schema {spec!r}: {where} has no {name}")
    if isinstance(cls, type):
        cls.__claims_spec__ = str(spec)  # type: ignore[attr-defined]
    return cls  # type: ignore[no-any-return]


def _import(name: str) -> Any:
    """The module ``name``, also from the working folder, as ``python -m`` finds it (the
    ``claims`` script's path starts at its own folder)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        here = os.getcwd()
        if not e.name or not (name == e.name or name.startswith(e.name + ".")) or here in sys.path:
            raise  # a module the user's module imports is missing, or the folder was searched
        sys.path.append(here)
        importlib.invalidate_caches()
        return importlib.import_module(name)


def _module_from_file(path: Path) -> Any:
    if not path.is_file():
        raise SchemaError(f"schema file {path} does not exist")
    resolved = path.resolve()
    module_name = "paper_claims_schema_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    if module_name in sys.modules:
        return sys.modules[module_name]
    loader_spec = importlib.util.spec_from_file_location(module_name, resolved)
    if loader_spec is None or loader_spec.loader is None:
        raise SchemaError(f"schema file {path} cannot be loaded as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def schema_spec(cls: type) -> Optional[str]:
    """How a worker process loads ``cls`` again: its spec, or ``module:Class`` when importable."""
    spec = getattr(cls, "__claims_spec__", None)
    if spec:
        return str(spec)
    module = getattr(cls, "__module__", "")
    if module and module != "__main__" and not module.startswith("paper_claims_schema_"):
        return f"{module}:{cls.__qualname__}"
    return None


class SchemaClaim(BaseModel):
    """A claim of a custom schema, as the outputs hold it: the parser's number and the
    schema's fields flattened into columns (a span as ``name``, ``name_start``, ``name_end``)."""

    model_config = ConfigDict(extra="allow")

    kind: str
    value: float
    value_high: Optional[float] = None
    unit: Optional[str] = None
    qualifier: Optional[str] = None
    evidence: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
