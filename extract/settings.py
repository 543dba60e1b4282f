"""Run settings: which model and endpoint, generation parameters, limits, where the cache lives."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from paper_claims.schemas import SchemaInfo

EMBEDDED_MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
FILLS = ("marks", "instructor")  # how the model fills a claim schema
DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
DEFAULT_REMOTE_CONCURRENCY = 8
OPENAI_API_URL = "https://api.openai.com/v1"
_OPENAI_MODEL = re.compile(r"^(gpt-|gpt4|chatgpt-|o[1-9](-|$)|ft:gpt|davinci|babbage)", re.IGNORECASE)


def is_openai_model(name: str) -> bool:
    """Whether a model name is one of OpenAI's own (served only by OpenAI's API)."""
    return bool(_OPENAI_MODEL.match(name.strip()))


def default_cache_dir() -> Path:
    """The user cache directory (``CLAIMS_CACHE_DIR`` overrides it)."""
    env = os.environ.get("CLAIMS_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("paper-claims"))


def _seconds(name: str) -> float:
    """The number of seconds an environment variable gives (``ClaimsError`` naming it otherwise)."""
    from paper_claims.errors import ClaimsError

    try:
        return float(os.environ[name])
    except ValueError as e:
        raise ClaimsError(f"{name}={os.environ[name]!r} is not a number of seconds") from e


@dataclass(frozen=True)
class Settings:
    """Everything that decides how documents are extracted.

    No ``base_url`` and no OpenAI model name means the embedded local model. The API key is
    never part of a cache key, a log line or an output. ``max_unreachable`` documents in
    a row whose every request fails to connect stop the run (the endpoint is down).
    """

    model: Optional[str] = None
    base_url: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    model_path: Optional[str] = None
    cache_dir: Optional[Path] = None
    use_cache: bool = True
    concurrency: Optional[int] = None
    temperature: float = 0.0
    max_tokens: int = 400
    max_reasks: int = 2
    max_retries: int = 5
    timeout: float = 300.0
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    progress: bool = True
    n_threads: Optional[int] = None
    label_without_mentions: bool = False
    max_unreachable: int = 3
    prompt_file: Optional[Path] = None  # a system prompt of your own instead of prompts/label_system.txt
    schema: Any = None  # a claim schema class, or its spec ("pkg.module:Class", "file.py:Class"); None: the built-in
    fill: str = "marks"  # how the model fills the schema: "marks" (labels of marked numbers) or "instructor"
    decisions: Optional[Path] = None  # learned decisions of your own (``claims train``) instead of the packaged ones
    batch_size: int = 10_000  # --batch: requests per batch (OpenAI takes up to 50,000 and 200 MB)
    batch_poll: float = 30.0  # --batch: seconds between polls of running batches (env CLAIMS_BATCH_POLL)

    def __post_init__(self) -> None:
        if self.fill not in FILLS:
            raise ValueError(f"fill {self.fill!r}: use one of {', '.join(FILLS)}")
        for name in ("cache_dir", "prompt_file", "decisions"):  # a notebook user writes a string as often as a Path
            value = getattr(self, name)
            if value is not None and not isinstance(value, Path):
                object.__setattr__(self, name, Path(str(value)).expanduser())

    def __getstate__(self) -> dict[str, Any]:
        """Pickled for a worker process: a schema class travels as its spec (a class loaded
        from a file cannot be imported by name there)."""
        from paper_claims.schemas.claim_schema import schema_spec

        state = dict(self.__dict__)
        if isinstance(state.get("schema"), type):
            state["schema"] = schema_spec(state["schema"]) or state["schema"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    @property
    def schema_info(self) -> "SchemaInfo":
        """The claim schema, checked (``SchemaError`` names a field that cannot work)."""
        from paper_claims.schemas import PaperClaim, describe, load_schema

        return describe(PaperClaim if self.schema is None else load_schema(self.schema))

    @classmethod
    def from_env(cls, **overrides: object) -> "Settings":
        """Settings from ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``CLAIMS_MODEL``,
        ``CLAIMS_CACHE_DIR`` and ``CLAIMS_BATCH_POLL``; explicit non-None overrides win."""
        values: dict[str, object] = {
            "base_url": os.environ.get("OPENAI_BASE_URL") or None,
            "api_key": os.environ.get("OPENAI_API_KEY") or None,
            "model": os.environ.get("CLAIMS_MODEL") or None,
        }
        if os.environ.get("CLAIMS_BATCH_POLL"):
            values["batch_poll"] = _seconds("CLAIMS_BATCH_POLL")
        values.update({k: v for k, v in overrides.items() if v is not None})
        for name in ("cache_dir", "prompt_file", "decisions"):
            if values.get(name) is not None:
                values[name] = Path(str(values[name])).expanduser()
        return cls(**values)  # type: ignore[arg-type]

    @property
    def embedded(self) -> bool:
        """True unless an endpoint or one of OpenAI's models is named: the embedded model serves.

        An API key alone never changes where documents go.
        """
        return not self.base_url and not (self.model and is_openai_model(self.model))

    def problem(self) -> Optional[str]:
        """What is missing to reach the chosen model, or None."""
        if not self.embedded and not self.base_url and not self.api_key:
            return (f"model '{self.model}' is served by OpenAI: set OPENAI_API_KEY "
                    "(or name another OpenAI-compatible endpoint with --base-url / OPENAI_BASE_URL)")
        if self.embedded and self.model and self.model != EMBEDDED_MODEL and not self.model_path:
            return (f"model '{self.model}' is not the embedded model ({EMBEDDED_MODEL}) and no endpoint is named: "
                    "give its endpoint with --base-url / OPENAI_BASE_URL, or serve a GGUF file locally "
                    "with --model-path")
        return None

    @property
    def model_name(self) -> str:
        if self.model:
            return self.model
        return EMBEDDED_MODEL if self.embedded else DEFAULT_REMOTE_MODEL

    @property
    def resolved_cache_dir(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else default_cache_dir()

    @property
    def resolved_concurrency(self) -> int:
        if self.concurrency:
            return max(1, self.concurrency)
        return 1 if self.embedded else DEFAULT_REMOTE_CONCURRENCY

    def generation_params(self) -> dict[str, object]:
        """The parameters that change an answer (part of the cache key)."""
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "max_reasks": self.max_reasks,
        }
