"""Deterministic quantity parser: every numeric mention of a text, with offsets.

``find_quantities(text)`` scans a text once, left to right, and returns the numeric
mentions it states (``schemas.Mention``), in reading order and without overlaps. Each
mention's span covers its qualifier, number(s) and unit or counted noun, e.g.
``"up to 89×"``, ``"230K real-world conversations"``, ``"more than a dozen areas"``,
``"~3 −15%"``; ``text[m.start:m.end] == m.text`` always holds.

Values are in base units (``230K`` -> 230000, ``half a trillion`` -> 5e11); a range gives
``value``/``value_high``. Units are normalised as in ``eval/gold/GUIDELINES.md``: ``x`` for
factors, ``%``, ``points`` for point gains, a score's metric name ("28.4 BLEU", "a BLEU score of
41.8"), otherwise the physical unit (spelled one way by ``parse.units.canonical``: "s", "mJ",
"frames/s") or the counted noun as written. Identifiers (GPT-4, CIFAR-10, Mixtral 8x7B, INT8, 3x3), years, citations,
enumeration markers, figure/section references, URLs and fused footnote digits are skipped.

How it works: one compiled "core" regex finds digit numbers and spelled-out numbers; each
core is then judged by small context checks (what is glued to it, the word before it) and
grown to the right (scale word, range, unit, counted noun) and to the left (qualifier,
``$``/``(``/``\\textbf{`` wrappers). All look-arounds are bounded windows, so the scan is
linear in the text length.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from paper_claims.parse.rates import extend_rate, per_time, time_compound
from paper_claims.parse.units import canonical
from paper_claims.parse.vocab import LazyPattern, alternation, entries, values, words
from paper_claims.schemas import Mention, Qualifier

__all__ = ["find_quantities", "parse_value"]

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

# The words are the word classes of parse/vocab: numbers written as words (cardinals, scale_words,
# fractions, multiplying_verbs, halving_verbs, multiplying_adverbs), the words that make a number a
# label (label_words, reference_words) or may stand before one (before_quantity), the words a
# counted noun is read over or stops at (counted_noun_stops, name_links, not_plurals,
# count_nouns) and the units (time_units, long_time_units, si_prefixes, prefixed_units, bit_rates,
# rate_units, percent_marks, currencies, physical_units).
_SUFFIX_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_GREEK_UNITS = {"κ": "kappa", "kappa": "kappa", "ρ": "rho", "τ": "tau"}


@lru_cache(maxsize=None)
def _ones() -> dict[str, float]:
    """The cardinals zero to nineteen, by their words."""
    return {word: value for word, value in values("cardinals").items() if value < 20}


@lru_cache(maxsize=None)
def _tens() -> dict[str, float]:
    """The tens, twenty to ninety, by their words."""
    return {word: value for word, value in values("cardinals").items() if value >= 20}


def _spelled_ones(low: int = 0, high: int = 19) -> str:
    """The cardinals from ``low`` to ``high`` as an alternation."""
    return "|".join(word for word, value in _ones().items() if low <= value <= high)


@lru_cache(maxsize=None)
def _mult_words() -> dict[str, float]:
    """Each multiplicative word and its factor ("twice" 2, "halves" 0.5)."""
    return {**values("multiplying_adverbs"), **values("multiplying_verbs"), **values("halving_verbs")}


@lru_cache(maxsize=None)
def _fold_words() -> dict[str, float]:
    """The number words written before "-fold" ("three-fold", "hundredfold"): the cardinals from two
    and the scale words."""
    return {word: value for word, value in {**values("cardinals"), **values("scale_words")}.items() if value >= 2}


# Physical and data units, written as in the text (re.X).  Longer spellings come first.
_LATEX_MU_SECONDS = r"(?:\{\\mu\}|\$\\mu\$|\\mu\{\})s"


def _unit_words() -> str:
    return "\n|".join((
        rf" (?:{alternation('si_prefixes')})?(?:{alternation('prefixed_units')})",
        alternation("time_units", "long_time_units"),
        rf"bits?|(?i:{alternation('bit_rates')})|[KMGTPE]i?B(?:/s)?|kB|[KMGT]b(?:/s)?",
        rf"[KMGTP]?FLOP[Ss]?|[GTP]?FLOPS|(?i:(?:[kmgtpe]|{alternation('si_prefixes')})?flops?)|[KMGTP]?OPS"
        rf"|(?i:{alternation('rate_units')})",
        rf"[nμµu]s|{_LATEX_MU_SECONDS}|[pnμµuckm]?m|[nμµum]?g|t",
        r"°\s?[CF]|°[NSEW]\b|℃|°|K",
        r"[kMGT]?Hz|[kMGT]?Wh|[mμµunpkG]?W|[mμµunpkG]?J|[kMG]?eV|[km]?V|Ω",
        r"[mμµn]?L|[kMG]?Pa|[mμµn]?bar|[nμµp]T",
        rf"[mμµnp]?M|(?:{alternation('percent_marks')})\.?\s?%|‰",
        alternation("currencies"),
        rf"R[pSEJ]|[Kk]elvin|[Cc]elsius|[mμµ]?Sv|N|{alternation('physical_units')}",
    )) + "\n"


_EXP = r"(?:\^\{?[−\-–]?[0-9]+\}?|[−⁻][0-9⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}|-[0-9](?![0-9])|[²³⁻¹]+|[23](?![0-9]))"

# ---------------------------------------------------------------------------
# Compiled patterns
# ---------------------------------------------------------------------------



def _spelled() -> str:
    """A number written as words: the tens, maybe hyphened to a one ("twenty-five"), or a cardinal
    from zero to nineteen."""
    return rf"(?:{'|'.join(_tens())})(?:-(?:{_spelled_ones(1, 9)}))?|{_spelled_ones()}"


_DIGITS = (
    r"(?<![\w.,\\])(?<![0-9]/)(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]+)?"
    r"(?:[eE][-+]?[0-9]{1,3}(?![0-9]))?"
    r"|(?<=[0-9]\.[0-9]/)[0-9]+\.[0-9]+|(?<=[0-9]\.[0-9]{2}/)[0-9]+\.[0-9]+"  # "90.0/79.2"
    r"|(?<![\w.,\\])\.[0-9]+"
)
_CORE_RE = LazyPattern(lambda:
    rf"(?P<num>{_DIGITS})"
    rf"|(?i:(?P<frac>\b(?:{_spelled_ones(1, 9)}|a)[-\s](?:{alternation('fractions')})\b)"
    r"|(?P<order>\b(?:an?|one)\s+order[\s-]of[\s-]magnitude\b)"
    rf"|(?P<fold>\b(?=[a-z]+-?fold\b)(?:{'|'.join(_fold_words())})-?fold\b)"  # the look-ahead: only words before "fold" try the list
    rf"|(?P<mult>\b(?:{alternation('multiplying_adverbs', 'multiplying_verbs', 'halving_verbs')})\b)"
    rf"|(?P<ascale>\ban?\s+(?:{alternation('scale_words')})\b)"
    r"|(?P<half>\bhalf\b)"
    rf"|(?P<spelled>\b(?:{_spelled()})\b|\bdozen\b))"
)
_SCALE_WORD_RE = LazyPattern(lambda: rf"(?i:[ \t]*-?[ \t]*({alternation('scale_words', without=('dozen',))})\b)")
_SUFFIX_RE = re.compile(r"([kKMBT])(?![A-Za-z0-9])")
_SCI_RE = re.compile(
    r"[ \t]?(?:×|x|\\times|\*)[ \t]?10(?:\^\{?[ \t]?([−\-–]?[ \t]?[0-9]{1,3})(?:[ \t]?\})?"
    r"|([−][0-9]{1,2})(?![0-9])|([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})|([0-9])(?![0-9.]))"
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻−–", "0123456789---")
_POW_RE = re.compile(r"\^\{?[ \t]?([−\-]?[0-9]{1,3})(?:[ \t]?\})?")
_LOST_EXP_RE = re.compile(r"[ \t]?×[ \t]?10([0-9]{2})(?![0-9.])")
_BARE_EXP_RE = re.compile(r"[−]([0-9]{1,2})(?![0-9])")  # "10−3" with a lost superscript
_PERCENT_RE = LazyPattern(lambda:
    rf"[ \t]?(?:\\?%|(?:{alternation('percent_marks')})\.?[ \t]?%)|[ \t](?i:per[ \t]?cent)\b"
)
_POINTS_RE = re.compile(r"(?i:[ \t]percentage[ \t]points?\b|[ \t]?pp\b|[ \t-]points?\b|[ \t]pts?\b)")
_FACTOR_RE = re.compile(
    r"[ \t]?×(?![ \t]?[0-9])|[xX](?![A-Za-z0-9])|[ \t]?\$?[ \t]?\\times(?![a-zA-Z])\$?"
    r"|(?i:[ \t-]times\b)|(?i:[ \t-]?fold\b)(?![ \t-]cross)"
)
_ORDERS_RE = re.compile(r"(?i:[ \t-]orders?[ \t-]of[ \t-]magnitudes?\b)")  # also "orders-of-magnitude"
_UNIT_RE = LazyPattern(lambda:
    rf"[ \t]?(?:{_unit_words()})(?:{_EXP})?"
    rf"(?:[/·⋅](?:{_unit_words()})(?:{_EXP})?(?![A-Za-z])|[ \t]?(?:{_unit_words()}){_EXP})*"
    r"(?![A-Za-z0-9])",
    re.X,
)
_CURRENCY_PRE_RE = re.compile(r"(?:US\$|\$|€|£|USD[ \t]?)\Z")
_CURRENCY_UNITS = {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "USD": "USD"}
_WORD_AFTER_RE = re.compile(r"[ \t\u00a0]+(vs\.|[A-Za-z][A-Za-z0-9]*(?:['’\-][A-Za-z0-9]+)*)")
_HYPHEN_WORD_RE = re.compile(r"-([A-Za-z]{1,40})(?![A-Za-z0-9-]{0,40}[0-9])")
_HALF_SCALE_RE = LazyPattern(lambda: rf"(?i:[ \t]+an?[ \t]+({alternation('scale_words')})\b)")
_HALF_NOUN_RE = re.compile(r"(?i:[ \t]+an?[ \t]+([a-z]+))")
_HALF_OF_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:of[ \t]+)?(?:{alternation('after_half')})\b)")
_HALF_PART_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('half_parts')})[ \t]+)\Z")
_REF_LIST_RE = re.compile(
    r"(?:[A-Za-z]?(?:[ \t]*(?:,[ \t]*(?:and|&)?|and|&|–|-)[ \t]*[0-9]+[A-Za-z]?))*"
)
_IDENT_TAIL_RE = re.compile(r"[\w.\-]*")
_SLASH_TAIL_RE = re.compile(r"[\w./\-]*")
_VERSION_TAIL_RE = re.compile(r"[0-9.]*")
_REF_NUM_TAIL_RE = re.compile(r"[0-9.]*[A-Za-z]?")
_DIM_RE = re.compile(r"(?:[ \t]?[x×X][ \t]?[0-9][0-9A-Za-z.]*)+")
_LATEX_OPEN_RE = re.compile(r"\\[A-Za-z]+\{\Z")
# math, not a quantity: an exponent, a subscript, a fraction or a root ("O(T^{\frac{2}{3}})")
_MATH_OPEN_RE = re.compile(r"(?:\\(?:[dt]?frac|sqrt)|[\^_])\{\Z")
_ENUM_CLOSE_RE = re.compile(r"\.?\)")
_OPERATOR_BEFORE_RE = re.compile(r"[=<>≤≥~∼:][ \t]*\Z")
_HUNDREDS_OF_RE = re.compile(r"s[ \t]+of\b")
_FROM_BEFORE_RE = re.compile(r"(?i:(\w+)[ \t]+)?(?i:from)[ \t]+(?:\S{1,12}[ \t]+)?\Z")
_RANGING_FROM_RE = re.compile(r"(?i:\b(?:rang\w*|var\w*)[ \t]+from)[ \t]+\Z")
_IN_BEFORE_RE = re.compile(r"(?i:\bin[ \t]+)\Z")
_OF_AFTER_RE = re.compile(r"[ \t]+of\b")
_FRACTION_RE = re.compile(r"/([0-9]{1,4})(?:th)?(?![0-9A-Za-z./])")
_PLUS_RE = re.compile(r"\+(?![0-9+])")
_DECIMAL_PAIR_RE = re.compile(r"/[0-9]+\.[0-9]+")
_PARTITIVE_RE = LazyPattern(lambda:
    rf"(?i:[ \t]+of[ \t]+(?:{alternation('partitive_words')})(?:[ \t]+(?:[0-9][0-9,]*|{_spelled()}))?)"
    r"(?=[ \t])"
)
_MULT_OBJECT_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:{alternation('object_determiners')})\b)")
_MODAL_BEFORE_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('modal_verbs')})[ \t]+)\Z")
_PERCENT_POINT_RE = re.compile(r"(?i:[ \t-]points?\b)")
_NAME_NUMBER_RE = re.compile(r"[ \t][0-9]{2,5}(?![0-9.,%])(?=[ \t]+[A-Za-z])")
_OR_MORE_RE = LazyPattern(lambda: rf"(?i:[ \t]or[ \t]({alternation('more_words', 'less_words')}))\b")
_PM_RE = re.compile(r"[ \t]?(?:±|\+/-|\+/−|\\pm)[ \t]?")
_RANGE_SEP_RE = LazyPattern(lambda:
    rf"[ \t]?(?:--|–|—|-|−|~)[ \t]?|[ \t]+(?i:{alternation('number_joiners')})[ \t]+|[ \t](?=[0-9])"
)
_NUM_AT_RE = re.compile(
    r"[−\-]?(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]+)?|\.[0-9]+"
)

# the qualifier phrases of each qualifier (vocab/<qualifier>_qualifiers), their words apart by spaces or tabs
_QUALIFIERS = (Qualifier.up_to, Qualifier.over, Qualifier.about, Qualifier.at_least)


@lru_cache(maxsize=None)
def _qual_words() -> list[tuple[str, Qualifier]]:
    return [(alternation(f"{qual.name}_qualifiers").replace(r"\s+", r"[ \t]+"), qual) for qual in _QUALIFIERS]


_QUAL_WORD_RE = LazyPattern(lambda:
    r"(?i:(?<![\w])(" + "|".join(f"(?:{p})" for p, _ in _qual_words()) + r"))[ \t\u00a0]+\Z"
)
_BETWEEN_RE = re.compile(r"(?i:(?<![\w])between)[ \t]+\Z")
_QUAL_SYM_RE = re.compile(r"(>=|<=|[~∼≈≃>≥<≤])[ \t]?\Z")
_QUAL_SYMBOLS = {
    "~": Qualifier.about, "∼": Qualifier.about, "≈": Qualifier.about, "≃": Qualifier.about,
    ">": Qualifier.over, "≥": Qualifier.at_least, ">=": Qualifier.at_least,
    "<": Qualifier.up_to, "≤": Qualifier.up_to, "<=": Qualifier.up_to,
}
_BEFORE_SIGN = " \t(=[" + "".join(sym for sym in _QUAL_SYMBOLS if len(sym) == 1)  # what may stand before a minus
_FACTOR_OF_RE = re.compile(r"(?i:(?<![\w])(?:an?[ \t]+)?factor[ \t]+of[ \t]+)\Z")
_SYMBOL_EQ_RE = re.compile(
    r"(?<![\w])(κ|kappa|ρ|τ|[A-Za-z](?:_?\{?[A-Za-z0-9]{1,3}\}?)?|[Rr]²|[Rr]\^2)[ \t]?[=≈][ \t]?\Z"
)
_BLOCK_RE = LazyPattern(lambda:
    r"https?://\S+|www\.\S+"
    rf"|(?<![\w.-])[\w-]{{1,63}}(?:\.[\w-]{{1,63}}){{0,4}}\.(?:{alternation('web_domains')})\b(?:/\S*)?"
    r"|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}"
    r"|(?i:arxiv:?\s?)[0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?|(?<![\w.])10\.[0-9]{4,9}/\S+"
    rf"|\\(?:cite[a-z]*|{alternation('latex_pointers')})\{{[^}}\n]{{0,200}}\}}"
    r"|\[[0-9][0-9,;\s–-]{0,40}\]|\([0-9]{1,3}(?:[ \t]?[,–-][ \t]?[0-9]{1,3}){1,8}\)"
    r"|(?<![\w.])[0-9]{1,6}(?:\.[0-9]{1,6}){2,}(?!\w)"
    r"|(?<![\w:])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\s?(?i:a\.?m\.?|p\.?m\.?)"
)
_ENUM_RE = re.compile(r"\(([0-9]{1,2}|[ivx]{1,4}|[a-z])\)")
_SENT_END_RE = re.compile(r"[.!?;:]\s+\Z|\A\s*\Z|\n\s*\Z")
_SHARE_GAP_RE = re.compile(r"(?:[ \t]+to[ \t]+|/|,[ \t]+|,?[ \t]+(?:and|or)[ \t]+)\Z")
_SCOPE_GAP_RE = re.compile(r"\A[^.;:!?]{0,60}\Z")
_SCOPE_JOIN_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('scope_joiners')})\b|,|/)")
_SCOPE_BREAK_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('scope_breaks')})\b)")


@dataclass
class _Cand:
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


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _to_float(raw: str) -> float:
    """Parse a digit number as written ("1,200", "−3", ".5", "2e-5")."""
    return float(raw.replace(",", "").replace("−", "-"))


def _pow10(exponent: str) -> float:
    """10 to a written exponent ("−3", "6", "⁻³"); inf when out of float range."""
    exp = int(exponent.translate(_SUPERSCRIPTS).replace(" ", ""))
    return 10.0 ** exp if -320 < exp < 309 else math.inf


def _spelled_value(word: str) -> Optional[float]:
    """Value of a spelled-out number ("twenty-five" -> 25.0), or None."""
    w = word.lower()
    if w in _ones():
        return float(_ones()[w])
    if w == "dozen":
        return 12.0
    head, _, tail = w.partition("-")
    if head in _tens():
        return float(_tens()[head] + (_ones().get(tail, 0) if tail else 0))
    return None


def _pluralise(word: str) -> str:
    """Plural of a count noun ("layer" -> "layers", "query" -> "queries")."""
    low = word.lower()
    if low.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _is_plural(word: str) -> bool:
    """Whether a word looks like a plural count noun ("conversations", "VLMs", "T4s")."""
    low = word.lower()
    if "-" in word[1:-1]:
        return _is_plural(word.rsplit("-", 1)[1])  # "GPU-hours", "real-world" (no)
    if len(word) < 3 or word[-1] != "s" or low in words("not_plurals"):
        return False
    if word[:-1].isupper() or any(ch.isdigit() for ch in word):
        return True  # acronym plural: VLMs, GPUs, T4s
    if low.endswith(("ss", "us", "is", "ous", "'s", "’s")):
        return False
    return word[0].islower() or word[1:].islower()


def _normalise_noun(word: str) -> str:
    """Counted-noun unit as written, with GPU model plurals mapped to "GPUs"."""
    if re.fullmatch(r"(?:[AHVTLKP][0-9]{1,3}|RTX[0-9]{3,4}|MI[0-9]{2,3})s", word):
        return "GPUs"
    return word


def _prev_token(text: str, s: int) -> Optional[tuple[str, int]]:
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


def _sentence_initial(text: str, pos: int) -> bool:
    """Whether ``pos`` starts a sentence (only whitespace since the last terminator)."""
    return bool(_SENT_END_RE.search(text, max(0, pos - 4), pos)) or pos == 0


# ---------------------------------------------------------------------------
# Right-hand growth: scale, unit, counted noun
# ---------------------------------------------------------------------------


def _read_unit(text: str, pos: int, c: _Cand) -> int:
    """Attach a strong unit (%, points, x, orders of magnitude, physical) at ``pos``."""
    m = _PERCENT_RE.match(text, pos)
    if m:
        pp = _PERCENT_POINT_RE.match(text, m.end())
        c.unit, c.strong = ("points", True) if pp else ("%", True)
        return pp.end() if pp else m.end()
    m = _POINTS_RE.match(text, pos)
    if m:
        c.unit, c.strong = "points", True
        return m.end()
    m = _FACTOR_RE.match(text, pos)
    if m:
        c.unit, c.strong = "x", True
        return m.end()
    m = _ORDERS_RE.match(text, pos)
    if m:
        c.unit, c.strong = "orders of magnitude", True
        return m.end()
    m = _UNIT_RE.match(text, pos)
    if m:
        raw = m.group(0).strip()
        spaced = m.group(0)[:1] in " \t"
        if raw == "t" or (not spaced and raw in {"M", "T", "K"}):
            return pos  # tonnes are too ambiguous; glued M/T/K are scale suffixes
        if c.spelled and not re.fullmatch(r"[A-Za-z]{4,}", raw):
            return pos  # "two s" is not a unit; "two years" goes through nouns
        c.strong = True
        c.unit, end = extend_rate(text, m.end(), raw)  # "TFlops/GPU", "ms per token"
        return end
    return pos


def _read_hyphen_compound(text: str, pos: int, c: _Cand) -> int:
    """"17-point", "128-layer", "-parameter" after a scale: a pluralised count noun."""
    m = _HYPHEN_WORD_RE.match(text, pos)
    if not m:
        return pos
    word = m.group(1)
    low = word.lower()
    if low in {"fold"}:
        c.unit, c.strong = "x", True
        return m.end()
    if low in {"point", "points"}:
        c.unit, c.strong = "points", True
        return m.end()
    if low in {"bit", "bits"}:
        c.unit, c.strong = "bits", True
        return m.end()
    if c.spelled and low not in words("count_nouns"):
        return -1  # "two-stage", "one-shot": design descriptions
    if len(word) == 1:
        return -1  # "2-D", "3-D"
    c.unit, c.noun = (_pluralise(word) if not low.endswith("s") else word), True
    return m.end()


def _read_noun(text: str, pos: int, c: _Cand, budget: int = 5) -> int:
    """Attach a counted noun within the next few words ("230K real-world conversations").

    The noun is the first plural-looking word reached over modifiers ("real-world",
    "diverse user"), stopping at function words, adverbs and punctuation. A singular count
    noun or an acronym right after the number is used when no plural follows ("8 billion
    parameter" -> parameters, "28.4 BLEU" -> BLEU).
    """
    cur = pos
    first = True
    while budget > 0:
        m = _WORD_AFTER_RE.match(text, cur)
        if not m:
            break
        budget -= 1
        word = m.group(1)
        low = word.lower()
        if low in words("name_links"):
            if first:
                break
            cur = m.end()
            continue
        if low in words("counted_noun_stops"):
            break
        if low.endswith("ly"):
            # an adverb inside the modifiers ("two widely used benchmarks"): the plural
            # noun must follow within two words
            sub = _Cand(0, 0, 0.0)
            end = _read_noun(text, m.end(), sub, min(budget, 2))
            if sub.noun and sub.unit and not sub.pluralised:
                c.unit, c.noun = sub.unit, True
                return end
            break
        if _is_plural(word) or (first and per_time(text, m.end())):
            # "frames per second"; a singular noun over a time is a rate too ("170,000 tx/sec")
            c.unit, end = extend_rate(text, m.end(), _normalise_noun(word))
            c.noun = True
            return end
        after = _skip_name_number(text, m.end(), word)
        if first and ((word.isupper() and len(word) >= 2 and not c.spelled) or low in words("count_nouns")):
            sub = _Cand(0, 0, 0.0)
            end = _read_noun(text, after, sub, budget)
            compound = time_compound(word, sub.unit, text[m.end() : end])
            if compound:
                c.unit, c.noun = compound, True  # "2,000 GPU hours"
                return end
            if sub.noun and sub.unit and (word.isupper() or (sub.unit[:1].islower() and not sub.pluralised)):
                c.unit, c.noun = sub.unit, True  # "2048 TPU v3 accelerators", "3K expert votes"
                return end
            if word.isupper() and low not in words("count_nouns"):
                c.unit = word  # "28.4 BLEU"
            else:
                # "8 billion parameter model": the singular noun is what is counted
                c.unit = _pluralise(word) if c.value != 1.0 else word
                c.pluralised = c.value != 1.0
            c.noun = True
            return m.end()
        first = False
        cur = after
    return pos


# a metric name written after a number, maybe behind one modifier or a comparative ("28.4 BLEU",
# "38.2 box AP", "1.05 bpc", "0.7 better perplexity"), and "points" after it ("5.0 BLEU points")
_SCORE_AFTER_RE = LazyPattern(lambda: rf"[ \t]+(?:(?P<mod>[A-Za-z][\w-]*)[ \t]+)?(?P<metric>{alternation('metric_names')})"
                                      r"(?![\w@-])(?P<points>[ \t]+points?\b)?", re.IGNORECASE)
# a metric name before a bare number: "a BLEU score of 41.8", "Test F1 to 93.2", "its BLEU score
# increases to 36.5", "a median domain GDT_TS of 92.4"
_SCORE_BEFORE_RE = LazyPattern(lambda: rf"(?<![\w-])(?P<metric>{alternation('metric_names')})(?:[ \t]+scores?)?"
                                       rf"(?:[ \t]+[a-z]+)?[ \t]+(?:{alternation('score_links')}|=|:)[ \t]*\Z", re.IGNORECASE)
_COMPARED_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:{alternation('score_comparatives')})[ \t]+than\b)")
_BY_RE = re.compile(r"(?i:\bby[ \t]+)\Z")
_SCORE_GAP_RE = LazyPattern(lambda: rf"[ \t]*/[ \t]*|(?i:[ \t]+(?:{alternation('score_places')})[ \t]+[^,;.:()0-9]{{1,40}}?"
                                    r"(?:,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+))")


@lru_cache(maxsize=None)
def _metric_forms() -> dict[str, str]:
    """Every form of a metric name (vocab/metric_names) -> its base form."""
    return {form: forms[0] for forms in entries("metric_names") for form in forms}


def _metric_base(written: str) -> Optional[str]:
    """The base form of a metric name as written; short names (AP, EM, bpc) only in their case."""
    forms = _metric_forms()
    if written in forms:
        return forms[written]
    if len(written) > 3:
        return next((base for form, base in forms.items() if form.lower() == written.lower()), None)
    return None


def _read_score(text: str, pos: int, c: _Cand) -> int:
    """A metric name as the unit of a score (GUIDELINES: scores without % use the metric name):
    right after the number, after one modifier ("box AP") or a comparative ("0.7 better
    perplexity"); "<metric> points" is a gain in points."""
    if c.spelled:
        return pos
    m = _SCORE_AFTER_RE.match(text, pos)
    if m is None:
        return pos
    base = _metric_base(m.group("metric"))
    mod = (m.group("mod") or "").lower()
    if base is None or (mod and (mod in words("counted_noun_stops") and mod not in words("score_comparatives"))):
        return pos
    c.unit, c.noun = ("points", False) if m.group("points") else (base, True)
    c.strong = c.unit == "points"
    return m.end()


def _score_unit_around(text: str, c: _Cand) -> None:
    """The unit of a score the words around it give: a metric name before a bare number ("a BLEU
    score of 41.8"); a bare number "higher/lower than" another is a gain in points, and so is a
    score "by" which something changed ("by 1.7 BLEU"): GUIDELINES, points for absolute gains."""
    if c.unit is None and _COMPARED_RE.match(text, c.end):
        c.unit, c.strong = "points", True
    elif c.unit is None:
        before = _SCORE_BEFORE_RE.search(text, max(0, c.start - 60), c.start)
        base = _metric_base(before.group("metric")) if before else None
        if base is not None:
            c.unit, c.noun = base, True
    elif c.noun and c.unit in _metric_forms().values() and _BY_RE.search(text, max(0, c.start - 4), c.start):
        c.unit, c.noun, c.strong = "points", False, True


def _share_score_unit(text: str, cands: list[_Cand]) -> None:
    """"a F1 score of 90.0/79.2", "perplexity of 52.8 on A and 52.0 on B": a bare number listed
    after a score takes the score's metric name."""
    metrics = set(_metric_forms().values())
    for prev, cur in zip(cands, cands[1:]):
        if cur.unit is None and prev.unit in metrics and _SCORE_GAP_RE.fullmatch(text, prev.end, cur.start):
            cur.unit, cur.noun = prev.unit, True


def _skip_name_number(text: str, pos: int, word: str) -> int:
    """After a capitalised name, skip a model number ("Atari 2600 games", "RTX 4090 cards")."""
    if word[:1].isupper():
        m = _NAME_NUMBER_RE.match(text, pos)
        if m:
            return m.end()
    return pos


def _read_partitive(text: str, pos: int, c: _Cand) -> int:
    """"10 of the 23 tasks", "six of the games": the number counts the noun after "of the"."""
    m = _PARTITIVE_RE.match(text, pos)
    if not m:
        return pos
    sub = _Cand(0, 0, 2.0)
    end = _read_noun(text, m.end(), sub)
    if sub.noun and sub.unit and not sub.pluralised:
        c.unit, c.noun = sub.unit, True
        return end
    return pos


def _read_scale(text: str, pos: int, c: _Cand) -> int:
    """Multiply by a following scale word or glued suffix ("1.2 trillion", "230K")."""
    m = _SCALE_WORD_RE.match(text, pos)
    if m:
        c.value *= values("scale_words")[m.group(1).lower()]
        c.integer = True
        return m.end()
    if not c.spelled:
        m = _SUFFIX_RE.match(text, pos)
        if m:
            c.value *= _SUFFIX_SCALES[m.group(1)]
            return m.end()
    return pos


_GLUED_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]{2,30}(?![A-Za-z0-9])")


def _glued_plural(text: str, pos: int) -> Optional[re.Match]:
    """A plural noun written right against the number before it ("2,048GPUs"), or None."""
    m = _GLUED_WORD_RE.match(text, pos)
    return m if m is not None and _is_plural(m.group(0)) else None


def _read_tail(text: str, pos: int, c: _Cand) -> int:
    """After number (+scale): unit, hyphen compound or counted noun; then +, ±, 'or more'."""
    end = _read_unit(text, pos, c)
    if end == pos:
        hyph = _read_hyphen_compound(text, pos, c)
        if hyph < 0:
            return -1
        end = hyph
    if end == pos and (glued := _glued_plural(text, pos)):
        c.unit, c.noun, end = _normalise_noun(glued.group(0)), True, glued.end()
    if end == pos:
        end = _read_score(text, pos, c)
    if end == pos:
        end = _read_noun(text, pos, c)
    if end == pos:
        end = _read_partitive(text, pos, c)
    m = _PM_RE.match(text, end)
    if m:
        n = _NUM_AT_RE.match(text, m.end())
        if n:
            sub = _Cand(0, 0, 0.0)
            e2 = _read_unit(text, n.end(), sub)
            if sub.unit and not c.unit:
                c.unit, c.strong = sub.unit, True
            end = e2
    m = _PLUS_RE.match(text, end)
    if m and c.qualifier is None:
        c.qualifier = Qualifier.at_least
        end = m.end()
        if not c.unit:
            end = _read_noun(text, end, c)
    m = _OR_MORE_RE.match(text, end)
    if m and c.qualifier is None:
        more = m.group(1).lower() in words("more_words")
        c.qualifier = Qualifier.at_least if more else Qualifier.up_to
        end = m.end()
        if not c.unit:
            end = _read_noun(text, end, c)  # "8 or more GPUs"
    return end


# ---------------------------------------------------------------------------
# Rejection checks on a digit core
# ---------------------------------------------------------------------------


def _is_fraction(text: str, s: int, e: int) -> bool:
    """Whether ``text[s:]`` is a simple fraction "a/b" (a < b <= 12, or b = 100, 1000), e.g. "1/3"."""
    fm = _FRACTION_RE.match(text, e)
    if not (fm and text[s:e].isdigit()):
        return False
    num, den = int(text[s:e]), int(fm.group(1))
    return 0 < num < den and (den <= 12 or den in (100, 1000))


def _glued_reject(text: str, s: int, e: int) -> Optional[int]:
    """If the digits at s:e are part of an identifier, return how far to skip, else None."""
    before = text[s - 1] if s else ""
    before2 = text[s - 2] if s >= 2 else ""
    if before in "-−–_" and before2 and (before2.isalnum() or before2 in ")]"):
        return _IDENT_TAIL_RE.match(text, e).end()  # GPT-4, ResNet-18, Llama-3-70b, top-1, m−1
    if before and before in "#@^)]}":
        return e  # "#1", "Pass@1", "Mg(ClO4)2"
    if before in "'’" and before2.isalpha():
        return e  # a year written short after a name: "WMT'14", "NeurIPS’21"
    if before == "{" and (not _LATEX_OPEN_RE.search(text, max(0, s - 12), s) or _MATH_OPEN_RE.search(text, max(0, s - 12), s)):
        return e  # "{111}", "T^{\frac{2}{3}}" (but "\textbf{30\%}" is fine)
    if (
        _ENUM_CLOSE_RE.match(text, e)
        and e - s <= 2
        and (s == 0 or text[s - 1] in " \t\n")
        and not _OPERATOR_BEFORE_RE.search(text, max(0, s - 4), s)
    ):
        return e  # enumeration "1.)", "2)" (but not "n = 3)")
    if before == "(" and s >= 2 and text[s - 2].isalpha():
        return e  # "F(3, ...)", "poly(3-hexylthiophene)"
    if text[s] == "0" and e - s > 1 and text[s + 1].isdigit():
        return e  # "001", "040301": codes, not quantities
    if "." in text[s:e] and _DECIMAL_PAIR_RE.match(text, e):
        return None  # "90.0/79.2": two scores, read one by one
    if text[e : e + 1] == "/" and text[e + 1 : e + 2].isdigit() and not _is_fraction(text, s, e):
        return _SLASH_TAIL_RE.match(text, e).end()  # "22/10a-4", dates
    nxt = text[e : e + 1]
    if _HUNDREDS_OF_RE.match(text, e):
        return e + 1  # "100s of robots": an order of size, not seconds
    if nxt == "s" and re.fullmatch(r"(?:19|20)[0-9]0", text[s:e]) and not text[e + 1 : e + 2].isalnum():
        return e + 1  # "the 1990s": a decade, not seconds
    if nxt == "." and text[e + 1 : e + 2].isdigit():
        return _VERSION_TAIL_RE.match(text, e).end()  # 1.2.3
    # "3x3", "8x7B", "224×224": a dimension or a model name
    m = _DIM_RE.match(text, e)
    if m and not _SCI_RE.match(text, e) and not _LOST_EXP_RE.match(text, e):
        if _UNIT_RE.match(text, m.end()):
            return None  # "60 × 10 × 3 mm3": a physical size, parsed by _parse_digit
        return m.end()
    if nxt.isalpha():
        if _SUFFIX_RE.match(text, e) or _FACTOR_RE.match(text, e) or _PERCENT_RE.match(text, e):
            return None
        if _POINTS_RE.match(text, e):
            return None
        um = _UNIT_RE.match(text, e)
        if um and um.group(0) not in {"t", "d", "D"}:
            return None
        if _glued_plural(text, e):
            return None  # "2,048GPUs": a counted noun fused to its number at a lost space
        return _IDENT_TAIL_RE.match(text, e).end()  # 2D, 3rd, 11Project, 40G
    return None


def _context_reject(text: str, s: int, e: int, c: _Cand) -> bool:
    """Reference, identifier, year, enumeration or citation context around a number."""
    prev = _prev_token(text, s)
    if prev:
        token, token_start = prev
        low = token.lower().rstrip(".")
        if low in words("label_words"):
            return True  # Fig. 3, Table 2, Section 4, type 1, p. 301
        if low in words("reference_words") and not c.strong and not c.noun:
            return True  # phases 3, 5 and 7; complex 1; fraction 11
        if token.endswith("."):
            pass  # the previous sentence (or an abbreviation) ended
        elif token[:1].isupper() and low not in words("before_quantity") and low not in words("counted_noun_stops") and not c.strong:
            title = re.fullmatch(r"[A-Z][a-z]+", token) is not None
            if not (title and c.noun and _sentence_initial(text, token_start)):
                return True  # "Llama 3", "PaLM 2", "Stable Diffusion 2", "Mixtral 8"
        elif re.search(r"[A-Za-z]", token) and re.search(r"[0-9]", token) and not c.strong:
            if not re.fullmatch(r"[0-9.,]+[kKMBT]?%?", token):
                return True  # "Llama3 8B", "A100 80", "TPU v3 2"
    if (
        c.integer
        and c.value_high is None
        and not c.noun
        and not c.strong
        and 1900 <= c.value <= 2039
        and re.fullmatch(r"[0-9]{4}", text[s:e])
    ):
        return True  # a year
    if s and text[s - 1] == "(" and text[e : e + 1] == ")" and c.integer and c.value < 30:
        return True  # enumeration "(1)" or equation number
    return False


# ---------------------------------------------------------------------------
# Left-hand growth: wrappers and qualifiers
# ---------------------------------------------------------------------------


def _grow_left(text: str, c: _Cand, floor: int) -> None:
    """Extend ``c`` left over currency, LaTeX wrappers, 'a factor of', symbols and qualifiers."""
    s = c.start
    # LaTeX math opening "$16\times$" / currency "$20"
    if c.math == "\\(" and s - 2 >= floor:
        s -= 2  # "\\(3\\) tokens per second"
    elif s > floor and text[s - 1] == "$":
        if c.math or text[c.end - 1] == "$" or "\\" in text[s : c.end] or text[c.end : c.end + 1] == "$":
            s -= 1  # LaTeX math: "$16\times$", "$2\times 10^{6}$"
            if text[c.end - 1] != "$" and text[c.end : c.end + 1] == "$":
                c.end += 1
        elif c.unit is None or c.noun:
            m = _CURRENCY_PRE_RE.search(text, max(floor, s - 4), s)
            if m:
                c.unit, c.strong, c.noun = "USD", True, False
                s = m.start()
    elif s > floor:
        m = _CURRENCY_PRE_RE.search(text, max(floor, s - 4), s)
        if m and (c.unit is None or c.noun):
            c.unit = _CURRENCY_UNITS.get(m.group(0).strip(), "USD")
            c.strong, c.noun = True, False
            s = m.start()
    # \textbf{30\%}
    if text.startswith("\\textbf{", max(0, s - 8)) and s - 8 >= floor and text[c.end : c.end + 1] == "}":
        s -= 8
        c.end += 1
    # (10.3x) after a qualifier
    paren = s > floor and text[s - 1] == "(" and text[c.end : c.end + 1] == ")"
    look = s - 1 if paren else s
    m = _FACTOR_OF_RE.search(text, max(floor, look - 20), look)
    if m:
        if c.unit is None:
            c.unit, c.strong = "x", True
        s = m.start()
        look = s
    else:
        m = _SYMBOL_EQ_RE.search(text, max(floor, look - 12), look)
        if m:
            sym = m.group(1)
            if c.unit is None and sym in _GREEK_UNITS:
                c.unit = _GREEK_UNITS[sym]
            s = m.start()
            look = s
    m = _QUAL_SYM_RE.search(text, max(floor, look - 3), look)
    if m:
        if c.qualifier is None:
            c.qualifier = _QUAL_SYMBOLS[m.group(1)]
        c.qualified = m.span(1)
        s = m.start()
        look = s
        m = _FACTOR_OF_RE.search(text, max(floor, look - 20), look)
        if m and c.unit is None:  # "a factor of >50"
            c.unit, c.strong = "x", True
            s = look = m.start()
    m = _QUAL_WORD_RE.search(text, max(floor, look - 24), look)
    if m and not (m.group(1).lower() == "some" and not c.noun):
        if c.qualifier is None:
            c.qualifier = _qualifier_of(m.group(1))
        c.qualified = (m.start(1), c.qualified[1] if c.qualified else m.end(1))  # "up to ~3x": both
        s = m.start()
        if paren:
            c.end += 1
    elif c.value_high is not None:
        m = _BETWEEN_RE.search(text, max(floor, look - 10), look)
        if m:
            s = m.start()
    c.start = s


@lru_cache(maxsize=None)
def _qual_word_res() -> list[tuple[re.Pattern[str], Qualifier]]:
    return [(re.compile(p, re.I), q) for p, q in _qual_words()]


def _qualifier_of(phrase: str) -> Qualifier:
    """The qualifier a matched qualifier phrase stands for ("as much as" -> up to)."""
    phrase = re.sub(r"\s+", " ", phrase.lower())
    for pattern, qual in _qual_word_res():
        if pattern.fullmatch(phrase):
            return qual
    return Qualifier.about


# ---------------------------------------------------------------------------
# Core parsers
# ---------------------------------------------------------------------------


def _parse_digit(text: str, m: re.Match, floor: int) -> tuple[Optional[_Cand], int]:
    """Parse a digit core and grow it; returns (mention or None, position consumed to)."""
    s, e = m.span()
    raw = m.group(0)
    prev = _prev_token(text, s)
    if prev and prev[0].lower().rstrip(".") in words("label_words"):
        return None, _ref_list_end(text, _REF_NUM_TAIL_RE.match(text, e).end())
    skip = _glued_reject(text, s, e)
    if skip is not None:
        return None, max(skip, e)
    c = _Cand(s, e, _to_float(raw), integer=re.fullmatch(r"[0-9,]+", raw) is not None)
    # a negative sign standing alone or after a comparison or approximation sign: "−1.6", " -3", "∼−27‰"
    if s >= 1 and text[s - 1] in "−-" and (s == 1 or text[s - 2] in _BEFORE_SIGN) and s - 1 >= floor:
        c.start -= 1
        c.value = -c.value
    pos = e
    # a fraction "1/3"
    fm = _FRACTION_RE.match(text, pos)
    if fm and _is_fraction(text, s, e):
        c.value = c.value / int(fm.group(1))
        c.unit, c.strong, c.integer = "x", True, False
        c.end = fm.end()
        _grow_left(text, c, floor)
        return c, c.end
    # a size "60 × 10 × 3 mm3": the first number, with the unit written after the last
    dm = _DIM_RE.match(text, pos)
    if dm and not _SCI_RE.match(text, pos) and not _LOST_EXP_RE.match(text, pos):
        c.end = _read_unit(text, dm.end(), c)
        if _context_reject(text, c.start, e, c):
            return None, c.end
        _grow_left(text, c, floor)
        return c, c.end
    # scientific notation "2.5 × 10−3", "10^{-3}", "1.5 x 10^6", "1.5×1012" (lost superscript)
    sm = _SCI_RE.match(text, pos)
    lm = _LOST_EXP_RE.match(text, pos) if not c.integer else None
    if lm and not sm:
        c.value *= _pow10(lm.group(1))
        pos = lm.end()
    elif sm:
        c.value *= _pow10(next(g for g in sm.groups() if g is not None))
        c.integer = False
        pos = sm.end()
    elif raw == "10" and _POW_RE.match(text, pos):
        pm = _POW_RE.match(text, pos)
        c.value = _pow10(pm.group(1))
        c.integer = False
        pos = pm.end()
    elif raw == "10":
        bm = _BARE_EXP_RE.match(text, pos)
        if bm:
            c.value = 1.0 / _pow10(bm.group(1))
            c.integer = False
            pos = bm.end()
    pos = _close_math(text, s, pos, c)  # "$17$ billion atoms": the unit is read after the math
    pos = _read_scale(text, pos, c)
    # a range "2--4×", "50% to 62%", "~3 −15%", "2 20 points"
    pos = _read_range_or_tail(text, pos, c, c.start)
    if pos < 0:
        return None, e
    c.end = pos
    if _context_reject(text, c.start, e, c):
        return None, _ref_list_end(text, pos)
    _grow_left(text, c, floor)
    _score_unit_around(text, c)
    return c, c.end


_MATH_WRAPS = (("$", "$"), ("\\(", "\\)"))


def _close_math(text: str, s: int, pos: int, c: _Cand) -> int:
    """Past the closing of inline LaTeX math wrapped around the number alone ("$17$",
    "\\(3\\)"), so its scale word and unit, written after the math, are read; else ``pos``."""
    for opener, closer in _MATH_WRAPS:
        if text.startswith(opener, s - len(opener)) and text.startswith(closer, pos):
            c.math = opener
            return pos + len(closer)
    return pos


def _read_range_or_tail(text: str, pos: int, c: _Cand, s: int) -> int:
    """Read the tail of ``c``; merge a following second number into a range."""
    first_unit = _Cand(0, 0, 0.0)
    after_first = _read_unit(text, pos, first_unit)
    sep = _RANGE_SEP_RE.match(text, after_first)
    if sep:
        n = _NUM_AT_RE.match(text, sep.end())
        ok = n is not None and not (
            text[n.end() : n.end() + 1].isalpha() and not _tail_ok(text, n.end())
        )
        sep_text = sep.group(0).strip().lower()
        if ok and n.group(0).startswith(("-", "−")) and sep_text not in {"to", "and"}:
            ok = False  # "5 - -3"
        if ok and sep_text == "and" and not _BETWEEN_RE.search(text, max(0, s - 10), s):
            ok = False  # "and" joins a range only after "between"
        if ok and sep_text == "to" and _from_before(text, s):
            ok = False  # "from 14 s to 1.2 s": two mentions
        if ok and sep_text == "" and first_unit.unit:
            ok = False
        if ok:
            hi = _Cand(0, 0, _to_float(n.group(0)))
            hi_pos = _read_scale(text, n.end(), hi)
            if not hi.value and not c.value:
                ok = False
            tail = _Cand(0, 0, hi.value, spelled=False)
            tail_end = _read_tail(text, hi_pos, tail)
            if tail_end < 0:
                ok = False
            elif sep_text == "" and not tail.strong:
                ok = False  # "2 20 points" needs a unit to be a lost-dash range
            elif sep_text == "or" and not (tail.strong or tail.noun):
                ok = False  # "3 or 4 bits" is a range; a bare "3 or 4" is left alone
            elif first_unit.unit and tail.unit and first_unit.unit != tail.unit:
                ok = False
            elif first_unit.unit and not tail.unit and sep_text not in {"-", "–", "--", "—"}:
                ok = False
            elif sep_text in {"and", "to"} and hi.value < c.value and _range_word_before(text, s):
                c.value, hi.value = hi.value, c.value  # "ranging from 11.4% to 2.4%"
            elif sep_text == "and" and hi.value < c.value:
                c.value, hi.value = hi.value, c.value  # "between −2 and −7‰"
            elif hi.value <= c.value:
                ok = False
            elif 1900 <= c.value <= 2039 and 1900 <= hi.value <= 2039 and not tail.unit:
                c.value_high = hi.value
                return -1  # a span of years
            if ok:
                c.value_high = hi.value
                c.unit = tail.unit or first_unit.unit
                c.strong = tail.strong or first_unit.strong
                c.noun = tail.noun
                if tail.qualifier and c.qualifier is None:
                    c.qualifier = tail.qualifier
                return tail_end
    return _read_tail(text, pos, c)


def _tail_ok(text: str, pos: int) -> bool:
    """Whether letters glued after a number are a scale suffix or unit (not an identifier)."""
    if _SUFFIX_RE.match(text, pos) or _FACTOR_RE.match(text, pos) or _PERCENT_RE.match(text, pos):
        return True
    um = _UNIT_RE.match(text, pos)
    return bool(um and um.group(0) not in {"t", "d", "D"})


def _from_before(text: str, s: int) -> bool:
    """Whether the number at ``s`` follows "from" (and not "ranging from")."""
    window = text[max(0, s - 40) : s]
    m = _FROM_BEFORE_RE.search(window)
    if not m:
        return False
    return not (m.group(1) or "").lower().startswith(("rang", "var"))


def _range_word_before(text: str, s: int) -> bool:
    """Whether "between" or "ranging from" introduces the number at ``s``."""
    window = text[max(0, s - 24) : s]
    return bool(_BETWEEN_RE.search(window) or _RANGING_FROM_RE.search(window))


def _ref_list_end(text: str, pos: int) -> int:
    """End of a reference list after a rejected number ("Figs. 2 and 3", "Tables 1, 4")."""
    return _REF_LIST_RE.match(text, pos).end()


def _parse_half(text: str, c: _Cand) -> bool:
    """Fill ``c`` for "half": "half a trillion tokens", "half a second", "half the memory"."""
    e = c.end
    m = _HALF_SCALE_RE.match(text, e)
    if m:
        c.value = 0.5 * values("scale_words")[m.group(1).lower()]
        c.end = _read_tail(text, m.end(), c)
        return c.end >= 0
    m = _HALF_NOUN_RE.match(text, e)
    if m and m.group(1).lower() in words("count_nouns"):
        c.value, c.unit, c.noun, c.end = 0.5, m.group(1), True, m.end()
        return True
    before = text[max(0, c.start - 10) : c.start]
    if _HALF_OF_RE.match(text, e) or _IN_BEFORE_RE.search(before):
        if _HALF_PART_RE.search(before):
            return False  # "the first half of", "the other half"
        c.value, c.unit, c.strong = 0.5, "x", True
        return True
    return False


_PAIR_NEXT_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:{alternation('number_joiners')})[ \t]+(?:{_spelled()}|[0-9]+(?:\.[0-9]+)?)\b)")


