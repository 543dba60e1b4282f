"""The command line as a new user meets it: a missing output folder, a closed pipe."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paper_claims import cli
from paper_claims.sources.files import load_documents

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "examples" / "abstracts"


def test_report_on_a_missing_folder_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-run"
    assert cli.main(["report", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"claims: error: output directory not found: {missing}"
    assert not missing.exists()  # nothing created
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["report", str(empty)]) == 2
    assert "no documents.jsonl in output directory" in capsys.readouterr().err
    assert not (empty / "report.html").exists()


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`claims quantities ... | head -1`: the reader leaves after one line."""
    texts = [d.text for d in load_documents([CORPUS])]
    inputs = tmp_path / "many.jsonl"
    with inputs.open("w", encoding="utf-8") as handle:  # far more output than a pipe buffers
        for n in range(3000):
            handle.write(json.dumps({"id": f"d{n}", "text": texts[n % len(texts)]}) + "\n")
    process = subprocess.Popen([sys.executable, "-m", "paper_claims", "quantities", str(inputs)], cwd=ROOT,
                               env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # what head does after its line
    err = process.stderr.read().decode()
    process.wait(60)
    process.stderr.close()
    assert json.loads(first)["doc_id"].startswith("d")
    assert err == "" and process.returncode == 141


def test_extract_and_quantities_take_format_and_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fakeserver import FakeServer

    snapshot = tmp_path / "snapshot.txt"  # a name that says text: --format says what it is
    snapshot.write_bytes((ROOT / "tests" / "data" / "formats" / "arxiv-metadata-oai-snapshot.json").read_bytes())
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-cli")
        code = cli.main(["extract", str(snapshot), "--format", "arxiv", "--where", "categories~cs.DC",
                         "--where", "categories!~cs.LG", "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 1  # the one record left has an empty abstract: an error row
    rows = [json.loads(line) for line in (tmp_path / "out" / "documents.jsonl").read_text().splitlines()]
    assert [(r["doc_id"], r["status"], r["error"]) for r in rows] == [("2105.00004", "error", "line 4: empty text")]
    assert "error 2105.00004: line 4: empty text" in capsys.readouterr().err
    assert cli.main(["quantities", str(snapshot), "--format", "arxiv", "--where", "id=2302.00002"]) == 0
    mentions = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {m["doc_id"] for m in mentions} == {"2302.00002"} and [m["text"] for m in mentions] == ["2.4x", "38%"]
    with pytest.raises(SystemExit):
        cli.main(["quantities", str(snapshot), "--format", "pdf"])


def test_each_command_calls_what_paper_claims_exports() -> None:
    """The command line stays thin: a command's handler imports only public names of the package
    (sqlite-utils' shape), so whatever a command does, a user can do from Python."""
    import ast
    import inspect

    import paper_claims

    for command, handler in cli.COMMANDS.items():
        tree = ast.parse(inspect.getsource(handler))
        imported = {(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names if (node.module or "").startswith("paper_claims")}
        assert imported, command
        for module, name in imported:
            assert name in paper_claims.__all__, f"claims {command} calls {module}.{name}, not exported by paper_claims"
            assert getattr(paper_claims, name) is getattr(importlib.import_module(module), name)
