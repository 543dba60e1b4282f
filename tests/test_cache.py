"""paper_claims.run.cache: the cache key covers every input of an answer; the disk cache persists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from paper_claims.run.cache import AnswerCache
from paper_claims.tasks import cache_key
from paper_claims.model.answer import labels_schema


def base_inputs() -> dict[str, Any]:
    return {
        "model": "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "endpoint": "http://127.0.0.1:8080/v1",
        "messages": [
            {"role": "system", "content": "Label the marks."},
            {"role": "user", "content": "GLaM has [1]1.2 trillion parameters."},
        ],
        "schema": labels_schema(1),
        "params": {"temperature": 0.0, "max_tokens": 400, "max_reasks": 2},
    }


def test_cache_key_is_a_stable_sha256() -> None:
    key = cache_key(**base_inputs())
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert cache_key(**base_inputs()) == key


@pytest.mark.parametrize(
    "field, value",
    [
        ("model", "gpt-4o-mini"),
        ("endpoint", "http://127.0.0.1:8081/v1"),
        ("messages", [{"role": "system", "content": "Label the marks."},
                      {"role": "user", "content": "GLaM has [1]1.3 trillion parameters."}]),
        ("messages", [{"role": "system", "content": "Label the marks!"},
                      {"role": "user", "content": "GLaM has [1]1.2 trillion parameters."}]),
        ("schema", labels_schema(2)),
        ("params", {"temperature": 0.2, "max_tokens": 400, "max_reasks": 2}),
        ("params", {"temperature": 0.0, "max_tokens": 401, "max_reasks": 2}),
        ("params", {"temperature": 0.0, "max_tokens": 400, "max_reasks": 2, "seed": 1}),
    ],
)
def test_cache_key_changes_with_every_input(field: str, value: Any) -> None:
    changed = base_inputs()
    changed[field] = value
    assert cache_key(**changed) != cache_key(**base_inputs())


def test_cache_key_ignores_dict_key_order() -> None:
    inputs = base_inputs()
    reordered = dict(inputs)
    reordered["params"] = dict(reversed(list(inputs["params"].items())))
    reordered["messages"] = [dict(reversed(list(m.items()))) for m in inputs["messages"]]
    reordered["schema"] = dict(reversed(list(inputs["schema"].items())))
    assert list(reordered["params"]) != list(inputs["params"])
    assert cache_key(**reordered) == cache_key(**inputs)


def test_cache_key_depends_on_message_order() -> None:
    inputs = base_inputs()
    swapped = dict(inputs, messages=list(reversed(inputs["messages"])))
    assert cache_key(**swapped) != cache_key(**inputs)


def test_answer_cache_roundtrip(tmp_path: Path) -> None:
    answer = {"c": [{"n": 1, "k": "scale"}], "s": "GLaM", "d": [], "h": [], "mo": ["GPT-3"]}
    with AnswerCache(tmp_path / "c") as cache:
        assert cache.get("k1") is None
        cache.set("k1", answer)
        assert cache.get("k1") == answer
        assert cache.get("k2") is None
        cache.set("k1", {"s": None})  # a later answer replaces the earlier one
        assert cache.get("k1") == {"s": None}


def test_disabled_cache_returns_none_and_stores_nothing(tmp_path: Path) -> None:
    directory = tmp_path / "c"
    with AnswerCache(directory, enabled=False) as cache:
        cache.set("k1", {"s": "GLaM"})
        assert cache.get("k1") is None
    assert not directory.exists()  # nothing opened, nothing written
    with AnswerCache(directory) as enabled:
        assert enabled.get("k1") is None


def test_answer_cache_persists_across_instances(tmp_path: Path) -> None:
    directory = tmp_path / "c"
    with AnswerCache(directory) as first:
        first.set("key", {"s": "GPipe", "d": ["ImageNet-2012"]})
    assert (directory / "answers").is_dir()
    with AnswerCache(directory) as second:
        assert second.get("key") == {"s": "GPipe", "d": ["ImageNet-2012"]}
    with AnswerCache(tmp_path / "other") as other:
        assert other.get("key") is None


def test_answer_cache_close_is_idempotent_and_reopens(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "c")
    cache.set("a", {"s": "x"})
    cache.close()
    cache.close()
    assert cache.get("a") == {"s": "x"}  # reopened lazily
    cache.close()
