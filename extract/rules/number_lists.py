"""Numbers listed together ("94.6% (95.6% for the ensemble) and 77.0%", "2.7%/4.3%", "38 and
190 mJ"): they share what the list says they measure (``rules.metric``)."""

from __future__ import annotations

from typing import Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.rules.metric_words import MATH
from paper_claims.schemas import Mention


_JOINED = LazyPattern(lambda: rf"\s*\)?\s*(?:(?:{alternation('joined_list_words')})\s+"
                              rf"[^,;:()%]{{1,40}}?\s*\)?\s*)?(?:,|/|;)?\s*(?:(?:{alternation('number_joiners')})\s+)?\(?\s*")


_ASIDE = LazyPattern(lambda: rf"\s*(?:(?:{alternation('aside_words')})\s[^()]{{0,30}})?\)")


def listed_together(doc: ParsedDocument, mention: Mention, mentions: Sequence[Mention]) -> list[Mention]:
    """The numbers listed together with ``mention``, in order ("94.6% (95.6% for the ensemble)
    and 77.0%", "2.7%/4.3%", "up to 4.86x and 2.18x"), when their units agree."""
    ordered = sorted({(m.start, m.end): m for m in [*mentions, mention]}.values(), key=lambda m: m.start)
    i = next(i for i, m in enumerate(ordered) if m.start == mention.start and m.end == mention.end)
    lo = hi = i
    units = {mention.unit} - {None}

    def agrees(other: Mention) -> bool:
        return other.unit is None or not units or other.unit in units

    while lo > 0 and _joined(doc, ordered[lo - 1], ordered[lo]) and agrees(ordered[lo - 1]):
        lo -= 1
        units |= {ordered[lo].unit} - {None}
    while hi + 1 < len(ordered) and _joined(doc, ordered[hi], ordered[hi + 1]) and agrees(ordered[hi + 1]):
        hi += 1
        units |= {ordered[hi].unit} - {None}
    return ordered[lo:hi + 1]


def _joined(doc: ParsedDocument, one: Mention, other: Mention) -> bool:
    """Two numbers in one list: only a conjunction, a slash or a short "on X" between them; a
    number in brackets only when the brackets hold no more than it and such a phrase
    ("94.6% (95.6% for the ensemble)", not "80.5% (7.7% point absolute improvement)")."""
    text = doc.text
    between = MATH.sub("", text[one.end:other.start])
    if len(between) > 60 or _JOINED.fullmatch(between) is None:
        return False
    return "(" not in between or _ASIDE.match(text, other.end) is not None
