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


def _regex(form: str) -> str:
    if form.endswith("*"):  # a stem, with any ending
        return _regex(form[:-1]) + r"\w*"
    return r"\s+".join(re.escape(part) for part in form.split())


@lru_cache(maxsize=None)
def _alternation(names: tuple[str, ...], base: bool, without: frozenset[str]) -> str:
    found: dict[str, str] = {}  # the longest form -> the regex of its forms
    for forms in _entries(names, without):
        if base or len(forms) == 1:
            found.setdefault(forms[0], _regex(forms[0]))
        elif len(forms) == 2 and forms[1] == forms[0] + "s":
            found.setdefault(forms[1], _regex(forms[0]) + "s?")  # "GPU, GPUs": GPUs?
        else:
            found.update((form, _regex(form)) for form in forms)
    return "|".join(found[form] for form in sorted(found, key=lambda form: (-len(form), form)))


def alternation(*names: str, base: bool = False, without: Collection[str] = ()) -> str:
    """The forms of the word classes ``names`` as a regular-expression alternation (no group
    around it): each form escaped, a space matching any run of spaces, the longest forms first
    so a phrase wins over a word it starts with. ``base`` and ``without`` as for ``words``."""
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
