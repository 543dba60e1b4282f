"""What each marked name is (dataset, model, hardware or none): its own words first
(``parse.name_words``), then its own description (``rules.descriptions``: "X, a benchmark of
...", "models such as X"), then the type of the names it is listed with, then the model's label;
the model's word alone makes no dataset: the words around the name must say it is data ("on X",
"X benchmark", "X accuracy", a dataset it is listed with), unless it is a coined one-word name
("WebArena") and no model's variant. What is no name (terms of the field, cloud providers,
pointers into the paper, cited authors, optimizers) gets none. A name and its other spelling
("X (Long Name)", an acronym) are one name."""

from __future__ import annotations

import re
from typing import Mapping, Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.candidates import field_term, not_a_name
from paper_claims.parse.families import optimizer_name, software_name
from paper_claims.parse.marks import NameMark
from paper_claims.parse.name_words import class_code, field_word, generic_phrase, is_cloud_provider, looks_like_hardware
from paper_claims.parse import vocab
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.rules.descriptions import described, head_code
from paper_claims.rules.devices import no_device, single_platform
from paper_claims.schemas import DocumentLabels, NameCode


_ON_AFTER_NUMBER = LazyPattern(lambda: r"\d[^.;,]{0,40}?\b(?:on|across)\s+(?:the\s+)?(?:\w+\s+){0,1}$|"
                                       rf"\b(?:{alternation('data_parts')})\s+(?:of|from)\s+(?:the\s+)?$", re.IGNORECASE)


# the words around a name that say it is data: a preposition of what a result is measured on or
# drawn from before it ("on X", "results across the X"), or after it a data class or a measure
# taken on it ("X benchmark", "X test set", "X accuracy", "X question answering test F1")
_DATA_BEFORE = LazyPattern(lambda: rf"(?:\b(?:{alternation('data_prepositions')})\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){{0,2}}|"
                                   rf"\b(?:{alternation('data_classes', 'data_tasks')})\s+)\(?$", re.IGNORECASE)
_DATA_AFTER = LazyPattern(lambda: r"\s*(?:\([^)]*\)\s*)?(?:[\w-]+\s+){0,3}?"
                                  rf"(?:{alternation('data_classes', 'data_tasks', 'metric_names', 'data_suffixes')})\b", re.IGNORECASE)


# "over X" after a change or a comparative ("large improvements over X", "a speedup over X",
# "better over X"): X is compared against, not data
_COMPARED_OVER = LazyPattern(lambda: rf"\b(?:{alternation('change_words', 'comparatives')}|speed-?ups?)\s+"
                                     r"(?:[\w-]+\s+){0,2}?over\s+(?:the\s+|an?\s+)?$", re.IGNORECASE)


def data_support(doc: ParsedDocument, mark: NameMark) -> bool:
    """Words around the name say it is data: "on X", "X benchmark", "X accuracy" (not "gains
    over X": compared against)."""
    text = doc.text
    return any(_DATA_BEFORE.search(text, max(0, span.start - 40), span.start)
               and not _COMPARED_OVER.search(text, max(0, span.start - 60), span.start)
               or _DATA_AFTER.match(text, span.end, span.end + 50) for span in mark.spans)


def _evaluated_on(doc: ParsedDocument, mark: NameMark) -> bool:
    """A name a number is measured on, or whose data is used: "84.4% on X", "a 6-point gain
    on the X", "the labeled data of X"."""
    text = doc.text
    return any(_ON_AFTER_NUMBER.search(text[max(0, span.start - 60):span.start]) for span in mark.spans)


_LINK = LazyPattern(lambda: rf"\s*(?:\([^()]*\)\s*)?(?:,\s*(?:and|or)?|/|{alternation('name_links')})\s*")
_LAST_LINK = LazyPattern(lambda: rf"(?:/|&|\b(?:{alternation('name_links', without=('&',))}))\s*$")


