"""Crossref works (API answers with ``message``/``message.items``, the public data file's
``items``, or one work a line): the DOI is the id; the abstract's JATS markup
(``<jats:p>``, ``<jats:italic>``, ``<jats:sec>``, ...) is removed, entities decoded, a leading
"Abstract" heading dropped, paragraphs kept as line breaks, and a superscript after a digit
written ``^`` ("10<jats:sup>6</jats:sup>" -> "10^6"). That text is what the outputs carry and
the offsets point into."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any, Optional

from paper_claims.sources.formats.base import Format
from paper_claims.sources.formats.csl import csl_names, csl_year
from paper_claims.sources.formats.jsonrecords import json_entries
from paper_claims.sources.records import Fields, first

_BLOCKS = {"p", "sec", "title", "list", "list-item", "def-list", "disp-quote", "abstract", "trans-abstract",
           "br", "div", "label", "caption", "disp-formula"}
_HEADINGS = re.compile(r"^\s*(abstract|summary|graphical abstract)\s*[.:]?\s*$", re.IGNORECASE)
_DATES = ("published", "issued", "published-print", "published-online", "created")


class _JatsText(HTMLParser):
    """The text of a JATS (or HTML) fragment, one paragraph per block element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[tuple[str, bool]] = []  # (text, is a title)
        self.current: list[str] = []
        self.in_title = 0

    @staticmethod
    def _local(tag: str) -> str:
        return tag.rsplit(":", 1)[-1].lower()

    def _close_paragraph(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.paragraphs.append((text, self.in_title > 0))
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        name = self._local(tag)
        if name in _BLOCKS:
            self._close_paragraph()
        if name == "title":
            self.in_title += 1
        if name == "sup" and self.current and self.current[-1][-1:].isdigit():
            self.current.append("^")

    def handle_endtag(self, tag: str) -> None:
        name = self._local(tag)
        if name in _BLOCKS:
            self._close_paragraph()
        if name == "title" and self.in_title:
            self.in_title -= 1

    def handle_data(self, data: str) -> None:
        self.current.append(data)

    def text(self) -> str:
        self._close_paragraph()
        paragraphs = list(self.paragraphs)
        if paragraphs and paragraphs[0][1] and _HEADINGS.match(paragraphs[0][0]):
            paragraphs = paragraphs[1:]  # the "Abstract" heading is not part of the abstract
        return "\n".join(text for text, _ in paragraphs)


def jats_text(markup: Any) -> Any:
    """The plain text of a JATS-marked abstract or title (anything else is returned as is)."""
    if not isinstance(markup, str):
        return markup
    parser = _JatsText()
    parser.feed(markup)
    parser.close()
    return parser.text()


def crossref_fields(record: dict[str, Any]) -> Fields:
    title = record.get("title")
    if isinstance(title, list):
        title = title[0] if title else None
    year = next((csl_year(record[key]) for key in _DATES if isinstance(record.get(key), dict)), None)
    return Fields(id=record.get("DOI"), text=jats_text(record.get("abstract")), title=jats_text(title),
                  doi=record.get("DOI"), year=year, authors=csl_names(first(record, ("author", "editor"))),
                  no_text="no abstract (the work's Crossref record has none)")


def looks_like_crossref(record: dict[str, Any]) -> bool:
    return "DOI" in record and ("member" in record or "prefix" in record or "reference-count" in record
                                or isinstance(record.get("title"), list))


CROSSREF = Format("crossref", "Crossref works", (), json_entries, crossref_fields, looks_like_crossref,
                  latex=("title",))
