"""The API key never lands in the cache, the outputs, the logs or the cassettes."""

from __future__ import annotations

import json
import logging
import re
import secrets
import string
from pathlib import Path

import pytest

from paper_claims.api import extract_claims
from paper_claims.cli import main
from tests.conftest import CASSETTES
from tests.fakeserver import FakeServer, doc_key_for_text, synthetic_abstracts


def _random_key() -> str:
    alphabet = string.ascii_letters + string.digits
    return "sk-test-" + "".join(secrets.choice(alphabet) for _ in range(32))


def _files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.mark.parametrize("with_faults", [False, True], ids=["clean", "faults"])
def test_api_key_is_not_written_anywhere(tmp_path: Path, isolated_state: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
                                         with_faults: bool) -> None:
    key = _random_key()
    caplog.set_level(logging.DEBUG)  # openai, httpx and instructor log requests at DEBUG
    records = synthetic_abstracts(12, seed=31)
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    # faults exercise the error paths: a status error, a re-ask, a dropped connection, and one
    # document whose retries run out (429 with Retry-After: 0 keeps the test fast)
    hopeless_key = doc_key_for_text(records[0]["text"])

    def plan(key: str, index: int, _text: str) -> str:
        if not with_faults:
            return "ok"
        if key == hopeless_key:
            return "429"
        return ["429", "malformed", "drop"][index] if index < 3 else "ok"

    with FakeServer(plan=plan, retry_after="0") as server:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        table = extract_claims(source, out=tmp_path / "api-out", concurrency=4)
        code = main(["extract", str(source), "--out", str(tmp_path / "cli-out"), "--no-cache", "--no-report", "--quiet"])
        assert server.auth_seen == {f"Bearer {key}"}  # the key really was used
    assert code == (1 if with_faults else 0)
    assert len(table.documents) == len(records)
    captured = capsys.readouterr()
    needle = key.encode()
    for root in (isolated_state, tmp_path / "api-out", tmp_path / "cli-out"):
        assert root.is_dir() and any(root.rglob("*"))
        assert _files_containing(root, needle) == [], root
    assert key not in captured.out and key not in captured.err
    assert key not in caplog.text
    assert key[8:] not in caplog.text + captured.err  # not even the random part
    assert "Bearer" not in caplog.text + captured.err


SECRET = re.compile(r"Bearer |(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{6,}")


def test_cassettes_hold_no_credentials() -> None:
    leaks = []
    for path in sorted(CASSETTES.glob("**/*.yaml")) + sorted(CASSETTES.glob("**/*.yml")):
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if SECRET.search(line):
                leaks.append(f"{path.relative_to(CASSETTES)}:{number}")
    assert leaks == []


def test_secret_pattern_catches_what_it_should() -> None:
    assert SECRET.search("authorization: Bearer abc")
    assert SECRET.search("api_key: sk-proj-abcdef123456")
    assert not SECRET.search("a task-specific, risk-aware method")


def _echo_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> tuple[str, int]:
    """A proxy that echoes the Authorization header in its 401 error body."""
    key = _random_key()
    caplog.set_level(logging.DEBUG)
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in synthetic_abstracts(2, seed=32)), encoding="utf-8")
    with FakeServer(plan=lambda *_: "echo_auth") as server:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = main(["extract", str(source), "--out", str(tmp_path / "out"), "--no-report", "--quiet"])
    return key, code


def test_key_echoed_by_the_endpoint_is_redacted_from_outputs(
        tmp_path: Path, isolated_state: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    key, code = _echo_run(tmp_path, monkeypatch, caplog)
    captured = capsys.readouterr()
    assert code == 1
    rows = (tmp_path / "out" / "documents.jsonl").read_text(encoding="utf-8")
    assert "model request failed" in rows and "401" in rows and "***" in rows
    for root in (isolated_state, tmp_path / "out"):
        assert _files_containing(root, key.encode()) == [], root
    assert key not in captured.out + captured.err


def test_key_echoed_by_the_endpoint_is_redacted_from_logs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    key, _code = _echo_run(tmp_path, monkeypatch, caplog)
    assert key not in caplog.text
