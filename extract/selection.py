"""Guideline rules that rule a mention out as a claim before the model sees it.

GUIDELINES.md lists what is not a claim: experimental conditions and specs, counts of
the design's own parts, counts that only announce a list. These are decided from the
words around the number; the model is asked only about the rest.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from schemas import Mention

_SMALL_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
_PART_NOUNS = re.compile(
    r"^(?:(?:key|main|major|different|distinct|complementary|novel|new|simple|separate|core|"
    r"critical|common|primary|broad|general|important|independent|orthogonal)\s+){0,2}"
    r"(?:stages?|steps?|phases?|modules?|components?|mechanisms?|parts?|branches?|levels?|layers?|"
    r"paradigms?|reasons?|advantages?|ways?|types?|kinds?|categories|aspects?|dimensions?|challenges?|"
    r"contributions?|insights?|methods?|techniques?|strategies|approaches|algorithms?|subsets?|sets?|"
    r"questions?|goals?|properties|principles?|pillars?|axes|families|variants?|settings?|scenarios?|"
    r"modes?|regimes?|sources?|classes|groups?|roles?|agents?|objectives?|losses|heads?|ideas?|"
    r"observations?|findings?|innovations?|techniques?|components?|directions?|factors?|issues?|problems?|"
    r"limitations?|operations?|functions?|views?|perspectives?|sub-?tasks?|tiers?|passes?)\b",
    re.IGNORECASE,
)
_LIST_OPENER = re.compile(r"^[^.;:]{0,60}?(?::|\(1\)|\(i\)|\bnamely\b|\bi\.e\.)", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"\b[A-Za-z][\w]*\s*=\s*$")
_MEMORY_UNITS = {"gb", "mb", "gib", "tb", "g"}
_HARDWARE_NEAR = re.compile(r"(?:GPU|TPU|CPU|A100|H100|V100|T4|memory|RAM|VRAM)", re.IGNORECASE)


def _count_word(mention: Mention) -> Optional[str]:
    first = mention.text.split()[0].lower() if mention.text.split() else ""
    return first if first in _SMALL_WORDS else None


def rule_out(text: str, mention: Mention) -> Optional[str]:
    """Why the guidelines say this mention is not a claim, or None if the model decides."""
    before = text[max(0, mention.start - 40) : mention.start]
    after = text[mention.end : mention.end + 80]
    if _ASSIGNMENT.search(before) or re.match(r"[A-Za-z]\w*\s*=", mention.text):
        return "experimental setting (a variable assigned a value)"
    word = _count_word(mention)
    if word is not None:
        noun = text[mention.start + len(word) : mention.start + len(word) + 60].lstrip(" -")
        if _PART_NOUNS.match(noun) or _PART_NOUNS.match(mention.text[len(word):].strip()):
            return "count of the design's parts or of a list's items"
        if _LIST_OPENER.match(after):
            return "count that announces a list"
    unit = (mention.unit or "").lower()
    if unit in _MEMORY_UNITS and mention.value <= 256:
        window = text[max(0, mention.start - 25) : mention.end + 25]
        if _HARDWARE_NEAR.search(window.replace(mention.text, " ")):
            return "hardware spec (device memory)"
    return None


def candidate_mentions(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions the model should label: all but those the rules rule out."""
    return [m for m in mentions if rule_out(text, m) is None]
