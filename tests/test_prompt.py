"""paper_claims.model.prompt: marks, message layout, the answer schema and the prompt version."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from paper_claims.model.answer import labels_schema
from paper_claims.model.prompt_files import load_prompt, prompt_version
from paper_claims.model.prompt import excerpt, render_messages
from paper_claims.text import canonical_json, sentence_spans
from paper_claims.parse.quantities import find_quantities
from paper_claims.schemas import LabelKind, NameCode
from tests.invented import marked

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
_NAME = re.compile(r"\{[A-Z]{1,2}\}")


def _numbers_only(marked: str) -> str:
    """An excerpt without its name marks and its "Also named" line."""
    return _NAME.sub("", re.split(r"\n?Also named: ", marked)[0])


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
def test_the_excerpt_marks_each_mention_once_right_before_it(text: str) -> None:
    mentions = find_quantities(text)
    assert len(mentions) >= 3
    shown = _numbers_only(excerpt(marked(text, mentions)))
    numbers = [int(m.group(1)) for m in _MARK.finditer(shown)]
    assert numbers == list(range(1, len(mentions) + 1))
    for number, mention in enumerate(mentions, start=1):
        # each mark stands right before the mention it numbers
        assert f"[{number}]{mention.text}" in shown
    # every sentence holds a number: all of them are kept, unchanged but for the marks
    assert [_MARK.sub("", piece) for piece in shown.split(" … ")] == [text[a:b] for a, b in sentence_spans(text)]


def test_the_excerpt_keeps_existing_brackets_and_unicode_byte_identical() -> None:
    # a citation-like "[2]" and non-ASCII text must survive untouched
    text = "Martín's model [2] reaches 84.4% on ImageNet — up to 3.1x faster on 8 A100 GPUs."
    mentions = find_quantities(text)
    assert [m.text for m in mentions] == ["84.4%", "up to 3.1x", "8 A100 GPUs"]
    shown = _numbers_only(excerpt(marked(text, mentions)))
    assert shown == "Martín's model [2] reaches [1]84.4% on ImageNet — [2]up to 3.1x faster on [3]8 A100 GPUs."
    assert _unmark(shown, len(mentions)).encode("utf-8") == text.encode("utf-8")


def test_an_excerpt_without_mentions_marks_no_number() -> None:
    assert find_quantities(NO_NUMBERS) == []
    assert excerpt(marked(NO_NUMBERS, [])) == "Also named: GradDrop{A}"  # no sentence kept, the name still listed


def test_render_messages_system_identical_across_documents_and_abstract_last() -> None:
    a = render_messages(marked(GLAM, find_quantities(GLAM)))
    b = render_messages(marked(GSHARD, find_quantities(GSHARD)))
    assert [m["role"] for m in a] == ["system", "user"]
    assert a[0] == b[0]
    assert a[0]["content"].encode("utf-8") == load_prompt().encode("utf-8")
    # the marked excerpt of the abstract is the last message, and only there
    assert a[-1]["content"] == excerpt(marked(GLAM, find_quantities(GLAM)))
    assert b[-1]["content"] == excerpt(marked(GSHARD, find_quantities(GSHARD)))
    assert "GLaM" not in a[0]["content"]


def test_excerpt_keeps_every_mark_in_order_and_drops_sentences_without_numbers() -> None:
    mentions = find_quantities(MINERVA)
    assert [m.text for m in mentions] == ["up to 89×", "up to 73×"]
    text = _numbers_only(excerpt(marked(MINERVA, mentions)))
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
    assert len(text) < len(MINERVA)
    assert "DFUs are disruptive" not in text and "capsules" not in text
    pieces = text.split(" … ")
    assert all(_MARK.sub("", piece) in MINERVA for piece in pieces)


def test_excerpt_keeps_sentence_order_and_global_mark_numbers() -> None:
    # the numbers sit in the 4th sentence; the introducing sentence is absent, so one piece
    mentions = find_quantities(EVOLUTION)
    text = _numbers_only(excerpt(marked(EVOLUTION, mentions)))
    assert " … " not in text
    assert text.startswith("Specifically, we employ simple evolutionary techniques")
    assert "[1]94.6% ([2]95.6% for ensemble) and [3]77.0%, respectively." in text
    # marks keep their global numbers when only later mentions are passed
    later = mentions[1:]
    assert _MARK.findall(excerpt(marked(EVOLUTION, later))) == ["1", "2"]
    assert "[1]95.6%" in _numbers_only(excerpt(marked(EVOLUTION, later)))


def test_excerpt_puts_the_introducing_sentence_in_its_place() -> None:
    mentions = find_quantities(GPIPE)
    text = _numbers_only(excerpt(marked(GPIPE, mentions)))
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
    assert _numbers_only(excerpt(marked(NO_NUMBERS, []))) == ""
    intro_only = _numbers_only(excerpt(marked(MINERVA, [])))
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
    assert sentence_spans("") == ()
    # spans cover the text in order without overlaps
    minerva = sentence_spans(MINERVA)
    assert all(b0 <= a1 for (_, b0), (a1, _) in zip(minerva, minerva[1:]))
    assert all(MINERVA[a:b] == MINERVA[a:b].strip() for a, b in minerva)


def test_render_messages_nonce_changes_only_the_system_message() -> None:
    mentions = find_quantities(GSHARD)
    plain = render_messages(marked(GSHARD, mentions))
    n1 = render_messages(marked(GSHARD, mentions), nonce="abc123")
    n2 = render_messages(marked(GSHARD, mentions), nonce="def456")
    assert n1[1:] == plain[1:] == n2[1:]
    assert len({plain[0]["content"], n1[0]["content"], n2[0]["content"]}) == 3
    assert "abc123" in n1[0]["content"]
    assert n1[0]["content"].endswith(plain[0]["content"])
    # the same nonce gives the same messages
    assert render_messages(marked(GSHARD, mentions), nonce="abc123") == n1


@pytest.mark.parametrize("n", [1, 3, 7])
def test_labels_schema_has_one_required_label_per_mark_in_order(n: int) -> None:
    schema = labels_schema(n, 2)
    c = schema["properties"]["c"]
    assert c["type"] == "object" and c["additionalProperties"] is False
    assert c["required"] == list(c["properties"]) == [str(k) for k in range(1, n + 1)]
    kinds = "|".join(kind.value for kind in LabelKind)
    for item in c["properties"].values():
        assert item == {"type": "string", "pattern": f"^({kinds})( [A-B])?$"}
    assert list(schema["properties"]) == schema["required"] == ["s", "e", "c"]
    assert schema["additionalProperties"] is False
    assert labels_schema(n, 0)["properties"]["c"]["properties"]["1"] == {"enum": kinds.split("|")}


def test_labels_schema_names_are_letters_every_typed_one_required() -> None:
    schema = labels_schema(2, 3)
    assert schema["properties"]["s"] == {"anyOf": [{"enum": ["A", "B", "C"]}, {"type": "null"}]}
    e = schema["properties"]["e"]
    assert list(e["properties"]) == e["required"] == ["A", "B", "C"]
    assert e["properties"]["A"] == {"enum": [code.value for code in NameCode]}
    # names that can only be baselines are not typed
    assert labels_schema(2, 3, ["A", "C"])["properties"]["e"]["required"] == ["A", "C"]
    # more than 26 names: two-letter marks in the baseline pattern
    assert labels_schema(1, 28)["properties"]["c"]["properties"]["1"]["pattern"].endswith("( ([A-Z]|A[A-B]))?$")


def test_labels_schema_without_marks_or_names() -> None:
    assert labels_schema(0, 0)["properties"] == {"s": {"type": "null"}}
    names_only = labels_schema(0, 2)
    assert set(names_only["properties"]) == {"s", "e"}  # no c
    numbers_only = labels_schema(2, 0)
    assert set(numbers_only["properties"]) == {"s", "c"}  # no name to type or compare with


def test_labels_schema_is_deterministic() -> None:
    assert canonical_json(labels_schema(4, 2)) == canonical_json(labels_schema(4, 2))
    assert canonical_json(labels_schema(4, 2)) != canonical_json(labels_schema(5, 2))
    assert canonical_json(labels_schema(4, 2)) != canonical_json(labels_schema(4, 3))


def test_labels_schema_validates_answers() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(labels_schema(2, 3))
    good = {"s": "A", "e": {"A": "model", "B": "none", "C": "hardware"}, "c": {"1": "speedup B", "2": "none"}}
    assert list(validator.iter_errors(good)) == []
    assert list(validator.iter_errors(dict(good, s=None))) == []
    bad = [
        dict(good, c={"1": "speedup"}),  # a mark skipped
        dict(good, c={"1": "bogus", "2": "none"}),  # not a kind
        dict(good, c={"1": "none", "2": "none", "3": "none"}),  # a mark that does not exist
        dict(good, e={"A": "model", "B": "none", "C": "none", "D": "model"}),  # a letter that does not exist
        dict(good, e={"A": "model", "C": "hardware"}),  # a name skipped
        dict(good, e={"A": "system", "B": "none", "C": "none"}),  # not a name type
        dict(good, c={"1": "speedup Z", "2": "none"}),  # a baseline letter that does not exist
        dict(good, s="FastNet"),  # names are letters, never free text
        {k: v for k, v in good.items() if k != "s"},
    ]
    for answer in bad:
        assert list(validator.iter_errors(answer)), answer


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

    grammar = json_schema_to_gbnf(json.dumps(labels_schema(3, 4)))
    assert "root ::=" in grammar
    for number in (1, 2, 3):
        assert f'"\\"{number}\\""' in grammar  # the mark numbers as keys
    assert '"\\"none\\""' in grammar and '"\\"hardware\\""' in grammar
    empty = json_schema_to_gbnf(json.dumps(labels_schema(0)))
    assert "root ::=" in empty


# Invented sentences for the name marks.
INVENTED = (
    "We present Corvid, a sparse decoder. Corvid is 2.5x faster than DenseMix on 8 H100 GPUs. "
    "Nothing here has a number. We also release the BirdCall benchmark."
)


def test_excerpt_marks_names_after_them_and_lists_the_other_names() -> None:
    mentions = [m for m in find_quantities(INVENTED) if m.text == "2.5x"]
    text = excerpt(marked(INVENTED, mentions))
    assert text == (
        "We present Corvid{A}, a sparse decoder. … Corvid{A} is [1]2.5x faster than DenseMix{B} on 8 H100 GPUs{C}."
        "\nAlso named: BirdCall benchmark{D}"
    )
    marks = marked(INVENTED, mentions).names
    assert [(m.letter, m.text, len(m.spans)) for m in marks] == [
        ("A", "Corvid", 2), ("B", "DenseMix", 1), ("C", "8 H100 GPUs", 1), ("D", "BirdCall benchmark", 1)]
    for mark in marks:
        assert all(INVENTED[s.start:s.end] == s.text for s in mark.spans)


def test_excerpt_name_mark_and_number_mark_share_a_count_phrase() -> None:
    text = "Training runs on 64 TPU v4 chips in total."
    mentions = find_quantities(text)
    assert [m.text for m in mentions] == ["64 TPU v4 chips"]
    assert excerpt(marked(text, mentions)) == "Training runs on [1]64 TPU v4 chips{A} in total."
