"""The one-way flow of the rules' side: parse -> (rules | model) -> pipeline, read from the imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "extract"


def _imports(folder: str) -> dict[str, set[str]]:
    """The paper_claims modules each module of ``folder`` imports (at any depth of its code)."""
    found = {}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paper_claims"):
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names if alias.name.startswith("paper_claims")}
        found[str(path.relative_to(PACKAGE))] = names
    return found


def _layers(names: set[str]) -> set[str]:
    return {name.split(".")[1] for name in names if "." in name}


def test_rules_read_only_the_parse_the_schemas_and_the_text() -> None:
    for module, names in _imports("rules").items():
        assert _layers(names) <= {"parse", "rules", "schemas", "text"}, module


def test_the_model_side_never_reads_the_rules_and_the_parse_neither() -> None:
    for folder in ("model", "parse"):
        for module, names in _imports(folder).items():
            assert not _layers(names) & {"rules", "pipeline", "run", "outputs"}, module
        if folder == "parse":
            assert all("model" not in _layers(names) for names in _imports(folder).values())
