"""Canonical names for hardware, so claims on the same accelerator can be grouped.

``canonical_hardware("2048 TPU v3 accelerators")`` gives ``"Google TPU v3"``,
``canonical_hardware("A100-40GB")`` gives ``"NVIDIA A100 40GB"``; names outside the
known families come back stripped of leading counts ("8 phones" -> "phones").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Optional, Union

from paper_claims.parse.vocab import LazyPattern, alternation, entries

__all__ = ["canonical_hardware", "hardware_family", "FAMILIES"]

_Namer = Union[str, Callable[[re.Match[str]], str]]


def _family(build: Callable[[], str]) -> LazyPattern:
    """A family's pattern with words of parse/vocab (the text it reads is lower-cased)."""
    return LazyPattern(build, re.IGNORECASE)


def _unspaced(name: str) -> str:
    """The alternation of a word class whose names may be written without their spaces ("agxorin")."""
    return alternation(name).replace(r"\s+", r"\s*")


# Specific models first, generic classes last; patterns run on a lower-cased name whose
# punctuation (-, _, /, parentheses, commas) has become spaces.  ``True`` marks families
# whose canonical name takes the memory size ("NVIDIA A100 40GB"). A pattern built from word
# classes is compiled on first use.
FAMILIES: tuple[tuple[Union[str, LazyPattern], _Namer, bool], ...] = (
    # NVIDIA data-centre GPUs
    (r"\bgh200\b", "NVIDIA GH200", True),
    (r"\b(b200|b100|h200|h100|h800|a800|a100|a10g|a10|a30|a40|l40s|l40|l4|t4|v100|p100|p40|p4|k80)s?\b",
     lambda m: f"NVIDIA {m.group(1).upper()}", True),
    (r"\brtx\s*(a6000|a5000|a4000|6000 ada)\b", lambda m: f"NVIDIA RTX {m.group(1).upper()}", True),
    (_family(lambda: rf"\bjetson\s*({_unspaced('jetson_modules')})?\b"),
     lambda m: " ".join(["NVIDIA Jetson", *(w.upper() if w in {"agx", "nx", "tx2"} else w.title()
                                            for w in (m.group(1) or "").split())]), False),
    # NVIDIA consumer GPUs
    (r"\b(?:geforce\s*)?(?:rtx|gtx)?\s*(1080|2080|3060|3070|3080|3090|4070|4080|4090|5090)\s*(ti)?\b",
     lambda m: "NVIDIA RTX " + m.group(1) + (" Ti" if m.group(2) else ""), True),
    (r"\btitan\s*(xp|x|v|rtx)\b", lambda m: f"NVIDIA Titan {m.group(1).upper()}", True),
    # Google TPUs
    (r"\btpu\s*v?\s*(\d)\s*([ep]|pod)?\b",
     lambda m: f"Google TPU v{m.group(1)}{m.group(2) if m.group(2) in ('e', 'p') else ''}", False),
    (r"\b(?:tensor processing units?|tpus?)\b", "Google TPU", False),
    # AMD accelerators
    (r"\b(?:instinct\s*)?mi\s*(50|60|100|210|250x?|300x?|300a|325x)\b",
     lambda m: f"AMD MI{m.group(1).upper()}", True),
    (r"\bradeon\s*(?:rx\s*)?(\d{4})\s*(xtx|xt)?\b",
     lambda m: f"AMD Radeon RX {m.group(1)}" + (f" {m.group(2).upper()}" if m.group(2) else ""), True),
    # Other accelerators
    (r"\bgaudi\s*(\d)?\b", lambda m: "Intel Gaudi" + (f" {m.group(1)}" if m.group(1) else ""), False),
    (r"\b(?:graphcore\s*)?ipus?\b", "Graphcore IPU", False),
    (r"\bcerebras\b", "Cerebras CS", False),
    (r"\btrainium\s*(\d)?\b", lambda m: "AWS Trainium" + (m.group(1) or ""), False),
    (r"\binferentia\s*(\d)?\b", lambda m: "AWS Inferentia" + (m.group(1) or ""), False),
    # Apple silicon (needs "apple"/"mac" or a Pro/Max/Ultra suffix: a bare "M2" is ambiguous)
    (_family(lambda: rf"\b(?:apple|mac\w*)\b.*?\bm([1-4])(?:\s*({alternation('apple_chip_tiers')}))?\b"
                     rf"|\bm([1-4])\s*({alternation('apple_chip_tiers')})\b"),
     lambda m: f"Apple M{m.group(1) or m.group(3)}"
     + (f" {(m.group(2) or m.group(4)).title()}" if (m.group(2) or m.group(4)) else ""), False),
    # FPGAs (Intel/Altera and AMD/Xilinx families, from their vendors' product lists)
    (_family(lambda: rf"\b({alternation('intel_fpgas')})\b"), lambda m: f"Intel {m.group(1).title()} FPGA", False),
    (_family(lambda: rf"\b({alternation('xilinx_fpgas')})\b"), lambda m: f"AMD Xilinx {m.group(1).title()} FPGA", False),
    # CPUs (a Xeon model number alone: "E5-2650v3")
    (r"\bxeon\b|\be[357]\s?\d{4}(?:\s?v\d)?\b", "Intel Xeon CPU", False),
    (r"\bsnapdragon\b", "Qualcomm Snapdragon", False),
    (r"\bcore\s*(i[3579])\b", lambda m: f"Intel Core {m.group(1)} CPU", False),
    (r"\bepyc\b", "AMD EPYC CPU", False),
    (r"\bryzen\b", "AMD Ryzen CPU", False),
    (r"\bgraviton\s*(\d)?\b", lambda m: "AWS Graviton" + (m.group(1) or "") + " CPU", False),
    # Microcontrollers and edge boards
    (r"\bcortex\s*m\s*(\d*)\b", lambda m: f"Arm Cortex-M{m.group(1)} microcontroller", False),
    # Phones (product lines)
    (r"\biphone\b", "Apple iPhone", False),
    (r"\bpixel\s*(\d+)\b", lambda m: f"Google Pixel {m.group(1)}", False),
    (r"\bgalaxy\s*s\s*(\d+)\b", lambda m: f"Samsung Galaxy S{m.group(1)}", False),
    (r"\bstm32\w*", "STM32 microcontroller", False),
    (r"\besp32\w*", "ESP32 microcontroller", False),
    (r"\barduino\b", "Arduino microcontroller", False),
    (r"\braspberry\s*pi\b", "Raspberry Pi", False),
    (r"\b(?:micro\s*controllers?|mcus?)\b", "microcontroller", False),
    # Generic classes
    (_family(lambda: rf"\b(?:{alternation('gpu_names')})\b"), "GPU", False),
    (r"\b(?:cpus?|central processing units?)\b", "CPU", False),
)

