#!/usr/bin/env bash
# Build the wheel and sdist, check them, install the wheel into a clean venv and use it:
# `claims --help`, and one extraction (with its report) against the fake OpenAI-compatible server.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
"$PY" -m pip install --quiet -c requirements.lock build twine check-wheel-contents
"$PY" -m build --outdir "$work/dist" . >/dev/null
"$PY" -m twine check --strict "$work"/dist/*
"$PY" -m check_wheel_contents "$work"/dist/*.whl
# one import name: the wheel installs paper_claims (and its metadata), nothing generic
top=$("$PY" -c 'import sys, zipfile; print(" ".join(sorted({n.split("/")[0] for n in zipfile.ZipFile(sys.argv[1]).namelist()})))' "$work"/dist/*.whl)
echo "top-level names in the wheel: $top"
case "$top" in "paper_claims paper_claims-"*".dist-info") ;; *) echo "unexpected top-level names: $top" >&2; exit 1 ;; esac
# every module and data file ships: a subpackage or a file pyproject.toml leaves out shows only here
"$PY" scripts/check_wheel_files.py "$work"/dist/*.whl
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet -c requirements.lock "$work"/dist/*.whl
"$work/venv/bin/claims" --help >/dev/null
(cd "$work" && "$work/venv/bin/python" -m paper_claims --help >/dev/null)
"$PY" tests/fakeserver.py --port 0 > "$work/server.out" &
server_pid=$!
for _ in $(seq 50); do grep -q READY "$work/server.out" && break; sleep 0.1; done
url=$(awk '/READY/ {print $2}' "$work/server.out")
printf '%s\n' '{"id": "w1", "text": "Our system runs 3.1x faster than vLLM on 8 A100 GPUs."}' > "$work/in.jsonl"
(cd "$work" && OPENAI_API_KEY=sk-dist CLAIMS_CACHE_DIR="$work/cache" "$work/venv/bin/claims" extract in.jsonl \
    --base-url "$url" --out out --quiet)
grep -q '"doc_id": "w1"' "$work/out/claims.jsonl"
# the report's page assets are package data: the installed wheel's report carries its stylesheet
grep -qF "$(head -1 extract/outputs/static/report.css)" "$work/out/report.html" \
  || { echo "the installed wheel's report lacks outputs/static/report.css" >&2; exit 1; }
echo "dist ok: wheel and sdist built and checked; the installed wheel extracted a claim and wrote its report"
