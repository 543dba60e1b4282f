"""What identifies the code that turns a document into a result (part of the journal's run key)."""

from __future__ import annotations

import hashlib
import importlib.util
import re
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


_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M)


def _imported(module: str, path: Path, packages: tuple[str, ...]) -> set[str]:
    """The modules of our packages that ``module`` imports (absolute or relative, at any depth
    of the code). Read with two regular expressions rather than a parse: an import-like line
    in a docstring can only add a module, and this runs at every start."""
    source = path.read_text(encoding="utf-8")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for match in _IMPORT.finditer(source):
        names.update(part.split(" as ")[0].strip() for part in match.group(1).split(","))
    for match in _FROM.finditer(source):
        dots, base = match.group(1), match.group(2)
        if dots:
            parent = package.split(".")[: len(package.split(".")) - len(dots) + 1]
            base = ".".join(parent + ([base] if base else []))
        names.add(base)
        for part in match.group(3).strip("()").replace("\n", ",").split(","):
            name = part.split("#")[0].split(" as ")[0].strip()
            if name.isidentifier():
                names.add(f"{base}.{name}")
    return {name for name in names if name and name.split(".")[0] in packages}


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


ROOTS = ("paper_claims.tasks", "paper_claims.run.local")  # what turns a document into a result


@lru_cache(maxsize=None)
def code_version(roots: tuple[str, ...] = ROOTS, packages: tuple[str, ...] = PACKAGES) -> str:
    """Hash of the source of every module the ``roots`` load, of the data files of their
    packages (the word lists of ``parse/vocab``, the learned decisions) and of every prompt file: derived from the
    imports, so a new rule module, word or prompt changes it without anyone listing it."""
    digest = hashlib.sha256()
    modules: dict[str, Path] = {}
    for root in roots:
        modules.update(local_modules(root, packages))
    for name, path in sorted(modules.items()):
        digest.update(name.encode("utf-8") + b"\0" + path.read_bytes())
    # the data files beside the modules are code too: the vocabulary, the learned decisions
    for folder in sorted({path.parent for path in modules.values()}):
        for data in sorted(folder.iterdir()):
            if data.is_file() and data.suffix not in (".py", ".pyc"):
                digest.update(f"{folder.name}/{data.name}".encode("utf-8") + b"\0" + data.read_bytes())
    for prompt in sorted(resources.files("paper_claims.prompts").iterdir(), key=lambda p: p.name):
        if prompt.is_file() and not prompt.name.endswith((".py", ".pyc")):
            digest.update(prompt.name.encode("utf-8") + b"\0" + prompt.read_bytes())
    return digest.hexdigest()
