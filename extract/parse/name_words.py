"""What the text alone says about a candidate name: class words and general knowledge only.

GUIDELINES.md names the classes (dataset, benchmark, corpus; GPU, TPU, CPU, FPGA, robot,
accelerator) and says a cloud provider is not hardware; broad outside knowledge adds the
accelerator families of ``paper_claims.parse.canonical`` (every NVIDIA data-centre GPU, every TPU
generation) and memory technologies (SRAM, HBM, GDDR, flash: parts of a device, not compute). No particular dataset or model is known here: the model labels those.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional, Sequence

from paper_claims.parse.canonical import hardware_family, strip_counts
from paper_claims.parse.families import model_family
from paper_claims.parse.vocab import entries, LazyPattern, alternation
from paper_claims.parse.vocab import words as words_of
from paper_claims.schemas import NameCode
from paper_claims.text import whole_word_spans

# a name ending in a class of hardware (vocab/device_classes.txt; "TPU v3" too)
_HARDWARE_WORD = LazyPattern(lambda: rf"\b(?:{alternation('device_classes')}|TPUs?\s?v\d+\w?)\b(?:\s*\([^)]*\))?$",
                             re.IGNORECASE)
# a name ending in a class of data, a benchmark task or an evaluation platform (an arena, a
# reinforcement-learning environment)
_DATA_WORD = LazyPattern(lambda: rf"\b(?:{alternation('data_classes', 'data_tasks')})\b(?:\s*\([^)]*\))?$",
                         re.IGNORECASE)
# cloud providers are not hardware (GUIDELINES.md)
_CLOUD = LazyPattern(lambda: rf"^(?:{alternation('cloud_providers')})$", re.IGNORECASE)


# memory and storage are parts of a device, not compute hardware
_MEMORY = LazyPattern(lambda: rf"^(?:[A-Za-z-]+\s+)?(?:{alternation('memory_words')}|HBM\d?e?|GDDR\d\w*|LPDDR\d\w*|DDR\d\w*)$",
                      re.IGNORECASE)


def is_memory(name: str) -> bool:
    """True for a memory or storage technology (SRAM, HBM, GDDR6, flash): not hardware."""
    return _MEMORY.match(name.strip()) is not None


def is_cloud_provider(name: str) -> bool:
    """True for a cloud provider's name (not hardware)."""
    return _CLOUD.match(strip_counts(name).strip()) is not None


def is_supercomputer(name: str) -> bool:
    """A supercomputer's own name, written alone and capitalised as its site writes it
    ("Summit", not "summit" or "frontier models")."""
    return name.strip() in _supercomputers()


@lru_cache(maxsize=1)
def _supercomputers() -> frozenset[str]:
    return frozenset(forms[0] for forms in entries("supercomputers"))


def known_hardware(name: str) -> bool:
    """A name of a known accelerator family or supercomputer, or ending in a hardware class word."""
    if is_cloud_provider(name) or is_memory(name):
        return False
    return _HARDWARE_WORD.search(name) is not None or hardware_family(name) is not None or is_supercomputer(name)


# the model families a name's own words are read against (``parse.families``)
_FAMILIES = ("model_families", "torch_models", "zoo_models")
# a parameter count in billions ends a model's name: "-7B", " 70b", "8x7B"
_SIZED = re.compile(r"(?:[-\s_]\d+(?:\.\d+)?|\d+x\d+)[Bb]$")
# the words a hardware name has: a class word, or a device word ("TPUv3", "robotic" too, not
# "robotics")
_DEVICE = LazyPattern(lambda: rf"\b(?:{alternation('device_classes', 'device_words', without=('TPU', 'robot'))}"
                              r"|TPU\w*|robot(?!ics\b)\w*)\b", re.IGNORECASE)


# a factor and a comparative in front: "2-3x less CPU" is a saving
_FACTOR_SAVING = LazyPattern(lambda: r"\d[\d.]*(?:\s*[-–]+\s*\d[\d.]*)?\s*[x×]\s+"
                                     rf"(?:{alternation('comparatives')})\b")


def looks_like_hardware(name: str) -> bool:
    """A hardware name has a device word or a known accelerator family in it, and no factor
    in front ("2-3x less CPU" is a saving, not a device)."""
    if _FACTOR_SAVING.match(name.strip()):
        return False
    return known_hardware(name) or (_DEVICE.search(name) is not None and not is_memory(name))