def _pairs_with_unit(text: str, pos: int) -> bool:
    """Whether "and/or/to" and a number with a unit (%, x, points, physical) follow at ``pos``."""
    m = _PAIR_NEXT_RE.match(text, pos)
    if m is None:
        return False
    sub = _Cand(0, 0, 0.0)
    return _read_unit(text, m.end(), sub) > m.end() and sub.strong


def _parse_word(text: str, m: re.Match, floor: int) -> tuple[Optional[_Cand], int]:
    """Parse a spelled-out core (twice, a dozen, half a trillion, one-eighth, three languages)."""
    s, e = m.span()
    kind = m.lastgroup
    word = m.group(0)
    low = re.sub(r"\s+", " ", word.lower())
    c = _Cand(s, e, 0.0, spelled=True)
    if kind == "frac":
        num, den = low.replace("-", " ").split()
        if num == "a" and not _OF_AFTER_RE.match(text, e):
            return None, e  # "a third of", but not "a quarter" of a year
        n = 1.0 if num == "a" else float(_ones()[num])
        c.value, c.unit, c.strong, c.integer = n / values("fractions")[den], "x", True, False
    elif kind == "order":
        c.value, c.unit, c.strong = 1.0, "orders of magnitude", True
    elif kind == "fold":
        c.value, c.unit, c.strong = float(_fold_words()[re.sub(r"-?fold$", "", low)]), "x", True
    elif kind == "mult":
        if low in words("multiplying_verbs", base=True) and not (
            _QUAL_WORD_RE.search(text, max(0, s - 24), s)
            or _MULT_OBJECT_RE.match(text, e)  # "double the throughput"
            or _MODAL_BEFORE_RE.search(text, max(0, s - 12), s)  # "would triple"
        ):
            return None, e  # "double precision", "triple loss"
        c.value, c.unit, c.strong = _mult_words()[low], "x", True
    elif kind == "ascale":
        c.value = values("scale_words")[low.split()[-1]]
        c.end = _read_tail(text, e, c)
        if c.end < 0:
            return None, e
    elif kind == "half":
        if not _parse_half(text, c):
            return None, e
    else:  # spelled
        base = _spelled_value(low)
        if base is None:
            return None, e
        c.value = base
        pos = _read_scale(text, e, c)
        scaled = pos > e
        end = _read_tail(text, pos, c)
        if end < 0:
            return None, e
        if not scaled:
            unit = (c.unit or "").lower().rstrip("s")
            if base == 1.0 and unit in words("time_units", "long_time_units"):
                pass  # "one week", "one-day"
            elif base > 1.0 and c.unit is None and _pairs_with_unit(text, end):
                pass  # "six and ten times": the unit written after the next number is shared
            elif base in (0.0, 1.0) or not (c.noun or c.strong):
                return None, e  # "one", "zero", "two" alone
        c.end = end
    if c.end < 0:
        return None, e
    _grow_left(text, c, floor)
    return c, c.end


