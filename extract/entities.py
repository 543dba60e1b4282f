"""Deterministic hardware mentions: accelerators, processors and devices named in the text."""

from __future__ import annotations

import re

_COUNT = r"(?:\d[\d,.]*(?:\s*(?:--|-|–|to)\s*\d[\d,.]*)?\s+|(?:one|two|four|eight|sixteen|single|multiple|several|many)\s+)?"
_MEMORY = r"(?:[\s-]?\(?\d+\s?G(?:B|iB)?\)?)?"
_GPU_MODELS = (
    r"(?:NVIDIA\s+|Nvidia\s+)?(?:Tesla\s+|GeForce\s+|Quadro\s+)?"
    r"(?:[AHVPLB]\d{2,3}[A-Z]?s?|T4s?|L4s?|A10G?|L40S?|K80|GH200|GB200|RTX\s?\d{4}(?:\s?Ti)?|GTX\s?\d{3,4}(?:\s?Ti)?|"
    r"Titan\s?[XVRP]\w*|Jetson\s+\w+|MI\d{3}X?|Gaudi\s?\d?|Apple\s+M\d(?:\s(?:Pro|Max|Ultra))?)"
)
_GPU = rf"(?:\d+\s?G(?:B)?\s+)?{_GPU_MODELS}{_MEMORY}(?:[\s-](?:GPUs?|cards?|accelerators?)s?)?{_MEMORY}"
_TPU = r"(?:Cloud\s+)?TPU\s?v\d+[a-z]?(?:\s+(?:cores?|chips?|pods?|accelerators?|devices?))?"
_TPU_LONG = r"Tensor\s+Processing\s+Units?(?:\s+\(TPUs?\))?"
_MODIFIER = r"(?:(?:[A-Za-z]+-)*(?:multicore|multi-core|general-purpose|low-power|low-cost|commodity|consumer|mobile|edge|embedded|high-end|server|cloud|datacenter|data-center|microcontroller-based|IoT|custom|single|multiple|heterogeneous)\s+){0,2}"
_GENERIC = (
    r"(?:GPU\s+cards|graphics\s+processors(?:\s+\(GPUs?\))?|GPUs?|CPUs?|TPUs?|NPUs?|FPGAs?|ASICs?|"
    r"microcontrollers?|IoT\s+devices|edge\s+devices|mobile\s+devices|smartphones|phones|tablets|"
    r"computing\s+clusters|(?:compute\s+)?nodes?)"
)
_HARDWARE = re.compile(
    rf"(?<![\w-])(?:{_COUNT}(?:{_GPU}|{_TPU})|{_TPU_LONG}|{_MODIFIER}{_GENERIC})(?![\w-])"
)
_BARE = re.compile(r"^(?:(?:compute\s+)?nodes?|[GCTN]PU|FPGA|ASIC|microcontroller)$", re.IGNORECASE)


def find_hardware(text: str) -> list[str]:
    """Hardware named in ``text``, as written, in order, without repeats.

    Named accelerators (A100, T4, TPU v3, ...) with their counts and memory; processor
    and device classes (multicore CPUs, microcontrollers, phones) with up to two
    modifiers. A bare singular class word ("GPU memory", "a node") is skipped, and so
    is a name contained in a longer one that was also found.
    """
    found: list[str] = []
    for match in _HARDWARE.finditer(text):
        name = match.group(0).strip(" ,.;")
        if _BARE.match(name) or name in found:
            continue
        found.append(name)
    lowered = [name.lower() for name in found]
    return [
        name for name, low in zip(found, lowered)
        if not any(low != other and low in other for other in lowered)
    ]
