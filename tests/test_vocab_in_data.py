"""Words are data: no module of ``parse/`` or ``rules/`` defines a list of words in its code.

Every word class lives in ``parse/vocab/<class>.txt`` (one definition, saying where its words come
from); the code says how a class is matched (the glue of a pattern: look-arounds, optional parts,
case) and reads the words with ``words``, ``alternation`` or ``entries``. This test reads each
module's syntax tree and fails on a word list written in the code:

- a literal list, tuple, set or table (a dict whose values are all constants) holding three or
  more words;
- a string split into three or more words (``"a an the".split()``);
- a regular expression with three or more words as the branches of one alternation
  (``(?:faster|slower|quicker)``, ``reduc\\w*|cut\\w*|lower\\w*``).

A word is two or more letters (hyphens, spaces and apostrophes between them): unit symbols spelled
with letters ("ms", "GB") count, single letters, digits and signs ("x", "%", "$", "/s") do not. Not
counted: ``__all__``, endings a word is tested for with ``str.endswith``/``startswith``
(morphology, not words), and a group of a pattern glued to the letters before it, which spells
the endings of that one word (``sav(?:e|es|ing)``, ``[a-z]+(?:er|or)s``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "extract"
MODULES = sorted(p for folder in ("parse", "rules", "decisions") for p in (PACKAGE / folder).rglob("*.py"))
WORD = re.compile(r"[^\W\d_]{2,}(?:[-' ][^\W\d_]+)*")
# a branch that spells a word: letters, with the glue of a word's forms and spellings (optional
# endings and groups of letters, a letter class "[sz]", a space or hyphen as a pattern, a stem's
# "\w*"); not a URL, a version ("HBM\d"), a number or an abbreviation with a dot
_GLUE = r"(?:\\s[+*?]?|\[[a-z -]+\][+*?]?|\[ \\t\][+*?]?|[-' ]\??|\\-|\(\?:[^()]*\)\??|\?|\\w[*+])"
BRANCH_WORD = re.compile(rf"(?:\\b)?[^\W\d_]{{2,}}(?:{_GLUE}|[^\W\d_])*(?:\\b)?")
HOLE = "\x00"  # where an f-string's value stands in a pattern: no letter


def _is_word(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and WORD.fullmatch(node.value) is not None


def _branches(pattern: str) -> list[list[str]]:
    """The branches of every alternation of a regular expression (the whole pattern and each
    group), each group's text kept whole inside the branch that holds it. A group glued to the
    letters before it (word endings) is left out."""
    found: list[list[str]] = []
    stack: list[tuple[list[str], bool]] = [([""], False)]  # (branches so far, glued to a letter)
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            stack[-1][0][-1] += pattern[i:i + 2]
            i += 2
            continue
        if char == "[":  # a character class: no alternation inside
            end = i + 1
            if end < len(pattern) and pattern[end] == "^":
                end += 1
            if end < len(pattern) and pattern[end] == "]":
                end += 1
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            stack[-1][0][-1] += pattern[i:end + 1]
            i = end + 1
            continue
        if char == "(":
            header = re.match(r"\(\?(?:P<\w+>|<?[=!]|[a-zA-Z-]*:|:)?", pattern[i:])
            opener = header.group(0) if header else "("
            before = stack[-1][0][-1]
            # glued to a word: after a letter (not an escape such as "\\b") or a run of letters
            # ("[a-z]+", "\\w+"): the group spells that word's endings ("[A-Z][a-z]+(?:er|or)s")
            glued = re.search(r"(?<!\\)[^\W\d_]$|(?:\[[^\]]*a-z[^\]]*\]|\\w)[+*]$", before) is not None
            stack[-1][0][-1] += opener
            stack.append(([""], glued))
            i += len(opener)
            continue
        if char == ")" and len(stack) > 1:
            branches, glued = stack.pop()
            if not glued:
                found.append(branches)
            stack[-1][0][-1] += "|".join(branches) + ")"
            i += 1
            continue
        if char == "|":
            stack[-1][0].append("")
            i += 1
            continue
        stack[-1][0][-1] += char
        i += 1
    found.append(stack[0][0])
    return found


def _pattern_words(pattern: str) -> list[str]:
    """The word branches of the alternation with the most of them."""
    best: list[str] = []
    for branches in _branches(pattern):
        plain = [b for b in branches if BRANCH_WORD.fullmatch(b)]
        if len(plain) > len(best):
            best = plain
    return best


def _affix_names(tree: ast.AST) -> set[str]:
    """Names whose every read is an argument of ``str.endswith``/``startswith``."""
    reads: dict[str, int] = {}
    affix_reads: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads[node.id] = reads.get(node.id, 0) + 1
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("endswith", "startswith"):
            for arg in node.args:
                if isinstance(arg, ast.Name):
                    affix_reads[arg.id] = affix_reads.get(arg.id, 0) + 1
    return {name for name, count in affix_reads.items() if reads.get(name) == count}


def _affix_nodes(tree: ast.AST) -> set[int]:
    """The literals that are affixes: an argument of ``endswith``/``startswith``, or the value
    of a name used only so."""
    names = _affix_names(tree)
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("endswith", "startswith"):
            found.update(id(arg) for arg in node.args)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and (t.id in names or t.id == "__all__") for t in targets):
                found.add(id(node.value))
                found.update(id(child) for child in ast.walk(node.value))
    return found


def _pattern_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else HOLE for part in node.values)
    return None


def word_lists(source: str) -> list[tuple[int, str]]:
    """(line, what) of each word list a module's source defines."""
    tree = ast.parse(source)
    affixes = _affix_nodes(tree)
    inside_fstring = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in affixes:
            continue
        items: list[ast.AST] | None = None
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = list(node.elts)
        elif isinstance(node, ast.Dict) and all(isinstance(v, ast.Constant) for v in node.values):
            items = [k for k in node.keys if k is not None]
        if items is not None:
            listed = [item.value for item in items if _is_word(item)]  # type: ignore[attr-defined]
            if len(listed) >= 3:
                found.append((node.lineno, f"a literal list of {len(listed)} words: {listed[:6]}"))
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
                and not node.args and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
            listed = [w for w in node.func.value.value.split() if WORD.fullmatch(w)]
            if len(listed) >= 3:
                found.append((node.lineno, f"a string of {len(listed)} words split: {listed[:6]}"))
            continue
        if id(node) in inside_fstring:
            continue
        pattern = _pattern_text(node)
        if pattern is not None and "|" in pattern:
            listed = _pattern_words(pattern)
            if len(listed) >= 3:
                found.append((node.lineno, f"an alternation of {len(listed)} words: {listed[:6]}"))
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_of_parse_or_rules_defines_a_word_list(path: Path) -> None:
    found = word_lists(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(PACKAGE)}: word lists belong in parse/vocab:\n" + "\n".join(
        f"  line {line}: {what}" for line, what in sorted(found))