def _coordinated(doc: ParsedDocument, marks: Sequence[NameMark]) -> list[list[NameMark]]:
    """Groups of two or more names listed together: "X, Y, and Z", "X or Y", "X/Y", "X (its
    details) and Y" (commas alone may only end an opening phrase: "On X, Y reaches ...")."""
    text = doc.text
    spans = sorted((span.start, span.end, mark) for mark in marks if not mark.compared for span in mark.spans)
    runs: list[list[tuple[int, int, NameMark]]] = []
    for span in spans:
        if runs and _LINK.fullmatch(text[runs[-1][-1][1]:span[0]]):
            runs[-1].append(span)
        else:
            runs.append([span])
    groups = []
    for run in runs:
        names = list(dict.fromkeys(mark for _, _, mark in run))
        if len(names) >= 2 and _LAST_LINK.search(text[run[-2][1]:run[-1][0]]):
            groups.append(names)
    return groups


# "Large Multimodal Models (LMMs)", "Multi-Agent Systems (MAS)": a kind of thing, spelled out
_FIELD_PLURAL = LazyPattern(lambda: rf"\b(?:{alternation('field_plurals')})\s*\([A-Z][A-Za-z]*\)$")


# a pointer into the paper ("Sec 4.2", "Table 3") or a number format ("INT8", "FP16", "bfloat16")
_REFERENCE = LazyPattern(lambda: rf"(?:{alternation('paper_pointers')})\.?\s*[A-Z]?\d[\d.]*"
                                 rf"|(?:{alternation('number_formats')})\d{{1,2}}|b?float\d{{1,2}}", re.IGNORECASE)
# a parenthetical citation with its year: "(Dean and Ghemawat, 2004)", "(Smith et al. 2019; Lee 2020)"
_CITATION = re.compile(r"\([^()]{0,120}?\b(?:19|20)\d\d[a-z]?\)")


def operation(name: str) -> bool:
    """A unit of computation, alone or as the last word ("GEMM", "W4A8 GEMM", "DRAM access/MAC"):
    what a cost is counted in, no model or dataset (``vocab/operations``)."""
    last = re.split(r"[\s/]+", name.strip())[-1]
    return last.lower() in vocab.words("operations")


def spelled_out(doc: ParsedDocument, mark: NameMark) -> Optional[str]:
    """The words an acronym in parentheses spells out right before it, their initials its
    capitals ("chain-of-thought (CoT)", "Maximum Inner Product Search (MIPS)"; "DLRM" and "DLRMs"
    are spelled out by "... models (DLRMs)"), else None."""
    text = doc.text
    letters = re.sub(r"[^A-Z]", "", mark.text)
    if len(letters) < 2 or not re.fullmatch(r"[A-Za-z]+", mark.text.strip()):
        return None
    for found in re.finditer(rf"\(\s*{re.escape(mark.text.strip().removesuffix('s'))}s?\s*\)", text):
        words = re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)*", text[max(0, found.start() - 120):found.start()])
        for n in range(1, min(len(words), len(letters)) + 1):
            phrase = words[-n:]
            initials = "".join(part[0] for word in phrase for part in word.split("-")
                               if part.lower() not in vocab.words("title_joiners"))
            if initials.upper() == letters.upper() or "".join(w[0] for w in phrase).upper() == letters.upper():
                return " ".join(phrase)
    return None


_MODEL_PART = LazyPattern(lambda: rf"(?:^|(?<=[a-z\s-]))(?i:{alternation('model_parts')})(?:\s*\([^)]*\))?$")


def field_of_work(phrase: str) -> bool:
    """Whether a phrase ends in a noun of ``vocab/field_gerunds`` and so names a field of work or
    a way of training ("federated learning", "natural language processing"), not data."""
    last = re.findall(r"[A-Za-z]+", phrase)
    return bool(last) and last[-1].lower() in vocab.words("field_gerunds")


def model_part(name: str) -> bool:
    """A name headed by a mechanism inside a model ("SmoothAttention", "Multi-head Latent Attention
    (MLA)"): a method or layer, no model (``vocab/model_parts``)."""
    return _MODEL_PART.search(name.strip()) is not None


