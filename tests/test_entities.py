"""extract.entities.find_hardware on real sentences from examples/abstracts."""

from __future__ import annotations

from pathlib import Path

import pytest

from extract.entities import find_hardware

ROOT = Path(__file__).resolve().parent.parent

# (sentence from examples/abstracts, hardware found in it, in order)
POSITIVES = [
    ("It maps the nodes of a dataflow graph across many machines in a cluster, and within a machine "
     "across multiple computational devices, including multicore CPUs, general-purpose GPUs, and custom "
     "designed ASICs known as Tensor Processing Units (TPUs).",
     ["multicore CPUs", "general-purpose GPUs", "ASICs", "Tensor Processing Units (TPUs)"]),
    ("A computation expressed using TensorFlow can be executed with little or no change on a wide variety "
     "of heterogeneous systems, ranging from mobile devices such as phones and tablets up to large-scale "
     "distributed systems of hundreds of machines and thousands of computational devices such as GPU cards.",
     ["mobile devices", "phones", "tablets", "GPU cards"]),
    ("We demonstrate that such a giant model can efficiently be trained on 2048 TPU v3 accelerators in "
     "4 days to achieve far superior quality for translation from 100 languages to English compared to "
     "the prior art.",
     ["2048 TPU v3 accelerators"]),
    ("It solves several technical challenges for production usage, allowing GSPMD to achieve 50% to 62% "
     "compute utilization on up to 2048 Cloud TPUv3 cores for models with up to one trillion parameters.",
     ["2048 Cloud TPUv3 cores"]),
    ("MoE-Lightning can achieve up to (10.3x) higher throughput than state-of-the-art offloading-enabled "
     "LLM inference systems for Mixtral 8x7B on a single T4 GPU (16GB).",
     ["single T4 GPU (16GB)"]),
    ("MoE-Lightning also supports efficient batch inference for much larger MoEs (e.g., Mixtral 8x22B and "
     "DBRX) on multiple low-cost GPUs (e.g., 2--4 T4s).",
     ["multiple low-cost GPUs", "2--4 T4s"]),
    ("However, the large model size makes MoE models inaccessible to individuals without high-end GPUs.",
     ["high-end GPUs"]),
    ("Towards a solution, we introduce MIRAGE (Multi-Image Retrieval Augmented Generation), an open-source, "
     "lightweight visual-RAG framework that processes up to 10k images on a single 40G A100 GPU—far "
     "surpassing the 1k-image limit of contemporary models.",
     ["single 40G A100 GPU"]),
    ("On A100 GPU, at $32\\times$ sparsity, incorporating HashAttention reduces attention latency by up to "
     "$4.3\\times$ in GPT-FAST and $2.54\\times$ in FlashDecode, and achieves up to $3.12\\times$ higher "
     "throughput for GPT-FAST.",
     ["A100 GPU"]),
    ("However, updating models deployed on IoT devices with low-power microcontrollers remains challenging.",
     ["IoT devices", "low-power microcontrollers"]),
    ("We present Minerva, an end-to-end ML model update system for microcontroller-based IoT devices.",
     ["microcontroller-based IoT devices"]),
    ("Fine-tuning models on edge devices like mobile phones would enable privacy-preserving personalization "
     "over sensitive data.",
     ["edge devices", "mobile phones"]),
    ("We present POET, an algorithm to enable training large neural networks on memory-scarce "
     "battery-operated edge devices.",
     ["edge devices"]),
    ("Federated learning (FL) is a promising way to use the computing power of mobile devices while "
     "maintaining the privacy of users.",
     ["mobile devices"]),
    ("To scale up DBN, we propose an approach that can use the computing clusters in a distributed "
     "environment to train large models, while the dense matrix computations within a single machine are "
     "sped up using graphics processors (GPU).",
     ["computing clusters", "graphics processors (GPU)"]),
    ("DS SERVE offers both a web interface and API endpoints, achieving low latency with modest memory "
     "overhead on a single node.",
     ["single node"]),
]

NEGATIVES = [
    "GPU memory",
    "When the theoretical system throughput is bounded by the GPU memory, MoE-Lightning can reach the "
    "throughput upper bound with 2-3x less CPU memory, significantly increasing resource utilization.",
    "MoE-Lightning introduces a novel CPU-GPU-I/O pipelining schedule, CGOPipe, with paged weights to "
    "achieve high resource utilization.",
    "Llama-3-70b",
    "GPT-4",
    "We run VibeCheck on pairwise preference data from real-world user conversations with Llama-3-70b vs GPT-4.",
    "Llama-405b often overexplains its thought process on math problems compared to GPT-4o.",
    "discover models for the CIFAR-10 and CIFAR-100 datasets, reaching accuracies of 94.6% and 77.0%",
    "efficient inference for Mixtral 8x7B and Mixtral 8x22B",
    "at a sub-10nm node",
    "",
]


def _in_examples(sentence: str) -> bool:
    corpus = " ".join(
        " ".join(p.read_text(encoding="utf-8").split()) for p in (ROOT / "examples" / "abstracts").glob("*.txt")
    )
    return sentence in corpus


@pytest.mark.parametrize("sentence, expected", POSITIVES, ids=[e[0] for _, e in POSITIVES])
def test_find_hardware_real_snippets(sentence: str, expected: list[str]) -> None:
    assert find_hardware(sentence) == expected
    for name in expected:
        assert name in sentence  # names are as written


def test_positive_snippets_are_real() -> None:
    assert len(POSITIVES) >= 12
    missing = [s[:60] for s, _ in POSITIVES if not _in_examples(s)]
    assert missing == []


@pytest.mark.parametrize("text", NEGATIVES)
def test_find_hardware_negatives(text: str) -> None:
    assert find_hardware(text) == []


def test_find_hardware_no_repeats_and_no_contained_names() -> None:
    text = "We train on 8 A100 GPUs. The A100 GPUs are fast; one A100 GPU suffices, and so do 8 A100 GPUs."
    found = find_hardware(text)
    assert found == ["8 A100 GPUs", "one A100 GPU"]
    lowered = [f.lower() for f in found]
    assert not any(a != b and a in b for a in lowered for b in lowered)


def test_find_hardware_accelerator_models_with_counts_and_memory() -> None:
    assert find_hardware("on two A100-80GB GPUs") == ["two A100-80GB GPUs"]
    assert find_hardware("ImageNet on 8 V100s") == ["8 V100s"]
    assert find_hardware("on NVIDIA V100 GPUs and an RTX 4090") == ["NVIDIA V100 GPUs", "RTX 4090"]
    assert find_hardware("H100s and MI250X accelerators") == ["H100s", "MI250X accelerators"]


def test_find_hardware_does_not_keep_an_article() -> None:
    sentence = "AutoApprox generates a wide range of approximate ASIC accelerators with a TPUv3 systolic-array template."
    assert find_hardware(sentence) == ["TPUv3"]


def test_find_hardware_nvidia_l4() -> None:
    assert find_hardware("Serving runs on 4 NVIDIA L4 GPUs.") == ["4 NVIDIA L4 GPUs"]