def field_word(name: str) -> bool:
    """An abbreviation of the field or a compound led by one ("LMMs", "LLM-as-a-Judge",
    "GPU-friendly" aside): a general word, not a name."""
    first = re.split(r"[-\s]", name.strip(), maxsplit=1)[0].lower()
    # "user-VLM", "code-LLMs": a kind of VLM or LLM ("R-CNN" is a name)
    last = name.strip().rsplit("-", 1)[-1].lower() if re.fullmatch(r"[a-z]+-[A-Z]+s?", name.strip()) else ""
    field = words_of("field_abbreviations")
    return first.rstrip("s") in field or first in field or last.rstrip("s") in field


# lower-case words that describe a written name after them ("the knowledge-driven X benchmark",
# "existing static X datasets"): no part of the name
_DESCRIPTION = re.compile(r"^(?:[a-z][a-z'-]*\s+)+(?=[A-Z0-9])")


# lower-case words (and short acronyms among them) between a one-word name and its data class
# word, describing it ("X multi-image QA benchmark", "X citation network datasets")
_MIDDLE = LazyPattern(lambda: r"^(\S*[A-Z0-9]\S*)\s+(?=(?:[A-Z]{2,4}\s+)*[a-z])(?:(?:[a-z][\w-]*|[A-Z]{2,4})\s+){1,3}"
                              rf"((?:{alternation('data_classes')})(?:\s*\([^)]*\))?)$")


def data_name(name: str) -> str:
    """A dataset's name without the lower-case words that describe it in front ("knowledge-driven
    X benchmark" -> "X benchmark") or between a one-word name and its class word ("X multi-image
    QA benchmark" -> "X benchmark"); a name with no written word after them stays whole ("human
    genome", "long-range arena")."""
    described = _DESCRIPTION.match(name.strip())
    name = name.strip()[described.end():] if described else name
    middle = _MIDDLE.match(name.strip())
    return f"{middle.group(1)} {middle.group(2)}" if middle else name


def generic_phrase(name: str) -> bool:
    """True for a class word with only counting, generic or field words before it ("single
    accelerator", "multiple devices", "the entire test set", "NLP datasets", and with its
    describing words left off "open-domain QA datasets"): a description, not a name."""
    if _DATA_WORD.search(name):
        name = data_name(name)
    words = [w for w in re.findall(r"[\w-]+", name.lower()) if not w[0].isdigit()]
    if len(words) >= 2 and words[-2:] == ["test", "set"]:
        words = words[:-2] + ["set"]
    head = _DEVICE.fullmatch(words[-1]) or _DATA_WORD.fullmatch(words[-1]) or words[-1] == "set"
    return len(words) >= 2 and head is not None and all(
        w in words_of("generic_modifiers") or w.rstrip("s") in words_of("field_abbreviations")
        or w in words_of("evaluative_words") for w in words[:-1])


# a count of cores before the computer they are in: "8-core machine", "4 core edge computer",
# "12-core server"; a whole word, not the end of "1.8" or "2,048"
CORE_HOST = LazyPattern(lambda: rf"(?<![\w.,-])(?:\d+|{alternation('number_words')})[\s-]+(?:{alternation('device_parts')})\s+"
                                rf"(?:[a-z][\w-]*\s+){{0,2}}?(?:{alternation('computer_words', 'device_classes', 'device_words')})",
                        re.IGNORECASE)


def core_host(name: str) -> bool:
    """Whether a name is a computer described by its count of cores ("an 8-core machine", "a 4
    core edge computer"): hardware, though "machine" and "computer" alone name no device."""
    return CORE_HOST.fullmatch(name.strip()) is not None


def class_code(name: str) -> Optional[NameCode]:
    """The type a candidate's own words settle: hardware or dataset by its class word or a
    known accelerator family, a model by a parameter count in billions or a known model
    family (``paper_claims.parse.families``), else None."""
    if known_hardware(name) or core_host(name) or (_DEVICE.search(name.split()[-1]) and not is_memory(name)):
        return NameCode.hardware  # "8 A100 GPUs", "tiny IoT devices", "a Pixel 9 phone"
    if _DATA_WORD.search(name):
        return NameCode.dataset
    if _SIZED.search(name) or model_family(name, _FAMILIES):
        return NameCode.model
    return None


