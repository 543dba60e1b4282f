"""What identifies the code that turns a document into a result (part of the journal's run key)."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Optional

PACKAGES = ("paper_claims",)


def _source(module: str) -> Optional[Path]:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, AttributeError):  # a name imported from a module, not a module
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _imported(module: str, path: Path, packages: tuple[str, ...]) -> set[str]:
    """The modules of our packages that ``module`` imports (absolute or relative)."""
    names: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name.split(".")[0] in packages}


def local_modules(root: str, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of our packages that ``root`` loads, directly or not, with its source file."""
    found: dict[str, Path] = {}
    pending = [root]
    while pending:
        name = pending.pop()
        if name in found:
            continue
        path = _source(name)
        if path is None:  # a name imported from a module, not a module
            continue
        found[name] = path
        pending.extend(n for n in _imported(name, path, packages) if n not in found)
    return found


ROOTS = ("paper_claims.pipeline", "paper_claims.run.local")  # what turns a document into a result


@lru_cache(maxsize=None)
def code_version(roots: tuple[str, ...] = ROOTS) -> str:
    """Hash of the source of every module the ``roots`` load and of every prompt file: derived
    from the imports, so a new rule module or prompt changes it without anyone listing it."""
    digest = hashlib.sha256()
    modules: dict[str, Path] = {}
    for root in roots:
        modules.update(local_modules(root))
    for name, path in sorted(modules.items()):
        digest.update(name.encode("utf-8") + b"\0" + path.read_bytes())
    for prompt in sorted(resources.files("paper_claims.prompts").iterdir(), key=lambda p: p.name):
        if prompt.is_file() and not prompt.name.endswith((".py", ".pyc")):
            digest.update(prompt.name.encode("utf-8") + b"\0" + prompt.read_bytes())
    return digest.hexdigest()