# ---------------------------------------------------------------------------
# Post-processing and public API
# ---------------------------------------------------------------------------


def _blocked_spans(text: str) -> list[tuple[int, int]]:
    """Spans that never hold quantities: URLs, e-mails, DOIs, citations, versions."""
    return [mm.span() for mm in _BLOCK_RE.finditer(text)]


def _propagate_up_to(text: str, cands: list[_Cand]) -> None:
    """"up to 2.3x and 1.9x": an "up to" applies to the following numbers in its scope."""
    for prev, cur in zip(cands, cands[1:]):
        if prev.qualifier != Qualifier.up_to or cur.qualifier is not None:
            continue
        if prev.unit != cur.unit or prev.unit is None:
            continue
        gap = text[prev.end : cur.start]
        if (
            _SCOPE_GAP_RE.match(gap)
            and _SCOPE_JOIN_RE.search(gap)
            and not _SCOPE_BREAK_RE.search(gap)
        ):
            cur.qualifier = Qualifier.up_to


def _share_from_to_unit(text: str, cands: list[_Cand]) -> None:
    """"from 10 to 20 ms", "90.0/79.2 F1", "100 and 1000 layers", "1, 2 and 4 GPUs": a bare
    number takes the unit written after the next number of the list."""
    shared: set[int] = set()
    for i in range(len(cands) - 2, -1, -1):
        prev, cur = cands[i], cands[i + 1]
        gap = _SHARE_GAP_RE.match(text, prev.end, cur.start)
        if prev.unit is not None or not cur.unit or not gap:
            continue
        joint = gap.group(0).strip()
        if joint in {",", "and", "or"} and not _same_shape(text, prev, cur):
            continue  # "length 16K, 61.4% accuracy": not one list
        if joint == "," and i + 1 not in shared:
            continue  # a comma joins a list only before "2 and 4 GPUs"
        prev.unit, prev.strong, prev.noun = cur.unit, cur.strong, cur.noun
        shared.add(i)


