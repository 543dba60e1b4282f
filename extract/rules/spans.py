"""Where the words a model gives for a span field stand in the text: the occurrence nearest
the number it belongs to. Words that are not in the text are no span (the caller drops and
counts them), so every span a claim keeps is ``text[start:end]``."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.document import ParsedDocument

_EDGE = " \t\n\"'“”‘’`"
_SPACE = re.compile(r"\s+")


def _occurrences(doc: ParsedDocument, words: str) -> list[tuple[int, int]]:
    """Every place ``words`` stand in ``text``: exactly, else ignoring case and runs of
    white space (the span is then the text's own words)."""
    text = doc.text
    found, at = [], text.find(words)
    while at >= 0:
        found.append((at, at + len(words)))
        at = text.find(words, at + 1)
    if found:
        return found
    pattern = re.compile(r"\s+".join(re.escape(part) for part in _SPACE.split(words)), re.IGNORECASE)
    return [match.span() for match in pattern.finditer(text)]


def _sentence_of(spans: list[tuple[int, int]], at: int) -> int:
    return next((i for i, (a, b) in enumerate(spans) if a <= at < b), len(spans))


def locate(doc: ParsedDocument, words: Optional[str], start: int, end: int) -> Optional[tuple[int, int]]:
    """The offsets of ``words`` in ``text`` nearest the number at ``start:end`` (in its own
    sentence before any other; a span after the number counts its distance double, as
    descriptions mostly precede what they describe); None when the words are not there."""
    if not words:
        return None
    words = words.strip(_EDGE)
    if not words:
        return None
    places = _occurrences(doc, words)
    if not places:
        return None
    sentences = doc.sentences
    home = _sentence_of(sentences, start)

    def cost(place: tuple[int, int]) -> tuple[int, int]:
        a, b = place
        distance = start - b if b <= start else (2 * (a - end) if a >= end else 0)
        return (0 if _sentence_of(sentences, a) == home else 1, distance)

    return min(places, key=cost)
