"""Bad input through the CLI: unreadable files stop the run with one clear line; bad records
inside a good file become error rows while the rest is extracted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from paper_claims.cli import main
from tests.conftest import read_jsonl
from tests.fakeserver import FakeServer, synthetic_abstracts


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    with FakeServer() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-bad-input")
        yield fake


def _missing(tmp: Path) -> Path:
    return tmp / "no-such-file.txt"


def _empty(tmp: Path) -> Path:
    path = tmp / "empty.txt"
    path.write_bytes(b"")
    return path


def _blank_jsonl(tmp: Path) -> Path:
    path = tmp / "blank.jsonl"
    path.write_text("\n  \n\n", encoding="utf-8")
    return path


def _binary(tmp: Path) -> Path:
    path = tmp / "binary.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    return path


def _latin1(tmp: Path) -> Path:
    path = tmp / "latin1.jsonl"
    path.write_bytes('{"id": "a", "text": "Caf\u00e9 reaches 93% accuracy."}\n'.encode("latin-1"))
    return path


@pytest.mark.parametrize(
    ("make", "reason"),
    [(_missing, "no such file"), (_empty, "empty file"), (_blank_jsonl, "empty file"),
     (_binary, "binary file"), (_latin1, "not UTF-8")],
    ids=["missing", "empty", "blank-jsonl", "binary", "non-utf8"],
)
def test_unreadable_input_is_one_clear_line(tmp_path: Path, server: FakeServer, capsys: pytest.CaptureFixture[str],
                                            make: Callable[[Path], Path], reason: str) -> None:
    path = make(tmp_path)
    code = main(["extract", str(path), "--out", str(tmp_path / "out"), "--no-report", "--quiet"])
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("claims: error:") and str(path) in lines[0] and reason in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert server.total_requests == 0
    assert not (tmp_path / "out" / "documents.jsonl").exists()


def test_bad_records_become_error_rows_and_the_rest_is_extracted(
        tmp_path: Path, server: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    good = synthetic_abstracts(3, seed=21)
    huge = "We measure 42% gains. " + "x" * (1024 * 1024)
    lines: list[str] = [
        json.dumps(good[0]),
        '{"id": "broken", "text": "unterminated',                   # not JSON
        json.dumps({"id": "notext", "title": "A title only"}),      # no text
        json.dumps({"id": "blank", "text": "   "}),                 # empty text
        json.dumps(good[1]),
        json.dumps({"id": "huge", "text": huge}),                   # a 1 MB "abstract"
        json.dumps({"id": good[0]["id"], "text": good[2]["text"]}),  # duplicate id
        json.dumps(["not", "an", "object"]),
        json.dumps(good[2]),
    ]
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code = main(["extract", str(source), "--out", str(out), "--no-report", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    rows = read_jsonl(out / "documents.jsonl")
    assert len(rows) == len(lines)  # one row per record, none lost
    assert len({r["doc_id"] for r in rows}) == len(rows)  # ids stay unique
    by_status: dict[str, list[dict[str, Any]]] = {"ok": [], "error": []}
    for row in rows:
        by_status[row["status"]].append(row)
    assert [r["doc_id"] for r in by_status["ok"]] == [g["id"] for g in good]
    errors = {r["doc_id"]: r["error"] for r in by_status["error"]}
    assert len(errors) == 6
    assert all(reason and "\n" not in reason for reason in errors.values())
    assert "not JSON" in errors["mixed#1"] and "line 2" in errors["mixed#1"]
    assert "no 'text' or 'abstract' field" in errors["notext"]
    assert "empty text" in errors["blank"]
    assert "too long" in errors["huge"]
    assert "duplicate id" in errors[f"{good[0]['id']}~dup1"]
    assert "not a JSON object" in errors["mixed#7"]
    # bad records never reach the model; the good ones are extracted once each
    assert server.total_requests == 3
    claims = read_jsonl(out / "claims.jsonl")
    assert {c["doc_id"] for c in claims} == {g["id"] for g in good}
    assert (out / "documents.jsonl").stat().st_size < 100_000  # the 1 MB text is not copied out


def _zstd_in_blocks(records: list[dict[str, Any]]) -> tuple[bytes, list[int]]:
    """The records as one Zstandard frame, a block flushed after each record, and where each
    block ends (a cut there leaves whole blocks: nothing in the data says more was to come)."""
    zstandard = pytest.importorskip("zstandard")
    compressor = zstandard.ZstdCompressor().compressobj()
    data, ends = b"", []
    for record in records:
        data += compressor.compress((json.dumps(record) + "\n").encode("utf-8"))
        data += compressor.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
        ends.append(len(data))
    return data + compressor.flush(), ends


def test_a_truncated_zstd_file_is_one_line_wherever_it_was_cut(
        tmp_path: Path, server: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40: cut at a block boundary it read 2 of 5 records and exited 0; cut mid-block it
    gave a misleading "not JSON" row. Like a truncated .gz: exit 2, one line, nothing sent."""
    records = synthetic_abstracts(5, seed=40)
    data, ends = _zstd_in_blocks(records)
    whole = tmp_path / "whole.jsonl.zst"
    whole.write_bytes(data)
    from paper_claims.sources.files import load_documents

    assert [d.id for d in load_documents([whole])] == [r["id"] for r in records]
    for cut in (ends[1], ends[1] + 7, len(data) - 1, 9):
        path = tmp_path / f"cut{cut}.jsonl.zst"
        path.write_bytes(data[:cut])
        code = main(["extract", str(path), "--out", str(tmp_path / f"out{cut}"), "--no-report", "--quiet"])
        err = capsys.readouterr().err
        assert code == 2, (cut, err)
        assert err.splitlines() == [f"claims: error: cannot read {path}: bad Zstandard data (the file ends "
                                    "before the end of its last frame: truncated?)"], cut
    assert server.total_requests == 0
    two = tmp_path / "two-frames.jsonl.zst"  # frames one after another are one stream, as zstd writes them
    two.write_bytes(data + _zstd_in_blocks(records[:1])[0])
    assert len(load_documents([two])) == 6
