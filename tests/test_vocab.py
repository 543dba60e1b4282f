"""paper_claims.parse.vocab: the word classes, one plain-text file each, read on first use."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import resources

from paper_claims.parse.vocab import LazyPattern, alternation, entries, words

CLASSES = sorted(p.name[:-4] for p in resources.files("paper_claims.parse.vocab").iterdir() if p.name.endswith(".txt"))


def test_every_word_class_says_where_its_words_come_from_and_lists_each_word_once() -> None:
    assert {"device_classes", "device_words", "data_classes", "metric_names", "comparison_words", "comparison_verbs",
            "number_words", "count_words", "introduce_verbs", "model_families", "optimizers"} <= set(CLASSES)
    for name in CLASSES:
        text = resources.files("paper_claims.parse.vocab").joinpath(f"{name}.txt").read_text(encoding="utf-8")
        assert text.startswith("#"), f"{name}.txt: the first lines say where the words come from"
        forms = [form.lower() for entry in entries(name) for form in entry]
        assert forms and len(forms) == len(set(forms)), f"{name}.txt lists a word twice"


def test_an_entry_is_a_word_with_its_other_forms() -> None:
    assert ("corpus", "corpora") in entries("data_classes")
    assert ("GPU", "GPUs") in entries("device_classes")
    assert {"gpu", "gpus", "tpu"} <= words("device_classes")
    assert "gpus" not in words("device_classes", base=True)
    assert "machine" not in words("device_words", without=("machine",))
    assert words("number_words", "count_words") == words("number_words") | words("count_words")


def test_an_alternation_matches_every_form_whole_and_a_phrase_before_its_first_word() -> None:
    pattern = re.compile(rf"\b(?:{alternation('comparison_words')})\b", re.IGNORECASE)
    assert pattern.fullmatch("compared  to") and pattern.fullmatch("vs") and pattern.fullmatch("than")
    assert pattern.match("compared with X").group(0) == "compared with"
    devices = re.compile(rf"(?:{alternation('device_classes')})", re.IGNORECASE)
    assert all(devices.fullmatch(form) for form in ("GPU", "gpus", "accelerators", "FPGA"))
    assert not devices.fullmatch("GPUss")


def test_a_lazy_pattern_compiles_on_first_use() -> None:
    built = []
    pattern = LazyPattern(lambda: built.append(1) or r"\bGPUs?\b", re.IGNORECASE)
    assert built == []
    assert pattern.search("8 gpus") and pattern.search("a GPU") and not pattern.search("GPUx")
    assert built == [1] and pattern.flags & re.IGNORECASE


def test_importing_the_claims_task_reads_no_word_list() -> None:
    code = ("import paper_claims.tasks.claims, paper_claims.parse.vocab as v; "
            "print(v.entries.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"
