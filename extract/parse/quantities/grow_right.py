"""Right-hand growth of a number: scale word or suffix, unit, hyphen compound, counted noun or
a score's metric name, then "±", "+" and "or more"."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from paper_claims.parse.quantities.draft import Draft, is_plural, normalise_noun, pluralise
from paper_claims.parse.quantities.patterns import (
    FACTOR_RE, HYPHEN_WORD_RE, NAME_NUMBER_RE, NUM_AT_RE, ORDERS_RE, OR_MORE_RE, PARTITIVE_RE,
    PERCENT_POINT_RE, PERCENT_RE, PLUS_RE, PM_RE, POINTS_RE, SCALE_WORD_RE, SUFFIX_RE, SUFFIX_SCALES,
    UNIT_RE, WORD_AFTER_RE,
)
from paper_claims.parse.rates import extend_rate, per_time, time_compound
from paper_claims.parse.vocab import LazyPattern, alternation, entries, values, words
from paper_claims.schemas import Qualifier


def read_unit(text: str, pos: int, c: Draft) -> int:
    """Attach a strong unit (%, points, x, orders of magnitude, physical) at ``pos``."""
    m = PERCENT_RE.match(text, pos)
    if m:
        pp = PERCENT_POINT_RE.match(text, m.end())
        c.unit, c.strong = ("points", True) if pp else ("%", True)
        return pp.end() if pp else m.end()
    for pattern, unit in ((POINTS_RE, "points"), (FACTOR_RE, "x"), (ORDERS_RE, "orders of magnitude")):
        m = pattern.match(text, pos)
        if m:
            c.unit, c.strong = unit, True
            return m.end()
    m = UNIT_RE.match(text, pos)
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


def _read_hyphen_compound(text: str, pos: int, c: Draft) -> int:
    """"17-point", "128-layer", "-parameter" after a scale: a pluralised count noun."""
    m = HYPHEN_WORD_RE.match(text, pos)
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
    c.unit, c.noun = (pluralise(word) if not low.endswith("s") else word), True
    return m.end()


def _read_noun(text: str, pos: int, c: Draft, budget: int = 5) -> int:
    """Attach a counted noun within the next few words ("230K real-world conversations").

    The noun is the first plural-looking word reached over modifiers ("real-world",
    "diverse user"), stopping at function words, adverbs and punctuation. A singular count
    noun or an acronym right after the number is used when no plural follows ("8 billion
    parameter" -> parameters, "28.4 BLEU" -> BLEU).
    """
    cur = pos
    first = True
    while budget > 0:
        m = WORD_AFTER_RE.match(text, cur)
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
            sub = Draft(0, 0, 0.0)
            end = _read_noun(text, m.end(), sub, min(budget, 2))
            if sub.noun and sub.unit and not sub.pluralised:
                c.unit, c.noun = sub.unit, True
                return end
            break
        if is_plural(word) or (first and per_time(text, m.end())):
            # "frames per second"; a singular noun over a time is a rate too ("170,000 tx/sec")
            c.unit, end = extend_rate(text, m.end(), normalise_noun(word))
            c.noun = True
            return end
        after = _skip_name_number(text, m.end(), word)
        if first and ((word.isupper() and len(word) >= 2 and not c.spelled) or low in words("count_nouns")):
            sub = Draft(0, 0, 0.0)
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
                c.unit = pluralise(word) if c.value != 1.0 else word
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


def _read_score(text: str, pos: int, c: Draft) -> int:
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


def score_unit_around(text: str, c: Draft) -> None:
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


def share_score_unit(text: str, cands: list[Draft]) -> None:
    """"a F1 score of 90.0/79.2", "perplexity of 52.8 on A and 52.0 on B": a bare number listed
    after a score takes the score's metric name."""
    metrics = set(_metric_forms().values())
    for prev, cur in zip(cands, cands[1:]):
        if cur.unit is None and prev.unit in metrics and _SCORE_GAP_RE.fullmatch(text, prev.end, cur.start):
            cur.unit, cur.noun = prev.unit, True


def _skip_name_number(text: str, pos: int, word: str) -> int:
    """After a capitalised name, skip a model number ("Atari 2600 games", "RTX 4090 cards")."""
    if word[:1].isupper():
        m = NAME_NUMBER_RE.match(text, pos)
        if m:
            return m.end()
    return pos


def _read_partitive(text: str, pos: int, c: Draft) -> int:
    """"10 of the 23 tasks", "six of the games": the number counts the noun after "of the"."""
    m = PARTITIVE_RE.match(text, pos)
    if not m:
        return pos
    sub = Draft(0, 0, 2.0)
    end = _read_noun(text, m.end(), sub)
    if sub.noun and sub.unit and not sub.pluralised:
        c.unit, c.noun = sub.unit, True
        return end
    return pos


def read_scale(text: str, pos: int, c: Draft) -> int:
    """Multiply by a following scale word or glued suffix ("1.2 trillion", "230K")."""
    m = SCALE_WORD_RE.match(text, pos)
    if m:
        c.value *= values("scale_words")[m.group(1).lower()]
        c.integer = True
        return m.end()
    if not c.spelled:
        m = SUFFIX_RE.match(text, pos)
        if m:
            c.value *= SUFFIX_SCALES[m.group(1)]
            return m.end()
    return pos


_GLUED_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]{2,30}(?![A-Za-z0-9])")


def glued_plural(text: str, pos: int) -> Optional[re.Match]:
    """A plural noun written right against the number before it ("2,048GPUs"), or None."""
    m = _GLUED_WORD_RE.match(text, pos)
    return m if m is not None and is_plural(m.group(0)) else None


def read_tail(text: str, pos: int, c: Draft) -> int:
    """After number (+scale): unit, hyphen compound or counted noun; then +, ±, 'or more'."""
    end = read_unit(text, pos, c)
    if end == pos:
        hyph = _read_hyphen_compound(text, pos, c)
        if hyph < 0:
            return -1
        end = hyph
    if end == pos and (glued := glued_plural(text, pos)):
        c.unit, c.noun, end = normalise_noun(glued.group(0)), True, glued.end()
    if end == pos:
        end = _read_score(text, pos, c)
    if end == pos:
        end = _read_noun(text, pos, c)
    if end == pos:
        end = _read_partitive(text, pos, c)
    m = PM_RE.match(text, end)
    if m:
        n = NUM_AT_RE.match(text, m.end())
        if n:
            sub = Draft(0, 0, 0.0)
            e2 = read_unit(text, n.end(), sub)
            if sub.unit and not c.unit:
                c.unit, c.strong = sub.unit, True
            end = e2
    m = PLUS_RE.match(text, end)
    if m and c.qualifier is None:
        c.qualifier = Qualifier.at_least
        end = m.end()
        if not c.unit:
            end = _read_noun(text, end, c)
    m = OR_MORE_RE.match(text, end)
    if m and c.qualifier is None:
        more = m.group(1).lower() in words("more_words")
        c.qualifier = Qualifier.at_least if more else Qualifier.up_to
        end = m.end()
        if not c.unit:
            end = _read_noun(text, end, c)  # "8 or more GPUs"
    return end
