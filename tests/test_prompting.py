"""extract.prompting: marks, message layout, the answer schema and the prompt version."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from extract.prompting import (
    canonical_json,
    excerpt,
    labels_schema,
    load_prompt,
    mark_mentions,
    prompt_version,
    render_messages,
    sentence_spans,
)
from extract.quantities import find_quantities
from schemas import LabelKind

ROOT = Path(__file__).resolve().parent.parent

# Real sentences from examples/abstracts.
GLAM = (
    "The largest GLaM has 1.2 trillion parameters, which is approximately 7x larger than GPT-3. "
    "It consumes only 1/3 of the energy used to train GPT-3 and requires half of the computation "
    "flops for inference, while still achieving better overall zero-shot and one-shot performance "
    "across 29 NLP tasks."
)
GSHARD = (
    "We demonstrate that such a giant model can efficiently be trained on 2048 TPU v3 accelerators "
    "in 4 days to achieve far superior quality for translation from 100 languages to English "
    "compared to the prior art."
)
NO_NUMBERS = (
    "GradDrop is implemented as a simple deep layer that can be used in any deep net and "
    "synergizes with other gradient balancing approaches."
)

_MARK = re.compile(r"\[(\d+)\]")


def _dev_text(doc_id: str) -> str:
    """A whole abstract of the dev set (eval/gold/dev_inputs.jsonl)."""
    with open(ROOT / "eval" / "gold" / "dev_inputs.jsonl", encoding="utf-8") as lines:
        return next(row["text"] for row in map(json.loads, lines) if row["id"] == doc_id)


MINERVA = _dev_text("001#1")  # 11 sentences, numbers only in the 10th
EVOLUTION = _dev_text("000#1")  # no sentence introduces a system
GPIPE = _dev_text("004#10")  # "we introduce GPipe" in the 4th sentence, numbers in the last


def _unmark(marked: str, n: int) -> str:
    """Remove the marks [1]..[n] in order, each exactly once, from left to right."""
    out = marked
    position = 0
    for number in range(1, n + 1):
        mark = f"[{number}]"
        index = out.index(mark, position)
        out = out[:index] + out[index + len(mark):]
        position = index
    return out


@pytest.mark.parametrize("text", [GLAM, GSHARD])
def test_mark_mentions_inserts_one_mark_before_each_mention(text: str) -> None:
    mentions = find_quantities(text)
    assert len(mentions) >= 3
    marked = mark_mentions(text, mentions)
    numbers = [int(m.group(1)) for m in _MARK.finditer(marked)]
    assert numbers == list(range(1, len(mentions) + 1))
    for number, mention in enumerate(mentions, start=1):
        # each mark stands right before the mention it numbers
        assert f"[{number}]{mention.text}" in marked
    assert _MARK.sub("", marked) == text
    assert len(marked) == len(text) + sum(len(f"[{k}]") for k in range(1, len(mentions) + 1))


def test_mark_mentions_keeps_existing_brackets_and_unicode_byte_identical() -> None:
    # a citation-like "[2]" and non-ASCII text must survive untouched
    text = "Martín's model [2] reaches 84.4% on ImageNet — up to 3.1x faster on 8 A100 GPUs."
    mentions = find_quantities(text)
    assert [m.text for m in mentions] == ["84.4%", "up to 3.1x", "8 A100 GPUs"]
    marked = mark_mentions(text, mentions)
    assert marked == "Martín's model [2] reaches [1]84.4% on ImageNet — [2]up to 3.1x faster on [3]8 A100 GPUs."
    assert _unmark(marked, len(mentions)).encode("utf-8") == text.encode("utf-8")


def test_mark_mentions_without_mentions_is_identity() -> None:
    assert find_quantities(NO_NUMBERS) == []
    assert mark_mentions(NO_NUMBERS, []) == NO_NUMBERS


def test_render_messages_system_identical_across_documents_and_abstract_last() -> None:
    a = render_messages(GLAM, find_quantities(GLAM))
    b = render_messages(GSHARD, find_quantities(GSHARD))
    assert [m["role"] for m in a] == ["system", "user"]
    assert a[0] == b[0]
    assert a[0]["content"].encode("utf-8") == load_prompt().encode("utf-8")
    # the marked excerpt of the abstract is the last message, and only there
    assert a[-1]["content"] == excerpt(GLAM, find_quantities(GLAM))
    assert b[-1]["content"] == excerpt(GSHARD, find_quantities(GSHARD))
    assert "GLaM" not in a[0]["content"]


def test_excerpt_keeps_every_mark_in_order_and_drops_sentences_without_numbers() -> None:
    mentions = find_quantities(MINERVA)
    assert [m.text for m in mentions] == ["up to 89×", "up to 73×"]
    text = excerpt(MINERVA, mentions)
    assert [int(n) for n in _MARK.findall(text)] == list(range(1, len(mentions) + 1))
    for number, mention in enumerate(mentions, start=1):
        assert f"[{number}]{mention.text}" in text
    # 11 sentences, 2 kept: the one introducing the system and the one with the numbers
    assert len(sentence_spans(MINERVA)) == 11
    assert text == (
        "We present Minerva, an end-to-end ML model update system for microcontroller-based IoT devices."
        " … Minerva reduces model update time by [1]up to 89× compared to a full DFU, and [2]up to 73× "
        "compared to a state-of-the-art embedded OS, enabling the growing number of deeply embedded "
        "devices to receive regular model updates."
    )
    assert len(text) < len(mark_mentions(MINERVA, mentions))
    assert "DFUs are disruptive" not in text and "capsules" not in text
    pieces = text.split(" … ")
    assert all(_MARK.sub("", piece) in MINERVA for piece in pieces)


def test_excerpt_keeps_sentence_order_and_global_mark_numbers() -> None:
    # the numbers sit in the 4th sentence; the introducing sentence is absent, so one piece
    mentions = find_quantities(EVOLUTION)
    text = excerpt(EVOLUTION, mentions)
    assert " … " not in text
    assert text.startswith("Specifically, we employ simple evolutionary techniques")
    assert "[1]94.6% ([2]95.6% for ensemble) and [3]77.0%, respectively." in text
    # marks keep their global numbers when only later mentions are passed
    later = mentions[1:]
    assert _MARK.findall(excerpt(EVOLUTION, later)) == ["1", "2"]
    assert "[1]95.6%" in excerpt(EVOLUTION, later)


def test_excerpt_puts_the_introducing_sentence_in_its_place() -> None:
    mentions = find_quantities(GPIPE)
    text = excerpt(GPIPE, mentions)
    pieces = text.split(" … ")
    assert len(pieces) == 2
    assert pieces[0].startswith("To address the need for efficient and task-independent model parallelism, "
                                "we introduce GPipe, a pipeline parallelism library")
    assert pieces[1].startswith("We demonstrate the advantages of GPipe")
    # every piece is a sentence of the abstract, in the abstract's order
    starts = [GPIPE.index(_MARK.sub("", piece)) for piece in pieces]
    assert starts == sorted(starts)
    assert "almost linear speedup" not in text  # a sentence with neither a number nor the intro
    assert [int(n) for n in _MARK.findall(text)] == list(range(1, len(mentions) + 1))


def test_excerpt_without_numbers_is_only_the_introducing_sentence_or_empty() -> None:
    assert excerpt(NO_NUMBERS, []) == ""
    intro_only = excerpt(MINERVA, [])
    assert intro_only.startswith("We present Minerva") and "[" not in intro_only and " … " not in intro_only


def test_sentence_spans_split_on_sentence_ends_only() -> None:
    spans = sentence_spans(GLAM)
    sentences = [GLAM[a:b] for a, b in spans]
    assert sentences == [
        "The largest GLaM has 1.2 trillion parameters, which is approximately 7x larger than GPT-3.",
        GLAM[GLAM.index("It consumes"):],
    ]
    # decimals, versions and "e.g." do not end a sentence
    text = "It reaches 84.4% on ImageNet-2012 with GPT-3.5 (e.g. top-1). Then it stops."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "It reaches 84.4% on ImageNet-2012 with GPT-3.5 (e.g. top-1).", "Then it stops."]
    assert sentence_spans("") == []
    # spans cover the text in order without overlaps
    minerva = sentence_spans(MINERVA)
    assert all(b0 <= a1 for (_, b0), (a1, _) in zip(minerva, minerva[1:]))
    assert all(MINERVA[a:b] == MINERVA[a:b].strip() for a, b in minerva)


def test_render_messages_nonce_changes_only_the_system_message() -> None:
    mentions = find_quantities(GSHARD)
    plain = render_messages(GSHARD, mentions)
    n1 = render_messages(GSHARD, mentions, nonce="abc123")
    n2 = render_messages(GSHARD, mentions, nonce="def456")
    assert n1[1:] == plain[1:] == n2[1:]
    assert len({plain[0]["content"], n1[0]["content"], n2[0]["content"]}) == 3
    assert "abc123" in n1[0]["content"]
    assert n1[0]["content"].endswith(plain[0]["content"])
    # the same nonce gives the same messages
    assert render_messages(GSHARD, mentions, nonce="abc123") == n1


@pytest.mark.parametrize("n", [1, 3, 7])
def test_labels_schema_has_one_prefix_item_per_mark(n: int) -> None:
    schema = labels_schema(n)
    c = schema["properties"]["c"]
    assert c["type"] == "array"
    assert len(c["prefixItems"]) == n
    assert c["minItems"] == n and c["maxItems"] == n
    assert [item["properties"]["n"]["const"] for item in c["prefixItems"]] == list(range(1, n + 1))
    for item in c["prefixItems"]:
        assert item["required"] == ["n", "k"]
        assert item["additionalProperties"] is False
        kinds = item["properties"]["k"]["enum"]
        assert "none" in kinds
        assert kinds == [kind.value for kind in LabelKind]
        # a label says what the number is and what it is compared to; names come from rules
        assert set(item["properties"]) == {"n", "k", "m", "b"}
    # no document name lists any more: datasets, hardware and models come from rules
    assert set(schema["required"]) == set(schema["properties"]) == {"c", "s"}
    assert schema["properties"]["s"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema["additionalProperties"] is False


def test_labels_schema_without_marks_has_no_c() -> None:
    schema = labels_schema(0)
    assert "c" not in schema["properties"]
    assert "c" not in schema["required"]
    assert set(schema["required"]) == set(schema["properties"]) == {"s"}
    assert schema["additionalProperties"] is False


def test_labels_schema_is_deterministic() -> None:
    assert canonical_json(labels_schema(4)) == canonical_json(labels_schema(4))
    assert canonical_json(labels_schema(4)) != canonical_json(labels_schema(5))


def test_labels_schema_validates_answers() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(labels_schema(2))
    good = {"c": [{"n": 1, "k": "speedup", "m": "throughput", "b": "FlexGen"}, {"n": 2, "k": "none"}],
            "s": None}
    assert list(validator.iter_errors(good)) == []
    assert list(validator.iter_errors(dict(good, s="MoE-Lightning"))) == []
    skipped = dict(good, c=[{"n": 1, "k": "speedup"}])
    swapped = dict(good, c=[{"n": 2, "k": "none"}, {"n": 1, "k": "speedup"}])
    bad_kind = dict(good, c=[{"n": 1, "k": "bogus"}, {"n": 2, "k": "none"}])
    extra_key = dict(good, c=[{"n": 1, "k": "none", "z": 1}, {"n": 2, "k": "none"}])
    # the old design's lists and per-label names are no longer accepted
    old_lists = dict(good, d=[], h=["T4 GPU"], mo=[])
    old_label_names = dict(good, c=[{"n": 1, "k": "speedup", "h": "T4 GPU"}, {"n": 2, "k": "none"}])
    no_system = {"c": good["c"]}
    for answer in (skipped, swapped, bad_kind, extra_key, old_lists, old_label_names, no_system):
        assert list(validator.iter_errors(answer)), answer
    empty = jsonschema.Draft202012Validator(labels_schema(0))
    assert list(empty.iter_errors({"s": "GLaM"})) == []
    assert list(empty.iter_errors({"s": None})) == []
    assert list(empty.iter_errors({"s": None, "c": []}))
    assert list(empty.iter_errors({"s": "GLaM", "d": []}))


def test_prompt_version_is_a_stable_content_hash() -> None:
    load_prompt.cache_clear()
    version = prompt_version()
    assert re.fullmatch(r"[0-9a-f]{12}", version)
    assert prompt_version() == version
    assert version == hashlib.sha256(load_prompt().encode("utf-8")).hexdigest()[:12]


def test_load_prompt_reads_the_packaged_file() -> None:
    load_prompt.cache_clear()
    on_disk = (ROOT / "prompts" / "label_system.txt").read_text(encoding="utf-8")
    assert load_prompt() == on_disk
    assert load_prompt("label_system.txt") == on_disk
    assert "[" in on_disk  # the prompt explains the marks


def test_labels_schema_converts_to_a_llama_cpp_grammar() -> None:
    pytest.importorskip("llama_cpp")
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    grammar = json_schema_to_gbnf(json.dumps(labels_schema(3)))
    assert "root ::=" in grammar
    for number in (1, 2, 3):
        assert f'::= "{number}"' in grammar  # the const mark numbers
    assert '"\\"none\\""' in grammar
    empty = json_schema_to_gbnf(json.dumps(labels_schema(0)))
    assert "root ::=" in empty
