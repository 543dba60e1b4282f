"""What a device phrase is: a device word that modifies another noun names no device ("single-GPU
training", "on-device training", "GPU memory", "robot controller"); a number that counts devices names them with the count
("2--4 T4s"); a group word right after a device joins it ("TPUv3 pod"); a lower-case class of devices the
text gives examples of ("mobile devices such as phones") is not listed. The device words are
``parse/vocab`` (device_classes, device_words, counted_device_words, device_groups)."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from paper_claims.parse.document import ParsedDocument
from paper_claims.parse.marks import NameMark
from paper_claims.parse.canonical import hardware_family
from paper_claims.parse.name_words import core_host, is_supercomputer, known_hardware, looks_like_hardware, merge_names
from paper_claims.parse import vocab
from paper_claims.parse.vocab import LazyPattern, alternation
from paper_claims.schemas import Mention


def _count_word() -> str:
    """A count before a device word: digits, a number word, a quantifier, or "dual"/"multi"
    (which only lead a compound: "dual-GPU", "multi-core")."""
    return rf"(?:\d+|{alternation('number_words', 'count_words')}|dual|multi)"


# a singular device word
_SINGULAR_DEVICE = LazyPattern(lambda: rf"\b(?:{alternation('device_classes', 'device_words', base=True)})$",
                               re.IGNORECASE)
def _noun_after(doc: ParsedDocument, end: int) -> bool:
    """A plain lower-case noun right after ``end`` ("controller", "-level", "size"): not a function
    word, and no -s, -ed or -ing form, which may be a verb ("picks", "performing"), except the
    -ing nouns of ``vocab/device_gerunds`` ("robot learning", "server operating systems")."""
    text = doc.text
    word = re.match(r"(?: |-)([a-z]+)\b(?!-)", text[end:end + 30])
    return word is not None and word.group(1) not in vocab.words("function_words") and (
        re.search(r"(?:s|ed|ing)$", word.group(1)) is None or word.group(1) in vocab.words("device_gerunds"))


# the device words of a compound ("single-GPU", "CPU-GPU-I/O") and of a count ("8 GPU setup")
_COMPOUND_DEVICE = LazyPattern(lambda: rf"{alternation('device_classes', 'device_words')}|I/O|IO", re.IGNORECASE)
_COUNT_WORD = LazyPattern(_count_word, re.IGNORECASE)
_COUNTED_DEVICE = LazyPattern(lambda: rf"{_count_word()}[\s-]+(?:{alternation('device_classes', 'device_words', base=True)})",
                              re.IGNORECASE)


def _device_modifier(doc: ParsedDocument, mark: NameMark) -> bool:
    """A device word used as a modifier of the noun after it, not a device: a hyphenated
    compound ("single-GPU training", "CPU-GPU-I/O pipelining"), a count with a singular
    device word ("six core disciplines", "8 GPU setup"), a device's memory ("GPU memory"),
    or a description of the name that follows ("a custom ASIC---called a TPU")."""
    text = doc.text
    name = mark.text.strip()
    parts = name.split("-")
    devices = [p for p in parts if _COMPOUND_DEVICE.fullmatch(p)]
    if len(parts) == 2 and devices == parts[1:] and (parts[0].lower() in vocab.words("function_words")
                                                      or parts[0].lower() in vocab.words("place_prefixes")):
        return True  # "on-device training", "off-chip DRAM", "inter-GPU communication": where, not what
    compound = len(parts) >= 2 and " " not in name and devices and (
        len(devices) >= 2 or _COUNT_WORD.fullmatch(parts[0]) is not None)
    counted = _COUNTED_DEVICE.fullmatch(name) is not None
    if (compound or counted) and all((word := re.match(r"\s+([a-z]+)", text[span.end:span.end + 30]))
                                     and word.group(1) not in vocab.words("function_words") for span in mark.spans):
        return True  # "8 GPU setup", "six core disciplines"; not "a single GPU with 24GB memory"
    if _SINGULAR_DEVICE.search(name) and all(_noun_after(doc, span.end) for span in mark.spans):
        return True  # "robot controller", "chip-level", "CPU minutes": the device word modifies a noun
    if _SINGULAR_DEVICE.search(name) and all(_WORK.match(text, span.end) for span in mark.spans):
        return True  # "CPU cycles", "block-sparse GPU kernels", "GPU hours": the work run on a device
    # "GPU memory", "GPU high bandwidth memory (HBM)": a part of a device, not a device (GUIDELINES:
    # the memory of a GPU is a spec); "a custom ASIC---called a TPU", "ASICs known as TPUs": a
    # description of the name after it
    return all(_DEVICE_MEMORY.match(text[span.end:span.end + 30]) or _CALLED.match(text[span.end:span.end + 16])
               for span in mark.spans)


# "GPU memory", "GPU high bandwidth memory (HBM)"; "a custom ASIC---called a TPU", "ASICs known as TPUs"
_DEVICE_MEMORY = LazyPattern(lambda: rf"[\s-]+(?:(?:{alternation('device_memory_leads')})\s+)?(?:{alternation('memory_words')})\b",
                             re.IGNORECASE)
_CALLED = LazyPattern(lambda: rf"\W{{0,3}}\s*(?:,\s*)?(?:{alternation('naming_words', without=('denoted as',))})\b", re.IGNORECASE)


# what is run on a device, counted or named ("CPU cycles", "GPU kernels", "GPU hours"; time
# units spelled out, not "s" or "h")
_WORK = LazyPattern(lambda: rf"[\s-]+(?=[a-z]{{3}})(?:{alternation('device_work', 'time_units')})\b", re.IGNORECASE)


# the head of a name: its last word before a parenthesis or a phrase that qualifies it ("T4 GPU
# (16GB)", "single GPU with 24GB memory")
_HEAD = LazyPattern(lambda: rf"^(.*?)(?:\s*\(.*|\s+(?:{alternation('head_ends')})\s.*)?$", re.IGNORECASE)


def _device_not_head(name: str) -> bool:
    """A device word in the name that is not its head: the name is of another thing the device
    describes ("GPU-aware MPI", "current CPU OpenMP", "GPU-accelerated solver")."""
    words = re.split(r"[\s-]+", _HEAD.match(name.strip()).group(1))  # type: ignore[union-attr]
    head = words[-1] if words else ""
    family = hardware_family(name)
    # a named family ("NVIDIA Titan XP", "Intel Xeon CPU" for "Intel E5-2650v3"), not a vendor's class ("NVIDIA GPU")
    specific = family is not None and re.fullmatch(r"(?:\w+\s)?(?:GPU|CPU)", family) is None
    return looks_like_hardware(name) and not looks_like_hardware(head) and not specific and not is_supercomputer(name) \
        and not core_host(name)


_EXAMPLES = LazyPattern(lambda: rf",?\s+(?:{alternation('example_markers')})\s", re.IGNORECASE)


def _class_of_examples(doc: ParsedDocument, mark: NameMark) -> bool:
    """A lower-case class of devices the text gives examples of ("mobile devices such as phones and
    tablets", "edge devices like the X board"): the examples are the hardware, not their class."""
    text = doc.text
    return not re.search(r"[A-Z0-9]", mark.text) and all(_EXAMPLES.match(text, span.end) for span in mark.spans)


# a part of a processor ("cores") heads a name
_PART_HEAD = LazyPattern(lambda: rf"(?:{alternation('device_parts')})", re.IGNORECASE)


def _uncounted_part(doc: ParsedDocument, mark: NameMark) -> bool:
    """A name headed by a part of a processor (``vocab/device_parts``: "cores") with no count in it
    or in the three words before it: a part or another field's word ("low-throughput CUDA cores",
    "a nonhydrostatic dynamical core"), not the hardware a result is run on."""
    text = doc.text
    words = re.split(r"[\s-]+", _HEAD.match(mark.text.strip()).group(1))  # type: ignore[union-attr]
    if not words or not _PART_HEAD.fullmatch(words[-1]) or _COUNTED.search(mark.text):
        return False
    return not any(_COUNTED.search(" ".join(text[max(0, span.start - 40):span.start].split()[-3:])) for span in mark.spans)


def no_device(doc: ParsedDocument, mark: NameMark) -> bool:
    """A device word that modifies another noun (``_device_modifier``, or one inside the name that
    is not its head: ``_device_not_head``), a phrase led by a function word ("if fewer
    cores"), a class of devices the text gives examples of, or a part of a processor no count
    goes with (``_uncounted_part``): no hardware name."""
    first = mark.text.split()[0].lower()
    return _device_modifier(doc, mark) or _device_not_head(mark.text) or first in vocab.words("function_words") \
        or _class_of_examples(doc, mark) or _uncounted_part(doc, mark)


_GROUP = LazyPattern(lambda: rf" (?:{alternation('device_groups')})\b")


def with_group(doc: ParsedDocument, mark: NameMark) -> str:
    """A device name with the group word right after it, as written ("TPUv3 pod", "GPU cards")."""
    text = doc.text
    for span in mark.spans:
        group = _GROUP.match(text, span.end)
        if group:
            return text[span.start:group.end()]
    return mark.text


def counted_devices(doc: ParsedDocument, mention: Mention) -> Optional[str]:
    """A number that counts devices is a device name with its count ("2--4 T4s", "up to 2048
    Cloud TPUv3 cores" -> "2048 Cloud TPUv3 cores"): its words after any qualifier, when its
    unit is a device."""
    unit = (mention.unit or "").strip()
    if not unit or not (_DEVICE_UNIT.search(unit) or known_hardware(unit)):
        return None
    words = doc.number_words(mention)
    counted = _COUNTED.match(words)
    # "a 4 core edge computer": the count and device word describe the noun after them
    return words if counted and looks_like_hardware(words) and not _noun_after(doc, mention.end) else None


# the unit of a count of devices: a device word or a word that names devices when counted ("48
# machines"); not "clusters", which counted are clusters of data ("100 clusters" of k-means)
_DEVICE_UNIT = LazyPattern(lambda: rf"^(?:{alternation('device_classes', 'device_words', 'counted_device_words', without=('cluster',))})$",
                           re.IGNORECASE)
# a count in digits or words (heading a mention; in or before a name: "2048 Cloud TPUv3 cores",
# "sixteen cores", "8-core")
_COUNTED = LazyPattern(lambda: rf"\d|\b(?:{alternation('number_words')})\b", re.IGNORECASE)


# a device class word alone, singular or plural ("GPU", "CPUs")
_BARE_CLASS = LazyPattern(lambda: rf"(?:{alternation('device_classes')})", re.IGNORECASE)


def as_listed(name: Optional[str], listed: Sequence[str]) -> Optional[str]:
    """A claim's device as the document's list names it: a bare class word the list leaves out
    because one longer listed name is of its class (a bare "GPU" beside "8 A100 GPUs") is that
    name; with none or several such names, or any other name, it stays as written."""
    if name is None or name in listed or not _BARE_CLASS.fullmatch(name.strip()):
        return name
    holders = [other for other in listed if merge_names([name, other]) == [other]]
    return holders[0] if len(holders) == 1 else name


# "on a single node", "on one single GPU": the platform a result is run on
_ON_SINGLE = re.compile(r"\bon\s+(?:a|one)\s+$", re.IGNORECASE)


def single_platform(doc: ParsedDocument, mark: NameMark) -> bool:
    """"single" and a device word right after "on a" ("runs ... on a single node", "3 tokens per
    second on a single GPU"): the one device a result is run on, hardware though its words only
    count ("a single accelerator" elsewhere names no device)."""
    text = doc.text
    words = mark.text.split()
    return len(words) == 2 and words[0].lower() == "single" and _SINGULAR_DEVICE.search(words[1]) is not None \
        and any(_ON_SINGLE.search(text, max(0, span.start - 12), span.start) for span in mark.spans)
