"""Check that a built wheel holds every module and data file of the source.

Usage: python scripts/check_wheel_files.py WHEEL

An editable install reads the source folders, so a subpackage missing from pyproject.toml's
``packages`` or a data file its ``package-data`` patterns miss goes unnoticed until a user installs
the wheel. Every ``*.py`` under a folder mapped to ``paper_claims`` (``package-dir``) and every
file a ``package-data`` pattern names must be in the wheel, under its import path.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: build, which check_dist.sh installs first, brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def source_folder(package: str, package_dir: dict[str, str]) -> Path:
    """The folder a package is read from: its own mapping, else its parent's, and so on."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        mapped = package_dir.get(".".join(parts[:cut]))
        if mapped is not None:
            return ROOT / mapped / Path(*parts[cut:])
    return ROOT / Path(*parts)


def expected_files(config: dict) -> set[str]:
    """The wheel paths of every module of every mapped folder and every package-data file."""
    tool = config["tool"]["setuptools"]
    package_dir, data = tool["package-dir"], tool.get("package-data", {})
    expected = set()
    for top in package_dir:
        root = source_folder(top, package_dir)
        for module in root.rglob("*.py"):
            relative = module.relative_to(root)
            if "__pycache__" in relative.parts:
                continue
            package = ".".join([top, *relative.parent.parts])
            if source_folder(package, package_dir) == module.parent:
                expected.add("/".join([*package.split("."), module.name]))
    for package, patterns in data.items():
        folder = source_folder(package, package_dir)
        for pattern in patterns:
            expected.update("/".join([*package.split("."), f.name]) for f in folder.glob(pattern) if f.is_file())
    return expected


def main(wheel: str) -> int:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = set(zipfile.ZipFile(wheel).namelist())
    expected = expected_files(config)
    missing = sorted(expected - shipped)
    if missing:
        print(f"the wheel lacks {len(missing)} file(s) of the source: {', '.join(missing[:10])}", file=sys.stderr)
        return 1
    print(f"the wheel holds every module and data file of the source ({len(expected)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
