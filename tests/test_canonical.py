"""Tests of canonical_hardware: real gold inputs and the known accelerator families."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import pytest

from paper_claims.parse.canonical import canonical_hardware, strip_counts
from paper_claims.schemas import NameCode

CASES = [
    # NVIDIA data-centre GPUs, with memory when written
    ("A100 GPUs", "NVIDIA A100"),
    ("NVIDIA A100", "NVIDIA A100"),
    ("A100 GPU", "NVIDIA A100"),
    ("A100-40GB", "NVIDIA A100 40GB"),
    ("40G A100 GPU", "NVIDIA A100 40GB"),
    ("8x H100 80GB", "NVIDIA H100 80GB"),
    ("V100 32GB", "NVIDIA V100 32GB"),
    ("A10G", "NVIDIA A10G"),
    ("L4 GPU", "NVIDIA L4"),
    ("T4 GPU (16GB)", "NVIDIA T4 16GB"),
    ("2--4 T4s", "NVIDIA T4"),
    ("T4", "NVIDIA T4"),
    # consumer and edge
    ("RTX 3090", "NVIDIA RTX 3090"),
    ("GeForce RTX 4090", "NVIDIA RTX 4090"),
    ("Jetson AGX Orin", "NVIDIA Jetson AGX Orin"),
    # Google TPUs
    ("TPU v3", "Google TPU v3"),
    ("2048 TPU v3 accelerators", "Google TPU v3"),
    ("2048 Cloud TPUv3 cores", "Google TPU v3"),
    ("TPUv4", "Google TPU v4"),
    ("TPU v5e pod", "Google TPU v5e"),
    ("Tensor Processing Units (TPUs)", "Google TPU"),
    # AMD, Apple, Intel
    ("AMD Instinct MI250X", "AMD MI250X"),
    ("MI300X", "AMD MI300X"),
    ("Apple M2", "Apple M2"),
    ("M2 Max", "Apple M2 Max"),
    ("Intel Xeon Platinum 8380", "Intel Xeon CPU"),
    ("Gaudi2", "Intel Gaudi 2"),
    # generic classes
    ("multicore CPUs", "CPU"),
    ("general-purpose GPUs", "GPU"),
    ("graphics processors (GPU)", "GPU"),
    ("GPU cards", "GPU"),
    ("NVIDIA GPUs", "NVIDIA GPU"),
    # microcontrollers
    ("microcontroller-based IoT devices", "microcontroller"),
    ("low-power microcontrollers", "microcontroller"),
    ("Cortex-M4", "Arm Cortex-M4 microcontroller"),
    ("STM32F746 board", "STM32 microcontroller"),
    # unknown names: leading counts stripped, the rest kept as written
    ("phones", "phones"),
    ("8 phones", "phones"),
    ("single node", "single node"),
    ("computing clusters", "computing clusters"),
]


@pytest.mark.parametrize("name, expected", CASES)
def test_canonical_hardware_table(name: str, expected: str) -> None:
    assert canonical_hardware(name) == expected


@pytest.mark.parametrize("name", [None, "", "   "])
def test_empty_names_give_none(name: Optional[str]) -> None:
    assert canonical_hardware(name) is None


def test_bare_m2_is_not_apple() -> None:
    # without "Apple"/"Mac" or a Pro/Max/Ultra suffix "M2" is too ambiguous to claim
    assert canonical_hardware("M2") == "M2"


def test_memory_of_a_generic_gpu_is_not_a_model() -> None:
    assert canonical_hardware("16GB GPUs") == "GPU"


@pytest.mark.parametrize("name, expected", [
    ("2048 custom chips", "custom chips"),
    ("2--4 boards", "boards"),
    ("8x nodes", "nodes"),
    ("eight servers", "servers"),
    ("3D printers", "3D printers"),
    ("128", "128"),
    ("800 cores", "cores"),  # a count of cores is a count of devices
    ("4 core edge computer", "4 core edge computer"),  # a count of a computer's cores is part of its name
])
def test_strip_counts(name: str, expected: str) -> None:
    assert strip_counts(name) == expected


def test_every_gold_hardware_name_is_canonicalised() -> None:
    gold = Path(__file__).resolve().parents[1] / "eval" / "gold" / "dev.jsonl"
    names = {h for line in gold.open() for h in json.loads(line)["hardware"]}
    result = {n: canonical_hardware(n) for n in names}
    assert all(isinstance(v, str) and v for v in result.values())
    # the same TPU generation written three ways groups together
    assert result["2048 TPU v3 accelerators"] == result["2048 Cloud TPUv3 cores"] == "Google TPU v3"
    assert result["40G A100 GPU"] == "NVIDIA A100 40GB" and result["A100 GPU"] == "NVIDIA A100"


def test_fpga_and_cpu_families_and_a_family_name_written_as_its_canonical_form() -> None:
    from paper_claims.parse.canonical import hardware_family
    from paper_claims.parse.name_words import known_hardware

    assert hardware_family("Stratix V FPGAs") == "Intel Stratix FPGA"
    assert hardware_family("Zynq UltraScale+ board") == "AMD Xilinx Zynq FPGA"
    assert hardware_family("Intel E5-2650v3") == "Intel Xeon CPU"
    assert hardware_family("a mobile app") is None
    assert known_hardware("NVIDIA Titan XP")  # its canonical form as written is still a known family


def test_a_supercomputer_is_hardware_only_by_its_own_capitalised_name() -> None:
    from paper_claims.parse.name_words import class_code, known_hardware

    assert class_code("Summit") == NameCode.hardware and known_hardware("Frontier")
    assert not known_hardware("summit") and not known_hardware("frontier models")


def test_phone_lines_and_a_microcontroller_family_without_its_number_are_known() -> None:
    assert canonical_hardware("Pixel 4 phone") == "Google Pixel 4"
    assert canonical_hardware("iPhone") == "Apple iPhone" and canonical_hardware("Cortex-M") == "Arm Cortex-M microcontroller"
    assert canonical_hardware("pixel values") == "pixel values"  # no number: not the phone
