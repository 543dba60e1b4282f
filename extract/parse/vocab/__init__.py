"""Language data: one plain-text file per word class, read on first use and kept.

A file ``<class>.txt`` in this folder holds one entry per line: a word or phrase, followed by
its other forms after commas (``GPU, GPUs``; ``corpus, corpora``); the first form is the
entry's base. An entry may end in `` = <number>``, the value its words write (``hundred =
100``; ``half, halves = 2``: a half is one part of 2), read with ``values``. A form ending in ``*``
is a stem, matched by ``alternation`` with any ending (``achiev*``: achieves, achieving). A line
``@<class>`` stands for the entries of that class (a class made of smaller ones: the modal verbs are
function words). ``#`` starts a comment (every file says where its words come from: GUIDELINES.md
or a public source). The code that reads a class decides how to match it (case, inflection,
what may stand around it); the words themselves are defined here once.

Nothing is read at import: ``words``/``alternation`` read a file the first time it is asked
for (cached), and ``LazyPattern`` compiles a pattern built from them on its first use.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Collection, Iterator

__all__ = ["LazyPattern", "alternation", "entries", "values", "words"]


def _lines(name: str) -> Iterator[tuple[tuple[str, ...], str]]:
    """Each entry of word class ``name`` as its forms and the value written after " = " (or "")."""
    text = resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("@"):
            yield from _lines(line[1:].strip())
        elif line:
            line, _, value = line.partition(" = ")
            yield tuple(form.strip() for form in line.split(",") if form.strip()), value.strip()


@lru_cache(maxsize=None)
def entries(name: str) -> tuple[tuple[str, ...], ...]:
    """The entries of word class ``name``, in file order, each as its forms (base first)."""
    return tuple(forms for forms, _ in _lines(name))


@lru_cache(maxsize=None)
def values(name: str) -> dict[str, float]:
    """Every form of word class ``name``, lower-cased, and the value its entry gives (entries
    without one left out): ``values("scale_words")["thousand"] == 1000.0``."""
    return {form.lower(): float(value) for forms, value in _lines(name) if value for form in forms}


def _entries(names: tuple[str, ...], without: Collection[str]) -> Iterator[tuple[str, ...]]:
    skip = {word.lower() for word in without}
    for name in names:
        yield from (forms for forms in entries(name) if forms[0].lower() not in skip)


@lru_cache(maxsize=None)
def _words(names: tuple[str, ...], base: bool, without: frozenset[str]) -> frozenset[str]:
    return frozenset(form.lower() for forms in _entries(names, without) for form in (forms[:1] if base else forms))


def words(*names: str, base: bool = False, without: Collection[str] = ()) -> frozenset[str]:
    """Every form of every entry of the word classes ``names``, lower-cased (``base``: only
    the first form of each entry); ``without`` leaves out entries by their base."""
    return _words(names, base, frozenset(without))


def _tokens(form: str) -> tuple[str, ...]:
    """A form as the pieces of its regular expression: escaped characters, a run of spaces, the
    endings of a stem."""
    if form.endswith("*"):  # a stem, with any ending
        return _tokens(form[:-1]) + (r"\w*",)
    found: list[str] = []
    for i, part in enumerate(form.split()):
        found += [r"\s+"] * bool(i) + [re.escape(char) for char in part]
    return tuple(found)


_END = ""  # marks where a form ends in the tree of forms


def _tree_regex(node: dict[str, dict], top: bool = False) -> str:
    """The forms of a tree (shared starts written once) as a regular expression, each node's
    branches in the order they were added and a form that ends there after them."""
    branches = [piece + _tree_regex(child) for piece, child in node.items() if piece != _END]
    if not branches:
        return ""
    if top:
        return "|".join(branches)
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    if _END not in node:
        return body
    single = len(branches) == 1 and re.fullmatch(r"\\?[^\\]", branches[0]) is not None  # one plain character
    return f"{body}?" if single else f"(?:{body})?"


@lru_cache(maxsize=None)
def _alternation(names: tuple[str, ...], base: bool, without: frozenset[str]) -> str:
    forms = dict.fromkeys(form for entry in _entries(names, without) for form in (entry[:1] if base else entry))
    tree: dict[str, dict] = {}
    for form in sorted(forms, key=lambda form: (-len(form), form)):  # the longest first
        node = tree
        for piece in _tokens(form):
            node = node.setdefault(piece, {})
        node[_END] = {}
    return _tree_regex(tree, top=True)


def alternation(*names: str, base: bool = False, without: Collection[str] = ()) -> str:
    """The forms of the word classes ``names`` as a regular-expression alternation (no group
    around it): each form escaped, a space matching any run of spaces, a stem with any ending,
    the longest forms first so a phrase wins over a word it starts with. The forms are written
    as a tree, a start they share once ("GPUs?", "(?:acc(?:uracy|ept)|...)"): the same matches,
    and a search tries a few branches at a place instead of every form. ``base`` and ``without``
    as for ``words``."""
    return _alternation(names, base, frozenset(without))


class LazyPattern:
    """A regular expression built from word classes, compiled on first use and then kept.

    ``LazyPattern(lambda: rf"\\b(?:{alternation('device_words')})\\b", re.I)`` at module
    level reads nothing at import; ``.search``, ``.match`` and the rest are the compiled
    pattern's own (after the first use, plain attributes: no lookup on the way)."""

    def __init__(self, build: Callable[[], str], flags: int = 0) -> None:
        self._build = build
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._build(), self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:  # search, match, fullmatch, finditer, sub, split, pattern, ...
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self.compiled, name)
        setattr(self, name, value)  # the next lookup finds it on the instance
        return value
