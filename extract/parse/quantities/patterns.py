"""The quantity parser's vocabulary and patterns: the word-class helpers (numbers written as
words, unit spellings) and every pattern the parser matches with. Patterns made of
``parse/vocab`` words are ``LazyPattern``s: nothing is read at import."""

from __future__ import annotations

import re
from functools import lru_cache

from paper_claims.parse.vocab import LazyPattern, alternation, values
from paper_claims.schemas import Qualifier


# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

# The words are the word classes of parse/vocab: numbers written as words (cardinals, scale_words,
# fractions, multiplying_verbs, halving_verbs, multiplying_adverbs), the words that make a number a
# label (label_words, reference_words) or may stand before one (before_quantity), the words a
# counted noun is read over or stops at (counted_noun_stops, name_links, not_plurals,
# count_nouns) and the units (time_units, long_time_units, si_prefixes, prefixed_units, bit_rates,
# rate_units, percent_marks, currencies, physical_units).
SUFFIX_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
GREEK_UNITS = {"κ": "kappa", "kappa": "kappa", "ρ": "rho", "τ": "tau"}


@lru_cache(maxsize=None)
def ones() -> dict[str, float]:
    """The cardinals zero to nineteen, by their words."""
    return {word: value for word, value in values("cardinals").items() if value < 20}


@lru_cache(maxsize=None)
def tens() -> dict[str, float]:
    """The tens, twenty to ninety, by their words."""
    return {word: value for word, value in values("cardinals").items() if value >= 20}


def _spelled_ones(low: int = 0, high: int = 19) -> str:
    """The cardinals from ``low`` to ``high`` as an alternation."""
    return "|".join(word for word, value in ones().items() if low <= value <= high)


@lru_cache(maxsize=None)
def mult_words() -> dict[str, float]:
    """Each multiplicative word and its factor ("twice" 2, "halves" 0.5)."""
    return {**values("multiplying_adverbs"), **values("multiplying_verbs"), **values("halving_verbs")}


@lru_cache(maxsize=None)
def fold_words() -> dict[str, float]:
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

def spelled_number() -> str:
    """A number written as words: the tens, maybe hyphened to a one ("twenty-five"), or a cardinal
    from zero to nineteen."""
    return rf"(?:{'|'.join(tens())})(?:-(?:{_spelled_ones(1, 9)}))?|{_spelled_ones()}"


