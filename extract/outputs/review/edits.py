"""A reviewer's edits checked: new words of the text, edited fields, a claim complete and
grounded, no two claims sharing words, document lists whose new names are words of the text."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import ValidationError

from paper_claims.errors import ReviewError
from paper_claims.outputs.review.docs import CLAIM_KEYS, LIST_FIELDS, DocState, Row, as_offset
from paper_claims.outputs.review.spans import grounded_name, span_claim
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.document import parse_text
from paper_claims.rules.spans import locate
from paper_claims.schemas import Claim, Kind, Qualifier, SchemaClaim

MAX_METRIC = 300


def edited(doc: DocState, claim: Row, changes: dict[str, Any], span: Optional[tuple[int, int]],
            claim_id: Optional[str]) -> Row:
    """The claim with new words (span: value, unit, qualifier, evidence, offsets from the parser)
    and edited fields, every field checked."""
    schema = doc.schema
    unknown = sorted(set(changes) - set(schema.editable))
    if unknown:
        raise ReviewError(f"cannot edit {', '.join(unknown)}: value, unit and evidence change only by "
                          "choosing other words of the text")
    after = dict(claim)
    if span is not None:
        words = span_claim(doc.text, *span)
        after.update({k: words[k] for k in ("value", "value_high", "unit", "qualifier", "evidence", "start", "end")})
        if claim_id is None and "metric" not in changes and schema.builtin:
            after["metric"] = words["metric"]
        check_overlap(doc, after, claim_id)
    if not schema.builtin:
        return _edited_fields(doc, after, changes)
    known = doc.known_names()
    for key, value in changes.items():
        if key == "kind":
            after["kind"] = _enum(Kind, value, "kind")
        elif key == "qualifier":
            after["qualifier"] = None if value in (None, "") else _enum(Qualifier, value, "qualifier")
        elif key == "metric":
            metric = " ".join(str(value or "").split()) or None
            if metric and len(metric) > MAX_METRIC:
                raise ReviewError(f"metric is longer than {MAX_METRIC} characters")
            after["metric"] = metric
        else:
            after[key] = grounded_name(doc.text, key, value, known=known)
    if "hardware" in changes:
        after["hardware_canonical"] = canonical_hardware(after["hardware"])
    return valid_claim(doc, after)


def _edited_fields(doc: DocState, after: Row, changes: dict[str, Any]) -> Row:
    """A custom schema's claim with edited fields: a kind of the schema, span fields that are
    words of the text (found nearest the claim's number, with their offsets), plain fields
    among their values."""
    schema, choices = doc.schema, dict(doc.schema.choices)
    start, end = as_offset(after.get("start")), as_offset(after.get("end"))
    for key, value in changes.items():
        if key == "kind":
            if value not in schema.kinds:
                raise ReviewError(f"kind {value!r} is not one of {', '.join(schema.kinds)}")
            after["kind"] = value
        elif key in schema.spans:
            words = " ".join(str(value or "").split())
            place = locate(parse_text(doc.text), words, start, end) if words else None
            if words and place is None:
                raise ReviewError(f"{key} {words!r} is not words of the text; select words of the text")
            after[key] = doc.text[place[0]:place[1]] if place else None
            after[f"{key}_start"], after[f"{key}_end"] = place if place else (None, None)
        else:
            match = [c for c in choices[key] if c == value or (c is not None and str(c).lower() == str(value).lower())]
            if not match:
                raise ReviewError(f"{key} {value!r} is not one of {', '.join(str(c) for c in choices[key])}")
            after[key] = match[0]
    for name, values in schema.choices:  # a claim added by a reviewer starts with each field's first value
        if after.get(name) is None and None not in values:
            after[name] = values[0]
    return valid_claim(doc, after)


def _enum(enum: Any, value: Any, name: str) -> str:
    try:
        return str(enum(value).value)
    except ValueError:
        raise ReviewError(f"{name} {value!r} is not one of {', '.join(e.value for e in enum)}") from None


def valid_claim(doc: DocState, row: Optional[Row]) -> Row:
    """A complete claim, grounded in the document's text."""
    if row is None:
        raise ReviewError("a claim is missing")
    if not doc.schema.builtin:
        return _valid_schema_claim(doc, row)
    try:
        claim = Claim.model_validate({k: row.get(k) for k in CLAIM_KEYS})
        claim.check_grounded(doc.text)
    except (ValidationError, ValueError) as exc:
        raise ReviewError(f"not a grounded claim: {' '.join(str(exc).split())[:200]}") from None
    return claim.model_dump(mode="json")


def _valid_schema_claim(doc: DocState, row: Row) -> Row:
    """A complete claim of a custom schema: its number and every span grounded in the text."""
    schema = doc.schema
    values = {k: row.get(k) for k in schema.keys}
    if values.get("kind") not in schema.kinds:
        raise ReviewError(f"not a claim of this schema: kind {values.get('kind')!r}")
    try:
        claim = SchemaClaim.model_validate(values)
    except ValidationError as exc:
        raise ReviewError(f"not a grounded claim: {' '.join(str(exc).split())[:200]}") from None
    spans = [("evidence", claim.start, claim.end)] + [(name, values.get(f"{name}_start"), values.get(f"{name}_end"))
                                                       for name in schema.spans if values.get(name) is not None]
    for name, start, end in spans:
        if not isinstance(start, int) or not isinstance(end, int) or doc.text[start:end] != values.get(name):
            raise ReviewError(f"not a grounded claim: {name} {values.get(name)!r} is not text[{start}:{end}]")
    return values


def check_overlap(doc: DocState, row: Row, claim_id: Optional[str]) -> None:
    """Two claims that are not rejected may not share words of the text."""
    start, end = as_offset(row.get("start")), as_offset(row.get("end"))
    for other in doc.claims.values():
        if other.id == claim_id or other.status == "rejected":
            continue
        o_start, o_end = as_offset(other.current.get("start")), as_offset(other.current.get("end"))
        if start < o_end and o_start < end:
            raise ReviewError(f"those words overlap the claim {other.current.get('evidence')!r}; "
                              "edit or reject that claim instead")


def checked_lists(doc: DocState, lists: Optional[Row]) -> Row:
    """Document lists (system, datasets, hardware, models) whose new names are words of the text."""
    if not isinstance(lists, dict):
        raise ReviewError("document lists are missing")
    unknown = sorted(set(lists) - set(LIST_FIELDS))
    if unknown:
        raise ReviewError(f"unknown document list(s): {', '.join(unknown)}")
    known = doc.known_names()
    result = dict(doc.lists)
    if "system" in lists:
        result["system"] = grounded_name(doc.text, "system", lists["system"], known=known)
    for key in LIST_FIELDS[1:]:
        if key in lists:
            values = lists[key]
            if not isinstance(values, list):
                raise ReviewError(f"{key} must be a list of names")
            names = [grounded_name(doc.text, key, v, known=known) for v in values]
            result[key] = list(dict.fromkeys(n for n in names if n))
    return result