@pytest.mark.parametrize("source", [
    'WORDS = {"faster", "slower", "quicker"}',
    'WORDS = frozenset("an the our".split())',
    'P = re.compile(r"\\b(?:faster|slower|quicker)\\b")',
    'P = re.compile(r"(?:reduc\\w*|cut\\w*|lower\\w*)")',
    'P = re.compile(rf"(?:{x}|memory|RAM|VRAM)")',
    'UNITS = {"kb": 1, "mb": 2, "gb": 3}',
    'P = "(?:sav(?:e|es|ing)|cut|lower)"',
])
def test_a_word_list_in_code_is_found(source: str) -> None:
    assert word_lists(source)


@pytest.mark.parametrize("source", [
    'UNITS = {"x", "%", "$"}',
    '__all__ = ["canonical", "dimension", "words"]',
    'ok = word.endswith(("tion", "ment", "ings"))',
    'ENDINGS = ("tion", "ment", "ings")\ndef f(w): return w.endswith(ENDINGS)',
    'P = re.compile(r"sav(?:e|es|ing|ings)\\b")',
    'P = re.compile(r"[A-Z][a-z]+(?:er|or|net|model|network)s")',
    'P = re.compile(r"[KMGT]i?B|[nμu]s|(?:k|M|G)Hz")',
    'row = {"kind": kind, "value": value, "unit": unit}',
    'P = re.compile(rf"\\b(?:{alternation(\'comparison_words\')})\\s+(?P<name>[A-Z]\\w+)")',
    'S = f"{a} {b} and {c}"',
])
def test_notation_and_glue_are_not_word_lists(source: str) -> None:
    assert not word_lists(source)
