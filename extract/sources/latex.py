"""LaTeX as people read it: the fields of the formats written in LaTeX (BibTeX, the arXiv
snapshot; the titles of every metadata format) as Unicode text, with pylatexenc: ``3.2$\\times$``
is ``3.2×``, ``15\\%`` is ``15%``, ``$\\sim$4\\%`` is ``∼4%``, ``Erd\\H{o}s`` is ``Erdős``. It
runs before the Document exists, so every offset points into the text the outputs carry;
``--keep-latex`` keeps the fields as written.

What LaTeX would read otherwise and an abstract means as text stays text: a bare ``%`` (LaTeX's
comment) and ``&`` (its column separator) are kept, a ``~`` between words is a space and one
before a number ("~4%") stays, a digit group ``100\\,000`` is ``100,000``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

from paper_claims.sources.records import Fields

_MARKUP = re.compile(r"[\\${}~]|--|``|''")  # a field without any of these reads the same
_BARE = re.compile(r"(?<!\\)([%&])")
_TIE = re.compile(r"(?<=[\w.])~(?=\S)")
_TILDE = re.compile(r"(?<!\\)~")
_DIGIT_GROUP = re.compile(r"(?<=\d)\\,(?=\d{3}(?!\d))")


@lru_cache(maxsize=1)
def _converter() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text()


def latex_to_text(value: Any) -> Any:
    """A LaTeX text as Unicode text, paragraphs one a line and white space single (anything that
    is not a string is returned as it is, and so is a text pylatexenc cannot read)."""
    if not isinstance(value, str) or not _MARKUP.search(value):
        return value
    prepared = _DIGIT_GROUP.sub(",", _BARE.sub(r"\\\1", value))
    prepared = _TILDE.sub(r"\\textasciitilde{}", _TIE.sub(" ", prepared))
    try:
        text = _converter().latex_to_text(prepared)
    except Exception:  # pylatexenc reads tolerantly; a text it still cannot read stays as written
        return value
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def fields_as_text(fields: Fields, names: tuple[str, ...]) -> Fields:
    """``fields`` with the ones ``names`` lists (``text``, ``title``, ``authors``) as text; a list
    (of authors) item by item."""
    converted = {}
    for name in names:
        value = getattr(fields, name)
        converted[name] = [latex_to_text(v) for v in value] if isinstance(value, list) else latex_to_text(value)
    return replace(fields, **converted)
