"""Deterministic quantity parser: every numeric mention of a text, with offsets.

``find_quantities(text)`` scans a text once, left to right, and returns the numeric
mentions it states (``schemas.Mention``), in reading order and without overlaps. Each
mention's span covers its qualifier, number(s) and unit or counted noun, e.g.
``"up to 89×"``, ``"230K real-world conversations"``, ``"more than a dozen areas"``,
``"~3 −15%"``; ``text[m.start:m.end] == m.text`` always holds.

Values are in base units (``230K`` -> 230000, ``half a trillion`` -> 5e11); a range gives
``value``/``value_high``. Units are normalised as in ``eval/gold/GUIDELINES.md``: ``x`` for
factors, ``%``, ``points`` for point gains, a score's metric name ("28.4 BLEU", "a BLEU score of
41.8"), otherwise the physical unit (spelled one way by ``parse.units.canonical``: "s", "mJ",
"frames/s") or the counted noun as written. Identifiers (GPT-4, CIFAR-10, Mixtral 8x7B, INT8, 3x3), years, citations,
enumeration markers, figure/section references, URLs and fused footnote digits are skipped.

How it works: one compiled "core" regex (``patterns``) finds digit numbers and spelled-out
numbers; each core is parsed (``digits``, ``spelled``) as a mention under construction
(``draft``), judged by small context checks (``rejections``: what is glued to it, the word
before it) and grown to the right (``grow_right``: scale word, unit, counted noun; a range is read
in ``digits``) and to the left (``grow_left``: qualifier, ``$``/``(``/``\\textbf{`` wrappers).
This module joins the mentions (a unit shared along a list, "up to" over its scope) and is the
public API. All look-arounds are bounded windows, so the scan is linear in the text length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from paper_claims.parse.quantities.draft import Draft
from paper_claims.parse.quantities.digits import parse_digit
from paper_claims.parse.quantities.grow_right import share_score_unit
from paper_claims.parse.quantities.patterns import (
    BLOCK_RE, CORE_RE, ENUM_RE, NUM_AT_RE, SCOPE_BREAK_RE, SCOPE_GAP_RE, SCOPE_JOIN_RE, SHARE_GAP_RE,
)
from paper_claims.parse.quantities.spelled import parse_word
from paper_claims.parse.units import canonical
from paper_claims.schemas import Mention, Qualifier

__all__ = ["Number", "find_quantities", "parse_value", "read_numbers"]


def blocked_spans(text: str) -> list[tuple[int, int]]:
    """Spans that never hold quantities: URLs, e-mails, DOIs, citations, versions."""
    return [mm.span() for mm in BLOCK_RE.finditer(text)]


def _propagate_up_to(text: str, cands: list[Draft]) -> None:
    """"up to 2.3x and 1.9x": an "up to" applies to the following numbers in its scope."""
    for prev, cur in zip(cands, cands[1:]):
        if prev.qualifier != Qualifier.up_to or cur.qualifier is not None:
            continue
        if prev.unit != cur.unit or prev.unit is None:
            continue
        gap = text[prev.end : cur.start]
        if (
            SCOPE_GAP_RE.match(gap)
            and SCOPE_JOIN_RE.search(gap)
            and not SCOPE_BREAK_RE.search(gap)
        ):
            cur.qualifier = Qualifier.up_to


def _share_from_to_unit(text: str, cands: list[Draft]) -> None:
    """"from 10 to 20 ms", "90.0/79.2 F1", "100 and 1000 layers", "1, 2 and 4 GPUs": a bare
    number takes the unit written after the next number of the list."""
    shared: set[int] = set()
    for i in range(len(cands) - 2, -1, -1):
        prev, cur = cands[i], cands[i + 1]
        gap = SHARE_GAP_RE.match(text, prev.end, cur.start)
        if prev.unit is not None or not cur.unit or not gap:
            continue
        joint = gap.group(0).strip()
        if joint in {",", "and", "or"} and not _same_shape(text, prev, cur):
            continue  # "length 16K, 61.4% accuracy": not one list
        if joint == "," and i + 1 not in shared:
            continue  # a comma joins a list only before "2 and 4 GPUs"
        prev.unit, prev.strong, prev.noun = cur.unit, cur.strong, cur.noun
        shared.add(i)


def _same_shape(text: str, a: Draft, b: Draft) -> bool:
    """Whether two numbers are written alike (decimals or not, scale suffix or not)."""
    def shape(c: Draft) -> tuple[bool, bool]:
        m = NUM_AT_RE.search(text, c.start, c.end)
        digits = m.group(0) if m else ""
        after = text[m.end() : m.end() + 1] if m else ""
        return "." in digits, bool(after) and after in "kKMBT"

    return shape(a) == shape(b)


def find_quantities(text: str) -> list[Mention]:
    """Every numeric mention of ``text``, in reading order and non-overlapping.

    Each mention's ``text`` is ``text[start:end]`` and covers qualifier, number(s) and unit
    or counted noun; ``value``/``value_high`` are floats in base units.
    """
    return [number.mention for number in read_numbers(text)]


@dataclass(frozen=True)
class Number:
    """A numeric mention and where its qualifier's words stand (None: no qualifier word or sign)."""

    mention: Mention
    qualifier: Optional[tuple[int, int]] = None


def read_numbers(text: str) -> list[Number]:
    """Every numeric mention of ``text`` (``find_quantities``) with its qualifier's place."""
    if not text:
        return []
    blocked = blocked_spans(text)
    bi = 0
    cands: list[Draft] = []
    last = 0
    for m in CORE_RE.finditer(text):
        s = m.start()
        if s < last:
            continue
        while bi < len(blocked) and blocked[bi][1] <= s:
            bi += 1
        if bi < len(blocked) and blocked[bi][0] <= s < blocked[bi][1]:
            last = blocked[bi][1]
            continue
        if m.lastgroup == "num":
            enum = ENUM_RE.match(text, s - 1) if s else None
            if enum and enum.start() == s - 1:
                last = enum.end()
                continue
            cand, consumed = parse_digit(text, m, last)
        else:
            cand, consumed = parse_word(text, m, last)
        if cand is not None:
            if bi < len(blocked) and blocked[bi][0] < cand.end and cand.start < blocked[bi][1]:
                cand.end = max(min(cand.end, blocked[bi][0]), m.end())
            cand.start = max(cand.start, last)
            cands.append(cand)
            last = cand.end
        else:
            last = max(last, consumed)
    _share_from_to_unit(text, cands)
    share_score_unit(text, cands)
    _propagate_up_to(text, cands)
    return [
        Number(Mention(
            start=c.start,
            end=c.end,
            text=text[c.start : c.end],
            value=c.value,
            value_high=c.value_high,
            unit=canonical(c.unit),
            qualifier=c.qualifier,
        ), c.qualified if c.qualified is not None and c.start <= c.qualified[0] else None)
        for c in cands
        if math.isfinite(c.value) and (c.value_high is None or math.isfinite(c.value_high))
    ]


def parse_value(evidence: str) -> Optional[Mention]:
    """The main numeric mention of a short evidence string, or None.

    Useful to recover value, unit and qualifier from a claim's ``evidence`` text; the
    longest mention wins when there are several.
    """
    mentions = find_quantities(evidence)
    if not mentions:
        return None
    return max(mentions, key=lambda mm: mm.end - mm.start)
