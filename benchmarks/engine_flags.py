"""Seconds per abstract for llama.cpp builds with different instruction sets, as a user runs it.

Each ``--python`` is an interpreter whose environment holds one build of llama-cpp-python (for
example .venv with the portable AVX2 build, and a second venv built with other CMAKE_ARGS). For
each, the whole ``claims extract`` command runs on the same abstracts of the sample corpus (those
with numbers), answer cache off, against the same verified model file; the first build is the
reference. Usage:

    python benchmarks/engine_flags.py --python .venv/bin/python --python /tmp/avx512/bin/python [--limit 8]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.engines.modelfile import default_model_path, resolve_model  # noqa: E402
from paper_claims.parse.quantities import find_quantities  # noqa: E402
from paper_claims.settings import default_cache_dir  # noqa: E402
from paper_claims.sources.files import load_documents  # noqa: E402


def _build_flags(python: str) -> str:
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
    info = subprocess.run([python, "-c", code], capture_output=True, text=True).stdout
    return " ".join(f for f in info.replace("|", " ").split() if f.endswith("= 1") or "=" not in f)[:200] or info[:200]


def _run(python: str, inputs: Path, model: Path) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        target = default_model_path(cache)
        target.parent.mkdir(parents=True)
        os.link(model, target)
        shutil.copy(model.with_name(model.name + ".verified.json"), target.with_name(target.name + ".verified.json"))
        env = {**os.environ, "CLAIMS_CACHE_DIR": str(cache), "CLAIMS_ENGINE_LOCK": str(Path(tmp) / "lock")}
        started = time.perf_counter()
        done = subprocess.run([python, "-m", "paper_claims.cli", "extract", str(inputs), "--out", str(Path(tmp) / "out"),
                               "--no-cache", "--quiet", "--no-report"], cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{python}: claims extract failed: {done.stderr[-800:]}")
    summary = next((line for line in done.stderr.splitlines() if "LLM calls" in line), "")
    return wall, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", required=True, help="an interpreter with one engine build")
    parser.add_argument("--limit", type=int, default=8, help="abstracts with numbers (default 8)")
    args = parser.parse_args()
    docs = [d for d in load_documents([ROOT / "examples/abstracts"]) if find_quantities(d.text)][: args.limit]
    model = resolve_model(None, default_cache_dir())
    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "abstracts.jsonl"
        inputs.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in docs))
        reference = None
        for python in args.python:
            wall, summary = _run(python, inputs, model)
            per = wall / len(docs)
            reference = reference or per
            tokens = re.search(r"(\d+)\+(\d+) tokens", summary)
            print(f"{python}: {per:6.2f} s per abstract over {len(docs)} abstracts (whole command, {wall:.1f} s; "
                  f"{tokens.group(0) if tokens else '?'}), ratio to the first build {per / reference:.3f}")
            print(f"    build: {_build_flags(python)}")


if __name__ == "__main__":
    main()
