"""Words chosen in an abstract -> the grounded parts of a claim, measured by the parser.

A reviewer never types a value, a unit or an evidence: they choose words of the text, and the
quantity parser (``parse/quantities``) reads the number there, so a corrected or added claim
is grounded like an extracted one (``evidence == text[start:end]``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Optional

from paper_claims.errors import ReviewError
from paper_claims.parse.document import parse_text
from paper_claims.rules.kinds import rule_kind
from paper_claims.rules.metric import metric_of
from paper_claims.parse.quantities import find_quantities, parse_value
from paper_claims.schemas import Mention

MAX_SPAN = 400  # characters: evidence is a phrase, not a paragraph
# "13/29", "7 / 16": a fraction the parser leaves alone (it reads only a/b with b <= 12, 100 or 1000,
# since "22/10" may be a date); a reviewer who selects one means the number
_FRACTION = re.compile(r"(?<![\w./])(\d{1,6})\s?/\s?(\d{1,6})(?![\w/]|[.,]\d)")
_VULGAR = re.compile(r"(?<!\d)[\u00bc-\u00be\u2150-\u215e]")  # ¼ ½ ¾ ⅓ ⅔ ⅛ ...


def snap(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without surrounding blanks, widened to whole words."""
    if not (0 <= start < end <= len(text)):
        raise ReviewError(f"the span {start}-{end} is not inside the abstract ({len(text)} characters)")
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start == end:
        raise ReviewError("the selection holds no words")
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
        end += 1
    return start, end


def _fractions_in(text: str, start: int, end: int) -> list[Mention]:
    """Fractions the span touches ("13/29", "¾"), as factors (GUIDELINES: "1/3 of the energy" is 0.3333 x)."""
    found = []
    lo, hi = max(0, start - 16), min(len(text), end + 16)
    for match in _FRACTION.finditer(text, lo, hi):
        num, den = int(match.group(1)), int(match.group(2))
        if den and match.start() < end and start < match.end():
            found.append(Mention(start=match.start(), end=match.end(), text=match.group(0), value=num / den, unit="x"))
    for match in _VULGAR.finditer(text, lo, hi):
        if match.start() < end and start < match.end():
            found.append(Mention(start=match.start(), end=match.end(), text=match.group(0),
                                 value=unicodedata.numeric(match.group(0)), unit="x"))
    return found


def _mention_in(text: str, start: int, end: int) -> Mention:
    """The one numeric mention the span covers (read in its context, else as a fraction, else
    on its own)."""
    found = [m for m in find_quantities(text) if m.start < end and start < m.end]
    if not found:
        found = _fractions_in(text, start, end)
    if not found:
        alone = parse_value(text[start:end])
        if alone is None:
            raise ReviewError(f"no number in the selected words {text[start:end]!r}")
        found = [alone.model_copy(update={"start": alone.start + start, "end": alone.end + start})]
    if len(found) > 1:
        numbers = ", ".join(repr(m.text) for m in found)
        raise ReviewError(f"the selection holds {len(found)} numbers ({numbers}); select one")
    return found[0]


def span_claim(text: str, start: int, end: int) -> dict[str, Any]:
    """The grounded fields of a claim at the chosen words: value, value_high, unit, qualifier,
    evidence, start, end (the span widened to the whole number and its unit); plus the kind
    and metric the rules suggest (``suggested_kind``, ``metric``, either may be None)."""
    start, end = snap(text, start, end)
    mention = _mention_in(text, start, end)
    start, end = min(start, mention.start), max(end, mention.end)
    if end - start > MAX_SPAN:
        raise ReviewError(f"the selection is {end - start} characters long; choose at most {MAX_SPAN}")
    parsed = parse_text(text)
    kind = rule_kind(parsed, mention)
    return {
        "value": mention.value,
        "value_high": mention.value_high,
        "unit": mention.unit,
        "qualifier": mention.qualifier.value if mention.qualifier else None,
        "evidence": text[start:end],
        "start": start,
        "end": end,
        "suggested_kind": kind.value if kind else None,
        "metric": metric_of(parsed, mention),
    }


def grounded_name(text: str, field: str, value: Any, *, known: Optional[set[str]] = None) -> Optional[str]:
    """A name given for ``field``, stripped; None when empty. It must be words of the abstract
    (or one of ``known``, names the output already had); otherwise ReviewError."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReviewError(f"{field} must be text")
    name = " ".join(value.split())
    if not name:
        return None
    if name in (known or set()) or name in text or name in " ".join(text.split()):
        return name
    raise ReviewError(f"{field} {name!r} is not in the abstract; choose words of the text")
