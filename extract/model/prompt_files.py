"""Prompt files: the packaged system prompt (versioned by content hash) or one of your own."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Optional

from paper_claims.errors import InputError

SYSTEM_PROMPT_FILE = "label_system.txt"


@lru_cache(maxsize=None)
def load_prompt(name: str = SYSTEM_PROMPT_FILE) -> str:
    """The text of a prompt file in the ``prompts`` package."""
    return resources.files("paper_claims.prompts").joinpath(name).read_text(encoding="utf-8")


def system_prompt(prompt_file: Optional[Path] = None) -> str:
    """The system prompt: the packaged one, or the text of ``prompt_file`` (InputError if it
    cannot be read or is empty)."""
    if prompt_file is None:
        return load_prompt()
    try:
        stat = Path(prompt_file).stat()
    except OSError as e:
        raise InputError(f"cannot read prompt file {prompt_file}: {e.strerror or type(e).__name__}") from None
    return _prompt_file_text(str(prompt_file), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _prompt_file_text(path: str, _mtime_ns: int, _size: int) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read prompt file {path}: {e}") from None
    if not text.strip():
        raise InputError(f"cannot read prompt file {path}: it is empty")
    return text


def prompt_version(name: str = SYSTEM_PROMPT_FILE) -> str:
    """A short content hash that names the prompt's version."""
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:12]
