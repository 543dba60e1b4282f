"""Where a claim's dataset, hardware and model come from, in order: the name a "respectively"
sentence pairs it with, a name right after "N% on" (datasets and devices; also "N% of X" for
devices), a dataset its sentence names when the system is not named there, the paper's system
when it is of that type (a variant of it its sentence names: "X-B4 achieves"), the nearest
such name in its sentence that is not its baseline (for a speed or a saving, not a dataset the
sentence names only after the number; for any claim, not a name in another item of an
enumeration, "(i) ... on A, (ii) ... 128-layer"), with
the names listed with it ("for A, B and C models"; not for a number listed with others) (nor,
for a device or model, one it is compared against: "faster than its contemporary GPU or CPU",
"matching the performance of a supervised X", "improves upon X"), a name a
sentence before it scopes ("On X, ...", "all experiments run on X", "Experiments on X show");
the one dataset the sentence before names when the claim's sentence goes on about it ("This ...");
for a quality result (a score or a gain) the only dataset or else the last one named before
it; for a count, the only dataset named before it. A saving or a speed takes no dataset from
elsewhere than its sentence and the one it goes on from. A number that counts devices is its
own hardware; another count has a device only when it is made on one ("4 days on 8 GPUs", "10k images on a single GPU"); a speed or
efficiency result with no device in its sentence takes the device the system is introduced
"for"/"on"."""

from __future__ import annotations

import re
from typing import NamedTuple, Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.candidates import Candidate
from paper_claims.parse.marks import NameMark
from paper_claims.parse.name_words import data_name
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.rules.devices import as_listed, counted_devices
from paper_claims.schemas import Kind, Mention, NameCode


def _in_sentence(doc: ParsedDocument, mention: Mention, mark: NameMark) -> bool:
    """Whether ``mark`` is written in the sentence of ``mention``."""
    left, right = doc.sentence_around(mention.start, mention.end)
    return any(left <= span.start < right for span in mark.spans)


# what a name compared against follows: "faster than its contemporary GPU", "compared to X", "vs X",
# "improves upon X", "outperforms X", "surpassing the previous X", "matching the performance of X"
_COMPARED = LazyPattern(lambda: rf"\b(?:{alternation('compared_cues')})\s+"
                                rf"(?:(?!(?:{alternation('measured_on_prepositions')})\s)[\w-]+\s+){{0,4}}$", re.IGNORECASE)


# an enumeration marker inside a sentence: "(ii)", "(2)", "(b)"
_ENUMERATION = re.compile(r"(?:^|(?<=[\s,;:]))\((?:i{1,3}|iv|vi{0,3}|ix|x|\d|[a-h])\)\s")


def nearest_name(doc: ParsedDocument, mention: Mention, marks: Sequence[NameMark], compared_out: bool = False) -> Optional[str]:
    """The occurrence of one of ``marks`` closest to the mention within its sentence, as
    written there. A name after the number counts double its distance; a name holding the
    mention ("8 A100 GPUs") is at distance 0; with ``compared_out``, a name compared against
    ("than its GPU or CPU", "surpassing the previous X"; not "than X on Y") is skipped."""
    text = doc.text
    left, right = doc.sentence_around(mention.start, mention.end)
    numbered = bool(_NUMBER_BEFORE.search(text, max(left, mention.start - 30), mention.start)
                    or _NUMBER_AFTER.match(text, mention.end))
    best: Optional[tuple[int, str]] = None
    for mark in marks:
        for span in mark.spans:
            if not (left <= span.start < right):
                continue
            if compared_out and _COMPARED.search(text, max(left, span.start - 60), span.start):
                continue
            if _ENUMERATION.search(text, min(span.end, mention.end), max(span.start, mention.start)):
                continue  # "(i) ... on A, (ii) ... 128-layer": another item of an enumeration
            if span.start <= mention.start and span.end >= mention.end:
                distance = 0
            elif span.end <= mention.start:
                distance = mention.start - span.end
            elif span.start >= mention.end:
                distance = (span.start - mention.end) * 2
            else:
                continue  # cuts the number: not about it
            if best is None or distance < best[0]:
                best = (distance, span.text if numbered else listed(doc, span, marks, left, right))
    return best[1] if best else None


