# paper-claims: `make run` extracts the sample corpus with the embedded model; `make test` runs the offline tests.
PYTHON ?= python3
VENV ?= .venv
# every dependency pinned (uv pip compile); `make lock` refreshes it
LOCK := requirements.lock
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
OUT ?= out
SAMPLE := examples/abstracts/*.txt
# dev3 is read where it lives (its texts come from pages under various licenses: never copied here)
DEV3 ?= ../shared/gold/dev3
# an editable install leaves the package's own modules uncompiled (a wheel install compiles
# them); bytecode saves every process, the parse worker included, ~70 ms of start-up, also
# where PYTHONDONTWRITEBYTECODE is set. Python ignores a .pyc older than its source.
COMPILE := $(PY) -m compileall -q extract schemas prompts > /dev/null

.PHONY: run test eval cassettes bench install-dev install-local lock clean
# `make eval NOTE=...` reaches the recipes as an environment variable, so a note with quotes or
# parentheses is passed as it is written
export NOTE

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.dev-installed: $(VENV)/bin/python pyproject.toml $(LOCK)
	$(PIP) install --quiet -c $(LOCK) -e '.[dev]'
	$(COMPILE)
	touch $@

# llama.cpp is compiled for a portable x86-64 instruction set (AVX2/FMA/F16C/BMI2), never -march=native;
# set CMAKE_ARGS to build your own way (e.g. CMAKE_ARGS="-DGGML_NATIVE=ON" make install-local).
$(VENV)/.local-installed: $(VENV)/bin/python pyproject.toml scripts/install_engine.sh $(LOCK)
	PAPER_CLAIMS_CONSTRAINTS=$(LOCK) bash scripts/install_engine.sh $(PY)
	$(PIP) install --quiet -c $(LOCK) -e '.[local]'
	$(COMPILE)
	touch $@

install-dev: $(VENV)/.dev-installed
install-local: $(VENV)/.local-installed

run: $(VENV)/.local-installed
	$(COMPILE)
	$(VENV)/bin/claims extract $(SAMPLE) --out $(OUT)

test: $(VENV)/.dev-installed
	$(PY) -m pytest -q

eval: $(VENV)/.local-installed $(VENV)/.dev-installed
	$(VENV)/bin/claims extract eval/gold/dev_inputs.jsonl --out eval/out/dev --no-report
	$(VENV)/bin/claims eval eval/out/dev --gold eval/gold/dev.jsonl --log eval/RESULTS.md --note "dev set (corpus abstracts) $${NOTE}"
	$(VENV)/bin/claims extract eval/gold/dev2/dev2_inputs.jsonl --out eval/out/dev2 --no-report
	$(VENV)/bin/claims eval eval/out/dev2 --gold eval/gold/dev2/dev2.jsonl --log eval/RESULTS.md --note "dev2 set (arXiv, outside the corpus) $${NOTE}"
	$(VENV)/bin/claims extract $(DEV3)/dev3_inputs.jsonl --out eval/out/dev3 --no-report
	$(VENV)/bin/claims eval eval/out/dev3 --gold $(DEV3)/dev3.jsonl --log eval/RESULTS.md --note "dev3 set (80 abstracts across fields, ../shared) $${NOTE}"

cassettes: $(VENV)/.local-installed $(VENV)/.dev-installed
	$(PY) scripts/record_cassettes.py

bench: $(VENV)/.dev-installed
	$(COMPILE)
	$(PY) benchmarks/overhead.py
	$(PY) benchmarks/overhead_cli.py
	$(PY) benchmarks/cached_rerun.py

lock: $(VENV)/bin/python
	$(PIP) install --quiet uv
	$(VENV)/bin/uv pip compile pyproject.toml --all-extras --universal --python-version 3.10 -o $(LOCK)

clean:
	rm -rf $(OUT) eval/out