# compiled once (a pattern string looked up at every call can fall out of re's own cache)
_COMPILED_FAMILIES = tuple((pattern if isinstance(pattern, LazyPattern) else re.compile(pattern), namer, with_memory)
                           for pattern, namer, with_memory in FAMILIES)


@lru_cache(maxsize=1)
def _vendors() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each maker (vocab/hardware_vendors) as a pattern on a lower-cased name, with its own spelling."""
    return tuple((re.compile(rf"\b{re.escape(forms[0].lower())}\b"), forms[0]) for forms in entries("hardware_vendors"))
_MEMORY = re.compile(r"\b(\d{1,3})\s*g(?:b|ib)?\b")
# a leading count: digits, a number word or a quantifier ("eight", "hundreds of"); not "single",
# which says one, not how many ("single node" stays a name)
_LEADING_COUNT = LazyPattern(
    lambda: rf"^\s*(?:(?:\d[\d,.]*\s*(?:-+|–|—|to)\s*)?\d[\d,.]*\s*[x×]?|"
            rf"(?:{alternation('number_words', 'count_words', without=('single',))})(?: of)?)\s+"
            # a count of a device's parts is part of its name ("4 core edge computer")
            rf"(?!(?:{alternation('device_parts')})\s+[a-z])",
    re.IGNORECASE,
)


def _simplify(name: str) -> str:
    """Lower-case ``name`` and turn joining punctuation into single spaces."""
    text = re.sub(r"[-_/,()\[\]]+", " ", name.lower())
    return " ".join(text.split())


def strip_counts(name: str) -> str:
    """Drop a leading count or count range ("2048 ", "2--4 ", "8x ", "eight ")."""
    stripped = _LEADING_COUNT.sub("", name.strip(), count=1)
    return stripped.strip() or name.strip()


def _memory(simple: str) -> Optional[str]:
    """The memory size written in a simplified name ("40gb", "40g"), as "40GB"."""
    match = _MEMORY.search(simple)
    if match and 4 <= int(match.group(1)) <= 192:
        return f"{int(match.group(1))}GB"
    return None


def canonical_hardware(name: Optional[str]) -> Optional[str]:
    """Normalise a hardware name for grouping ("A100 GPUs" -> "NVIDIA A100"); None stays None."""
    if name is None or not name.strip():
        return None
    return hardware_family(name) or strip_counts(name)


@lru_cache(maxsize=4096)  # grounding asks about the same few names many times
def hardware_family(name: str) -> Optional[str]:
    """The canonical name of the known family ``name`` belongs to ("NVIDIA Titan XP" for
    "Titan XP"), or None when it names no known family."""
    simple = _simplify(name)
    # Leave memory tokens out of the family search ("40g a100" must not read as a model).
    searchable = _MEMORY.sub(" ", simple)
    for pattern, namer, with_memory in _COMPILED_FAMILIES:
        match = pattern.search(searchable)
        if not match:
            continue
        canonical = namer if isinstance(namer, str) else namer(match)
        if canonical in {"GPU", "CPU"}:
            vendor = next((name for key, name in _vendors() if key.search(simple)), None)
            return f"{vendor} {canonical}" if vendor else canonical
        memory = _memory(simple) if with_memory else None
        return f"{canonical} {memory}" if memory else canonical
    return None
