"""The package's imports: no module imports another that (directly or not) imports it back,
and nothing imports a step later in the one-way flow sources -> parse -> (model | rules) ->
tasks -> run -> outputs; the model side and the rules never read each other.

The imports are read from the source: every ``import`` statement, also inside functions (a lazy
import still closes a circle at run time) and under ``if TYPE_CHECKING:`` (a type named from a
later step ties the two steps together all the same).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"extract": "paper_claims", "schemas": "paper_claims.schemas", "prompts": "paper_claims.prompts"}

# the one-way flow; the shared pieces (errors, text, settings, schemas, prompts) come first, the
# facade (api, extractor, cli) last
LAYERS = {
    "errors": 0, "text": 0, "settings": 0, "options": 0, "schemas": 0, "prompts": 0, "progress": 0,
    "engines": 1, "sources": 1, "parse": 2, "model": 3, "rules": 3, "decisions": 4, "tasks": 5, "run": 6,
    "outputs": 7, "evaluation": 7, "training": 8,
    "api": 9, "extractor": 10, "cli": 11, "__main__": 11,
}


def _modules() -> dict[str, Path]:
    modules = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            modules[".".join([package, *parts])] = path
    return modules


def import_graph() -> dict[str, set[str]]:
    """module -> the package modules it imports (a ``from a import b`` of a module b counts as a.b)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1]] if len(parts) > 1 else 10  # the package itself is the facade


def test_the_walker_sees_every_module_and_finds_a_circle() -> None:
    graph = import_graph()
    assert {"paper_claims.api", "paper_claims.run.ray", "paper_claims.schemas.columns"} <= set(graph)
    assert "paper_claims.run.runner" in graph["paper_claims.run.ray"]
    assert "paper_claims.run.runner" in graph["paper_claims.outputs.table"]  # RunStats, under TYPE_CHECKING
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_every_module_has_a_place_in_the_flow() -> None:
    unknown = sorted(m for m in import_graph() if len(m.split(".")) > 1 and m.split(".")[1] not in LAYERS)
    assert unknown == []


def test_no_module_imports_a_later_step() -> None:
    upward = sorted((m, t) for m, targets in import_graph().items() for t in targets
                    if _layer(t) > _layer(m))
    assert upward == []


def test_the_rules_read_only_the_parse_and_the_model_side_never_reads_the_rules() -> None:
    graph = import_graph()
    for module, targets in graph.items():
        steps = {target.split(".")[1] for target in targets if "." in target}
        if module.startswith("paper_claims.rules."):
            assert steps <= {"parse", "rules", "schemas", "text"}, module
        if module.startswith(("paper_claims.model.", "paper_claims.parse.")):
            assert "rules" not in steps, module
