"""Rendering the request: the static prompt first, the marked excerpt last (the marks are the
parsed document's, ``paper_claims.parse.document``)."""

from __future__ import annotations

from typing import Optional, Sequence

from paper_claims.model.prompt_files import load_prompt
from paper_claims.parse.document import ParsedDocument
from paper_claims.schemas import Mention


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


def excerpt(doc: ParsedDocument) -> str:
    """What the model reads: the sentences holding marked numbers, plus the sentence that
    introduces the paper's system, marked, in order, joined by " … "; then the candidate
    names that stand only in other sentences, on one line."""
    text, mentions, marks = doc.text, doc.mentions, doc.names
    ends = {span.end: mark.letter for mark in marks for span in mark.spans}
    sentences = doc.kept_sentences
    body = " … ".join(_marked_span(text, a, b, mentions, ends) for a, b in sentences)
    shown = {letter for a, b in sentences for at, letter in ends.items() if a < at <= b}
    others = [f"{mark.text}{{{mark.letter}}}" for mark in marks if mark.letter not in shown]
    if others:
        body += "\nAlso named: " + ", ".join(others)
    return body.strip()


def render_messages(doc: ParsedDocument, *, nonce: str | None = None, system: Optional[str] = None
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
        {"role": "user", "content": excerpt(doc)},
    ]