# a section label of a structured abstract, in capitals before its colon, alone or joined by "AND"
# ("RESULTS:", "AVAILABILITY AND IMPLEMENTATION:")
_SECTION_LABEL = LazyPattern(lambda: rf"(?:{alternation('section_labels')})(?:\s+AND\s+(?:{alternation('section_labels')}))*\s*:")


def section_label(doc: ParsedDocument, mark: NameMark) -> bool:
    """Every occurrence of the name is (part of) a section label of a structured abstract,
    written in capitals before its colon ("MOTIVATION: ...", "AVAILABILITY AND IMPLEMENTATION:"):
    a heading, no name (``vocab/section_labels``)."""
    text = doc.text
    if not mark.text.isupper():
        return False
    for span in mark.spans:
        start = span.start
        while (joined := re.search(r"[A-Z]+\s+AND\s+$", text[max(0, start - 40):start])) is not None:
            start -= len(joined.group(0))  # "AVAILABILITY AND IMPLEMENTATION": from the first label
        if _SECTION_LABEL.match(text, start) is None:
            return False
    return True


def _cited(doc: ParsedDocument, mark: NameMark) -> bool:
    """Every occurrence of the name stands in a parenthetical citation: an author."""
    text = doc.text
    return all(any(m.start() < span.start and span.end < m.end()
                   for m in _CITATION.finditer(text, max(0, span.start - 120), span.end + 130))
               for span in mark.spans)


def _no_name(doc: ParsedDocument, mark: NameMark) -> bool:
    """A candidate that is no name of a dataset, model or device: a term of the field ("Large
    Language Models (LLMs)"), a cloud provider (GUIDELINES: not hardware, nor data or a
    model), a citation key ("smith2019deep"), a pointer into the paper or a number format
    ("Sec 4.2", "INT8"), an author in a citation, a modifier, pronoun or cited author, a section
    label of a structured abstract ("RESULTS:")."""
    text = doc.text
    return (field_term(mark.text) or field_word(mark.text) or _FIELD_PLURAL.search(mark.text) is not None
            or _REFERENCE.fullmatch(mark.text.strip()) is not None or _cited(doc, mark)
            or is_cloud_provider(mark.text) or section_label(doc, mark)
            or re.fullmatch(r"[a-z]+\d{4}[a-z]*", mark.text) is not None
            or re.fullmatch(r"\S+-[a-z]+ing", mark.text) is not None  # "Q-learning", "Length-controlling": a method
            or all(not_a_name(text, span.start, span.end) for span in mark.spans))


def _plural_kind(name: str) -> bool:
    """A plural that names a kind of model, not a model: "LSTMs", "MLPs", "Transformers"."""
    return re.fullmatch(r"[A-Z][A-Za-z0-9]*[A-Z]s|[A-Z][a-z]+(?:er|or|net|model|network)s", name.strip()) is not None


_PLAIN_TITLE = LazyPattern(lambda: rf"[A-Z][a-z]+(?:\s+(?:&|{alternation('title_joiners')})?\s*[A-Z][a-z]+)*")


def _plain_title(name: str) -> bool:
    """Only capitalised ordinary-looking words ("Image Classification", "Health & Medicine"):
    no digit, inner capital, hyphen or acronym that marks a name."""
    return _PLAIN_TITLE.fullmatch(name.strip()) is not None


_METRIC_NAME = LazyPattern(lambda: rf"(?:[a-z]+\s+)?(?i:{alternation('metric_names')})")  # "box AP", not "COCO AP"


def metric_name(name: str) -> bool:
    """A metric's name ("mIoU", "BLEU", "box AP"): what is measured, never a dataset or a model."""
    return _METRIC_NAME.fullmatch(name.strip()) is not None


_SPELLED_TERM = LazyPattern(lambda: rf"[A-Z][a-z]+(?:(?:\s+(?:{alternation('title_joiners')})?\s*|-(?:of-|the-)?)[A-Z]?[a-z]+)+")


def _spelled_term(name: str) -> bool:
    """Two or more plain capitalised words, hyphenated or not, with or without their acronym
    ("Maximum Inner Product Search (MIPS)", "Sparsely-Gated Mixture-of-Experts", "Spliced
    Transcripts Alignment"): a term spelled out, not a model's name."""
    words = re.sub(r"\s*\([A-Za-z]+\)$", "", name.strip())
    return _SPELLED_TERM.fullmatch(words) is not None \
        and any(part[:1].isupper() for part in re.split(r"[\s-]+", words)[1:])


