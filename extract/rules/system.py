"""The paper's system and what it is: the name right after "we propose/introduce/present"
(else the name that opens two or more sentences or clauses, else the model's letter when the
abstract names it more than once, else the name the authors give: "we call our model X");
its type is "X model" wherever the text writes it, else the head of its description ("X, an
LLM serving system" is none, "a network architecture called X" a model); a system the authors
call "our model" keeps the model's "model" label whatever its description, and one nothing in
the text calls a model, nor trains ("we train X on ..."), is none."""

from __future__ import annotations

import re
from typing import Mapping, Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import INTRODUCES, NameMark
from paper_claims.parse.name_words import class_code, known_hardware, looks_like_hardware
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.rules.descriptions import described, head_code
from paper_claims.schemas import NameCode


def introduced(doc: ParsedDocument, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """The name (not hardware) right after "we propose/introduce/present ..." (within 40
    characters), if any."""
    text = doc.text
    for left, right in doc.sentences:
        verb = INTRODUCES.search(text, left, right)
        if verb is None:
            continue
        after = [(span.start, mark) for mark in marks if not mark.compared and not known_hardware(mark.text)
                 for span in mark.spans if verb.end() <= span.start < min(right, verb.end() + 40)]
        if after:
            return min(after, key=lambda pair: pair[0])[1]
    return _subject(doc, marks)


# the name the authors give their contribution: "we call our model X", "a new family of
# detectors, called X", "we train a language model (called X)" (not "so-called X")
_NAMING = LazyPattern(lambda: rf"(?<!-)\b(?:{_names_given()}|call\s+(?:{alternation('naming_objects')}|our\s+[\w-]+(?:\s+[\w-]+)?))\s+$",
                      re.IGNORECASE)
_AUTHORS = LazyPattern(lambda: rf"\b(?:we|our)\b|\bthis\s+(?:{alternation('paper_nouns')})\b", re.IGNORECASE)


def _names_given() -> str:
    """The participles that give a name (vocab/naming_words: called, named, dubbed, termed)."""
    return alternation("naming_words", without=("denoted as", "known as"))


def _named(doc: ParsedDocument, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """With no "we propose X": the first name a sentence of the authors gives ("we call our model X")."""
    text = doc.text
    named = []
    for mark in marks:
        if mark.compared or known_hardware(mark.text):
            continue
        for span in mark.spans:
            left, right = doc.sentence_around(span.start, span.end)
            if _NAMING.search(text, max(left, span.start - 40), span.start) and _AUTHORS.search(text, left, right):
                named.append((span.start, mark))
    return min(named, key=lambda pair: pair[0])[1] if named else None


def _subject(doc: ParsedDocument, marks: Sequence[NameMark]) -> Optional[NameMark]:
    """With no "we propose": the name that opens two or more sentences or clauses ("X masks
    the input. ..., X outperforms ..."), the paper's subject."""
    text = doc.text
    starts = {m.end() for m in re.finditer(r"(?:^|[.!?]\s+|,\s+)", text)}
    counts = [(sum(1 for span in mark.spans if span.start in starts), mark) for mark in marks
              if not mark.compared and not looks_like_hardware(mark.text)]
    best = max(counts, key=lambda pair: pair[0], default=(0, None))
    return best[1] if best[0] >= 2 else None


_AFTER = re.compile(r"[}$*\"'”’]*\s*(?:\(([^)]*)\))?\s*(?:,|:|[-–—]+|\s+is|\s+was)?\s*(?:an?|the)\s+([^.;:()]{0,80})", re.IGNORECASE)
_BEFORE = LazyPattern(lambda: rf"\b(?:an?|the)\s+((?:[\w-]+\s+){{0,5}}[\w-]+)\s*(?:,\s*(?:{_names_given()}|the)|"
                              rf"(?:{_names_given()}))\s+(?:the\s+)?$", re.IGNORECASE)


_MODEL_TYPE = LazyPattern(lambda: rf"\s+(?:{alternation('model_type_words')})\b(?!s)")


def system_code(doc: ParsedDocument, system: NameMark) -> Optional[NameCode]:
    """What the paper says its system is: "X, a framework for ..." or "X is a system" is no
    model; "X, a 7B language model", "X (Generalist Language Model)" and "a network
    architecture called X" are models; "X: a new benchmark" a dataset. Else None."""
    text = doc.text
    if any(_MODEL_TYPE.match(text[span.end:]) for span in system.spans):
        return NameCode.model  # "a pre-trained X model", "Our base X model": wherever the text says so
    for span in system.spans:
        after = _AFTER.match(text, span.end)
        if after:
            code = head_code(after.group(2))
            if code is None and after.group(1):
                code = head_code(after.group(1))
            if code is not None:
                return code
        before = _BEFORE.search(text[max(0, span.start - 80):span.start])
        if before and (code := head_code(before.group(1))) is not None:
            return code
    return None


# what one trains is a model: "we train X on ...", "pre-training X", "X is fine-tuned"
_TRAINED_BEFORE = re.compile(r"\b(?:pre-?|re-?)?(?:train|fine-?tune)(?:s|d|ed|ing)?\s+(?:the\s+|our\s+)?$", re.IGNORECASE)
_TRAINED_AFTER = LazyPattern(lambda: rf"\s+(?:{alternation('passive_auxiliaries')})\s+(?:\w+\s+)?(?:pre-?)?(?:trained|fine-?tuned)\b",
                             re.IGNORECASE)


def trained(doc: ParsedDocument, mark: NameMark) -> bool:
    """The text trains the name ("we train X on ...", "pre-training X", "X is trained"): a model."""
    text = doc.text
    return any(_TRAINED_BEFORE.search(text, max(0, span.start - 30), span.start) or
               _TRAINED_AFTER.match(text, span.end) for span in mark.spans)


# the authors call their contribution a model: "our model outperforms X by 8.7%", "Our best
# model, X-B5, achieves", "we call our model X", "our proposed model, X" (a model noun after
# "our"); not the models a method makes of others ("our sliced models", "our pruned network")
_OWN_MODEL = LazyPattern(lambda: rf"\bour\s+(?:(?!(?!proposed)[\w-]+ed\s)[\w-]+\s+){{0,2}}(?:{alternation('model_nouns')})\b",
                         re.IGNORECASE)


def own_model(doc: ParsedDocument) -> bool:
    """Whether the authors speak of "our model" (or network, LLM, ...): what they contribute is a model."""
    text = doc.text
    return _OWN_MODEL.search(text) is not None


def paper_system(doc: ParsedDocument, marks: Sequence[NameMark], guess: Optional[NameMark]) -> Optional[NameMark]:
    """The paper's system: the name it introduces (``introduced``), else the model's letter
    ``guess`` when the abstract repeats that name (a paper names its own system more than once;
    a name it mentions once is rarely that system)."""
    return introduced(doc, marks) or (guess if guess is not None and len(guess.spans) >= 2 else None) or _named(doc, marks)


def system_type(doc: ParsedDocument, codes: Mapping[str, NameCode], system: Optional[NameMark],
                guess: Optional[NameMark]) -> tuple[dict[str, NameCode], Optional[NameCode]]:
    """The name types corrected by what the text says the system is, and that type (None when
    the text does not say): "X, a framework for ..." is no model or dataset; a system (or the
    model's guess at it) nothing in the text calls a model, nor trains ("we train X", "X is
    pre-trained"), is none (most such systems are methods, which the model calls "model" all
    the same)."""
    codes = dict(codes)
    if guess is not None and guess is not system and (system is None or len(guess.spans) < 2) \
            and codes.get(guess.letter) == NameCode.model and \
            class_code(guess.text) is None and described(doc, guess) is None and system_code(doc, guess) is None \
            and not trained(doc, guess):
        codes.pop(guess.letter)  # the model's own contribution, and nothing says it is a model
    if system is None:
        return codes, None
    said = system_code(doc, system)
    own = codes.get(system.letter) == NameCode.model and own_model(doc)
    if own and said == NameCode.none:
        said = None  # "X, a pre-training strategy ... our model outperforms": the model's label stands
    if said is None and class_code(system.text) is None and described(doc, system) is None \
            and codes.get(system.letter) == NameCode.model and not trained(doc, system) and not own:
        # nothing in the text says the system is a model ("We introduce X, which ranks ...")
        codes.pop(system.letter, None)
    if said == NameCode.none:
        codes.pop(system.letter, None)  # "X, a framework for ...": not a model or dataset
    elif said is not None:
        codes[system.letter] = said
    return codes, said
