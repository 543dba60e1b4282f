"""The words of a claim's sentence as the metric reader (``rules.metric``) sees them: tokens,
each number one token and the words of names marked, and a run of tokens said as a metric
phrase; the word tests the reader shares."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple, Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.vocab import entries, words
from paper_claims.schemas import Mention


_TOKEN = re.compile(r"(?P<word>[A-Za-z][A-Za-z0-9]*(?:[-@/+&_'’][A-Za-z0-9]+|\.[0-9]+)*['’]?)|(?P<num>[0-9][0-9.,]*[A-Za-z0-9]*)|(?P<punct>\S)")


MATH = re.compile(r"\$|\\[()]")  # LaTeX math delimiters around numbers: "$89\%$ and $87\%$"


_NOUN_ENDINGS = ("tion", "tions", "ment", "ments", "ings")


class Token(NamedTuple):
    start: int
    end: int
    text: str
    low: str  # lower-cased, a closing apostrophe off ("datacenters'")
    kind: str  # word, num or punct
    name: bool = False  # inside a typed name (dataset, hardware, model, the system, a compared name)
    sentence_start: bool = False
    candidate: bool = False  # inside any candidate name the parser marks ("Py Torch", typed or not)


@lru_cache(maxsize=1)
def unit_quantities() -> dict[str, str]:
    """Each unit (lower-cased) -> the quantity it measures."""
    return {form.lower(): forms[0] for forms in entries("unit_quantities") for form in forms[1:]}


@lru_cache(maxsize=1)
def comparative_nouns() -> dict[str, str]:
    """Each comparative with its own noun ("faster") -> that noun ("speed")."""
    return {form.lower(): forms[0] for forms in entries("comparative_attributes") for form in forms[1:]}


@lru_cache(maxsize=1)
def data_class_bases() -> dict[str, str]:
    """Each form of a data class word -> its base ("datasets" -> "dataset")."""
    return {form.lower(): forms[0] for forms in entries("data_classes") for form in forms}


@lru_cache(maxsize=1)
def singulars() -> dict[str, str]:
    """Each plural of a measure noun -> its singular ("efficiencies" -> "efficiency")."""
    return {form.lower(): forms[0] for forms in entries("measures") for form in forms[1:]}


def stops_phrase(low: str) -> bool:
    """A word no measured noun phrase runs through."""
    return low in words("function_words") or low in words("result_verbs") or low in words("comparison_verbs")


def change_verb(low: str) -> bool:
    return low in words("change_words") and not low.endswith(_NOUN_ENDINGS)


def change_noun(low: str) -> bool:
    return low in words("change_words")  # "a 5x increase in", "reduction", "improvements"


def sentence_tokens(doc: ParsedDocument, left: int, right: int, mentions: Sequence[Mention], names: Sequence[tuple[int, int]],
            candidates: Sequence[tuple[int, int]]) -> list[Token]:
    """The sentence's tokens; those inside a number's span are one "num" token each."""
    text = doc.text
    spans = sorted({(m.start, m.end) for m in mentions if left <= m.start < right})
    names = [(a, b) for a, b in names if a < right and left < b]
    candidates = [(a, b) for a, b in candidates if a < right and left < b]
    clean = MATH.sub(_blank, text[:right])  # "$36.14\%$": the dollars are no words' neighbours
    found: list[Token] = []
    pos = left
    for start, end in spans + [(right, right)]:
        for match in _TOKEN.finditer(clean, pos, max(pos, start)):
            kind, word = match.lastgroup or "punct", match.group(0)
            low = word.lower().rstrip("'’")
            plain = kind != "word" or low in words("measures", "metric_names")
            name = not plain and any(a < match.end() and match.start() < b for a, b in names)
            candidate = not plain and any(a < match.end() and match.start() < b for a, b in candidates)
            found.append(Token(match.start(), match.end(), word, low, kind, name, not found, name or candidate))
        if start < right:
            found.append(Token(start, end, text[start:end], text[start:end].lower(), "num"))
        pos = max(pos, end)
    return found


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def number_index(tokens: list[Token], start: int) -> int:
    return next(i for i, token in enumerate(tokens) if token.start == start and token.kind == "num")


def as_phrase(tokens: Sequence[Token]) -> Optional[str]:
    """The words as a metric: praise left out, comparatives and function words off the ends,
    plural measures singular, names and pronouns alone refused."""
    kept = [token for token in tokens if token.low not in words("evaluative_words")]
    while kept and (kept[0].low in words("determiners") or kept[0].low in words("comparatives")
                    or kept[0].low in words("function_words")):
        kept.pop(0)
    while kept and (kept[-1].low in words("function_words") or (
            len(kept) > 1 and kept[-1].low.endswith("ly") and kept[-1].low not in words("measures"))):
        kept.pop()  # "increase throughput linearly to"
    if not kept or kept[-1].name or kept[-1].low in words("pronouns") or kept[-1].kind != "word":
        return None
    if len(kept) == 1 and (unit_quantities().get(kept[0].low) not in {None, *words("counted_quantities")}
                           or kept[0].low in words("ratio_words")):
        return None  # a bare unit ("ms"), not a counted noun ("50x fewer parameters")
    said = [singulars().get(token.low, token.text) for token in kept]
    if kept[0].sentence_start and said[0][:1].isupper() and said[0][1:].islower():
        said[0] = said[0].lower()  # "Weak scaling efficiencies of 97%" at the start of a sentence
    return " ".join(said)


def cut_at_names(tokens: list[Token]) -> list[Token]:
    """The phrase up to a comparison ("the accuracy over X"), the workload it is measured on
    ("on the X task") or a preposition before a candidate name ("the throughput of Llama-3-8B")."""
    for i, token in enumerate(tokens):
        if token.low in words("comparison_words") or token.low in words("comparison_verbs") or token.low == "on":
            return tokens[:i]  # "the accuracy over X", "the success rate on the X task"
        if token.low in words("phrase_prepositions") and i + 1 < len(tokens) and (tokens[i + 1].candidate or (
                tokens[i + 1].low in words("determiners") and i + 2 < len(tokens) and tokens[i + 2].candidate)):
            return tokens[:i]
    return tokens
