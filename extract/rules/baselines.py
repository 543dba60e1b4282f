"""What a claim is compared against: the name compared in its own clause ("faster than X",
"outperforms X by", "surpasses X by 7.8%/5.3% and Y by 6.3%", "outperforms X on 6 of the games"),
with the words that qualify it and the names listed with it ("quantized X and Y"); "rather than"
compares no number; a count (a scale result not a factor or percentage) has none but the start of
its "from X to Y". A factor, percentage or point change with none in its clause takes the one
name its sentence compares with ("Compared with X, ... saves 42% ... and reduces ... by 93%"). A
quality gain with none, in a sentence that claims a new state of the art, is over that state of the
art as written."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.candidates import Candidate
from paper_claims.parse.marks import NameMark
from paper_claims.parse.vocab import LazyPattern, alternation, words
from paper_claims.schemas import Kind, Mention


# a comparison word or verb right before the compared name; not "exceed": "exceeding the accuracy
# of human raters" names what is compared, not what with (arx#31 got the baseline "accuracy";
# d3#22's "exceeding Unix performance" would have been right)
_COMPARE_BEFORE = LazyPattern(lambda: rf"\b(?:{alternation('comparison_words', 'comparison_verbs', without=('exceed',))})\s+"
                                      rf"(?:(?:{alternation('compared_determiners')})\s+)?"
                                      rf"(?P<qualifier>(?:(?:{alternation('baseline_qualifiers')})\s+){{0,2}}"
                                      rf"(?:(?!(?:{alternation('baseline_phrase_ends')})\s)[a-z][a-z-]+\s+)?)$",
                              re.IGNORECASE)


_BY = re.compile(r"(?:,[^,.;]{0,30}?)?\s+by\s+(?:[^;]{0,60}?(?:\band\s+|/))?|\s+on\s+")
_CUE = LazyPattern(lambda: rf"\b(?:{alternation('comparison_verbs', 'comparison_cues')}|(?<!rather )than)\b", re.IGNORECASE)


# a comparative: any -er word, or one of vocab/comparatives ("less", "more")
_COMPARATIVE = r"(?:\w+er|{})"
_SLASHED = LazyPattern(lambda: r"/\d[\d.]*\s*(?:%|x|×|points?)?\s+" + _COMPARATIVE.format(alternation("comparatives")) + r"\b")
_AND_NUMBER = LazyPattern(lambda: r"\s*(?:" + _COMPARATIVE.format(alternation("comparatives")) + r"\s+(?:[\w-]+\s+){0,2})?and\s+\S*\d")


def _joined(between: str) -> bool:
    """The words between a number and the name it is compared with: no clause break, and
    other numbers only joined by "and" ("4.3x smaller and 5.5x faster than X")."""
    if re.search(r"[;:]|[.!?]\s", between) or len(between) > 100:
        return False
    if _SLASHED.match(between):
        between = between[re.match(r"/\d[\d.]*", between).end():]  # "1.5/2.1 higher than X"
    # a parallel clause: "reducing memory by 4.8x, and accelerating inference by 1.7x compared to X"
    parallel = re.match(r",?\s*and\s+\w+ing\s+(?:[\w-]+\s+){0,3}by\s+(?:up\s+to\s+)?\d[\d.,]*(?:\s*[-–]\s*\d[\d.]*)?\s*(?:x|×|%)?\s+", between)
    if parallel and not re.search(r"\d", between[parallel.end():]):
        return True
    return not re.search(r"\d", between) or (
        _AND_NUMBER.match(between) is not None
        and "," not in between)


def compared_name(doc: ParsedDocument, mention: Mention, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """The name a number is compared with in its own clause: "3x faster than X", "12% over
    X", "4.3x smaller and 5.5x faster than X", "outperforms X by 5%", "surpasses X by 7.8%
    and Y by 6.3%", "beats X by 12% on A and 34% on B", "outperforms X on 6 of the games",
    "faster than X: 3x on A, 2.4x on B"."""
    found = _compared_span(doc, mention, marks)
    return found[0] if found else None


def _compared_span(doc: ParsedDocument, mention: Mention, marks: Sequence[NameMark]) -> Optional[tuple[NameMark, Candidate]]:
    """The compared name of :func:`compared_name` and the place it stands."""
    text = doc.text
    left, right = doc.sentence_around(mention.start, mention.end)
    found: list[tuple[int, NameMark, Candidate]] = []
    for mark in marks:
        for span in mark.spans:
            if not (left <= span.start < right):
                continue
            if span.start >= mention.end:
                if _COMPARE_BEFORE.search(text[max(0, span.start - 40):span.start]) and _joined(text[mention.end:span.start]):
                    found.append((span.start - mention.end, mark, span))
            elif span.end <= mention.start and _BY.fullmatch(text[span.end:mention.start]):
                clause = re.split(r"[;.]\s", text[left:span.start])[-1]
                if _CUE.search(clause):
                    found.append((mention.start - span.end, mark, span))
            elif span.end <= mention.start and _ratio(mention) and re.match(r"\s*:", text[span.end:span.end + 3]) \
                    and _COMPARE_BEFORE.search(text[max(0, span.start - 40):span.start]):
                found.append((len(text), mark, span))  # "faster than X: 3x on A, 2.4x on B", if nothing nearer
    if not found:
        return None
    _, mark, span = min(found, key=lambda item: item[0])
    return mark, span


def baseline_phrase(doc: ParsedDocument, span: Candidate, marks: Sequence[NameMark]) -> str:
    """What a number is compared against, as written: the compared name with the words that
    qualify it in front ("than quantized X", "over existing open-source X") and the names
    listed with it ("compared to X and Y", "X or Y")."""
    text = doc.text
    start, end = span.start, span.end
    lead = _COMPARE_BEFORE.search(text[max(0, start - 40):start])
    if lead and lead.group("qualifier"):
        start -= len(text[max(0, start - 40):start]) - lead.start("qualifier")
    spans = sorted((c.start, c.end) for mark in marks for c in mark.spans)
    while True:
        link = re.match(r"\s*,?\s*(?:and|or)\s+", text[end:])
        nxt = next(((a, b) for a, b in spans if link and a == end + link.end()), None)
        if nxt is None:
            break
        end = nxt[1]
    rest = _PHRASE_REST.match(text, end)
    return text[start:rest.end() if rest else end]


# the rest of a compared noun phrase a candidate stops short of: "state" + "of the art (systems)",
# "imitation" + "and reinforcement learning methods" (modifiers sharing one plural head noun)
_PHRASE_REST = re.compile(r"(?<=\bstate)[- ]of[- ]the[- ]art(?:\s+[a-z]+s\b)?|"
                          r"\s+(?:and|or)\s+(?![a-z]+(?:s|ed|ing)\b)(?:[A-Za-z][\w-]+\s+){0,3}[a-z][a-z-]+s(?=[\s,.;:)]|$)")


_STATE_OF_THE_ART = LazyPattern(lambda: rf"(?:(?:the\s+)?(?:{alternation('state_of_the_art_words')})\s+)?(?:new\s+)?"
                                        rf"(?:state[- ]of[- ]the[- ]art|SOTA)(?:\s+(?:{alternation('state_of_the_art_nouns')}))?",
                                re.IGNORECASE)
# a word after it that is not a function word: the phrase describes that noun
_NOUN_NEXT = LazyPattern(lambda: rf"\s+(?!(?:{alternation('noun_next_stops')})\b)[\w-]")


def _state_of_the_art(doc: ParsedDocument, mention: Mention) -> Optional[str]:
    """The state of the art a gain is measured against when its sentence claims a new one
    ("obtains new state-of-the-art results ..., pushing X to 80.5% (7.7 point absolute
    improvement)"), as written; None when the sentence names none."""
    text = doc.text
    left, right = doc.sentence_around(mention.start, mention.end)
    for found in _STATE_OF_THE_ART.finditer(text, left, right):
        if found.group(0).lower().endswith(("art", "sota")) and _NOUN_NEXT.match(text, found.end()):
            continue  # "state-of-the-art QP solvers": it describes another noun
        return found.group(0)
    return None


