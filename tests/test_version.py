"""paper_claims.run.version: the code version is derived from what the runner imports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paper_claims.run.version import code_version, local_modules


def test_every_module_on_the_pipeline_path_is_covered() -> None:
    modules = {**local_modules("paper_claims.tasks"), **local_modules("paper_claims.run.local")}
    for name in ("paper_claims.parse.quantities", "paper_claims.parse.marks", "paper_claims.parse.vocab",
                 "paper_claims.parse.name_words", "paper_claims.rules.selection", "paper_claims.rules.kinds",
                 "paper_claims.rules.names", "paper_claims.rules.descriptions",
                 "paper_claims.rules.devices", "paper_claims.rules.system",
                 "paper_claims.rules.attributes", "paper_claims.rules.baselines", "paper_claims.rules.metric",
                 "paper_claims.model.prompt", "paper_claims.model.answer", "paper_claims.text", "paper_claims.schemas.claims",
                 "paper_claims.tasks.claims", "paper_claims.tasks.schema", "paper_claims.tasks.filled",
                 "paper_claims.rules.votes", "paper_claims.decisions.decide", "paper_claims.decisions.model",
                 "paper_claims.run.asking"):
        assert name in modules
    assert "paper_claims.outputs.report" not in modules and "paper_claims.cli" not in modules  # outputs only


def test_a_new_module_imported_anywhere_below_the_root_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "toypkg"
    (package / "rules").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rules" / "__init__.py").write_text("")
    (package / "runner.py").write_text("from toypkg.step import go\n")
    (package / "step.py").write_text("from .rules import deep\nimport json\n")
    (package / "rules" / "deep.py").write_text("from ..unused_name import x\n")
    (package / "report.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = local_modules("toypkg.runner", packages=("toypkg",))
    assert set(found) == {"toypkg.runner", "toypkg.step", "toypkg.rules", "toypkg.rules.deep"}
    for name in [n for n in sys.modules if n.startswith("toypkg")]:
        del sys.modules[name]


def test_code_version_is_what_another_process_computes_afresh() -> None:
    """The run key's code version hangs on the code alone: not on the first computation this
    process cached, nor on its string hashing."""
    code = "from paper_claims.run.version import code_version; print(code_version())"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "7"}).stdout.strip()
    assert other == code_version() == code_version.__wrapped__() and len(other) == 64


def test_a_data_file_of_a_package_on_the_path_changes_the_code_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "toyvocab"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "devices.txt").write_text("GPU\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = code_version.__wrapped__(("toyvocab",))
    (package / "devices.txt").write_text("GPU\nTPU\n")
    assert code_version.__wrapped__(("toyvocab",)) != first
    for name in [n for n in sys.modules if n.startswith("toyvocab")]:
        del sys.modules[name]


def test_the_learned_decisions_are_part_of_the_code_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new packaged decisions file changes every run key: journaled results of the old
    decisions are not reused."""
    package = tmp_path / "toypkg"
    (package / "decisions").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "runner.py").write_text("from toypkg.decisions.model import load\n")
    (package / "decisions" / "__init__.py").write_text("")
    (package / "decisions" / "model.py").write_text("def load(): pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    version = lambda: code_version.__wrapped__(("toypkg.runner",), ("toypkg",))  # noqa: E731 - uncached
    before = version()
    (package / "decisions" / "decisions.json").write_text('{"format": 1}')
    after = version()
    (package / "decisions" / "decisions.json").write_text('{"format": 1, "kind": {}}')
    assert len({before, after, version()}) == 3
    for name in [n for n in sys.modules if n.startswith("toypkg")]:
        del sys.modules[name]
