"""Plain-text files in the corpus layouts of ``examples/abstracts/``: paragraphs split at blank
lines, each classified as an abstract, a title, an author line or something else (e.g. a
citation line) by one layout-independent classifier; titles and author lines become metadata
of the abstract that follows them. Ids are the file's first three characters and the
abstract's index (``001#3``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from paper_claims.sources.formats.base import Entry, Format
from paper_claims.sources.reading import cannot, read_text, stem_of
from paper_claims.sources.records import MAX_TEXT_CHARS

# --- paragraph classification -------------------------------------------------------------

ABSTRACT, TITLE, AUTHORS, OTHER = "abstract", "title", "authors", "other"

_NAME_SEPARATORS = re.compile(r"\s*(?:,|;|&|\band\b|\bet\s+al\b\.?)\s*", re.IGNORECASE)
_NAME_PARTICLES = frozenset(
    "de del della der di da dos du la le van von den ter ten bin al el y zu".split()
)
# Words that are common in titles but are not (usually) parts of person names.
_NON_NAME_WORDS = frozenset(
    """a an the of for in on at to with without from by via into over under towards toward
    is are be can do does not how what why when which who we our you your all is
    learning deep neural network networks model models language languages large scale
    system systems data dataset datasets machine efficient fast faster robust training
    inference serving transformer transformers attention graph graphs image images video
    vision visual search optimization reinforcement agent agents benchmark benchmarks
    generation generative analysis study survey toward approach framework method methods
    distributed parallel memory compute computing hardware robot robots robotic robotics
    evaluation evaluating scaling reasoning retrieval code tensorflow open""".split()
)
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")
# A sentence break: terminator, space, then a capital or digit; a single-capital "word"
# before the period (an initial such as "J.") does not count.
_SENTENCE_BREAK = re.compile(r"(?<!\b[A-Z])[.!?]\s+[\"'“‘(]?[A-Z0-9]")
_MIN_ABSTRACT_WORDS = 20
_MIN_LOWERCASE_RATIO = 0.35
_MAX_TITLE_WORDS = 30
_MAX_TITLE_CHARS = 300
_MAX_NAME_TOKENS = 6


def _words(text: str) -> list[str]:
    """Whitespace tokens that contain at least one letter."""
    return [t for t in text.split() if any(c.isalpha() for c in t)]


def _lowercase_ratio(words: list[str]) -> float:
    """Share of words whose first letter is lower case (high for prose, low for lists)."""
    if not words:
        return 0.0
    lower = 0
    for word in words:
        first = next(c for c in word if c.isalpha())
        lower += first.islower()
    return lower / len(words)


def _is_name_token(token: str) -> bool:
    """Whether a token can be part of a person's name ("Abby", "O'Neill", "J.", "van")."""
    token = token.strip("\"'“”‘’()")
    if not token:
        return False
    if token.lower() in _NAME_PARTICLES:
        return True
    if not token[0].isalpha() or token[0].islower():
        return False
    return all(c.isalpha() or c in "-'’." for c in token)


def _is_name(item: str, strict: bool) -> bool:
    """Whether ``item`` reads as one person's (or a collaboration's) name."""
    tokens = item.split()
    if not 1 <= len(tokens) <= _MAX_NAME_TOKENS or not all(map(_is_name_token, tokens)):
        return False
    if strict:
        return len(tokens) >= 2 and not any(
            t.lower().strip(".") in _NON_NAME_WORDS for t in tokens
        )
    return True


def _is_author_line(flat: str) -> bool:
    """Whether a paragraph is a list of person names separated by commas/"and"/"et al."."""
    items = [i for i in _NAME_SEPARATORS.split(flat) if i]
    if not items:
        return False
    if len(items) == 1:
        return _is_name(items[0], strict=True)
    failed = sum(not _is_name(item, strict=False) for item in items)
    # Long collaboration lists may hold an odd entry; the last item must be a name
    # (a citation line ends in a venue) and a short list must be all names.
    if failed > len(items) // 20 or not _is_name(items[-1], strict=False):
        return False
    multi = sum(len(item.split()) >= 2 for item in items)
    return multi * 3 >= len(items) * 2


def _is_prose(flat: str) -> bool:
    """Whether a paragraph reads as running prose made of sentences."""
    words = _words(flat)
    if len(words) < _MIN_ABSTRACT_WORDS or _lowercase_ratio(words) < _MIN_LOWERCASE_RATIO:
        return False
    return bool(_SENTENCE_END.search(flat) or _SENTENCE_BREAK.search(flat))


def _is_title(flat: str) -> bool:
    """Whether a paragraph is a short heading without sentence structure."""
    return (
        len(flat) <= _MAX_TITLE_CHARS
        and len(flat.split()) <= _MAX_TITLE_WORDS
        and not _SENTENCE_BREAK.search(flat)
    )


def classify_paragraph(paragraph: str) -> str:
    """Classify a paragraph as "abstract", "title", "authors" or "other" (e.g. a citation)."""
    flat = " ".join(paragraph.split())
    if not flat:
        return OTHER
    if _is_author_line(flat):
        return AUTHORS
    if _is_prose(flat) or len(flat) > MAX_TEXT_CHARS:
        return ABSTRACT
    if _is_title(flat):
        return TITLE
    return OTHER


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines, each stripped, line endings normalised."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def _prefix(path: Path) -> str:
    """Id prefix of a text file: the first 3 characters of its name (as in the gold ids)."""
    stem = stem_of(path)
    return stem[:3] or path.name[:3]


def text_entries(path: Path, source: str) -> Iterator[Entry]:
    """The abstracts of a plain-text file, with the title/author lines before them."""
    prefix = _prefix(path)
    title: Optional[str] = None
    authors: Optional[str] = None
    index = 0
    for paragraph in split_paragraphs(read_text(path)):
        kind = classify_paragraph(paragraph)
        if kind == TITLE:
            title, authors = " ".join(paragraph.split()), None
        elif kind == AUTHORS:
            authors = " ".join(paragraph.split())
        elif kind == ABSTRACT:
            doc_id = f"{prefix}#{index}"
            yield Entry(f"paragraph {index + 1}", doc_id,
                        {"id": doc_id, "text": paragraph, "title": title, "authors": authors})
            title, authors, index = None, None, index + 1
    if index == 0:
        raise cannot(source, "no paragraph reads as an abstract (prose of 20+ words)")


TEXT = Format("text", "plain text (corpus layouts)", (".txt",), text_entries)