_COINED = re.compile(r"[A-Z][a-z]+[A-Z][A-Za-z]*(?:-[A-Za-z0-9]+)?")
_ACRONYM_AFTER = re.compile(r"\s*\([^)]*\)$")


def _inner_capital(name: str) -> bool:
    """One word with a capital inside it after lower-case letters, and at most one hyphened part
    ("WebArena", "VisionArena-Bench", "WildChat-1M"): a coined name, not an ordinary word."""
    return _COINED.fullmatch(name.strip()) is not None


def _written(name: str) -> bool:
    """A written name has a capital or a digit; "public benchmarks" is a description."""
    return re.search(r"[A-Z0-9]", name) is not None


def name_codes(doc: ParsedDocument, labels: DocumentLabels, answered: bool) -> tuple[dict[str, NameCode], int]:
    """Each name letter's type, and how many of the model's letters name no mark. A name's own
    words (``class_code``) come first, then its own description (``described``: "X, a
    benchmark of ...", "models such as X"), then the type shared by the names it is listed with,
    then the model's label; what is no name, hardware without a device word and lower-case
    dataset descriptions get none, and so do plain capitalised words and spelled-out terms the
    model alone calls a dataset ("Image Classification", "Wide Area Network (WAN)"); "84.4% on X"
    makes a dataset. A document the model did not read gets hardware by class words only."""
    marks = doc.names
    ruled = {m.letter: class_code(m.text) or (described(doc, m) if answered else None) for m in marks
             if not m.compared and not (generic_phrase(m.text) and not single_platform(doc, m))
             and not _no_name(doc, m)}
    if not answered:
        return _unread_codes(doc, ruled), 0
    said = _model_said(doc, labels, ruled)
    chosen = _listed_together(doc, ruled, said)
    supported = _data_supported(doc, ruled, chosen)
    codes = {m.letter: chosen[m.letter] for m in marks
             if m.letter in chosen and _kept(doc, m, chosen[m.letter], ruled[m.letter], supported)}
    for mark in marks:
        if _evaluated_on_data(doc, mark, ruled, said, codes):
            codes[mark.letter] = NameCode.dataset  # "84.4% on X": X is what it is measured on
    # a variant of a model the text names ("X-D7" beside the model "X"): a model too
    models = {_first_word(m.text) for m in marks if codes.get(m.letter) == NameCode.model}
    for mark in marks:
        if mark.letter in ruled and mark.letter not in codes and not ruled[mark.letter] and \
                said[mark.letter] not in (None, NameCode.hardware) and _first_word(mark.text) in models and \
                _first_word(mark.text) != mark.text.strip().lower() and not _no_name(doc, mark):
            codes[mark.letter] = NameCode.model
    letters = {mark.letter for mark in marks}
    return codes, sum(1 for letter in labels.e if letter not in letters)


def _unread_codes(doc: ParsedDocument, ruled: Mapping[str, Optional[NameCode]]) -> dict[str, NameCode]:
    """The types of a document the model did not read: class words are reliable on a written
    name ("two datasets" and the like are not), and a written name the words around say is data
    ("on Atari, OpenAI Gym and Key-to-Door") is a dataset, with the names listed with it."""
    marks = doc.names
    read = {m.letter: code for m in marks if m.letter in ruled and (code := ruled[m.letter]) is not None
            and (code == NameCode.hardware and not no_device(doc, m)
                 or code in (NameCode.dataset, NameCode.model) and _written(m.text))}
    open_ = {m.letter for m in marks if m.letter in ruled and ruled[m.letter] is None and _written(m.text)
             and not (_spelled_term(m.text) and " " in m.text) and not _plural_kind(m.text)
             and not software_name(m.text)
             and not re.fullmatch(r"[A-Z]{2,5}s?", m.text)}
    data = {m.letter for m in marks if m.letter in open_ and not _plain_title(m.text) and data_support(doc, m)}
    for group in _coordinated(doc, marks):
        if any(m.letter in data or read.get(m.letter) == NameCode.dataset for m in group):
            data |= {m.letter for m in group if m.letter in open_}
    return {**{letter: NameCode.dataset for letter in data}, **read}


