"""The parsed document: one object per document, built once and carried through prompting,
the answer model, grounding, the rules and the learned decisions.

``parse_document`` reads the text once: its sentences (the one splitter, ``text.sentence_spans``)
and every number the quantity parser finds. A task then chooses which numbers the model reads
(``marked``: the built-in claims mark the numbers the selection rules keep, a schema of your own
every number); the marked document adds the candidate names with their letters and the sentences
the model is shown. What is derived from the text is computed on first use and kept on the
object (never recomputed from the text by a later step).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Optional, Sequence

from paper_claims.parse.candidates import Candidate
from paper_claims.parse.marks import NameMark, kept_sentence_spans, mark_names
from paper_claims.parse.quantities import Number, read_numbers
from paper_claims.schemas import Document, Mention
from paper_claims.text import sentence_spans

Span = tuple[int, int]


@dataclass(frozen=True, eq=False)
class ParsedDocument:
    """A document as the parser reads it: its text, sentences and numbers; once marked
    (``marked``), the numbers the model reads and the candidate names it labels."""

    source: Document
    read: tuple[Number, ...]  # every number the parser finds, in order, with its qualifier's place
    mentions: tuple[Mention, ...] = ()  # the numbers marked for the model, [1]..[n]
    is_marked: bool = field(default=False, repr=False)

    @cached_property
    def numbers(self) -> tuple[Mention, ...]:
        """Every number the parser finds, in order."""
        return tuple(number.mention for number in self.read)

    @cached_property
    def _qualifiers(self) -> dict[int, tuple[int, int]]:
        return {n.mention.start: n.qualifier for n in self.read if n.qualifier is not None}

    def qualifier_span(self, mention: Mention) -> Optional[Span]:
        """Where the words (or sign) of the mention's qualifier stand ("up to", "~"), or None."""
        return self._qualifiers.get(mention.start)

    def number_words(self, mention: Mention) -> str:
        """The mention's words after its qualifier ("up to 2048 Cloud TPUv3 cores" -> "2048 Cloud
        TPUv3 cores")."""
        span = self.qualifier_span(mention)
        start = mention.start if span is None else span[1]
        return self.text[start:mention.end].lstrip()

    @property
    def id(self) -> str:
        return self.source.id

    @property
    def text(self) -> str:
        return self.source.text

    @cached_property
    def sentences(self) -> tuple[Span, ...]:
        """(start, end) of each sentence."""
        return sentence_spans(self.text)

    @cached_property
    def _sentence_starts(self) -> list[int]:
        return [start for start, _ in self.sentences]

    def sentence_index(self, offset: int) -> int:
        """The index of the sentence that holds ``offset`` (the last one before it when the
        offset falls between sentences)."""
        return max(0, bisect.bisect_right(self._sentence_starts, offset) - 1)

    def sentence_around(self, start: int, end: int) -> Span:
        """Offsets of the sentence around ``text[start:end]`` (to ``end`` at least)."""
        for left, right in self.sentences:
            if left <= start < max(right, left + 1):
                return left, max(right, end)
        return 0, len(self.text)

    def marked(self, mentions: Sequence[Mention]) -> "ParsedDocument":
        """This document with ``mentions`` marked for the model (its names and kept sentences
        follow from them); what was read of the text already is carried over, not read again."""
        marked = replace(self, mentions=tuple(mentions), is_marked=True)
        for name in _OF_THE_TEXT:
            if name in self.__dict__:
                marked.__dict__[name] = self.__dict__[name]
        return marked

    @cached_property
    def kept_sentences(self) -> tuple[Span, ...]:
        """The sentences the model reads: those holding marked numbers, and the one that
        introduces the paper's system."""
        return kept_sentence_spans(self.text, self.sentences, tuple(m.start for m in self.mentions))

    @cached_property
    def names(self) -> tuple[NameMark, ...]:
        """The candidate names to label, lettered in reading order (``parse.marks``)."""
        return mark_names(self.text, self.kept_sentences, [(m.start, m.end) for m in self.mentions])

    @cached_property
    def name_spans(self) -> tuple[Candidate, ...]:
        """Every place a marked name stands, in text order."""
        return tuple(sorted((span for mark in self.names for span in mark.spans), key=lambda c: c.start))

    def name(self, letter: Optional[str]) -> Optional[NameMark]:
        """The marked name with this letter, or None."""
        return self._by_letter.get(letter or "")

    @cached_property
    def _by_letter(self) -> dict[str, NameMark]:
        return {mark.letter: mark for mark in self.names}


# what a parsed document derives from its text alone (the same whatever numbers are marked)
_OF_THE_TEXT = ("numbers", "_qualifiers", "sentences", "_sentence_starts")


def parse_document(source: Document) -> ParsedDocument:
    """Parse a document once: its numbers (its sentences follow on first use)."""
    return ParsedDocument(source, tuple(read_numbers(source.text)))


def parse_text(text: str, mentions: Optional[Sequence[Mention]] = None) -> ParsedDocument:
    """A text as a parsed document (tests, the quantity parser alone); ``mentions`` marks
    those numbers."""
    doc = parse_document(Document(id="text", text=text))
    return doc if mentions is None else doc.marked(mentions)
