"""paper_claims.model.backends: response formats, endpoint identity, opening a backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from paper_claims.model.backends import EMBEDDED_API_KEY, Backend, endpoint_identity, open_backend
from paper_claims.errors import BackendError
from paper_claims.engines.modelfile import MODEL_SHA256
from paper_claims.model.answer import labels_schema
from paper_claims.settings import Settings

SECRET = "sk-test-backends-0123456789abcdef"


def quiet(_message: str) -> None:
    pass


def test_response_format_grammar_style() -> None:
    schema = labels_schema(2)
    backend = Backend(base_url="http://127.0.0.1:1/v1", model="m", endpoint_id="e", grammar_schema=True)
    assert backend.response_format(schema) == {"type": "json_object", "schema": schema}


def test_response_format_json_schema_style() -> None:
    schema = labels_schema(2)
    backend = Backend(base_url="http://127.0.0.1:1/v1", model="m", endpoint_id="e", grammar_schema=False)
    assert backend.response_format(schema) == {
        "type": "json_schema", "json_schema": {"name": "labels", "schema": schema},
    }


def test_backend_repr_hides_api_key() -> None:
    backend = Backend(base_url="http://x/v1", model="m", endpoint_id="e", grammar_schema=False, api_key=SECRET)
    assert SECRET not in repr(backend)


def test_endpoint_identity_remote_strips_trailing_slash_and_never_has_key() -> None:
    settings = Settings(base_url="http://127.0.0.1:8000/v1/", api_key=SECRET)
    assert endpoint_identity(settings) == "http://127.0.0.1:8000/v1"
    assert SECRET not in endpoint_identity(settings)
    assert endpoint_identity(Settings(base_url="http://127.0.0.1:8000/v1")) == "http://127.0.0.1:8000/v1"


def test_endpoint_identity_openai_model_uses_openai_url() -> None:
    identity = endpoint_identity(Settings(model="gpt-4o", api_key=SECRET))
    assert identity == "https://api.openai.com/v1"
    assert SECRET not in identity


def test_open_backend_refuses_an_openai_model_without_a_key() -> None:
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        with open_backend(Settings(model="gpt-4o"), say=quiet):
            pytest.fail("must not open")


def test_endpoint_identity_embedded_default_uses_the_model_sha() -> None:
    identity = endpoint_identity(Settings())
    assert identity == f"embedded:{MODEL_SHA256}"


def test_endpoint_identity_embedded_custom_file_uses_name_and_size(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"x" * 123)
    assert endpoint_identity(Settings(model_path=str(model))) == "embedded:tiny.gguf:123"
    model.write_bytes(b"x" * 124)
    assert endpoint_identity(Settings(model_path=str(model))) == "embedded:tiny.gguf:124"


def test_open_backend_remote_yields_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(base_url="http://127.0.0.1:9/v1/", api_key=SECRET, model="my-model")
    with open_backend(settings, say=quiet) as backend:
        assert backend.base_url == "http://127.0.0.1:9/v1"
        assert backend.model == "my-model"
        assert backend.endpoint_id == "http://127.0.0.1:9/v1"
        assert backend.api_key == SECRET
        assert backend.grammar_schema is False
        assert backend.response_format({})["type"] == "json_schema"


def test_open_backend_remote_grammar_style_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMS_RESPONSE_FORMAT", "grammar")
    with open_backend(Settings(base_url="http://127.0.0.1:9/v1"), say=quiet) as backend:
        assert backend.grammar_schema is True
        assert backend.response_format({"type": "object"}) == {"type": "json_object", "schema": {"type": "object"}}
        assert backend.api_key == EMBEDDED_API_KEY  # a keyless local server still gets a placeholder
