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

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import INTRODUCES
from paper_claims.parse.vocab import LazyPattern, alternation, values, words
from paper_claims.schemas import Mention
from paper_claims.text import whole_word_spans

_PART_NOUNS = LazyPattern(lambda: rf"^(?:(?:{alternation('part_adjectives')})\s+){{0,2}}(?:{alternation('part_nouns')})\b",
                          re.IGNORECASE)
_LIST_OPENER = re.compile(r"^[^.;:]{0,60}?(?::|\(1\)|\(i\)|\bnamely\b|\bi\.e\.)", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"\b[A-Za-z][\w]*\s*=\s*$")
# a device whose memory a size states (vocab/memory_devices.txt), or memory itself (vocab/memory_words)
_HARDWARE_NEAR = LazyPattern(lambda: rf"(?:{alternation('memory_devices', 'memory_words')})", re.IGNORECASE)
# a parameter count written as a modifier: "13B parameter", "7B-parameter", "2-billion-param"
_SIZE_MODIFIER = re.compile(r"[\s-]param(?:eter)?$", re.IGNORECASE)
_SCALED = LazyPattern(lambda: rf"[0-9]\s*-?\s*(?:[MBT](?![A-Za-z])|(?i:{_millions()})\b)")
_MODEL_NOUNS = LazyPattern(lambda: rf"(?:(?:{alternation('model_kinds')})\s+)?(?:{alternation('model_nouns')})",
                           re.IGNORECASE)


def _millions() -> str:
    """The scale words of a million and more (vocab/scale_words), as an alternation."""
    return "|".join(word for word, value in values("scale_words").items() if value >= 1e6)
# the model is what the paper trains or builds: its size is a scale claim (GUIDELINES: sizes of
# the contribution), not a condition
_TRAINED = LazyPattern(lambda: rf"\b(?:{alternation('building_verbs')})\s+(?:(?:{alternation('size_leads')})\s+){{0,3}}$",
                       re.IGNORECASE)
_DIMENSIONLESS = {"%", "x", "points", "orders of magnitude"}
# a value this large seldom recurs by chance: written again, once bare, it is the same fact
_DISTINCTIVE = 1000
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z][\w-]*)")
# the authors speaking: "we"/"our" opening a sentence or a clause ("Here, we", "In this paper, we"),
# "us" ("X enabled us to"), "this paper/work/research/study"; not a generic "when we scale the batch size"
_FIRST_PERSON = LazyPattern(lambda: rf"(?:^\W*|[,;:]\s*|\b(?:{alternation('clause_leads')})\s+)(?:we|our)\b|\b(?-i:us)\b|"
                                    rf"\bthis (?:{alternation('paper_nouns')})\b", re.IGNORECASE)
# the authors themselves ("we", "us", "this paper"), not only something of theirs ("our dataset")
_AUTHORS = LazyPattern(lambda: rf"\b(?:we|(?-i:us))\b|\bthis (?:{alternation('paper_nouns')})\b", re.IGNORECASE)
# a name-like word: a capital after its first letter, a digit, or a capitalised word
_NAME_WORD = re.compile(r"\b(?:[A-Za-z]+[A-Z0-9][\w-]*|[A-Z][a-z]+)\b")
_FROM_BEFORE = re.compile(r"\bfrom\s+$", re.IGNORECASE)
# "244.0 compared to 90.8 by the next best", "versus 12 ms": the figure compared against (the
# baseline's, like X in "from X to Y"); not "than"/"over", which qualify a claim ("more than 5")
_COMPARED_TO = LazyPattern(lambda: rf"\b(?:{alternation('comparison_words', without=('than', 'over'))})\s+(?:the\s+)?$",
                           re.IGNORECASE)
# "from X to Y", also with where X holds in between ("from 4-5% in MMLU to just 2%")
_TO_GAP = LazyPattern(lambda: rf"(?:\s+(?:{alternation('from_to_places')})(?:\s+[^\s,;:.()]+){{1,3}})?\s+to\s+(?:just\s+|only\s+)?$")
# a bare number right after "length" names the setting it was measured at ("seq. length 512")
_LENGTH_BEFORE = re.compile(r"\blengths?\s+$", re.IGNORECASE)
# "on a 0-1 scale", "a 5-point Likert scale": the range of a rating, not a result
_RATING_SCALE = re.compile(r"\s*(?:-?\s*point\s+)?(?:Likert\s+)?scales?\b", re.IGNORECASE)


