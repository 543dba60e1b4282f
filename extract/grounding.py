"""Turn model labels plus parser mentions into claims that cannot hold a number not in the text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Sequence

from extract.canonical import canonical_hardware
from extract.entities import find_hardware
from extract.kinds import rule_kind
from extract.names import find_datasets, find_models, merge_names
from extract.prompting import sentence_spans
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


@lru_cache(maxsize=4096)
def _whole_word(name: str) -> "re.Pattern[str]":
    """A compiled pattern matching ``name`` as whole words (cached: names repeat)."""
    return re.compile(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])")


@lru_cache(maxsize=4096)
def _loose(name: str) -> "re.Pattern[str] | None":
    """``name`` ignoring case and punctuation between its word tokens."""
    tokens = _TOKEN.findall(name)
    if not tokens:
        return None
    pattern = r"[\W_]*".join(re.escape(token) for token in tokens)
    closing = r"\)?" if name.endswith(")") else ""
    return re.compile(rf"(?<![^\W_]){pattern}{closing}(?![^\W_])", re.IGNORECASE)


def find_name(name: Optional[str], text: str) -> Optional[str]:
    """The name as written in ``text`` (exact, or ignoring case and punctuation), else None.

    Matches whole words only: "GPT-4" is not found inside "GPT-4o".
    """
    if not name or not name.strip():
        return None
    name = name.strip()
    exact = _whole_word(name).search(text)
    if exact:
        return exact.group(0)
    loose = _loose(name)
    match = loose.search(text) if loose is not None else None
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


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets of the sentence around ``text[start:end]`` (the excerpt's sentence split)."""
    for left, right in sentence_spans(text):
        if left <= start < max(right, left + 1):
            return left, max(right, end)
    return 0, len(text)


def nearest_name(text: str, mention: Mention, names: Sequence[str]) -> Optional[str]:
    """The name of ``names`` that stands closest to the mention within its sentence."""
    left, right = _sentence(text, mention.start, mention.end)
    best: Optional[tuple[int, str]] = None
    for name in names:
        for match in _whole_word(name).finditer(text[left:right]):
            at = left + match.start()
            if mention.start <= at < mention.end:
                continue
            distance = mention.start - (at + len(name)) if at < mention.start else (at - mention.end) * 2
            if best is None or distance < best[0]:
                best = (distance, name)
    return best[1] if best else None


def _attribute(given: Optional[str], text: str, mention: Mention, names: Sequence[str]) -> tuple[Optional[str], int]:
    """A claim attribute: the model's value if it is in the text, else the nearest listed name."""
    found = find_name(given, text)
    if found is not None:
        return found, 0
    return nearest_name(text, mention, names), 1 if given else 0


def _claim(label: ClaimLabel, mention: Mention, text: str, lists: "Grounded") -> tuple[Claim, int]:
    dataset, d1 = _attribute(label.d, text, mention, lists.datasets)
    hardware, d2 = _attribute(label.h, text, mention, lists.hardware)
    model, d3 = _attribute(label.mo, text, mention, lists.models)
    claim = Claim(
        kind=rule_kind(text, mention) or Kind(label.k.value),
        value=mention.value,
        value_high=mention.value_high,
        unit=mention.unit,
        qualifier=mention.qualifier,
        metric=(label.m or "").strip() or None,
        dataset=dataset,
        hardware=hardware,
        hardware_canonical=canonical_hardware(hardware),
        model=model,
        baseline=(label.b or "").strip() or None,
        evidence=text[mention.start : mention.end],
        start=mention.start,
        end=mention.end,
    )
    claim.check_grounded(text)
    return claim, d1 + d2 + d3


def ground(text: str, mentions: Sequence[Mention], labels: DocumentLabels) -> Grounded:
    """Claims whose numbers, offsets and evidence all come from the parser's mentions.

    The model chooses which marks are results and says what they measure; the kind the
    unit and cue words decide (extract.kinds) wins over the model's. Document lists are
    the names the rules find in the text plus the model's that occur in it. A label
    that points at no mention, and a name not in the text, are dropped and counted.
    """
    result = Grounded()
    result.system = find_name(labels.s, text)
    model_datasets, d1 = _names(labels.d, text)
    model_hardware, d2 = _names(labels.h, text)
    model_models, d3 = _names(labels.mo, text)
    result.datasets = merge_names(find_datasets(text), model_datasets)
    result.hardware = merge_names(find_hardware(text), model_hardware)
    result.models = merge_names(find_models(text), model_models)
    result.dropped = d1 + d2 + d3 + (1 if labels.s and result.system is None else 0)
    seen: set[int] = set()
    for label in labels.c:
        if label.k == LabelKind.none:
            continue
        if not 1 <= label.n <= len(mentions) or label.n in seen:
            result.dropped += 1
            continue
        seen.add(label.n)
        claim, dropped = _claim(label, mentions[label.n - 1], text, result)
        result.claims.append(claim)
        result.dropped += dropped
    result.claims.sort(key=lambda claim: claim.start)
    return result
