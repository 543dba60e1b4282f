#!/usr/bin/env bash
# Install the embedded engine (llama-cpp-python[server]) into the given Python, built portably.
#
# llama.cpp compiles on install. By default it is built for a fixed, portable x86-64 instruction set
# (AVX2, FMA, F16C, BMI2; no -march=native, no AVX-512, no AMX), because a native build on a machine
# that advertises instructions its VM does not allow dies with SIGILL on the first long prompt.
# Pass your own CMAKE_ARGS to build differently (e.g. -DGGML_AVX512=ON, or -DGGML_CUDA=on).
#
# The built wheel is kept in a cache folder keyed by the version and the CMAKE_ARGS, so a rebuild
# happens once per set of flags (pip's own wheel cache ignores CMAKE_ARGS and could hand back a
# wheel built with other flags).
set -euo pipefail
PY=${1:?usage: install_engine.sh PYTHON}
VERSION=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
PORTABLE="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
export CMAKE_ARGS="${CMAKE_ARGS:-$PORTABLE}"
tag=$(printf '%s|%s' "$VERSION" "$CMAKE_ARGS" | sha256sum | cut -c1-12)
wheels="${PAPER_CLAIMS_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/paper-claims/wheels}/llama-cpp-python-$VERSION-$tag"
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "Building llama-cpp-python $VERSION (compiles llama.cpp: 7-9 minutes on 2 cores, once per set of flags)"
  echo "  CMAKE_ARGS=$CMAKE_ARGS"
  mkdir -p "$wheels.partial"
  "$PY" -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
      "llama-cpp-python==$VERSION" -w "$wheels.partial"
  printf '%s\n' "$CMAKE_ARGS" > "$wheels.partial/CMAKE_ARGS"
  rm -rf "$wheels" && mv "$wheels.partial" "$wheels"
fi
constraints=()
[ -n "${PAPER_CLAIMS_CONSTRAINTS:-}" ] && constraints=(-c "$PAPER_CLAIMS_CONSTRAINTS")
"$PY" -m pip install --quiet "${constraints[@]}" "$wheels"/llama_cpp_python-*.whl
"$PY" -m pip install --quiet "${constraints[@]}" "llama-cpp-python[server]==$VERSION"