# what joins the names of one list: "A, B and C", "A and B", "A, B, and C"
_LIST_JOIN = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
# a number listed with others ("84% and 81% ... on A and B"): each is on one of the names
_NUMBER_BEFORE = re.compile(r"\d\S*\s*(?:,\s*(?:and\s+)?|and\s+)\$?$")
_NUMBER_AFTER = re.compile(r"\s*(?:,\s*(?:and\s+)?|and\s+)\$?\d")


def listed(doc: ParsedDocument, span: Candidate, marks: Sequence[NameMark], left: int, right: int) -> str:
    """The name at ``span`` with the names of ``marks`` listed with it ("for A, B and C
    models", "the synergy of A and B"), as written; only commas, "and" or "vs" between them."""
    text = doc.text
    starts = {c.start: c.end for mark in marks for c in mark.spans if left <= c.start < right}
    ends = {c.end: c.start for mark in marks for c in mark.spans if left <= c.start < right}
    start, end = span.start, span.end
    while True:
        before = next((e for e in ends if e < start and _LIST_JOIN.fullmatch(text, e, start)), None)
        if before is None:
            break
        start = ends[before]
    while True:
        join = _LIST_JOIN.match(text, end)
        if join is None or join.end() not in starts:
            break
        end = starts[join.end()]
    if (start, end) != (span.start, span.end) and not re.search(r"\band\s", text[start:end]):
        return span.text  # "A, B": a comma alone may join two phrases, not one list
    return text[start:end] if (start, end) != (span.start, span.end) else span.text


# what follows a number before the name it is measured on: "34% on X", "1.4x on an L40S",
# "87% of Frontier" (hardware also takes "of": a share of a machine)
_ON = re.compile(r"[^.;,]{0,30}?\s(?:on|in)\s+(?:the\s+)?")
_ON_DEVICE = re.compile(r"[^.;,]{0,30}?\s(?:on|of)\s+(?:the\s+|an?\s+)?")


def name_after(doc: ParsedDocument, mention: Mention, names: Sequence[NameMark], hardware: bool = False,
               mentions: Sequence[Mention] = ()) -> Optional[str]:
    """The name of ``names`` right after "N ... on" ("12% on X"; for hardware also "N% of X",
    and a number of ``mentions`` that counts devices: "4 days on 8 A100s")."""
    text = doc.text
    on = (_ON_DEVICE if hardware else _ON).match(text, mention.end, mention.end + 40)
    if on is None:
        return None
    after = [m.text for m in names for span in m.spans if span.start == on.end()]
    if hardware:
        after += [found for m in mentions if m.start == on.end() and (found := counted_devices(doc, m))]
    return after[0] if after else None


def respective(doc: ParsedDocument, mentions: Sequence[Mention], names: Sequence[NameMark]) -> dict[int, str]:
    """"On A and B it reaches 94.6% (95.6% for X) and 77.0%, respectively": the numbers of a
    sentence with "respectively" go, in order, to the names of one type listed before them
    (a number in parentheses goes with the one before it); or, when none are listed before,
    the last numbers go to the names listed after them ("4x and 20x faster on A and B,
    respectively"). Mention start -> name."""
    text = doc.text
    found: dict[int, str] = {}
    for left, right in doc.sentences:
        respectively = re.search(r"\brespectively\b", text[left:right])
        if not respectively:
            continue
        numbers = sorted((m for m in mentions if left <= m.start < right), key=lambda m: m.start)
        if len(numbers) < 2:
            continue
        listed = sorted((span.start, span.text) for mark in names for span in mark.spans
                        if left <= span.start < numbers[0].start)
        inside = [m for m in numbers if text.rfind("(", left, m.start) > text.rfind(")", left, m.start)]
        primary = [m for m in numbers if m not in inside]
        if not listed:
            listed = sorted((span.start, span.text) for mark in names for span in mark.spans
                            if numbers[-1].end <= span.start < left + respectively.start())
            primary = primary[len(primary) - len(listed):] if 2 <= len(listed) <= len(primary) else []
        if len(listed) != len(primary):
            continue
        for number, (_, name) in zip(primary, listed):
            found[number.start] = name
        for number in inside:
            before = [m for m in primary if m.start < number.start]
            if before:
                found[number.start] = found[before[-1].start]
    return found