_DIGITS = (
    r"(?<![\w.,\\])(?<![0-9]/)(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]+)?"
    r"(?:[eE][-+]?[0-9]{1,3}(?![0-9]))?"
    r"|(?<=[0-9]\.[0-9]/)[0-9]+\.[0-9]+|(?<=[0-9]\.[0-9]{2}/)[0-9]+\.[0-9]+"  # "90.0/79.2"
    r"|(?<![\w.,\\])\.[0-9]+"
)
CORE_RE = LazyPattern(lambda:
    rf"(?P<num>{_DIGITS})"
    rf"|(?i:(?P<frac>\b(?:{_spelled_ones(1, 9)}|a)[-\s](?:{alternation('fractions')})\b)"
    r"|(?P<order>\b(?:an?|one)\s+order[\s-]of[\s-]magnitude\b)"
    rf"|(?P<fold>\b(?=[a-z]+-?fold\b)(?:{'|'.join(fold_words())})-?fold\b)"  # the look-ahead: only words before "fold" try the list
    rf"|(?P<mult>\b(?:{alternation('multiplying_adverbs', 'multiplying_verbs', 'halving_verbs')})\b)"
    rf"|(?P<ascale>\ban?\s+(?:{alternation('scale_words')})\b)"
    r"|(?P<half>\bhalf\b)"
    rf"|(?P<spelled>\b(?:{spelled_number()})\b|\bdozen\b))"
)
SCALE_WORD_RE = LazyPattern(lambda: rf"(?i:[ \t]*-?[ \t]*({alternation('scale_words', without=('dozen',))})\b)")
SUFFIX_RE = re.compile(r"([kKMBT])(?![A-Za-z0-9])")
SCI_RE = re.compile(
    r"[ \t]?(?:×|x|\\times|\*)[ \t]?10(?:\^\{?[ \t]?([−\-–]?[ \t]?[0-9]{1,3})(?:[ \t]?\})?"
    r"|([−][0-9]{1,2})(?![0-9])|([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})|([0-9])(?![0-9.]))"
)
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻−–", "0123456789---")
POW_RE = re.compile(r"\^\{?[ \t]?([−\-]?[0-9]{1,3})(?:[ \t]?\})?")
LOST_EXP_RE = re.compile(r"[ \t]?×[ \t]?10([0-9]{2})(?![0-9.])")
BARE_EXP_RE = re.compile(r"[−]([0-9]{1,2})(?![0-9])")  # "10−3" with a lost superscript
PERCENT_RE = LazyPattern(lambda:
    rf"[ \t]?(?:\\?%|(?:{alternation('percent_marks')})\.?[ \t]?%)|[ \t](?i:per[ \t]?cent)\b"
)
POINTS_RE = re.compile(r"(?i:[ \t]percentage[ \t]points?\b|[ \t]?pp\b|[ \t-]points?\b|[ \t]pts?\b)")
FACTOR_RE = re.compile(
    r"[ \t]?×(?![ \t]?[0-9])|[xX](?![A-Za-z0-9])|[ \t]?\$?[ \t]?\\times(?![a-zA-Z])\$?"
    r"|(?i:[ \t-]times\b)|(?i:[ \t-]?fold\b)(?![ \t-]cross)"
)
ORDERS_RE = re.compile(r"(?i:[ \t-]orders?[ \t-]of[ \t-]magnitudes?\b)")  # also "orders-of-magnitude"
UNIT_RE = LazyPattern(lambda:
    rf"[ \t]?(?:{_unit_words()})(?:{_EXP})?"
    rf"(?:[/·⋅](?:{_unit_words()})(?:{_EXP})?(?![A-Za-z])|[ \t]?(?:{_unit_words()}){_EXP})*"
    r"(?![A-Za-z0-9])",
    re.X,
)
CURRENCY_PRE_RE = re.compile(r"(?:US\$|\$|€|£|USD[ \t]?)\Z")
CURRENCY_UNITS = {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "USD": "USD"}
WORD_AFTER_RE = re.compile(r"[ \t\u00a0]+(vs\.|[A-Za-z][A-Za-z0-9]*(?:['’\-][A-Za-z0-9]+)*)")
HYPHEN_WORD_RE = re.compile(r"-([A-Za-z]{1,40})(?![A-Za-z0-9-]{0,40}[0-9])")
HALF_SCALE_RE = LazyPattern(lambda: rf"(?i:[ \t]+an?[ \t]+({alternation('scale_words')})\b)")
HALF_NOUN_RE = re.compile(r"(?i:[ \t]+an?[ \t]+([a-z]+))")
HALF_OF_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:of[ \t]+)?(?:{alternation('after_half')})\b)")
HALF_PART_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('half_parts')})[ \t]+)\Z")
REF_LIST_RE = re.compile(
    r"(?:[A-Za-z]?(?:[ \t]*(?:,[ \t]*(?:and|&)?|and|&|–|-)[ \t]*[0-9]+[A-Za-z]?))*"
)
IDENT_TAIL_RE = re.compile(r"[\w.\-]*")
SLASH_TAIL_RE = re.compile(r"[\w./\-]*")
VERSION_TAIL_RE = re.compile(r"[0-9.]*")
REF_NUM_TAIL_RE = re.compile(r"[0-9.]*[A-Za-z]?")
DIM_RE = re.compile(r"(?:[ \t]?[x×X][ \t]?[0-9][0-9A-Za-z.]*)+")
LATEX_OPEN_RE = re.compile(r"\\[A-Za-z]+\{\Z")
# math, not a quantity: an exponent, a subscript, a fraction or a root ("O(T^{\frac{2}{3}})")
MATH_OPEN_RE = re.compile(r"(?:\\(?:[dt]?frac|sqrt)|[\^_])\{\Z")
ENUM_CLOSE_RE = re.compile(r"\.?\)")
OPERATOR_BEFORE_RE = re.compile(r"[=<>≤≥~∼:][ \t]*\Z")
HUNDREDS_OF_RE = re.compile(r"s[ \t]+of\b")
FROM_BEFORE_RE = re.compile(r"(?i:(\w+)[ \t]+)?(?i:from)[ \t]+(?:\S{1,12}[ \t]+)?\Z")
RANGING_FROM_RE = re.compile(r"(?i:\b(?:rang\w*|var\w*)[ \t]+from)[ \t]+\Z")
IN_BEFORE_RE = re.compile(r"(?i:\bin[ \t]+)\Z")
OF_AFTER_RE = re.compile(r"[ \t]+of\b")
FRACTION_RE = re.compile(r"/([0-9]{1,4})(?:th)?(?![0-9A-Za-z./])")
PLUS_RE = re.compile(r"\+(?![0-9+])")
DECIMAL_PAIR_RE = re.compile(r"/[0-9]+\.[0-9]+")
PARTITIVE_RE = LazyPattern(lambda:
    rf"(?i:[ \t]+of[ \t]+(?:{alternation('partitive_words')})(?:[ \t]+(?:[0-9][0-9,]*|{spelled_number()}))?)"
    r"(?=[ \t])"
)
MULT_OBJECT_RE = LazyPattern(lambda: rf"(?i:[ \t]+(?:{alternation('object_determiners')})\b)")
MODAL_BEFORE_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('modal_verbs')})[ \t]+)\Z")
PERCENT_POINT_RE = re.compile(r"(?i:[ \t-]points?\b)")
NAME_NUMBER_RE = re.compile(r"[ \t][0-9]{2,5}(?![0-9.,%])(?=[ \t]+[A-Za-z])")
OR_MORE_RE = LazyPattern(lambda: rf"(?i:[ \t]or[ \t]({alternation('more_words', 'less_words')}))\b")
PM_RE = re.compile(r"[ \t]?(?:±|\+/-|\+/−|\\pm)[ \t]?")
RANGE_SEP_RE = LazyPattern(lambda:
    rf"[ \t]?(?:--|–|—|-|−|~)[ \t]?|[ \t]+(?i:{alternation('number_joiners')})[ \t]+|[ \t](?=[0-9])"
)
NUM_AT_RE = re.compile(
    r"[−\-]?(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]+)?|\.[0-9]+"
)