# what opens the list right after a count and its noun ("two stores, A and B", "three tracks,
# including A, B and C", "two methods (A and B)", "two algorithms – A and B –"); a colon opens
# one too. The counted noun phrase before it holds no clause end.
_LIST_START = re.compile(r"[^.;:()\d–—]{0,80}?(?:(?P<paren>\s*\()|(?P<dash>\s+(?:--?|–|—)\s+|---?)|"
                         r"(?P<including>,?\s+(?:including|namely|i\.e\.,?)\s+)|(?P<colon>:\s*)|(?P<comma>,\s+))")
# items of a list: separated by commas or semicolons, the last one after "and"/"or"
_ITEM_GAP = re.compile(r"\s*[,;]\s*(?:(?P<and1>and|or)\s+)?|\s+(?P<and2>and|or)\s+")
_NAMED = re.compile(r"\(?[A-Z0-9]")
# the next sentence opens an enumeration of the counted items ("two techniques. First, ...")
_ORDINALS = re.compile(r"\s*(?:First|Firstly)\b(?=.{0,600}?\b[Ss]econd(?:ly)?\b)", re.DOTALL)
# "these two stages", "those three problems": a count of items the text already named
_DEMONSTRATIVE = re.compile(r"\b(?:these|those)\s+$", re.IGNORECASE)
_MAX_LISTED = 12
# a vague few: "only one or two examples", "two or more cables" (GUIDELINES: qualitative "single/one")
_ONE_OR = LazyPattern(lambda: rf"\b(?:{alternation('number_words')})\s+or\s+$", re.IGNORECASE)
_OR_MORE = LazyPattern(lambda: rf"\bor\s+(?:{alternation('more_words', 'less_words')})\b", re.IGNORECASE)
# a number joined to a format or device-part unit, modifying a noun: "8-bit weights", "a 12-core server"
_SPEC_MODIFIER = LazyPattern(lambda: rf"\d-(?:{alternation('spec_units')})$", re.IGNORECASE)
_BEFORE_NOUN = re.compile(r"[ \t]+[A-Za-z]")
# other work's own figure: the clause's subject is earlier work ("the previous SOTA only solves
# 50%", "existing methods suffer from overheads (20-90%)", "the baseline model needs 1 million
# iterations"); GUIDELINES: background figures and a baseline's own figure are not claims
_OTHER_WORK_SAYS = LazyPattern(lambda:
    rf"\b(?:(?:the\s+)?(?:{alternation('earlier_work_words')})|the\s+baseline)(?:\s+[\w-]+){{0,4}}?\s+(?:that\s+|which\s+)?"
    rf"(?:(?:{alternation('modal_verbs')}|only)\s+)?(?:{alternation('earlier_work_verbs')})\b[^,;.:]{{0,60}}$",
    re.IGNORECASE)
# a count: a number or a spelled-out count word, then its noun ("two stages", "3 categories")
_COUNTED = LazyPattern(lambda: rf"(?:\d+|{alternation('number_words')})\s+[A-Za-z]", re.IGNORECASE)


def _listed_items(doc: ParsedDocument, start: int, end: int, named: bool) -> int:
    """How many items the list in ``text[start:end]`` holds: items separated by commas or
    semicolons, the list ending with the item after "and"/"or" (a parenthesis inside an item
    is part of it); ``named``: 0 unless every item starts with a capital or a digit."""
    text = doc.text
    items, at, depth, last = 0, start, 0, False
    for i in range(start, end + 1):
        gap = None
        if i < end:
            depth += (text[i] == "(") - (text[i] == ")")
            if depth > 0 or i < at:
                continue
            gap = _ITEM_GAP.match(text, i, end)
            if gap is None:
                continue
        item = text[at:i].strip()
        if not item or (named and not _NAMED.match(item)):
            return 0
        items += 1
        if gap is None or last:
            return items
        last = bool(gap.group("and1") or gap.group("and2"))
        at = gap.end()
    return items