# a sentence that scopes the claims after it: an opening phrase naming where they are measured
# ("On ImageNet, ...", "Across X and Y, ...") or a statement of where every experiment runs
# ("All experiments run on 8 A100 GPUs", "Our evaluation uses X", a sentence opening "Experiments on X show")
_OPENING_SCOPE = LazyPattern(lambda: rf"\s*(?:{alternation('scope_openers')})\s+(?:the\s+|an?\s+)?([^,.;:]{{1,80}}?),\s")
_STATED_SCOPE = LazyPattern(lambda: rf"(?:\b(?:{alternation('experiment_determiners')})\s+(?:\w+\s+)?|"
                                    rf"^\s*(?:(?:{alternation('experiment_adjectives')})\s+)?)"
                                    rf"(?:{alternation('experiment_nouns')})\b"
                                    rf"[^.;:]{{0,40}}?\b(?:{alternation('experiment_prepositions')})\s+", re.IGNORECASE)


def scoped_name(doc: ParsedDocument, mention: Mention, names: Sequence[NameMark]) -> Optional[str]:
    """The name of ``names`` a scoping sentence before the claim's own sentence sets (``On X,``,
    "all experiments run on X"), while no sentence between them names another of ``names``."""
    text = doc.text
    left, _ = doc.sentence_around(mention.start, mention.end)
    scope: Optional[str] = None
    for a, b in doc.sentences:
        if a >= left:
            break
        here = sorted({(span.start, span.text) for mark in names for span in mark.spans if a <= span.start < b})
        if not here:
            continue
        opening = _OPENING_SCOPE.match(text, a, b)
        stated = _STATED_SCOPE.search(text[a:b])
        inside = [name for at, name in here if (opening and opening.start(1) <= at < opening.end(1))
                  or (stated and a + stated.end() <= at < a + stated.end() + 40)]
        scope = inside[0] if len(set(inside)) == 1 else None
    return scope


# a sentence that opens with a demonstrative continues the one before it ("... on the KITTI
# benchmarks. This detection performance is achieved at 62 Hz", "... MMMU. These questions span ...")
_CONTINUES = LazyPattern(lambda: rf"\s*(?:{alternation('continuing_openers')})\b")


def continued_name(doc: ParsedDocument, mention: Mention, names: Sequence[NameMark]) -> Optional[str]:
    """The one name of ``names`` the sentence before the claim's own names, when the claim's
    sentence opens with "This", "These" or "Such" (it goes on about what that sentence said)."""
    text = doc.text
    sentences = doc.sentences
    at = next((i for i, (a, b) in enumerate(sentences) if a <= mention.start < b), None)
    if not at or not _CONTINUES.match(text, sentences[at][0]):
        return None
    a, b = sentences[at - 1]
    before = {mark.text for mark in names for span in mark.spans if a <= span.start < b}
    return before.pop() if len(before) == 1 else None