def _model_said(doc: ParsedDocument, labels: DocumentLabels,
                ruled: Mapping[str, Optional[NameCode]]) -> dict[str, Optional[NameCode]]:
    """The model's label of each name the rules consider. A run of plain capitalised words
    ("Image Classification", "Humanities"), with or without its acronym ("Next-Generation
    Sequencing", "Wide Area Network (WAN)"), is as often a field or a concept as a dataset: the
    model's word alone does not make it one."""
    return {m.letter: None if labels.e.get(m.letter) == NameCode.dataset
            and (_plain_title(m.text) or _spelled_term(m.text))
            or labels.e.get(m.letter) == NameCode.model and (_spelled_term(m.text) or _plural_kind(m.text))
            else labels.e.get(m.letter) for m in doc.names if m.letter in ruled}


def _listed_together(doc: ParsedDocument, ruled: Mapping[str, Optional[NameCode]],
                     said: Mapping[str, Optional[NameCode]]) -> dict[str, Optional[NameCode]]:
    """Each name's type by its own words, else the model's; names listed together ("X, Y and
    Z") are of one type: the one their own words settle, else the one the model gave most of them."""
    chosen = {letter: ruled[letter] or said[letter] for letter in ruled}
    for group in _coordinated(doc, doc.names):
        votes = [ruled[m.letter] for m in group if ruled.get(m.letter)] or \
                [said[m.letter] for m in group if said.get(m.letter) not in (None, NameCode.none)
                 and not (said[m.letter] == NameCode.hardware and not looks_like_hardware(m.text))]
        top = max(set(votes), key=votes.count) if votes else None
        if top is not None and votes.count(top) * 2 > len(votes):
            for m in group:
                if m.letter in chosen and not ruled[m.letter]:
                    chosen[m.letter] = top
    return chosen


def _data_supported(doc: ParsedDocument, ruled: Mapping[str, Optional[NameCode]],
                    chosen: Mapping[str, Optional[NameCode]]) -> set[str]:
    """The names that may be datasets: the model's word alone does not make one; its own
    words, its description, the words around it or a dataset it is listed with must say so too.
    A one-word name with an inner capital ("WebArena", "VisionArena-Bench") is a distinctive
    name: the model's word makes it a dataset, unless it is a variant of a model ("X-D7"
    beside the model X)."""
    marks = doc.names
    model_bases = {_first_word(m.text) for m in marks if chosen.get(m.letter) == NameCode.model}
    supported = {m.letter for m in marks if m.letter in chosen and (ruled[m.letter] == NameCode.dataset
                                                                     or data_support(doc, m)
                                                                     or _inner_capital(m.text)
                                                                     and _first_word(m.text) not in model_bases)}
    for group in _coordinated(doc, marks):
        if any(m.letter in supported for m in group):
            supported |= {m.letter for m in group}
    return supported


def _kept(doc: ParsedDocument, mark: NameMark, code: Optional[NameCode], ruled: Optional[NameCode],
          supported: set[str]) -> bool:
    """Whether a name keeps the type chosen for it (``ruled``: the type its own words gave)."""
    name = mark.text
    if code is None or code == NameCode.none or _no_name(doc, mark):
        return False
    if code == NameCode.hardware and (not looks_like_hardware(name) or no_device(doc, mark)):
        return False  # a hardware name has a device word, and is no modifier of another noun
    if code == NameCode.dataset and (not _written(name) or mark.letter not in supported):
        return False  # "public benchmarks", "a new dataset": a description, not a named dataset
    if code == NameCode.model and not ruled and (long := spelled_out(doc, mark)) and \
            head_code(long) != NameCode.model:
        return False  # "chain-of-thought (CoT)", "Deep Gradient Compression (DGC)": a term or method, no model
    if code == NameCode.dataset and not ruled and (long := spelled_out(doc, mark)) and \
            (head_code(long) in (NameCode.model, NameCode.none) or field_of_work(long)):
        return False  # "Deep learning recommendation models (DLRMs)": models; "federated learning (FL)": a field
    if code == NameCode.model and model_part(name):
        return False  # "SmoothAttention": a mechanism inside a model
    if code == NameCode.model and optimizer_name(name):
        return False  # "SGD", "AdamW": an optimizer is a method, not a model
    if code in (NameCode.model, NameCode.dataset) and (software_name(name) or metric_name(name) or operation(name)):
        return False  # "PyTorch", "TensorRT-LLM", "MPI", "InfiniBand": no model or dataset; nor "mIoU", "GEMM"
    return True


