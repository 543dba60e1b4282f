"""A mention under construction (``Draft``) and the small helpers the parser reads numbers
and words with (digits and spelled-out values, plurals, the token before a number)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

from paper_claims.parse.quantities.patterns import SENT_END_RE, SUPERSCRIPTS, ones, tens
from paper_claims.parse.vocab import words
from paper_claims.schemas import Qualifier


@dataclass
class Draft:
    """A mention under construction (offsets into the text)."""

    start: int
    end: int
    value: float
    value_high: Optional[float] = None
    unit: Optional[str] = None
    qualifier: Optional[Qualifier] = None
    strong: bool = False  # unit is %, x, points, physical or currency
    noun: bool = False  # unit is a counted noun
    spelled: bool = False
    integer: bool = True
    pluralised: bool = False  # the counted noun is written singular ("8 billion parameter")
    math: str = ""  # the LaTeX math opener the number is wrapped in ("$17$ billion", "\\(3\\) tokens")
    qualified: Optional[tuple[int, int]] = None  # where the qualifier's words and sign stand ("up to", "~")


def to_float(raw: str) -> float:
    """Parse a digit number as written ("1,200", "−3", ".5", "2e-5")."""
    return float(raw.replace(",", "").replace("−", "-"))


def pow10(exponent: str) -> float:
    """10 to a written exponent ("−3", "6", "⁻³"); inf when out of float range."""
    exp = int(exponent.translate(SUPERSCRIPTS).replace(" ", ""))
    return 10.0 ** exp if -320 < exp < 309 else math.inf


def spelled_value(word: str) -> Optional[float]:
    """Value of a spelled-out number ("twenty-five" -> 25.0), or None."""
    w = word.lower()
    if w in ones():
        return float(ones()[w])
    if w == "dozen":
        return 12.0
    head, _, tail = w.partition("-")
    if head in tens():
        return float(tens()[head] + (ones().get(tail, 0) if tail else 0))
    return None


def pluralise(word: str) -> str:
    """Plural of a count noun ("layer" -> "layers", "query" -> "queries")."""
    low = word.lower()
    if low.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def is_plural(word: str) -> bool:
    """Whether a word looks like a plural count noun ("conversations", "VLMs", "T4s")."""
    low = word.lower()
    if "-" in word[1:-1]:
        return is_plural(word.rsplit("-", 1)[1])  # "GPU-hours", "real-world" (no)
    if len(word) < 3 or word[-1] != "s" or low in words("not_plurals"):
        return False
    if word[:-1].isupper() or any(ch.isdigit() for ch in word):
        return True  # acronym plural: VLMs, GPUs, T4s
    if low.endswith(("ss", "us", "is", "ous", "'s", "’s")):
        return False
    return word[0].islower() or word[1:].islower()


def normalise_noun(word: str) -> str:
    """Counted-noun unit as written, with GPU model plurals mapped to "GPUs"."""
    if re.fullmatch(r"(?:[AHVTLKP][0-9]{1,3}|RTX[0-9]{3,4}|MI[0-9]{2,3})s", word):
        return "GPUs"
    return word


def prev_token(text: str, s: int) -> Optional[tuple[str, int]]:
    """The token right before ``s`` (one space between), with its start, or None.

    Scans back at most 40 characters; a token must end in a letter, digit or period.
    """
    if s < 2 or text[s - 1] not in " \t\u00a0":
        return None
    i = s - 2
    stop = max(0, s - 42)
    while i >= stop and not text[i].isspace() and text[i] not in "([{":
        i -= 1
    token = text[i + 1 : s - 1]
    if not token or not (token[-1].isascii() and (token[-1].isalnum() or token[-1] == ".")):
        return None
    return token, i + 1


def sentence_initial(text: str, pos: int) -> bool:
    """Whether ``pos`` starts a sentence (only whitespace since the last terminator)."""
    return bool(SENT_END_RE.search(text, max(0, pos - 4), pos)) or pos == 0
