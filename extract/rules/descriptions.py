"""What a name's own description says it is: the head noun of an appositive ("X, a benchmark
of ..."), of an expansion ("GLaM (Generalist Language Model)"), of the phrase that introduces it
("a new model, X") or of the class noun of a list it stands in ("benchmarks such as X")."""

from __future__ import annotations

import re
from typing import Optional

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import NameMark
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.schemas import NameCode


_MODEL_NOUN = LazyPattern(lambda: rf"\b(?:{alternation('model_heads')})\b", re.IGNORECASE)
# the head nouns of a description that make a dataset: a data class, a benchmark platform or
# challenge, a collection, a test set; not "task" ("Con-traCode: a contrastive pre-training task"
# is a method, 001#55)
_DATA_NOUN = LazyPattern(lambda: rf"\b(?:{alternation('data_classes', 'data_tasks', 'data_heads', without=('task',))})\b",
                         re.IGNORECASE)
_OTHER_NOUN = LazyPattern(lambda: rf"\b(?:{alternation('method_heads')})\b", re.IGNORECASE)


# a name right before one of these nouns names software, neither data nor a model ("our X code")
_SOFTWARE_HEAD = LazyPattern(lambda: rf"\s+(?:{alternation('software_heads')})\b(?![\w-])")


_CUT = LazyPattern(lambda: rf"(?<![\w-])(?:{alternation('description_cuts')})(?![\w-])", re.IGNORECASE)
_KIND_OF = LazyPattern(lambda: rf"^(?:[\w-]+\s+){{0,2}}?(?:{alternation('kind_of_words')})\s+of\s+(?:the\s+|an?\s+)?",
                       re.IGNORECASE)


def head_code(phrase: str) -> Optional[NameCode]:
    """The type of a description by its head, the last class noun before a relative clause
    or preposition ("an LLM serving system for ..." is no model; "a 7B language model" is;
    "a family of language models": the head follows "family/series/suite of")."""
    phrase = _KIND_OF.sub("", phrase.strip())
    phrase = _CUT.split(phrase, maxsplit=1)[0]
    nouns = [(m.start(), code) for pattern, code in ((_MODEL_NOUN, NameCode.model), (_DATA_NOUN, NameCode.dataset),
                                                     (_OTHER_NOUN, NameCode.none)) for m in pattern.finditer(phrase)]
    return max(nouns, key=lambda pair: pair[0])[1] if nouns else None


_DESCRIBED_AFTER = re.compile(r"[}$*\"'”’]*\s*(?:\([^)]*\))?\s*(?:,|:|\s*[-–—]+|\s+is|\s+was)\s*(?:an?|the)\s+([^.;:()]{0,80})",
                              re.IGNORECASE)
# "we propose a new X system, Y", "A smaller version of the network, Y" (not "Applied to a
# model, Y ...": an opening phrase)
_DESCRIBED_BEFORE = LazyPattern(lambda: rf"(?:(?:^|[.!?]\s+)(?:an?|the)|\b(?:{alternation('describer_leads')})\s+(?:\w+\s+)?"
                                       rf"(?:{alternation('introduce_verbs', 'making_verbs')})(?:s|d|ed)?\s+(?:an?))"
                                       r"\s+((?:[\w-]+\s+){0,5}[\w-]+)\s*(?:,\s*(?:denoted\s+as\s*)?|[-–—]+|"
                                       rf"\s\(?(?:{alternation('naming_words', without=('known as',))}))\s*$",
                                 re.IGNORECASE)
# "referring segmentation datasets (which we call X)": the noun phrase the authors name X
_CALLED = LazyPattern(lambda: rf"((?:[\w-]+\s+){{0,4}}[\w-]+)\s*\(?\s*(?:which|that)\s+we\s+(?:{alternation('naming_verbs')})\s+$",
                      re.IGNORECASE)
_CLASS_LIST = LazyPattern(lambda: r"\b([A-Za-z]+s|corpora)\s*"
                                  rf"(?:,\s*(?:e\.g\.,|{alternation('example_markers')})?|:|\(\s*(?:e\.g\.,?|such\s+as|including)|"
                                  rf"\s+(?:e\.g\.,|{alternation('example_markers')}))"
                                  r"\s*(?:the\s+)?$", re.IGNORECASE)
_OPENING = LazyPattern(lambda: rf"^\s*(?:{alternation('opening_prepositions')})\b", re.IGNORECASE)


def described(doc: ParsedDocument, mark: NameMark) -> Optional[NameCode]:
    """The type a name's own description gives it, by the head noun of the description: an
    appositive ("X, a benchmark of ...", "X, the first benchmark ...", "X is a framework ...", "a new model, X", "an image
    classifier---X---") or the class noun of a list it stands in ("benchmarks such as X and
    Y", "two new benchmarks, X and Y"), the opening phrase of a sentence ("On both
    benchmarks, X ...") aside. None when no such description stands next to it."""
    text = doc.text
    for span in mark.spans:
        if re.match(r"\s+(?:nets|networks)\b", text[span.end:]):
            return NameCode.model  # "VGG nets": networks of that name
        if _SOFTWARE_HEAD.match(text, span.end):
            return NameCode.none  # "our X code", "the X framework": software of that name
        expansion = re.match(r"\s*\(([^)]*)\)", text[span.end:])
        if expansion and (code := head_code(expansion.group(1))) is not None:
            return code  # "GLaM (Generalist Language Model)"
        after = _DESCRIBED_AFTER.match(text, span.end)
        left = doc.sentence_around(span.start, span.end)[0]
        opening = _OPENING.match(text[left:span.start]) is not None and "," not in text[left:span.start]
        if after and not (opening and text[span.end:after.start(1)].lstrip(" }$*\"'”’").startswith(",")) and \
                (code := head_code(after.group(1))) is not None:
            return code  # not "On X, a small model reaches ...": X opens the sentence, it is not described
        head = text[max(0, span.start - 80):span.start]
        before = _DESCRIBED_BEFORE.search(text[max(0, span.start - 120):span.start])
        if before and (code := head_code(before.group(1))) is not None:
            return code
        called = _CALLED.search(text, max(0, span.start - 80), span.start)
        if called and (code := head_code(called.group(1))) is not None:
            return code
        listed = _CLASS_LIST.search(head)
        if listed:
            opening = text[left:span.start - len(head) + listed.end(1)]
            if not (_OPENING.match(opening) and "," not in opening) and \
                    (code := head_code(listed.group(1))) is not None:
                return code
    return None