_THAN_STATE_OF_THE_ART = LazyPattern(lambda: rf"\b(?:{alternation('comparison_words', 'comparison_verbs', without=('exceed',))})\s+"
                                              rf"(?P<phrase>{_STATE_OF_THE_ART.pattern})", re.IGNORECASE)


def _compared_state_of_the_art(doc: ParsedDocument, mention: Mention) -> Optional[str]:
    """The state of the art a change is compared with right after it in its clause, when no name
    stands there ("15x faster than prior SOTA", "2-4 fold over the state of the art"), as written."""
    text = doc.text
    _, right = doc.sentence_around(mention.start, mention.end)
    for found in _THAN_STATE_OF_THE_ART.finditer(text, mention.end, right):
        phrase = found.group("phrase")
        if phrase.lower().endswith(("art", "sota")) and _NOUN_NEXT.match(text, found.end()):
            continue  # "than state-of-the-art QP solvers": a name, not the state of the art itself
        return phrase if _joined(text[mention.end:found.start()]) else None
    return None


_RELATIVE = (Kind.speedup, Kind.efficiency, Kind.improvement, Kind.other)


def _ratio(mention: Mention) -> bool:
    """A factor, a percentage or a point gain: a change relative to something (an amount in
    ms, $ or MB is measured, not compared)."""
    return (mention.unit or "").strip().lower() in words("ratio_units")


