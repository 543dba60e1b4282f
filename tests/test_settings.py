"""paper_claims.settings: environment, overrides, embedded vs remote defaults, no secret leaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from paper_claims.settings import (
    DEFAULT_REMOTE_CONCURRENCY,
    DEFAULT_REMOTE_MODEL,
    EMBEDDED_MODEL,
    Settings,
    default_cache_dir,
)

SECRET = "sk-test-settings-0123456789abcdef"


def test_from_env_reads_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CLAIMS_MODEL", "env-model")
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "envcache"))
    settings = Settings.from_env()
    assert settings.base_url == "http://127.0.0.1:8000/v1"
    assert settings.api_key == SECRET
    assert settings.model == "env-model" and settings.model_name == "env-model"
    assert settings.cache_dir is None
    assert settings.resolved_cache_dir == tmp_path / "envcache"
    assert not settings.embedded


def test_from_env_explicit_overrides_win(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CLAIMS_MODEL", "env-model")
    settings = Settings.from_env(
        base_url="http://127.0.0.1:9000/v1", api_key="sk-other-key-000000", model="cli-model",
        cache_dir=str(tmp_path / "cli"), concurrency=3,
    )
    assert settings.base_url == "http://127.0.0.1:9000/v1"
    assert settings.api_key == "sk-other-key-000000"
    assert settings.model_name == "cli-model"
    assert settings.cache_dir == tmp_path / "cli" and isinstance(settings.cache_dir, Path)
    assert settings.resolved_cache_dir == tmp_path / "cli"
    assert settings.resolved_concurrency == 3


def test_from_env_none_overrides_do_not_erase_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_MODEL", "env-model")
    settings = Settings.from_env(model=None, base_url=None)
    assert settings.model == "env-model"


def test_from_env_empty_values_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "")
    monkeypatch.setenv("OPENAI_API_KEY", "")
    settings = Settings.from_env()
    assert settings.base_url is None and settings.api_key is None
    assert settings.embedded


def test_from_env_expands_user_in_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Settings.from_env(cache_dir="~/c").cache_dir == tmp_path / "c"


def test_embedded_when_neither_url_nor_key() -> None:
    settings = Settings.from_env()
    assert settings.embedded
    assert settings.model_name == EMBEDDED_MODEL
    assert settings.resolved_concurrency == 1


@pytest.mark.parametrize("kwargs", [{"base_url": "http://127.0.0.1:1/v1"}, {"model": "gpt-4o", "api_key": SECRET}])
def test_remote_when_an_endpoint_or_an_openai_model_is_named(kwargs: dict[str, str]) -> None:
    settings = Settings(**kwargs)
    assert not settings.embedded and settings.problem() is None
    assert settings.model_name == kwargs.get("model", DEFAULT_REMOTE_MODEL)
    assert settings.resolved_concurrency == DEFAULT_REMOTE_CONCURRENCY == 8


def test_a_key_alone_never_sends_documents_away() -> None:
    settings = Settings(api_key=SECRET)
    assert settings.embedded and settings.model_name == EMBEDDED_MODEL and settings.problem() is None


@pytest.mark.parametrize("name", ["gpt-4o", "gpt-4o-mini", "o3-mini", "o1", "chatgpt-4o-latest"])
def test_an_openai_model_without_a_key_says_what_is_missing(name: str) -> None:
    settings = Settings(model=name)
    assert not settings.embedded
    assert "OPENAI_API_KEY" in (settings.problem() or "") and name in (settings.problem() or "")


def test_an_unknown_model_without_an_endpoint_is_not_served_under_that_name() -> None:
    assert "--base-url" in (Settings(model="llama3-70b").problem() or "")
    assert Settings(model="llama3-70b", model_path="/models/llama3.gguf").problem() is None
    assert Settings(model="llama3-70b", base_url="http://127.0.0.1:1/v1").problem() is None
    assert Settings(model=EMBEDDED_MODEL).problem() is None


def test_concurrency_override_and_floor() -> None:
    assert Settings(concurrency=4).resolved_concurrency == 4
    assert Settings(base_url="http://127.0.0.1:1/v1", concurrency=2).resolved_concurrency == 2
    assert Settings(concurrency=-5).resolved_concurrency == 1
    assert Settings(base_url="http://127.0.0.1:1/v1", concurrency=0).resolved_concurrency == 8  # 0: default


def test_api_key_is_not_in_repr_or_generation_params() -> None:
    settings = Settings(base_url="http://127.0.0.1:1/v1", api_key=SECRET)
    assert SECRET not in repr(settings)
    assert SECRET not in str(settings)
    params = settings.generation_params()
    assert SECRET not in repr(params)
    assert "api_key" not in params
    assert set(params) == {"temperature", "max_tokens", "max_reasks"}


def test_generation_params_follow_settings() -> None:
    assert Settings(temperature=0.3, max_tokens=99, max_reasks=1).generation_params() == {
        "temperature": 0.3, "max_tokens": 99, "max_reasks": 1,
    }
    # endpoint-only fields do not change the answer parameters
    assert Settings(concurrency=5, timeout=1.0).generation_params() == Settings().generation_params()


def test_settings_are_frozen() -> None:
    with pytest.raises(Exception):
        Settings().model = "x"  # type: ignore[misc]


def test_default_cache_dir_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x"
    monkeypatch.delenv("CLAIMS_CACHE_DIR")
    assert default_cache_dir().name == "paper-claims"


def test_paths_given_as_strings_become_paths(tmp_path: Path) -> None:
    settings = Settings(cache_dir=str(tmp_path / "cache"), prompt_file="~/my_prompt.txt")
    assert settings.resolved_cache_dir == tmp_path / "cache"
    assert settings.prompt_file == Path.home() / "my_prompt.txt"
    from paper_claims.run.cache import AnswerCache

    with AnswerCache(settings.resolved_cache_dir) as cache:  # a string here used to fail on .mkdir
        cache.set("k", {"v": 1})
        assert cache.get("k") == {"v": 1}
