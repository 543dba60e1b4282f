"""Model families and optimizers from outside sources: is a name a well-known model family, or
a training optimizer (which is a method, not a model)?

The families (``vocab/model_families.txt``) are the model types of the Hugging Face
``transformers`` library (and, for the rules, ``vocab/torch_models.txt``: the model builders of
torchvision and torchaudio), the optimizers (``vocab/optimizers.txt``) those of torch.optim and
timm.optim: broad outside knowledge, not names taken from any annotated abstract. A name
belongs to a family when its first word, versions aside, is one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from paper_claims.parse import vocab


def _stem(word: str) -> str:
    """A word lower-cased, letters and digits only, a trailing version dropped when at
    least three letters stay ("Qwen2.5" -> "qwen", "MobileNetV2" -> "mobilenet", "T5" -> "t5")."""
    word = re.sub(r"[^a-z0-9]", "", word.lower())
    stem = re.sub(r"v?\d+$", "", word)
    return stem if len(stem) >= 3 else word


@lru_cache(maxsize=None)
def _families(classes: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_stem(name) for name in vocab.words(*classes))


def model_family(name: str, classes: tuple[str, ...] = ("model_families",)) -> bool:
    """True when the name's first word is a known model family ("Llama-3-70b", "GPT-4o",
    "Qwen2.5-Math-7B", "BERT_BASE", "wav2vec 2.0"); "Transformer" or "ImageNet" are not.
    ``classes``: the word classes read (the rules add ``torch_models``: "VGG-16", "Tacotron 2")."""
    first = re.split(r"[\s_/-]+", name.strip(), maxsplit=1)[0]
    return bool(first) and first[0].isalpha() and _stem(first) in _families(classes)


def optimizer_name(name: str) -> bool:
    """True when the name's last word is a well-known optimizer ("SGD", "minibatch SGD", "AdamW")."""
    words = re.split(r"[\s_/]+", name.strip())
    return bool(words) and re.sub(r"[^a-z]", "", words[-1].lower()) in vocab.words("optimizers")


@lru_cache(maxsize=None)
def _known_software() -> frozenset[str]:
    """The software, language and format names, spaces and hyphens left out."""
    return frozenset(re.sub(r"[\s-]", "", word) for word in vocab.words("software", "languages"))


def software_name(name: str) -> bool:
    """True for well-known software ("PyTorch", "Py Torch", "TensorRT-LLM", "MPI+OpenMP") and
    languages and data formats ("T-SQL", "JSON"): neither a model nor a dataset."""
    known = _known_software()
    whole = re.sub(r"[\s-]", "", name.strip()).lower()
    parts = [re.sub(r"[\s-]", "", part).lower() for part in re.split(r"[+/]", name.strip())]
    return whole in known or (bool(parts) and all(part in known for part in parts))
