"""The API in a real Jupyter kernel, where researchers call it (nbclient runs the cells)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import FakeServer

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parent.parent


def test_extract_claims_and_the_table_in_a_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    with FakeServer() as server:
        cells = [
            "import asyncio; asyncio.get_running_loop()  # a kernel runs cells inside an event loop",
            "from paper_claims import extract_claims, aextract_claims\n"
            f"opts = dict(base_url={server.base_url!r}, api_key='sk-nb', use_cache=False)\n"
            "table = extract_claims('Our system runs 3.1x faster than vLLM on 8 A100 GPUs.', **opts)\n"
            "assert len(table.documents) == 1 and not table.errors, table.errors",
            "table2 = await aextract_claims([{'id': 'r1', 'text': 'It reaches 81.2% accuracy.'}], **opts)\n"
            "assert [d.doc_id for d in table2.documents] == ['r1']",
            "table",
        ]
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = notebook.cells[-1].outputs[0]["data"]
    assert "text/html" in shown and "<mark>3.1x</mark>" in shown["text/html"]
    assert server.total_requests == 2


def test_the_quickstart_notebook_runs_in_a_real_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/quickstart.ipynb as a user runs it (here against the fake server, offline)."""
    notebook = nbformat.read(ROOT / "examples" / "quickstart.ipynb", as_version=4)
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-quickstart")
        monkeypatch.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "cache"))
        nbclient.NotebookClient(notebook, timeout=180, kernel_name="python3",
                                resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    counts = code[0].outputs[0]["data"]["text/plain"]
    documents, claims = (int(n) for n in counts.strip("()").split(","))
    assert documents == 2 and claims >= 3  # rows came back for both abstracts
    frame = code[1].outputs[0]["data"]["text/html"]  # the claims DataFrame
    assert "<table" in frame and "3.1x" in frame and "81.2%" in frame
    assert "a1" in code[2].outputs[0]["data"]["text/html"]  # a DataFrame as input, ids kept
    shown = code[3].outputs[0]["data"]["text/html"]  # the table's own HTML
    assert "<mark>3.1x</mark>" in shown
    assert server.total_requests == 3


def _run_cells(cells: list[str], tmp_path: Path) -> list[Any]:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    return notebook.cells


@pytest.mark.parametrize("widgets", [True, False])
def test_extractor_progress_in_a_notebook_is_a_widget_or_a_quiet_text_bar(
        widgets: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Extractor.extract shows its progress as the notebook's widget when ipywidgets is there,
    else as a text bar, and never tqdm's "IProgress not found" warning."""
    if widgets:
        pytest.importorskip("ipywidgets")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    with FakeServer() as server:
        hide = "" if widgets else "import sys; sys.modules['ipywidgets'] = None  # a kernel without ipywidgets\n"
        cells = _run_cells([
            hide + "from paper_claims import Extractor\n"
            f"extractor = Extractor(base_url={server.base_url!r}, api_key='sk-nb', use_cache=False)",
            "table = extractor.extract(['It runs 3.1x faster on 8 A100 GPUs.', 'It reaches 81.2% accuracy.'])\n"
            "extractor.close()\n"
            "assert len(table.documents) == 2 and not table.errors",
        ], tmp_path)
    outputs = cells[1].outputs
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "IProgress" not in text and "TqdmWarning" not in text
    shown = [o for o in outputs if o.get("output_type") == "display_data"]
    if widgets:
        assert any("application/vnd.jupyter.widget-view+json" in o["data"] for o in shown), outputs
    else:
        assert not shown and "2/2" in text  # the text bar, on stderr
