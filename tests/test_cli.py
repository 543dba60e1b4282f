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
from tests.test_bad_input import server  # noqa: F401 - the fixture: the fake server as the endpoint

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "examples" / "abstracts"
DATA = ROOT / "tests" / "data" / "formats"
FIRST = sorted(CORPUS.glob("*.txt"))[0]


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


# --- issue 40: the smaller things a new user met ---------------------------------------------

def test_error_rows_of_an_api_page_name_the_item(tmp_path: Path) -> None:
    works = [json.loads(line) for line in (DATA / "openalex_works.jsonl").read_text(encoding="utf-8").splitlines()]
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"meta": {"count": 3}, "results": works}, indent=2), encoding="utf-8")
    errors = [d.error for d in load_documents([page]) if d.error]
    assert errors == ["item 3: no abstract (abstract_inverted_index is null)"]  # was "the document, item 3: ..."


def test_an_out_folder_written_with_a_slash_is_named_once(tmp_path: Path, server: object,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = f"{tmp_path / 'out'}/"
    assert cli.main(["extract", str(FIRST), "--out", out, "--quiet", "--no-report"]) == 0
    err = capsys.readouterr().err
    assert f"Wrote {tmp_path / 'out' / 'claims.csv'}, claims.jsonl" in err and "//" not in err


def test_only_errors_a_rerun_can_fix_say_rerun_the_same_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    no_column = tmp_path / "papers.csv"
    no_column.write_text("id,body\n1,It runs 3x faster.\n", encoding="utf-8")
    assert cli.main(["extract", str(no_column), "--out", str(tmp_path / "a"), "--quiet"]) == 2
    first = capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # an OpenAI model and no key
    assert cli.main(["extract", str(FIRST), "--out", str(tmp_path / "b"), "--model", "gpt-4o-mini",
                     "--quiet"]) == 2
    second = capsys.readouterr().err
    for err in (first, second):
        assert len(err.splitlines()) == 1 and "rerun the same command" not in err, err
        assert "(kept in the output journal; the same command resumes once this is fixed)" in err
    assert "CSV header has no 'text' or 'abstract' column" in first and "set OPENAI_API_KEY" in second
    from paper_claims.errors import EndpointDown, StorageError
    from paper_claims.run.runner import resume_hint

    assert resume_hint(EndpointDown("down")) == resume_hint(StorageError("disk full")) == (
        "kept in the output journal; rerun the same command to resume")


def test_a_schema_module_in_the_working_folder_loads_as_python_m_would(tmp_path: Path, server: object) -> None:
    package = tmp_path / "work" / "myschemas"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "speed.py").write_text(
        "from typing import Literal, Optional\n"
        "from paper_claims import ClaimSchema, Span\n\n\n"
        "class Speed(ClaimSchema):\n"
        '    """A speed result."""\n\n'
        '    kind: Literal["speed"]\n'
        "    device: Optional[Span] = None\n", encoding="utf-8")
    launcher = tmp_path / "bin" / "claims"  # what the installed console script does: sys.path[0] is its folder
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom paper_claims.cli import main\nsys.exit(main())\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(launcher), "extract", str(FIRST), "--out", "out",
                          "--schema", "myschemas.speed:Speed", "--quiet", "--no-report"],
                         cwd=package.parent, env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "speed" in (package.parent / "out" / "claims.csv").read_text(encoding="utf-8")


def test_every_argument_has_a_help_text_and_there_is_a_version(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse
    import importlib.metadata

    parser = cli._parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {action.dest}" for name, sub in commands.choices.items() for action in sub._actions
               if not action.help]
    assert missing == []
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"claims {importlib.metadata.version('paper-claims')}"


def test_quantities_says_which_records_it_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = DATA / "library.bib"
    out = tmp_path / "q.jsonl"
    assert cli.main(["quantities", str(bib), "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("Wrote ") and err[1:] == [
        "2 of 5 records skipped (no text to parse):",
        "  skipped nguyen2022survey: entry nguyen2022survey (line 26): no abstract field",
        "  skipped library#3: line 32: bad BibTeX entry (aborted on line 36: Unexpected block start: `@article`. "
        "Was still looking for field-value closing `}`)"]
    assert cli.main(["quantities", str(bib)]) == 0
    assert capsys.readouterr().err.splitlines()[0] == "2 of 5 records skipped (no text to parse):"


def test_bibtexparsers_warnings_are_the_rows_reason_not_stray_lines(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "paper_claims", "quantities", str(DATA / "library.bib")], cwd=ROOT,
                         env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0
    assert "Parsing of" not in run.stderr and "syntactical error" not in run.stderr  # were two lines of bibtexparser's
    assert "skipped library#3: line 32: bad BibTeX entry (aborted on line 36:" in run.stderr
