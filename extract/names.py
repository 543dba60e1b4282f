"""Deterministic dataset and model names: name-like tokens classified by form and context."""

from __future__ import annotations

import re
from typing import Sequence


# A name: a capitalised or alphanumeric token with inner capitals, digits or hyphens, e.g.
# CIFAR-10, GSM8K, VisionArena, Llama-3-70b, RefCOCO(+/g); optionally a run of Title Case
# words ending in an acronym in parentheses, e.g. "Visual Haystacks (VHs)".
_TOKEN = r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*(?:\(\+/g\))?"
_NAME = re.compile(
    rf"(?<![\w-])(?:(?:[A-Z][a-z]+[ -]){{1,5}}\([A-Z][A-Za-z]+\)|{_TOKEN}(?:\s(?:\d+(?:\.\d+)?|[A-Z]|\d+[xX]\d+[BbMm]))?)(?![\w-])"
)
_MODEL_FAMILIES = re.compile(
    r"^(?:GPT|ChatGPT|Llama|LLaMA|CodeLlama|Qwen|Mistral|Mixtral|Gemini|Gemma|Claude|PaLM|BERT|RoBERTa|"
    r"DeBERTa|T5|Flan|ViT|ResNet|CLIP|DALL-E|StableDiffusion|DBRX|DeepSeek|Vicuna|Phi|OPT|BLOOM|Falcon|"
    r"Command|GLaM|AmoebaNet|Conformer|Whisper|LLaVA|Llava|Chinchilla|Gopher|Yi|InternVL|Pythia|"
    r"Alpaca|Codex|StarCoder|SDXL|Imagen|Midjourney|o1|o3|Grok|Nemotron|Olmo|OLMo|EfficientNet|"
    r"MobileNet|Inception|VGG|DenseNet|Swin|DINO|SAM|Wav2Vec|HuBERT|XLNet|ELECTRA|ALBERT|Megatron)"
    r"(?![a-z])"
)
_MODEL_SIZE = re.compile(r"-\d+(?:\.\d+)?[Bb]$|\b\d+[xX]\d+[Bb]$")
_DATASET_PARTS = re.compile(
    r"(?:Bench|Arena|QA|Data(?:set)?|Docs|COCO|CIFAR|MNIST|ImageNet|GLUE|SQuAD|Haystack|Leaderboard|"
    r"GSM8K|MMLU|MMMU|HumanEval|WildChat|WildVision|Instruct-\d+K|ShareGPT|LAION|HellaSwag|BoolQ|"
    r"VQA|WMT|LibriSpeech|Kinetics|ShapeNet|KITTI|nuScenes|Waymo|ScanNet|Cityscapes|ADE20K|"
    r"MATH|GSM|ARC|Pile|RedPajama|Alpaca-?Eval|MT-Bench|BIG-Bench|HELM|SuperGLUE|XNLI|FLORES|"
    r"RetVQA|CHAIR)",
)
_DATASET_CUE_AFTER = re.compile(r"^\s*(?:\w+\s){0,1}(?:dataset|benchmark|corpus|leaderboard|suite|test set|collection)s?\b", re.IGNORECASE)
_DATASET_CUE_BEFORE = re.compile(r"(?:dataset|benchmark|corpus|leaderboard)s?(?:\s+(?:called|named))?,?\s*$", re.IGNORECASE)
_STOP = {
    "We", "Our", "The", "This", "These", "In", "On", "To", "For", "With", "By", "As", "At", "An", "A", "It",
    "However", "Moreover", "Finally", "First", "Second", "Third", "Code", "Using", "Unlike", "While",
    "AI", "ML", "LLM", "LLMs", "VLM", "VLMs", "GPU", "GPUs", "CPU", "CPUs", "TPU", "TPUs", "API", "APIs",
    "SOTA", "SoTA", "RL", "NLP", "MoE", "RAG", "I/O", "IoT", "OS", "FID", "CLIP-FID",
    "Data", "Dataset", "Datasets", "QA", "Arena", "Bench", "Benchmark", "Leaderboard", "Docs",
}


def _candidates(text: str) -> list[tuple[int, str]]:
    found = []
    for match in _NAME.finditer(text):
        name = match.group(0).strip()
        if name in _STOP or len(name) < 2 or not name[0].isupper():
            continue
        if not (re.search(r"[A-Z].*[A-Z0-9]|[0-9]", name[1:] if len(name) > 1 else "") or " (" in name
                or _MODEL_FAMILIES.match(name) or _DATASET_PARTS.search(name)):
            continue  # an ordinary capitalised word
        found.append((match.start(), name))
    return found


def is_model_name(name: str) -> bool:
    """A known model family or a name with a parameter-count suffix (-7B, 8x7B), unless it
    reads as a dataset (Llava-Instruct-158K)."""
    if _MODEL_SIZE.search(name):
        return True
    return bool(_MODEL_FAMILIES.match(name)) and not _DATASET_PARTS.search(name[3:])


def find_datasets(text: str) -> list[str]:
    """Dataset and benchmark names: known benchmark forms, or names next to "dataset"/"benchmark"."""
    names: list[str] = []
    for start, name in _candidates(text):
        if is_model_name(name):
            continue
        after = text[start + len(name) : start + len(name) + 30]
        before = text[max(0, start - 30) : start]
        if _DATASET_PARTS.search(name) or _DATASET_CUE_AFTER.match(after) or _DATASET_CUE_BEFORE.search(before):
            if name not in names:
                names.append(name)
    return merge_names(names)


def find_models(text: str) -> list[str]:
    """ML model names: known model families and names with a parameter-count suffix."""
    names: list[str] = []
    for _start, name in _candidates(text):
        if is_model_name(name) and name not in names:
            names.append(name)
    return merge_names(names)


def _inside(short: str, long: str) -> bool:
    """True when ``short`` stands in ``long`` as whole words (not "CIFAR-10" in "CIFAR-100")."""
    pattern = rf"(?<![\w-]){re.escape(short)}(?![\w-])"
    return short != long and re.search(pattern, long, flags=re.IGNORECASE) is not None


def merge_names(*groups: Sequence[str]) -> list[str]:
    """Names of all groups in order, without repeats or names standing inside a longer one."""
    names: list[str] = []
    for group in groups:
        for name in group:
            if name.lower() not in (n.lower() for n in names):
                names.append(name)
    return [n for n in names if not any(_inside(n, other) for other in names)]
