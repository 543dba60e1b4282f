"""A claim's metric in words, read from the text around its number (the model is not asked).

"81.2% top-1 accuracy" gives "top-1 accuracy", "3.1x faster" gives "faster", "a top-1
accuracy of 84.4%" and "improves throughput by 2.5x" give the words before "of"/"by", and
a count gives its counted noun ("1.2 million captions" -> "captions").
"""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.schemas import Mention

_DIMENSIONLESS = {"x", "%", "points"}
_STOP = frozenset("""
a an the of on in at to for by with from over than and or but while whereas which that this these
compared relative versus vs across under using when where as is are was were be respectively its
their our we it up down only just also even
""".split())
_WORD = re.compile(r"[A-Za-z][\w@/-]*")


def _words_after(text: str, end: int) -> list[str]:
    words: list[str] = []
    words_end = end
    for match in _WORD.finditer(text, end, min(len(text), end + 60)):
        gap = text[words_end:match.start()]
        if gap.strip() or match.group(0).lower() in _STOP or len(words) == 3:
            break
        words.append(match.group(0))
        words_end = match.end()
    return words


def _words_before(text: str, start: int) -> list[str]:
    head = re.search(r"((?:[A-Za-z][\w@/-]*\s+){1,2})(?:by|of|to|at|is|reaches|achieves|of\s+up\s+to)\s+$",
                     text[max(0, start - 60):start])
    if not head:
        return []
    words = head.group(1).split()
    while words and words[0].lower() in _STOP:
        words = words[1:]
    return words


def metric_of(text: str, mention: Mention) -> Optional[str]:
    """What the number measures, in a few words of the text, or None."""
    unit = mention.unit or ""
    if unit and unit.lower() not in _DIMENSIONLESS and re.fullmatch(r"[A-Za-z][A-Za-z -]*", unit):
        before = _words_before(text, mention.start)
        return " ".join(before) if before and len(unit) <= 3 else unit
    words = _words_after(text, mention.end) or _words_before(text, mention.start)
    return " ".join(words) or None