def attribute(doc: ParsedDocument, mention: Mention, code: NameCode, typed: dict[NameCode, list[NameMark]],
               baseline: Optional[NameMark], system: Optional[NameMark], kind: Kind,
               mentions: Sequence[Mention] = (), host: Optional[NameMark] = None) -> Optional[str]:
    """A claim's dataset, hardware or model: the name right after "N% on" (datasets, devices);
    for a dataset, the nearest one its sentence names when that sentence does not name the
    system; else the paper's system when it is of that type (its claims are about it: the model that
    is measured, the benchmark that is released; not a speed-up's dataset); else the nearest
    such name in the claim's sentence that is not its baseline; else the name a scoping
    sentence before it sets; else, for a score or a quality gain (the results the annotations
    give a dataset from another sentence; savings and speeds rarely have one), the document's
    only dataset or the last one named before the claim; for a count, the only dataset when
    it is named before the count."""
    text = doc.text
    names = [mark for mark in typed[code] if mark is not baseline]
    dataset = code == NameCode.dataset
    paired = respective(doc, mentions, names).get(mention.start)
    if paired is not None:
        return paired
    if code != NameCode.model:  # "34% on X", "1.4x on X": the name right after "on" is what it is measured on
        after = name_after(doc, mention, names, code == NameCode.hardware, mentions)
        if after is not None:
            return after
    near = nearest_name(doc, mention, names, compared_out=code != NameCode.dataset)
    # "5 fps on a GPU, while reaching 73% mAP on X": a speed or saving is not on a dataset its
    # sentence names only after it (the name right after "on" was taken above)
    if dataset and kind in (Kind.speedup, Kind.efficiency) and near is not None:
        left, _ = doc.sentence_around(mention.start, mention.end)
        if not any(left <= span.start < mention.start for mark in names for span in mark.spans):
            near = None
    if dataset and near is not None and system is not None and not _in_sentence(doc, mention, system):
        return near  # a dataset its own sentence names, not the system, comes before the system
    if system in names and code != NameCode.hardware and not (dataset and kind == Kind.speedup):
        if near is not None and near != system.text and near.startswith(system.text):
            return near  # a variant of the system its sentence names ("X-B4 achieves 50.3%")
        return system.text
    if near is not None:
        return near
    scoped = scoped_name(doc, mention, names)
    if scoped is not None:
        return scoped
    quality = kind in (Kind.accuracy, Kind.improvement, Kind.other)
    if dataset and (continued := continued_name(doc, mention, names)) is not None:
        return continued
    if dataset and len(names) == 1 and (quality or (kind == Kind.scale and names[0].spans[0].end <= mention.start
                                                    and not _ENUMERATION.search(text, names[0].spans[0].end, mention.start))):
        return names[0].text  # a count of the evaluation ("500 prompts", "on 256 GPUs") is of the only dataset
    if dataset and quality:
        before = [(span.start, span.text) for mark in names for span in mark.spans if span.end <= mention.start]
        if before:
            return max(before)[1]
    if code == NameCode.hardware and host is not None:
        # "We present X, a system for microcontroller-based IoT devices": the device the
        # system is introduced for, when the claim's own sentence names none
        left, right = doc.sentence_around(host.spans[0].start, host.spans[0].end)
        there = {mark.text for mark in names for span in mark.spans if left <= span.start < right
                 and re.search(r"\b(?:for|on)\s+(?:the\s+|an?\s+)?$", text[max(0, span.start - 12):span.start])}
        if len(there) == 1:
            return there.pop()
    return None


# a count of models ("14 open-source LMMs"): the unit's last word is a model noun
_MODEL_COUNT = LazyPattern(lambda: rf"\b(?:{alternation('model_nouns')})\s*$")


class Attributes(NamedTuple):
    """What a claim is measured on, each as written in the text, or None."""

    dataset: Optional[str]
    hardware: Optional[str]
    model: Optional[str]


def claim_attributes(doc: ParsedDocument, mention: Mention, kind: Kind, typed: dict[NameCode, list[NameMark]],
                     baseline: Optional[NameMark], system: Optional[NameMark], compared: set[str] = frozenset(),
                     claimed: Sequence[Mention] = (), listed: Sequence[str] = ()) -> Attributes:
    """A claim's dataset, hardware and model (``attribute``): a parameter count is a model's
    size, measured on no dataset and no device; a count of models ("14 open-source LMMs") is
    no one model's result; only speed, efficiency and scale results have a device (a score is not
    measured on one), a count only its own or the one right after it ("3 days on 8 GPUs"; "1
    billion words ... using a CPU" is a count of data, not of a run); a
    name compared with in any claim (``compared``, letters) is a baseline, not the model measured;
    a device is named as the document's hardware list ``listed`` names it (``as_listed``)."""
    size = re.fullmatch(r"(?:\w+\s+)?param(?:eter)?s?", (mention.unit or "").strip(), re.IGNORECASE) is not None
    models = _MODEL_COUNT.search(mention.unit or "") is not None
    hardware = None
    if kind in (Kind.speedup, Kind.efficiency) and not size:
        hardware = counted_devices(doc, mention) or attribute(
            doc, mention, NameCode.hardware, typed, baseline, None, kind, claimed, system)
    elif kind == Kind.scale and not size:  # a count of devices, or a count made on one ("10k images on a GPU")
        devices = [mark for mark in typed[NameCode.hardware] if mark is not baseline]
        hardware = counted_devices(doc, mention) or name_after(doc, mention, devices, True, claimed)
    dataset = None if size else attribute(doc, mention, NameCode.dataset, typed, baseline, system, kind, claimed)
    model = None if models else attribute(doc, mention, NameCode.model,
                      {**typed, NameCode.model: [m for m in typed[NameCode.model] if m.letter not in compared]},
                      baseline, system, kind, claimed)
    # a dataset is named as the document's list names it: without the words that describe it in front
    return Attributes(data_name(dataset) if dataset else None, as_listed(hardware, listed) if listed else hardware, model)