# the qualifier phrases of each qualifier (vocab/<qualifier>_qualifiers), their words apart by spaces or tabs
_QUALIFIERS = (Qualifier.up_to, Qualifier.over, Qualifier.about, Qualifier.at_least)


@lru_cache(maxsize=None)
def qual_words() -> list[tuple[str, Qualifier]]:
    return [(alternation(f"{qual.name}_qualifiers").replace(r"\s+", r"[ \t]+"), qual) for qual in _QUALIFIERS]


QUAL_WORD_RE = LazyPattern(lambda:
    r"(?i:(?<![\w])(" + "|".join(f"(?:{p})" for p, _ in qual_words()) + r"))[ \t\u00a0]+\Z"
)
BETWEEN_RE = re.compile(r"(?i:(?<![\w])between)[ \t]+\Z")
QUAL_SYM_RE = re.compile(r"(>=|<=|[~∼≈≃>≥<≤])[ \t]?\Z")
QUAL_SYMBOLS = {
    "~": Qualifier.about, "∼": Qualifier.about, "≈": Qualifier.about, "≃": Qualifier.about,
    ">": Qualifier.over, "≥": Qualifier.at_least, ">=": Qualifier.at_least,
    "<": Qualifier.up_to, "≤": Qualifier.up_to, "<=": Qualifier.up_to,
}
BEFORE_SIGN = " \t(=[" + "".join(sym for sym in QUAL_SYMBOLS if len(sym) == 1)  # what may stand before a minus
FACTOR_OF_RE = re.compile(r"(?i:(?<![\w])(?:an?[ \t]+)?factor[ \t]+of[ \t]+)\Z")
SYMBOL_EQ_RE = re.compile(
    r"(?<![\w])(κ|kappa|ρ|τ|[A-Za-z](?:_?\{?[A-Za-z0-9]{1,3}\}?)?|[Rr]²|[Rr]\^2)[ \t]?[=≈][ \t]?\Z"
)
BLOCK_RE = LazyPattern(lambda:
    r"https?://\S+|www\.\S+"
    rf"|(?<![\w.-])[\w-]{{1,63}}(?:\.[\w-]{{1,63}}){{0,4}}\.(?:{alternation('web_domains')})\b(?:/\S*)?"
    r"|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}"
    r"|(?i:arxiv:?\s?)[0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?|(?<![\w.])10\.[0-9]{4,9}/\S+"
    rf"|\\(?:cite[a-z]*|{alternation('latex_pointers')})\{{[^}}\n]{{0,200}}\}}"
    r"|\[[0-9][0-9,;\s–-]{0,40}\]|\([0-9]{1,3}(?:[ \t]?[,–-][ \t]?[0-9]{1,3}){1,8}\)"
    r"|(?<![\w.])[0-9]{1,6}(?:\.[0-9]{1,6}){2,}(?!\w)"
    r"|(?<![\w:])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\s?(?i:a\.?m\.?|p\.?m\.?)"
)
ENUM_RE = re.compile(r"\(([0-9]{1,2}|[ivx]{1,4}|[a-z])\)")
SENT_END_RE = re.compile(r"[.!?;:]\s+\Z|\A\s*\Z|\n\s*\Z")
SHARE_GAP_RE = re.compile(r"(?:[ \t]+to[ \t]+|/|,[ \t]+|,?[ \t]+(?:and|or)[ \t]+)\Z")
SCOPE_GAP_RE = re.compile(r"\A[^.;:!?]{0,60}\Z")
SCOPE_JOIN_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('scope_joiners')})\b|,|/)")
SCOPE_BREAK_RE = LazyPattern(lambda: rf"(?i:\b(?:{alternation('scope_breaks')})\b)")
