"""How llama.cpp is built for this toolkit: the portable instruction set, and the command that
rebuilds the installed engine that way."""

from __future__ import annotations

import sys
from typing import Optional

#: The instruction set the install step builds llama.cpp for when no CMAKE_ARGS are given
#: (``scripts/install_engine.sh`` holds the same string; a test keeps them equal).
PORTABLE_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)


def engine_version() -> Optional[str]:
    """The installed llama-cpp-python version, or None when the engine is not installed."""
    from importlib import metadata

    try:
        return metadata.version("llama_cpp_python")
    except metadata.PackageNotFoundError:
        return None


def rebuild_command() -> str:
    """The exact command that reinstalls the engine built for the portable instruction set."""
    version = engine_version()
    spec = f"llama-cpp-python[server]=={version}" if version else "llama-cpp-python[server]"
    return (f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" {sys.executable} -m pip install '
            f'--force-reinstall --no-cache-dir --no-deps "{spec}"')
