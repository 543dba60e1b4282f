"""What a custom schema's answer keeps (and what any schema filled directly keeps): each
claim stands on a number the parser measured, with its value, unit, offsets and evidence; span
fields are words of the text found nearest that number (``rules.spans``). Labels of marks that
do not exist, kinds outside the schema, values outside a field's choices, numbers and words
that are not in the text are dropped and counted."""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.rules.metric import metric_of
from paper_claims.rules.spans import locate
from paper_claims.schemas import Claim, Kind, Mention, SchemaClaim, SchemaInfo
from paper_claims.schemas.claim_schema import NO_CLAIM
_DIGITS = re.compile(r"\d[\d,.]*")


def _number_row(mention: Mention, kind: str) -> dict[str, Any]:
    return {"kind": kind, "value": mention.value, "value_high": mention.value_high, "unit": mention.unit,
            "qualifier": mention.qualifier.value if mention.qualifier else None}


def _place(doc: ParsedDocument, value: Any, mention: Mention) -> tuple[Optional[tuple[int, int]], bool]:
    """Where a span field's words stand (nearest the number), and whether words were dropped."""
    place = locate(doc, value, mention.start, mention.end) if isinstance(value, str) else None
    return place, value is not None and place is None


def _with_span(row: dict[str, Any], text: str, name: str, place: Optional[tuple[int, int]]) -> None:
    row[name] = text[place[0]:place[1]] if place else None
    row[f"{name}_start"], row[f"{name}_end"] = place if place else (None, None)


def schema_claims(info: SchemaInfo, doc: ParsedDocument,
                  labels: dict[str, dict[str, Any]]) -> tuple[list[SchemaClaim], int]:
    """The claims of the marks the model gave a kind of the schema (not "none"), and how many
    labels or words were dropped."""
    text, mentions = doc.text, doc.mentions
    claims, dropped = [], 0
    kinds = set(info.kind.values)
    for key, label in labels.items():
        number = int(key) if key.isdigit() else 0
        if not 1 <= number <= len(mentions) or not isinstance(label, dict):
            dropped += 1
            continue
        kind = label.get("kind")
        if kind == NO_CLAIM:
            continue
        if kind not in kinds:
            dropped += 1
            continue
        mention = mentions[number - 1]
        row = _number_row(mention, kind)
        for field in info.fields:
            value = label.get(field.name)
            if field.span:
                place, lost = _place(doc, value, mention)
                dropped += lost
                _with_span(row, text, field.name, place)
            elif value in field.choices or (value is None and field.optional):
                row[field.name] = value
            else:
                dropped += 1
                row[field.name] = None
        row.update(evidence=text[mention.start:mention.end], start=mention.start, end=mention.end)
        claims.append(SchemaClaim.model_validate(row))
    claims.sort(key=lambda claim: (claim.start, claim.end))
    return claims, dropped


def number_mention(doc: ParsedDocument, mentions: Sequence[Mention], words: Any, used: set[int]) -> Optional[Mention]:
    """The parser's mention a filled claim's number words stand for: one that overlaps where
    the words stand in the text (else where their first figure stands), not taken yet."""
    text = doc.text
    if not isinstance(words, str) or not words.strip():
        return None
    first = _DIGITS.search(words)
    for probe in (words.strip(), *([first.group()] if first else [])):
        at = text.find(probe)
        while at >= 0:
            end = at + len(probe)
            hit = next((m for m in mentions if m.start < end and at < m.end and m.start not in used), None)
            if hit is not None:
                return hit
            at = text.find(probe, at + 1)
    return None


def filled_claims(info: SchemaInfo, doc: ParsedDocument,
                  items: Sequence[dict[str, Any]]) -> tuple[list[Any], int]:
    """The claims of a schema filled directly: a claim is kept when its kind is the schema's
    and its number words stand in the text on a number the parser measured. The built-in
    schema's claims are ``Claim`` rows (metric by its rule, canonical hardware)."""
    text, mentions = doc.text, doc.mentions
    claims: list[Any] = []
    dropped, used = 0, set()  # type: ignore[var-annotated]
    kinds = set(info.kind.values)
    for item in items:
        kind = item.get("kind")
        mention = number_mention(doc, mentions, item.get("number"), used) if kind in kinds else None
        if mention is None:
            dropped += 1
            continue
        used.add(mention.start)
        row = _number_row(mention, str(kind))
        for field in info.fields:
            if field.span:
                place, lost = _place(doc, item.get(field.name), mention)
                dropped += lost
                _with_span(row, text, field.name, place)
            else:
                row[field.name] = item.get(field.name)
        evidence = {"evidence": text[mention.start:mention.end], "start": mention.start, "end": mention.end}
        if info.builtin:
            hardware = row.get("hardware")
            claims.append(Claim(
                kind=Kind(kind), value=mention.value, value_high=mention.value_high, unit=mention.unit,
                qualifier=mention.qualifier, metric=metric_of(doc, mention), dataset=row.get("dataset"),
                hardware=hardware, hardware_canonical=canonical_hardware(hardware), model=row.get("model"),
                baseline=row.get("baseline"), **evidence))
        else:
            claims.append(SchemaClaim.model_validate({**row, **evidence}))
    claims.sort(key=lambda claim: (claim.start, claim.end))
    return claims, dropped