def _announced_list(doc: ParsedDocument, mention: Mention) -> bool:
    """A count the list right after it spells out item by item ("two stores, A and B"; "all
    three tracks, including A, B and C"; "two methods (A and B)"), or the next sentence
    enumerates ("two techniques. First, ... second, ..."): the count only announces the list
    (GUIDELINES). A count with fewer items after it ("38 categories, including A and B") is
    no such announcement."""
    text = doc.text
    if mention.value_high is not None or not mention.value.is_integer() or not 2 <= mention.value <= _MAX_LISTED:
        return False
    left, right = doc.sentence_around(mention.start, mention.end)
    if _ORDINALS.match(text, right):
        return True
    start = _LIST_START.match(text, mention.end, right)
    if start is None:
        return False
    end = right
    if start.group("paren"):
        end = text.find(")", start.end(), right)
    elif start.group("dash"):
        end = text.find(start.group("dash").strip(), start.end(), right)
    if end < 0 or end == right:
        end = start.end() + len(text[start.end():right].rstrip(" .!?"))
    return _listed_items(doc, start.end(), end, named=bool(start.group("comma"))) == mention.value


def _count_word(doc: ParsedDocument, mention: Mention) -> Optional[str]:
    """The spelled-out count heading the mention ("three", "at least three"), if any."""
    tokens = doc.number_words(mention).split()
    first = tokens[0].lower() if tokens else ""
    return first if first in words("number_words") else None


def rule_out(doc: ParsedDocument, mention: Mention) -> Optional[str]:
    """Why the guidelines say this mention is not a claim, or None if the model decides."""
    text = doc.text
    before = text[max(0, mention.start - 40) : mention.start]
    after = text[mention.end : mention.end + 80]
    if _ASSIGNMENT.search(before) or re.match(r"[A-Za-z]\w*\s*=", mention.text):
        return "experimental setting (a variable assigned a value)"
    if mention.unit is None and _LENGTH_BEFORE.search(before):
        return "experimental setting (the length a result was measured at)"
    if _RATING_SCALE.match(after):
        return "experimental setting (the range of a rating scale)"
    if _COMPARED_TO.search(before):
        return "the figure compared against (the baseline's, not a claim)"
    word = _count_word(doc, mention)
    if word is not None and (_ONE_OR.search(before) or _OR_MORE.search(mention.text)):
        return "vague count ('one or two', 'two or more'), not a measured number"
    if word is not None:
        at = mention.start + mention.text.lower().index(word) + len(word)
        noun = text[at : at + 60].lstrip(" -")
        if _PART_NOUNS.match(noun):
            return "count of the design's parts or of a list's items"
        if _LIST_OPENER.match(after):
            return "count that announces a list"
    if _COUNTED.match(mention.text) and _DEMONSTRATIVE.search(before):
        return "count of items already named ('these two stages')"
    if _COUNTED.match(mention.text) and _announced_list(doc, mention):
        return "count that announces a list"
    left = text[doc.sentence_around(mention.start, mention.end)[0] : mention.start]
    if _OTHER_WORK_SAYS.search(left[-160:]):
        return "figure of other work (background or a baseline's own figure)"
    if _SPEC_MODIFIER.search(mention.text) and _BEFORE_NOUN.match(text, mention.end):
        return "spec written as a modifier (a number format or a device's build, '8-bit', '8-core')"
    if _model_size(doc, mention):
        return "model size modifier (a condition naming the model, not a result)"
    unit = (mention.unit or "").lower()
    if unit in words("memory_sizes") and mention.value <= 256:
        window = text[max(0, mention.start - 25) : mention.end + 25]
        if _HARDWARE_NEAR.search(window.replace(mention.text, " ")):
            return "hardware spec (device memory)"
    return None


def _model_size(doc: ParsedDocument, mention: Mention) -> bool:
    """"a 13B parameter model", "7B-parameter", "a 70B model": a size naming a model."""
    text = doc.text
    unit = mention.unit or ""
    attributive = unit.lower() in {"parameters", "params"} and _SIZE_MODIFIER.search(mention.text)
    sized_model = _SCALED.search(mention.text) is not None and _MODEL_NOUNS.fullmatch(unit) is not None
    if not (attributive or sized_model):
        return False
    return _TRAINED.search(text[max(0, mention.start - 60) : mention.start]) is None


