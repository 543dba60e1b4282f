"""Turn model labels plus parser mentions into claims that cannot hold a number not in the text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from extract.canonical import canonical_hardware
from extract.entities import find_hardware
from schemas import Claim, ClaimLabel, DocumentLabels, Kind, LabelKind, Mention


@dataclass
class Grounded:
    """Claims and document lists that survived grounding, and how many answers did not."""

    system: Optional[str] = None
    datasets: list[str] = field(default_factory=list)
    hardware: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    dropped: int = 0


_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def find_name(name: Optional[str], text: str) -> Optional[str]:
    """The name as written in ``text`` (exact, or ignoring case and punctuation), else None.

    Matches whole words only: "GPT-4" is not found inside "GPT-4o".
    """
    if not name or not name.strip():
        return None
    name = name.strip()
    exact = re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", text)
    if exact:
        return exact.group(0)
    tokens = _TOKEN.findall(name)
    if not tokens:
        return None
    pattern = r"[\W_]*".join(re.escape(token) for token in tokens)
    closing = r"\)?" if name.endswith(")") else ""
    match = re.search(rf"(?<![^\W_]){pattern}{closing}(?![^\W_])", text, flags=re.IGNORECASE)
    return match.group(0) if match else None


def _names(values: Sequence[str], text: str) -> tuple[list[str], int]:
    kept: list[str] = []
    dropped = 0
    for value in values:
        found = find_name(value, text)
        if found is None:
            dropped += 1
        elif found not in kept:
            kept.append(found)
    return kept, dropped


def _claim(label: ClaimLabel, mention: Mention, text: str) -> tuple[Claim, int]:
    dropped = 0
    fields: dict[str, Optional[str]] = {}
    for key, value in (("dataset", label.d), ("hardware", label.h), ("model", label.mo)):
        found = find_name(value, text)
        if value and found is None:
            dropped += 1
        fields[key] = found
    claim = Claim(
        kind=Kind(label.k.value),
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=(label.m or "").strip() or None,
        dataset=fields["dataset"],
        hardware=fields["hardware"],
        hardware_canonical=canonical_hardware(fields["hardware"]),
        model=fields["model"],
        baseline=(label.b or "").strip() or None,
        evidence=text[mention.start : mention.end],
        start=mention.start,
        end=mention.end,
    )
    claim.check_grounded(text)
    return claim, dropped


def merge_names(*groups: Sequence[str]) -> list[str]:
    """Names of all groups in order, without repeats or names contained in a longer one."""
    names: list[str] = []
    for group in groups:
        for name in group:
            if name.lower() not in (n.lower() for n in names):
                names.append(name)
    lowered = [n.lower() for n in names]
    return [n for n, low in zip(names, lowered) if not any(low != o and low in o for o in lowered)]


def ground(text: str, mentions: Sequence[Mention], labels: DocumentLabels) -> Grounded:
    """Claims whose numbers, offsets and evidence all come from the parser's mentions.

    A label that points at no mention is dropped and counted; names that do not
    occur in the text are dropped and counted.
    """
    result = Grounded()
    result.system = find_name(labels.s, text)
    result.datasets, d1 = _names(labels.d, text)
    model_hardware, d2 = _names(labels.h, text)
    result.hardware = merge_names(find_hardware(text), model_hardware)
    result.models, d3 = _names(labels.mo, text)
    result.dropped = d1 + d2 + d3 + (1 if labels.s and result.system is None else 0)
    seen: set[int] = set()
    for label in labels.c:
        if label.k == LabelKind.none:
            continue
        if not 1 <= label.n <= len(mentions) or label.n in seen:
            result.dropped += 1
            continue
        seen.add(label.n)
        claim, dropped = _claim(label, mentions[label.n - 1], text)
        result.claims.append(claim)
        result.dropped += dropped
    result.claims.sort(key=lambda claim: claim.start)
    return result