_VERSION_NEXT = re.compile(r"\s+v?\d+(?:\.\d+)?(?![\w-])", re.IGNORECASE)


def _whole_word_at(short: str, long: str) -> Optional[int]:
    """Where ``short`` first stands in ``long`` as whole words, in any case, and not followed
    by a version ("PaLM" does not stand in "PaLM 2"); None if nowhere."""
    lowered, word = long.lower(), short.lower()
    if len(lowered) != len(long) or len(word) != len(short):  # a case mapping that changes lengths
        found = re.search(rf"(?<![\w-]){re.escape(short)}(?![\w-])(?!\s+v?\d+(?:\.\d+)?(?![\w-]))", long,
                          flags=re.IGNORECASE)
        return found.start() if found else None
    return next((start for start, end in whole_word_spans(lowered, word, overlapping=True) if not _VERSION_NEXT.match(long, end)), None)


# a device class word alone, singular or plural ("GPU", "CPUs")
_BARE_CLASS = LazyPattern(lambda: rf"(?:{alternation('device_classes')})", re.IGNORECASE)
# a class word ending a name ("X benchmark", "X datasets")
_CLASS_TAIL = LazyPattern(lambda: rf"\s+(?:{alternation('data_classes', 'data_tasks')})$", re.IGNORECASE)


def _inside(short: str, long: str) -> bool:
    """True when ``short`` stands in ``long`` as whole words (not "CIFAR-10" in "CIFAR-100")."""
    if short == long:
        return False
    if _BARE_CLASS.fullmatch(short) and any(_whole_word_at(form, long) is not None
                                            for form in (short[:-1], short + "s") if form) and \
            any(re.search(r"[A-Z0-9]", word) and not _BARE_CLASS.fullmatch(word) for word in re.split(r"[\s-]+", long)):
        return True  # a bare "GPU" beside "8 A100 GPUs", "GPUs" beside "L40S GPU": one device class, named
    core = _CLASS_TAIL.sub("", short)
    if core != short and (at := _whole_word_at(core, long)) is not None and long.rfind("(", 0, at) > long.rfind(")", 0, at):
        return True  # "X benchmark" beside "Long Name (X)": the acronym with its class word
    at = _whole_word_at(short, long)
    if at is None:
        return False
    if long.rfind("(", 0, at) > long.rfind(")", 0, at) or known_hardware(short) \
            or _DEVICE.search(short) or _DATA_WORD.search(short):
        return True  # its acronym ("Quill corpus (QC)"), or a device or dataset with a count or words
    if at > 0 and _DATA_WORD.search(long):
        return True  # described in front and named by its class word: "static Quill datasets"
    # the rest of the longer name only counts, describes or spells out ("8 A100 GPUs", "the
    # Quill corpus (QC)", "ImageNet test set"); another word makes another name ("X Hard", "X Ultra")
    rest = re.sub(r"\([^)]*\)", " ", long[:at] + " " + long[at + len(short):])
    words = re.findall(r"[\w-]+", rest.lower())
    return all(w[0].isdigit() or w in words_of("generic_modifiers", "name_fillers") or _DEVICE.fullmatch(w) or _DATA_WORD.search(w)
               or not re.search(r"[a-z]", w) for w in words)


_MODIFIER_SUFFIX = LazyPattern(lambda: rf"-(?:{alternation('named_modifier_suffixes')})$", re.IGNORECASE)


def base_name(name: str) -> str:
    """The name a modifier is made of ("BERT-based" -> "BERT", "GPT-4-powered" -> "GPT-4"),
    else the name itself."""
    return _MODIFIER_SUFFIX.sub("", name.strip()) or name


def _spelling(name: str) -> str:
    """A name without case, spaces, hyphens or underscores: two spellings of one name ("Chat-bot
    Arena", "Chatbot Arena") are one."""
    return re.sub(r"[\s_-]+", "", name.lower())


def merge_names(*groups: Sequence[str]) -> list[str]:
    """Names of all groups in order, without repeats (in any spelling: the first stays) or names
    standing inside a longer one."""
    names: list[str] = []
    for group in groups:
        for name in group:
            if _spelling(name) not in (_spelling(n) for n in names):
                names.append(name)
    return [n for n in names if not any(_inside(n, other) for other in names)]