def _in_context(doc: ParsedDocument, mentions: Sequence[Mention]) -> list[Optional[str]]:
    """Reasons that need the neighbouring mentions: "from X to Y" starts, repeats."""
    text = doc.text
    reasons: list[Optional[str]] = [None] * len(mentions)
    for i, (a, b) in enumerate(zip(mentions, mentions[1:])):
        if _TO_GAP.match(text[a.end : b.start]) and _FROM_BEFORE.search(text[max(0, a.start - 8) : a.start]):
            reasons[i] = "starting value of a 'from X to Y' change (the baseline, not a claim)"
    return reasons


def _fact(doc: ParsedDocument, m: Mention) -> Optional[tuple[float, Optional[float], str, str]]:
    """What makes two mentions the same fact (None when nothing does).

    A counted noun or physical unit with its value says what it is ("31 domains"); a bare
    %, x or points value also needs the same content word after it ("88.1% accuracy"),
    since one abstract may gain 4.2% on two metrics.
    """
    text = doc.text
    if not m.unit:
        return None
    word = ""
    if m.unit.lower() in _DIMENSIONLESS:
        nxt = _NEXT_WORD.match(text, m.end)
        if nxt is None or nxt.group(1).lower() in words("function_words"):
            return None
        word = nxt.group(1).lower()
    return round(m.value, 9), m.value_high, m.unit.lower(), word


def background_end(doc: ParsedDocument) -> int:
    """Where the background of the abstract ends: the sentences before the authors first speak
    ("we"/"our" opening a clause, "this paper", or the sentence introducing the contribution,
    "we propose X") are about other work (GUIDELINES: background figures are not claims).
    0 when there is no such background: the authors never speak (nothing tells the paper's
    own figures apart), they speak in the first sentence, or the abstract may open on the
    contribution (its name is written before it is introduced, "X is a system for ... This
    paper describes X"; with nothing introduced, the authors first speak of something of
    theirs, "X spans 73K users. Our dataset ...")."""
    text = doc.text
    spans = doc.sentences
    intro, verb = next(((i, v) for i, (a, b) in enumerate(spans) if (v := INTRODUCES.search(text, a, b))),
                        (len(spans), None))
    if verb is not None:
        a, b = spans[intro]
        name = _NAME_WORD.search(text, verb.end(), min(b, verb.end() + 60))
        if name is not None and next(whole_word_spans(text[:a], name.group(0)), None) is not None:
            return 0
    end = 0
    for left, right in spans[:intro]:
        if _FIRST_PERSON.search(text[left:right]):
            if verb is None and not _AUTHORS.search(text, left, right):
                return 0  # "Our dataset holds ...": what came before may be the contribution itself
            break
        end = right
    else:
        if verb is None:
            return 0  # the authors never speak
    return end


def candidate_mentions(doc: ParsedDocument, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions the model should label: all but those the rules rule out, each fact once."""
    kept: list[Mention] = []
    seen: set[tuple[float, Optional[float], str, str]] = set()
    large: dict[tuple[float, Optional[float]], Optional[str]] = {}  # distinctive values kept, with their unit
    background = background_end(doc) if mentions else 0
    for m, why in zip(mentions, _in_context(doc, mentions)):
        if m.start < background:
            continue  # a figure about other work, before the paper says what it contributes
        if why is not None or rule_out(doc, m) is not None:
            continue
        fact = _fact(doc, m)
        if fact is not None and fact in seen:
            continue  # a number repeated for the same fact gets one claim
        value = (m.value, m.value_high)
        if m.value >= _DISTINCTIVE and value in large and (m.unit is None or large[value] is None):
            continue  # "sizes up to 8192 images ... a minibatch size of 8192": the same fact once more
        if fact is not None:
            seen.add(fact)
        if m.value >= _DISTINCTIVE:
            large.setdefault(value, m.unit)
        kept.append(m)
    return kept