def _evaluated_on_data(doc: ParsedDocument, mark: NameMark, ruled: Mapping[str, Optional[NameCode]],
                       said: Mapping[str, Optional[NameCode]], codes: Mapping[str, NameCode]) -> bool:
    """A name its own words left open that a result is measured on ("84.4% on X")."""
    if mark.letter not in ruled or looks_like_hardware(mark.text) or ruled[mark.letter]:
        return False  # its own words settled it ("a speed-up on BERT-large" is on a model)
    if said[mark.letter] == NameCode.hardware or software_name(mark.text) or metric_name(mark.text) \
            or operation(mark.text):
        return False  # "on both NVIDIA and AMD GPUs", "on Linux": a platform, no data
    return codes.get(mark.letter) != NameCode.hardware and _evaluated_on(doc, mark)


def _first_word(name: str) -> str:
    """A name's first word, lower-cased ("X" of "X-D7", "X v2")."""
    return re.split(r"[\s_/-]+", name.strip(), maxsplit=1)[0].lower()


def _aliases(doc: ParsedDocument, marks: Sequence[NameMark]) -> set[str]:
    """Letters of names that stand only in parentheses right after another name, as its other
    spelling: "GLaM (Generalist Language Model)" is one name."""
    text = doc.text
    ends = {span.end for mark in marks for span in mark.spans}
    return {mark.letter for mark in marks
            if all((m := re.search(r"\s*\(\s*$", text[max(0, span.start - 4):span.start])) and
                   span.start - len(m.group(0)) in ends and text[span.end:span.end + 1] == ")" for span in mark.spans)}


def _acronyms(marks: Sequence[NameMark]) -> list[tuple[NameMark, NameMark]]:
    """(long name, acronym) pairs: a mark "Long Name (LN)" and a mark "LN" elsewhere."""
    by_text = {m.text: m for m in marks}
    pairs = []
    for mark in marks:
        found = re.search(r"\s\(([A-Za-z][\w-]*)\)$", mark.text)
        if found and found.group(1) in by_text and by_text[found.group(1)] is not mark:
            pairs.append((mark, by_text[found.group(1)]))
    return pairs


def one_name_per_spelling(doc: ParsedDocument, marks: Sequence[NameMark], codes: Mapping[str, NameCode],
                          stated: Mapping[str, NameCode]) -> dict[str, NameCode]:
    """The types with each name listed once: a name and its other spelling in parentheses are
    one name (the first is listed); "Action Chunking with Transformers (ACT)" and a later "ACT"
    are one name, and the acronym is what the text says the long name is (``stated``: the type
    the text gives a letter, as the system's description does)."""
    codes = dict(codes)
    for letter in _aliases(doc, marks):
        codes.pop(letter, None)
    for long, short in _acronyms(marks):
        code = stated[long.letter] if long.letter in stated else class_code(long.text) or described(doc, long)
        if code is None and head_code(_ACRONYM_AFTER.sub("", long.text)) == NameCode.none:
            code = NameCode.none  # "Multi-Agent System Failure Taxonomy (MAST)": its head noun says what MAST is
        if code == NameCode.model and model_part(long.text):
            code = NameCode.none  # "Multi-head Latent Attention (MLA)": a mechanism, and so is "MLA"
        if code == NameCode.none:
            codes.pop(short.letter, None)
        elif code is not None:
            codes[short.letter] = code
    return codes