def _same_shape(text: str, a: _Cand, b: _Cand) -> bool:
    """Whether two numbers are written alike (decimals or not, scale suffix or not)."""
    def shape(c: _Cand) -> tuple[bool, bool]:
        m = _NUM_AT_RE.search(text, c.start, c.end)
        digits = m.group(0) if m else ""
        after = text[m.end() : m.end() + 1] if m else ""
        return "." in digits, bool(after) and after in "kKMBT"

    return shape(a) == shape(b)


def find_quantities(text: str) -> list[Mention]:
    """Every numeric mention of ``text``, in reading order and non-overlapping.

    Each mention's ``text`` is ``text[start:end]`` and covers qualifier, number(s) and unit
    or counted noun; ``value``/``value_high`` are floats in base units.
    """
    return [number.mention for number in read_numbers(text)]


@dataclass(frozen=True)
class Number:
    """A numeric mention and where its qualifier's words stand (None: no qualifier word or sign)."""

    mention: Mention
    qualifier: Optional[tuple[int, int]] = None


def read_numbers(text: str) -> list[Number]:
    """Every numeric mention of ``text`` (``find_quantities``) with its qualifier's place."""
    if not text:
        return []
    blocked = _blocked_spans(text)
    bi = 0
    cands: list[_Cand] = []
    last = 0
    for m in _CORE_RE.finditer(text):
        s = m.start()
        if s < last:
            continue
        while bi < len(blocked) and blocked[bi][1] <= s:
            bi += 1
        if bi < len(blocked) and blocked[bi][0] <= s < blocked[bi][1]:
            last = blocked[bi][1]
            continue
        if m.lastgroup == "num":
            enum = _ENUM_RE.match(text, s - 1) if s else None
            if enum and enum.start() == s - 1:
                last = enum.end()
                continue
            cand, consumed = _parse_digit(text, m, last)
        else:
            cand, consumed = _parse_word(text, m, last)
        if cand is not None:
            if bi < len(blocked) and blocked[bi][0] < cand.end and cand.start < blocked[bi][1]:
                cand.end = max(min(cand.end, blocked[bi][0]), m.end())
            cand.start = max(cand.start, last)
            cands.append(cand)
            last = cand.end
        else:
            last = max(last, consumed)
    _share_from_to_unit(text, cands)
    _share_score_unit(text, cands)
    _propagate_up_to(text, cands)
    return [
        Number(Mention(
            start=c.start,
            end=c.end,
            text=text[c.start : c.end],
            value=c.value,
            value_high=c.value_high,
            unit=canonical(c.unit),
            qualifier=c.qualifier,
        ), c.qualified if c.qualified is not None and c.start <= c.qualified[0] else None)
        for c in cands
        if math.isfinite(c.value) and (c.value_high is None or math.isfinite(c.value_high))
    ]


def parse_value(evidence: str) -> Optional[Mention]:
    """The main numeric mention of a short evidence string, or None.

    Useful to recover value, unit and qualifier from a claim's ``evidence`` text; the
    longest mention wins when there are several.
    """
    mentions = find_quantities(evidence)
    if not mentions:
        return None
    return max(mentions, key=lambda mm: mm.end - mm.start)
