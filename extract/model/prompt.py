"""Prompt files and request rendering: the static prefix first, the marked excerpt last."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

from paper_claims.parse.candidates import Candidate, find_candidates, letters
from paper_claims.model.prompt_files import load_prompt
from paper_claims.parse.selection import INTRODUCES
from paper_claims.schemas import Mention
from paper_claims.text import sentence_spans

def mark_mentions(text: str, mentions: Sequence[Mention]) -> str:
    """The abstract with ``[n]`` (1-based) inserted before each mention."""
    pieces: list[str] = []
    cursor = 0
    for number, mention in enumerate(mentions, start=1):
        pieces.append(text[cursor : mention.start])
        pieces.append(f"[{number}]")
        cursor = mention.start
    pieces.append(text[cursor:])
    return "".join(pieces)


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


def _kept_sentences(text: str, mentions: Sequence[Mention]) -> list[tuple[int, int]]:
    """The sentences the model reads: those holding marked numbers, and the one that
    introduces the paper's system."""
    return list(_kept_sentence_spans(text, tuple(m.start for m in mentions)))


@lru_cache(maxsize=1024)
def _kept_sentence_spans(text: str, starts: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    spans = sentence_spans(text)
    keep = {i for i, (a, b) in enumerate(spans) if any(a <= start < b for start in starts)}
    intro = next((i for i, (a, b) in enumerate(spans) if INTRODUCES.search(text[a:b])), None)
    if intro is not None:
        keep.add(intro)
    return tuple(spans[i] for i in sorted(keep))


MAX_OTHER_NAMES = 12


def name_marks(text: str, mentions: Sequence[Mention]) -> list[NameMark]:
    """The candidate names to label, lettered in reading order: first those in the excerpt's
    sentences, then up to MAX_OTHER_NAMES standing only elsewhere. Repeats share a letter.

    The prompt, the answer model and grounding all ask for the same document's marks, so
    they are computed once (memoized on the text and the mention offsets)."""
    return list(_name_marks(text, tuple((m.start, m.end) for m in mentions)))


@lru_cache(maxsize=1024)
def _name_marks(text: str, offsets: tuple[tuple[int, int], ...]) -> tuple[NameMark, ...]:
    candidates = find_candidates(text, list(offsets))
    sentences = _kept_sentence_spans(text, tuple(start for start, _ in offsets))
    inside = [c for c in candidates if any(a <= c.start < b for a, b in sentences)]
    keys = list(dict.fromkeys(c.key for c in inside))
    # elsewhere, a "than X" phrase could only be the baseline of a claim the model does not see
    others = [k for k in dict.fromkeys(c.key for c in candidates if not c.compared) if k not in keys]
    keys += others[:MAX_OTHER_NAMES]
    marks = []
    for letter, key in zip(letters(len(keys)), keys):
        spans = tuple(c for c in candidates if c.key == key)
        marks.append(NameMark(letter, spans[0].text, spans))
    return tuple(marks)


def _marked_span(text: str, start: int, end: int, mentions: Sequence[Mention],
                 names: dict[int, str]) -> str:
    """``text[start:end]`` with ``[n]`` before each number and ``{A}`` after each name."""
    inserts: list[tuple[int, int, str]] = []
    for number, mention in enumerate(mentions, start=1):
        if start <= mention.start < end:
            inserts.append((mention.start, 1, f"[{number}]"))
    for at, letter in names.items():
        if start < at <= end:
            inserts.append((at, 0, f"{{{letter}}}"))
    pieces, cursor = [], start
    for at, _order, mark in sorted(inserts):
        pieces += [text[cursor:at], mark]
        cursor = at
    pieces.append(text[cursor:end])
    return "".join(pieces).strip()


def excerpt(text: str, mentions: Sequence[Mention]) -> str:
    """What the model reads: the sentences holding marked numbers, plus the sentence that
    introduces the paper's system, marked, in order, joined by " … "; then the candidate
    names that stand only in other sentences, on one line."""
    marks = name_marks(text, mentions)
    ends = {span.end: mark.letter for mark in marks for span in mark.spans}
    sentences = _kept_sentences(text, mentions)
    body = " … ".join(_marked_span(text, a, b, mentions, ends) for a, b in sentences)
    shown = {letter for a, b in sentences for at, letter in ends.items() if a < at <= b}
    others = [f"{mark.text}{{{mark.letter}}}" for mark in marks if mark.letter not in shown]
    if others:
        body += "\nAlso named: " + ", ".join(others)
    return body.strip()


def render_messages(
    text: str, mentions: Sequence[Mention], *, nonce: str | None = None, system: Optional[str] = None
) -> list[dict[str, str]]:
    """Chat messages for one abstract.

    The system message (``system``, default the packaged prompt) is byte-identical for every
    document so the server reuses its KV cache; the user message is the marked excerpt.
    ``nonce`` (benchmarks only) defeats the cache reuse on purpose.
    """
    system = load_prompt() if system is None else system
    if nonce:
        system = f"Request {nonce}.\n{system}"
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": excerpt(text, mentions)},
    ]
