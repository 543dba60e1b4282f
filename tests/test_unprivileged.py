"""The README's quick start as an ordinary user runs it (issue 40): a clone, a venv, the install,
``claims extract`` against a stand-in for the endpoint (``tests/fakeserver.py``), with the user's
own HOME and cache in a temporary folder and umask 022. Root reads any file, so a mode that
only root can read (the tables came out 0o022) shows only here; CI runs as root, so the test
drops to uid 65534 with ``setpriv`` (or ``runuser``), and runs as itself where it is no root.

The install is the README's, offline: ``python3 -m venv .venv`` (without pip) and ``pip install
-e .`` with ``--no-deps --no-index --no-build-isolation``; the dependencies (and pip and
setuptools) are those of this test environment, through a ``.pth`` file, or linked into the
temporary folder where the user cannot reach them (a checkout inside a private folder).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Iterator, Optional

import pytest

from paper_claims.schemas.columns import CLAIM_COLUMNS
from tests.fakeserver import FakeServer

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534
CLONE_FILES = ("pyproject.toml", "README.md", "extract", "schemas", "prompts", "examples/abstracts")
OUTPUTS = ("claims.csv", "claims.jsonl", "documents.jsonl", "claims.db", "report.html")


def quick_start() -> list[str]:
    """The commands of the README's quick start block, comments left off."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start with an API key", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "the README's quick start has no sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def _as_user() -> list[str]:
    """The command prefix that runs a program as an unprivileged user ([] when this is one)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv"):
        prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    elif shutil.which("runuser"):
        prefix = ["runuser", "-u", _user_name(NOBODY), "--"]
    else:
        pytest.skip("neither setpriv nor runuser is installed: no unprivileged user can be made")
    try:
        probe = subprocess.run([*prefix, "/bin/sh", "-c", "id -u"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot run a program as uid {NOBODY}: {e}")
    if probe.returncode != 0 or probe.stdout.strip() != str(NOBODY):
        pytest.skip(f"cannot run a program as uid {NOBODY}: {probe.stderr.strip()}")
    return prefix


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        pytest.skip(f"no user with uid {uid}: runuser needs a name")
        raise


def _umask_022() -> None:  # pragma: no cover - runs in the child
    os.umask(0o022)


def run_as(prefix: list[str], args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=_umask_022)


def _make_venv(prefix: list[str], clone: Path, env: dict[str, str]) -> str:
    """``python3 -m venv .venv`` (without pip) as the user, with a Python of this version the user
    can run: ``python3`` on the user's PATH, ``pythonX.Y`` there, or this test's own; its path."""
    version = "%d.%d" % sys.version_info[:2]
    candidates = [shutil.which(name, path=env["PATH"]) or "" for name in ("python3", f"python{version}")]
    candidates += [os.path.realpath(sys.executable), getattr(sys, "_base_executable", ""), sys.executable]
    for candidate in dict.fromkeys(c for c in candidates if c):
        shutil.rmtree(clone / ".venv", ignore_errors=True)
        made = run_as(prefix, [candidate, "-m", "venv", "--without-pip", ".venv"], clone, env)
        probe = run_as(prefix, [".venv/bin/python", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                       clone, env)
        if made.returncode == 0 and probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    pytest.skip(f"no Python {version} that uid {NOBODY if prefix else os.geteuid()} can make a venv with "
                "(the test environment's interpreter is in a private folder)")
    raise AssertionError


def _site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def _dependencies() -> list[importlib.metadata.Distribution]:
    """The distributions the package needs without extras, and pip and setuptools, installed here."""
    from packaging.requirements import Requirement

    def requirements(dist: importlib.metadata.Distribution) -> Iterator[str]:
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                yield requirement.name

    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [*requirements(importlib.metadata.distribution("paper-claims")), "pip", "setuptools"]
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in found:
            continue
        try:
            found[name] = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        todo.extend(requirements(found[name]))
    return list(found.values())


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _reachable_dependencies(prefix: list[str], python: str, home: Path, env: dict[str, str]) -> Path:
    """A folder the user can import the dependencies from: this environment's site-packages,
    or the files of the distributions linked (else copied) into ``home``."""
    site = _site_packages()
    probe = run_as(prefix, [python, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); "
                                                "import pydantic, openai, sqlite_utils, pip, setuptools"], home, env)
    if probe.returncode == 0:
        return site
    copied = home / "site-packages"
    for dist in _dependencies():
        for name in dist.files or []:
            source = Path(str(dist.locate_file(name)))
            if source.is_file() and not str(name).startswith(".."):
                _link_or_copy(source, copied / name)
    return copied


@pytest.fixture()
def workspace() -> Iterator[Path]:
    """A temporary folder the unprivileged user owns (pytest's own is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="paper-claims-user-"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _give(path: Path, uid: int) -> None:
    if os.geteuid() == 0:
        for folder, dirs, files in os.walk(path):
            for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                os.lchown(name, uid, uid)


def test_the_quick_start_runs_as_an_ordinary_user_and_every_output_is_readable(workspace: Path) -> None:
    setup, export, extract = quick_start()
    assert setup.startswith("python3 -m venv .venv && .venv/bin/pip install -e .")
    assert export.startswith("export OPENAI_API_KEY=")
    assert extract == ".venv/bin/claims extract examples/abstracts/ --out out/ --model gpt-4o-mini"
    prefix = _as_user()
    home, clone = workspace / "home", workspace / "paper-claims"
    home.mkdir()
    for name in CLONE_FILES:  # the files of a clone the quick start reads
        source, target = ROOT / name, clone / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.egg-info"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PIP_CONFIG_FILE": os.devnull,
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    _give(workspace, NOBODY)
    python = _make_venv(prefix, clone, env)
    dependencies = _reachable_dependencies(prefix, python, home, env)
    _give(home, NOBODY)
    purelib = run_as(prefix, [".venv/bin/python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     clone, env)
    Path(purelib.stdout.strip(), "test-dependencies.pth").write_text(f"{dependencies}\n", encoding="utf-8")
    installed = run_as(prefix, [".venv/bin/python", "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                                "--no-build-isolation", "-e", "."], clone, env)
    assert installed.returncode == 0, installed.stderr

    with FakeServer() as server:
        env.update(OPENAI_API_KEY="sk-quick-start", OPENAI_BASE_URL=server.base_url)
        first = run_as(prefix, shlex.split(extract), clone, env)
        assert first.returncode == 0, first.stderr
        out = clone / "out"
        assert "Wrote out/claims.csv, claims.jsonl" in first.stderr
        for name in OUTPUTS:
            assert stat.S_IMODE((out / name).stat().st_mode) == 0o644, name
        read = run_as(prefix, [python, "-I", "-c", _READ_EVERYTHING], out, env)
        assert read.returncode == 0, read.stderr
        assert read.stdout.split() == [",".join(CLAIM_COLUMNS), "ok"]
        claims = sum(1 for _ in (out / "claims.jsonl").open(encoding="utf-8"))

        again = run_as(prefix, shlex.split(extract), clone, env)
        assert again.returncode == 0, again.stderr
        assert "129 resumed" in again.stderr and "0 LLM calls" in again.stderr
        read = run_as(prefix, [python, "-I", "-c", _READ_EVERYTHING], out, env)
        assert read.returncode == 0, read.stderr
        assert sum(1 for _ in (out / "claims.jsonl").open(encoding="utf-8")) == claims > 0
    owners = {path.stat().st_uid for path in out.iterdir()}
    assert owners == {NOBODY if prefix else os.geteuid()}


# what the user does next: `head out/claims.csv`, every file read, the README's queries of claims.db
_READ_EVERYTHING = """
import os, sqlite3, sys
print(open("claims.csv", encoding="utf-8").readline().strip())
for folder, _, files in os.walk("."):
    for name in files:
        with open(os.path.join(folder, name), "rb") as handle:
            handle.read()
db = sqlite3.connect("claims.db")
assert db.execute("select count(*) from claims").fetchone()[0] > 0
assert db.execute("select evidence from claims_fts where claims_fts match 'throughput'").fetchall()
print("ok")
"""
