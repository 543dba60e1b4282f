"""Guideline rules that rule a mention out as a claim before the model sees it.

GUIDELINES.md lists what is not a claim: experimental conditions and specs (a model's size
written as a modifier, "a 70B model", names which model rather than stating a result),
counts of the design's own parts, counts that only announce a list, the starting value of a
"from X to Y" change (X is the baseline), and a number repeated for the same fact (one
claim: the first). These are decided from the words around the number; the model is asked
only about the rest.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from paper_claims.parse.marks import INTRODUCES
from paper_claims.parse.vocab import LazyPattern, alternation, words
from paper_claims.schemas import Mention
from paper_claims.text import sentence_spans, whole_word_spans

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
_QUALIFIER = re.compile(r"^(?:at\s+least|up\s+to|over|about|around|more\s+than|nearly|almost)\s+",
                        re.IGNORECASE)
_LIST_OPENER = re.compile(r"^[^.;:]{0,60}?(?::|\(1\)|\(i\)|\bnamely\b|\bi\.e\.)", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"\b[A-Za-z][\w]*\s*=\s*$")
_MEMORY_UNITS = {"gb", "mb", "gib", "tb", "g"}
# a device whose memory a size states (vocab/memory_devices.txt), or memory itself
_HARDWARE_NEAR = LazyPattern(lambda: rf"(?:{alternation('memory_devices')}|memory|RAM|VRAM)", re.IGNORECASE)
# a parameter count written as a modifier: "13B parameter", "7B-parameter", "2-billion-param"
_SIZE_MODIFIER = re.compile(r"[\s-]param(?:eter)?$", re.IGNORECASE)
_SCALED = re.compile(r"[0-9]\s*-?\s*(?:[MBT](?![A-Za-z])|(?i:million|billion|trillion)\b)")
_MODEL_NOUNS = re.compile(
    r"(?:(?:language|foundation|base|vision|dense|sparse)\s+)?(?:models?|LMs?|LLMs?|networks?|"
    r"transformers?|checkpoints?|variants?|backbones?|encoders?|decoders?)", re.IGNORECASE)
# the model is what the paper trains or builds: its size is a scale claim (GUIDELINES: sizes of
# the contribution), not a condition
_TRAINED = re.compile(
    r"\b(?:(?:pre-?|re-?)?train(?:s|ed|ing)?|fine-?tun(?:e|es|ed|ing)|build(?:s|ing)?|built|"
    r"scal(?:e|es|ed|ing)(?:\s+up)?(?:\s+to)?)\s+(?:(?:a|an|the|one|single|new|large|larger)\s+){0,3}$",
    re.IGNORECASE)
_DIMENSIONLESS = {"%", "x", "points", "orders of magnitude"}
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z][\w-]*)")
_FUNCTION_WORDS = {"and", "or", "of", "in", "on", "at", "for", "to", "by", "with", "from", "over",
                   "than", "the", "a", "an", "while", "whereas", "but", "compared", "respectively"}
# the authors speaking: "we"/"our" opening a sentence or a clause ("Here, we", "In this paper, we");
# not a generic "when we scale the batch size"
_FIRST_PERSON = re.compile(r"(?:^\W*|[,;:]\s*|\b(?:here|then|first|now)\s+)(?:we|our)\b|\bthis (?:paper|work)\b",
                           re.IGNORECASE)
# a name-like word: a capital after its first letter, a digit, or a capitalised word
_NAME_WORD = re.compile(r"\b(?:[A-Za-z]+[A-Z0-9][\w-]*|[A-Z][a-z]+)\b")
_FROM_BEFORE = re.compile(r"\bfrom\s+$", re.IGNORECASE)
# "from X to Y", also with where X holds in between ("from 4-5% in MMLU to just 2%")
_TO_GAP = re.compile(r"(?:\s+(?:in|on|at|for|with|under)(?:\s+[^\s,;:.()]+){1,3})?\s+to\s+(?:just\s+|only\s+)?$")
# a bare number right after "length" names the setting it was measured at ("seq. length 512")
_LENGTH_BEFORE = re.compile(r"\blengths?\s+$", re.IGNORECASE)
# "on a 0-1 scale", "a 5-point Likert scale": the range of a rating, not a result
_RATING_SCALE = re.compile(r"\s*(?:-?\s*point\s+)?(?:Likert\s+)?scales?\b", re.IGNORECASE)


def _count_word(mention: Mention) -> Optional[str]:
    """The spelled-out count heading the mention ("three", "at least three"), if any."""
    tokens = _QUALIFIER.sub("", mention.text).split()
    first = tokens[0].lower() if tokens else ""
    return first if first in words("number_words") else None


def rule_out(text: str, mention: Mention) -> Optional[str]:
    """Why the guidelines say this mention is not a claim, or None if the model decides."""
    before = text[max(0, mention.start - 40) : mention.start]
    after = text[mention.end : mention.end + 80]
    if _ASSIGNMENT.search(before) or re.match(r"[A-Za-z]\w*\s*=", mention.text):
        return "experimental setting (a variable assigned a value)"
    if mention.unit is None and _LENGTH_BEFORE.search(before):
        return "experimental setting (the length a result was measured at)"
    if _RATING_SCALE.match(after):
        return "experimental setting (the range of a rating scale)"
    word = _count_word(mention)
    if word is not None:
        at = mention.start + mention.text.lower().index(word) + len(word)
        noun = text[at : at + 60].lstrip(" -")
        if _PART_NOUNS.match(noun):
            return "count of the design's parts or of a list's items"
        if _LIST_OPENER.match(after):
            return "count that announces a list"
    if _model_size(text, mention):
        return "model size modifier (a condition naming the model, not a result)"
    unit = (mention.unit or "").lower()
    if unit in _MEMORY_UNITS and mention.value <= 256:
        window = text[max(0, mention.start - 25) : mention.end + 25]
        if _HARDWARE_NEAR.search(window.replace(mention.text, " ")):
            return "hardware spec (device memory)"
    return None


def _model_size(text: str, mention: Mention) -> bool:
    """"a 13B parameter model", "7B-parameter", "a 70B model": a size naming a model."""
    unit = mention.unit or ""
    attributive = unit.lower() in {"parameters", "params"} and _SIZE_MODIFIER.search(mention.text)
    sized_model = _SCALED.search(mention.text) is not None and _MODEL_NOUNS.fullmatch(unit) is not None
    if not (attributive or sized_model):
        return False
    return _TRAINED.search(text[max(0, mention.start - 60) : mention.start]) is None


def _in_context(text: str, mentions: Sequence[Mention]) -> list[Optional[str]]:
    """Reasons that need the neighbouring mentions: "from X to Y" starts, repeats."""
    reasons: list[Optional[str]] = [None] * len(mentions)
    for i, (a, b) in enumerate(zip(mentions, mentions[1:])):
        if _TO_GAP.match(text[a.end : b.start]) and _FROM_BEFORE.search(text[max(0, a.start - 8) : a.start]):
            reasons[i] = "starting value of a 'from X to Y' change (the baseline, not a claim)"
    return reasons


def _fact(text: str, m: Mention) -> Optional[tuple[float, Optional[float], str, str]]:
    """What makes two mentions the same fact (None when nothing does).

    A counted noun or physical unit with its value says what it is ("31 domains"); a bare
    %, x or points value also needs the same content word after it ("88.1% accuracy"),
    since one abstract may gain 4.2% on two metrics.
    """
    if not m.unit:
        return None
    word = ""
    if m.unit.lower() in _DIMENSIONLESS:
        nxt = _NEXT_WORD.match(text, m.end)
        if nxt is None or nxt.group(1).lower() in _FUNCTION_WORDS:
            return None
        word = nxt.group(1).lower()
    return round(m.value, 9), m.value_high, m.unit.lower(), word


def background_end(text: str) -> int:
    """Where the background of the abstract ends: the sentences before the one introducing
    the paper's contribution are about other work (GUIDELINES: background figures are not
    claims) unless they speak in the first person; 0 when there is no such background (no
    introducing sentence, or the abstract opens on the contribution: its name is written
    before it is introduced, "X is a system for ... This paper describes X")."""
    spans = sentence_spans(text)
    intro, verb = next(((i, v) for i, (a, b) in enumerate(spans) if (v := INTRODUCES.search(text, a, b))), (0, None))
    if intro == 0 or verb is None:
        return 0
    a, b = spans[intro]
    name = _NAME_WORD.search(text, verb.end(), min(b, verb.end() + 60))
    if name is not None and next(whole_word_spans(text[:a], name.group(0)), None) is not None:
        return 0
    end = 0
    for left, right in spans[:intro]:
        if _FIRST_PERSON.search(text[left:right]):
            break
        end = right
    return end


def candidate_mentions(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions the model should label: all but those the rules rule out, each fact once."""
    kept: list[Mention] = []
    seen: set[tuple[float, Optional[float], str, str]] = set()
    background = background_end(text) if mentions else 0
    for m, why in zip(mentions, _in_context(text, mentions)):
        if m.start < background:
            continue  # a figure about other work, before the paper says what it contributes
        if why is not None or rule_out(text, m) is not None:
            continue
        fact = _fact(text, m)
        if fact is not None and fact in seen:
            continue  # a number repeated for the same fact gets one claim
        if fact is not None:
            seen.add(fact)
        kept.append(m)
    return kept