def _sentence_comparison(doc: ParsedDocument, mention: Mention, marks: Sequence[NameMark]) -> Optional[tuple[NameMark, Candidate]]:
    """The one name its sentence compares with ("Compared with X, ... saves 42% ... and
    reduces ... by 93%"; "... by 270x and ... by 38x compared with X"), if the sentence
    compares with exactly one."""
    text = doc.text
    left, right = doc.sentence_around(mention.start, mention.end)
    found = [(mark, span) for mark in marks for span in mark.spans if left <= span.start < right
             and _COMPARE_BEFORE.search(text[max(0, span.start - 40):span.start])]
    return found[0] if len({mark.letter for mark, _ in found}) == 1 else None


# "from 97MB to 0.35MB", "from 4-5% in MMLU to just 2%": the change starts at what stands between
_FROM_TO = LazyPattern(lambda: rf"\bfrom\s+(\S*\d[^.;:()]{{0,40}}?)\s+to\s+(?:(?:{alternation('start_adverbs')})\s+)?$",
                       re.IGNORECASE)


def from_start(doc: ParsedDocument, mention: Mention) -> Optional[str]:
    """The starting value of a "from X to Y" change whose Y is the mention, as written
    (GUIDELINES: the claim is Y and X is its baseline)."""
    text = doc.text
    found = _FROM_TO.search(text, max(0, mention.start - 70), mention.start)
    return found.group(1) if found else None


def baseline_of(doc: ParsedDocument, mention: Mention, kind: Kind, marks: Sequence[NameMark]) -> tuple[Optional[NameMark], Optional[str]]:
    """A claim's baseline: the name compared in its own clause and the phrase that names it
    (``baseline_phrase``), else, for a change (a factor, percentage or points of a speed,
    efficiency or quality result), the one name its sentence compares with, else, for a
    quality gain, the state of the art its sentence claims (no name). The model's baseline letters were worse than this rule on both dev sets
    (baseline F1 dev 0.08 vs 0.41, dev2 0.13 vs 0.33)."""
    found = _compared_span(doc, mention, marks)
    if found is None and (start := from_start(doc, mention)) is not None:
        return None, start
    if kind == Kind.scale and not _ratio(mention):
        return None, None  # a count is of the paper's own setup: "100 languages ... compared to the prior art"
    if found is None and kind in _RELATIVE and _ratio(mention):
        found = _sentence_comparison(doc, mention, marks)
    if found is not None:
        return found[0], baseline_phrase(doc, found[1], marks)
    if kind in _RELATIVE and _ratio(mention) and (phrase := _compared_state_of_the_art(doc, mention)):
        return None, phrase
    return None, _state_of_the_art(doc, mention) if kind == Kind.improvement else None
