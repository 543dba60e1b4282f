# paper-claims: `make run` extracts the sample corpus with the embedded model; `make test` runs the offline tests.
PYTHON ?= python3
VENV ?= .venv
# every dependency pinned (uv pip compile); `make lock` refreshes it
LOCK := requirements.lock
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
OUT ?= out
SAMPLE := examples/abstracts/*.txt
# an editable install leaves the package's own modules uncompiled (a wheel install compiles
# them); bytecode saves every process, the parse worker included, ~70 ms of start-up, also
# where PYTHONDONTWRITEBYTECODE is set. Python ignores a .pyc older than its source.
COMPILE := $(PY) -m compileall -q extract schemas prompts > /dev/null

.PHONY: run test eval answers train cassettes bench install-dev install-local lock clean
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

# the annotated sets: dev and dev2 ship in eval/gold; dev3 and dev4 are read where they live
# (their texts come from pages under various licenses: never copied here)
SHARED ?= ../shared/gold
SETS := dev=eval/gold/dev_inputs.jsonl dev2=eval/gold/dev2/dev2_inputs.jsonl \
	dev3=$(SHARED)/dev3/dev3_inputs.jsonl dev4=$(SHARED)/dev4/dev4_inputs.jsonl
GOLD_dev := eval/gold/dev.jsonl
GOLD_dev2 := eval/gold/dev2/dev2.jsonl
GOLD_dev3 := $(SHARED)/dev3/dev3.jsonl
GOLD_dev4 := $(SHARED)/dev4/dev4.jsonl

# every annotated set extracted with the embedded model (a second time: from the answer cache)
answers: $(VENV)/.local-installed $(VENV)/.dev-installed
	@for spec in $(SETS); do name=$${spec%%=*}; \
	  $(VENV)/bin/claims extract $${spec#*=} --out eval/out/$$name --no-report --quiet || exit 2; done

# each set scored as extracted (the packaged decisions: learned on every set, in sample), then
# leave-one-set-out: the decisions learned on three sets, the fourth extracted with them and scored
eval: answers
	$(VENV)/bin/claims eval eval/out/dev --gold $(GOLD_dev) --log eval/RESULTS.md --note "dev set (corpus abstracts), in sample $${NOTE}"
	$(VENV)/bin/claims eval eval/out/dev2 --gold $(GOLD_dev2) --log eval/RESULTS.md --note "dev2 set (arXiv, outside the corpus), in sample $${NOTE}"
	$(VENV)/bin/claims eval eval/out/dev3 --gold $(GOLD_dev3) --log eval/RESULTS.md --note "dev3 set (80 abstracts across fields, ../shared), in sample $${NOTE}"
	$(VENV)/bin/claims eval eval/out/dev4 --gold $(GOLD_dev4) --log eval/RESULTS.md --note "dev4 set (90 abstracts, ../shared), in sample $${NOTE}"
	$(PY) eval/folds.py --log eval/RESULTS.md

# the packaged decisions (extract/decisions/decisions.json) and the examples they were learned
# from (examples.json.gz: feature rows and labels only), rebuilt deterministically from the
# annotated sets and the embedded model's answers
train: answers
	$(PY) -m paper_claims.training

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
