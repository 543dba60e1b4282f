"""extract.prompting: marks, message layout, the answer schema and the prompt version."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from extract.prompting import (
    canonical_json,
    labels_schema,
    load_prompt,
    mark_mentions,
    prompt_version,
    render_messages,
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
    # the marked abstract is the last message, and only there
    assert a[-1]["content"] == mark_mentions(GLAM, find_quantities(GLAM))
    assert b[-1]["content"] == mark_mentions(GSHARD, find_quantities(GSHARD))
    assert "GLaM" not in a[0]["content"]


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
    assert set(schema["required"]) == set(schema["properties"]) == {"c", "s", "d", "h", "mo"}
    assert schema["additionalProperties"] is False


def test_labels_schema_without_marks_has_no_c() -> None:
    schema = labels_schema(0)
    assert "c" not in schema["properties"]
    assert "c" not in schema["required"]
    assert set(schema["required"]) == {"s", "d", "h", "mo"}


def test_labels_schema_is_deterministic() -> None:
    assert canonical_json(labels_schema(4)) == canonical_json(labels_schema(4))
    assert canonical_json(labels_schema(4)) != canonical_json(labels_schema(5))


def test_labels_schema_validates_answers() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(labels_schema(2))
    good = {"c": [{"n": 1, "k": "speedup", "m": "throughput"}, {"n": 2, "k": "none"}],
            "s": None, "d": [], "h": ["T4 GPU"], "mo": []}
    assert list(validator.iter_errors(good)) == []
    skipped = dict(good, c=[{"n": 1, "k": "speedup"}])
    swapped = dict(good, c=[{"n": 2, "k": "none"}, {"n": 1, "k": "speedup"}])
    bad_kind = dict(good, c=[{"n": 1, "k": "bogus"}, {"n": 2, "k": "none"}])
    extra_key = dict(good, c=[{"n": 1, "k": "none", "z": 1}, {"n": 2, "k": "none"}])
    for answer in (skipped, swapped, bad_kind, extra_key):
        assert list(validator.iter_errors(answer)), answer
    empty = jsonschema.Draft202012Validator(labels_schema(0))
    assert list(empty.iter_errors({"s": "GLaM", "d": [], "h": [], "mo": []})) == []
    assert list(empty.iter_errors({"s": None, "d": [], "h": [], "mo": [], "c": []}))


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
