"""The marked document: what the model is shown and what its answer points at.

Numbers are marked ``[n]`` (1-based, in the order of the mentions the rules keep) and every
distinct candidate name gets a letter (A..Z, AA..), shared by its repeats. The prompt renders
these marks, the answer schema allows exactly these numbers and letters, and the rules read
the answer back through them; all three read the same marks, computed once per document
(``parse.document.ParsedDocument.names``). The model also reads the
sentence that introduces the paper's contribution (``INTRODUCES``, which the rules use too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from paper_claims.parse.candidates import Candidate, find_candidates
from paper_claims.parse.vocab import LazyPattern, alternation

MAX_OTHER_NAMES = 12

# the sentence that introduces the paper's contribution ("we propose X", "this paper describes X")
INTRODUCES = LazyPattern(lambda: rf"\b(?:we|this (?:paper|work))\s+(?:\w+\s+)?(?:{alternation('introduce_verbs')})s?\b",
                         re.IGNORECASE)


def letters(n: int) -> list[str]:
    """Mark names for ``n`` candidates: A..Z, then AA..AZ, BA.. (short in tokens)."""
    alphabet = [chr(ord("A") + i) for i in range(26)]
    names = list(alphabet)
    for first in alphabet:
        names += [first + second for second in alphabet]
        if len(names) >= n:
            break
    return names[:n]


@dataclass(frozen=True)
class NameMark:
    """A distinct candidate name the model labels: its mark letter, its first spelling and
    every place it stands in the text."""

    letter: str
    text: str
    spans: tuple[Candidate, ...]

    @property
    def compared(self) -> bool:
        """Only ever a "than X" phrase: a possible baseline, not typed by the model."""
        return all(span.compared for span in self.spans)


def kept_sentence_spans(text: str, sentences: Sequence[tuple[int, int]],
                        starts: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """The sentences the model reads: those holding a marked number (``starts``), and the
    one that introduces the paper's system."""
    keep = {i for i, (a, b) in enumerate(sentences) if any(a <= start < b for start in starts)}
    intro = next((i for i, (a, b) in enumerate(sentences) if INTRODUCES.search(text[a:b])), None)
    if intro is not None:
        keep.add(intro)
    return tuple(sentences[i] for i in sorted(keep))


def mark_names(text: str, kept: Sequence[tuple[int, int]], offsets: Sequence[tuple[int, int]]) -> tuple[NameMark, ...]:
    """The candidate names to label, lettered in reading order: first those in the kept
    sentences, then up to MAX_OTHER_NAMES standing only elsewhere (every one when no number is
    marked: no prompt is built, the rules type them all). Repeats share a letter. ``offsets``:
    the marked numbers, which a name never cuts."""
    candidates = find_candidates(text, list(offsets))
    inside = [c for c in candidates if any(a <= c.start < b for a, b in kept)]
    keys = list(dict.fromkeys(c.key for c in inside))
    # elsewhere, a "than X" phrase could only be the baseline of a claim the model does not see
    others = [k for k in dict.fromkeys(c.key for c in candidates if not c.compared) if k not in keys]
    keys += others[:MAX_OTHER_NAMES] if offsets else others  # no number, no prompt to keep short
    marks = []
    for letter, key in zip(letters(len(keys)), keys):
        spans = tuple(c for c in candidates if c.key == key)
        marks.append(NameMark(letter, spans[0].text, spans))
    return tuple(marks)
