# Attention Lab — run / test / lint / bench.
# Works on a fresh clone with only python3.11 (or python3) and make: the first target
# that needs it creates .venv and installs the requirements into it.
# Installs are stamped (one stamp per requirements file, kept inside .venv), so a second
# `make test` installs nothing unless a requirements file changed since.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
PORT   ?= 8501
# Extra arguments for pytest, e.g. make test PYTEST_ARGS='-m "not e2e"'. `make test` also prints its 25 slowest tests
# (where CI's time goes: the aim is 15 minutes).
PYTEST_ARGS ?=
# Test processes (pytest-xdist). Each file's tests run in one process (--dist loadfile), so a browser file keeps its
# own app server and Chromium. A browser test waits for the browser and its app server between steps, and a third
# process fills those waits on the 2-core CI machine: `make test`, `test-lesson` and `test-all` run WORKERS (3);
# `make test-fast`, whose tests only compute, runs FAST_WORKERS (2, one a core). 0: one process (README,
# "Development"; figures: docs/testing.md).
# --no-loadscope-reorder: the files are handed out in collection order, browser files first (tests/conftest.py).
WORKERS ?= 3
FAST_WORKERS ?= 2
xdist    = $(if $(filter 0,$(1)),,-n $(1) --dist loadfile --no-loadscope-reorder)
XDIST   := $(call xdist,$(WORKERS))

RUN_STAMP := $(VENV)/.stamp-requirements.txt
DEV_STAMP := $(VENV)/.stamp-requirements-dev.txt

.PHONY: help run test test-fast test-lesson test-all lint bench venv install install-dev vendor-plotly

help:
	@echo "make run    - start the app on http://localhost:$(PORT) (creates .venv if needed)"
	@echo "make test   - run the test suite (unit, AppTest, real-browser e2e): what CI runs"
	@echo "make test-fast - everything but the real-browser tests (the inner loop)"
	@echo "make test-lesson KEY=qkv - every fast and browser test that touches one lesson"
	@echo "make test-all - make test with the exhaustive browser matrix (every slider, size, language, scheme)"
	@echo "make lint   - ruff check"
	@echo "make bench  - run every script in benchmarks/"
	@echo "make replicas - two app processes behind nginx on loopback, a class through them (docs/deploy.md)"
	@echo "make vendor-plotly - refresh the chart component's plotly.js to the installed plotly's version (needs npm)"

$(PY):
	@if [ -z "$(PYTHON)" ]; then echo "ERROR: neither python3.11 nor python3 found on PATH" >&2; exit 1; fi
	@echo "Creating $(VENV) with $(PYTHON) ($$($(PYTHON) --version 2>&1))"
	$(PYTHON) -m venv $(VENV)

venv: $(PY)

# Order-only dependency on the interpreter: a recreated .venv has no stamps, so it re-installs.
$(RUN_STAMP): requirements.txt | $(PY)
	$(PIP) install --quiet -r requirements.txt
	@touch $@

# requirements-dev.txt includes requirements.txt (-r), so it also satisfies the run stamp.
$(DEV_STAMP): requirements-dev.txt requirements.txt | $(PY)
	$(PIP) install --quiet -r requirements-dev.txt
	@touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

run: $(RUN_STAMP)
	$(PY) -m streamlit run app.py --server.port $(PORT)

# pytest exit codes: 0 ok, 1 failures, 5 no tests collected. 5 is a failure here, with a clear message.
test: $(DEV_STAMP)
	@rc=0; $(PY) -m pytest -q $(XDIST) --durations=25 $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then \
	  echo "ERROR: pytest collected no tests (exit code 5). Treating that as a failure: check testpaths and test file names." >&2; \
	fi; \
	exit $$rc

test-fast: $(DEV_STAMP)
	$(PY) -m pytest -q -m "not e2e" -p no:cacheprovider $(call xdist,$(FAST_WORKERS)) $(PYTEST_ARGS)

# Every test that touches one registered lesson: its own files and every registry-wide suite on it
# (tests/lesson_select.py says how a test is tied to a lesson).
test-lesson: lesson-key $(DEV_STAMP)
	$(PY) -m pytest -q $(XDIST) --durations=10 --lesson $(KEY) $(PYTEST_ARGS)

.PHONY: lesson-key
lesson-key:
	@if [ -z "$(KEY)" ]; then echo "usage: make test-lesson KEY=<lesson key>, e.g. KEY=qkv" >&2; exit 2; fi

# make test with the exhaustive browser matrix (ATTN_LAB_EXHAUSTIVE=1, tests/e2e/helpers.exhaustive): before a release
# or a Streamlit upgrade (docs/upgrading-streamlit.md). Not run by CI.
test-all: $(DEV_STAMP)
	ATTN_LAB_EXHAUSTIVE=1 $(PY) -m pytest -q $(XDIST) --durations=25 $(PYTEST_ARGS)

lint: $(DEV_STAMP)
	$(PY) -m ruff check .

bench: $(DEV_STAMP)
	@shopt -s nullglob; scripts=(benchmarks/*.py); \
	if [ $${#scripts[@]} -eq 0 ]; then echo "No scripts in benchmarks/."; exit 0; fi; \
	for s in "$${scripts[@]}"; do \
	  echo "== $$s"; \
	  PYTHONPATH=. $(PY) "$$s" || exit $$?; \
	done

# Two app processes behind nginx (deploy/nginx.conf) on loopback, a class of 120 through them (docs/deploy.md).
.PHONY: replicas
replicas: $(DEV_STAMP)
	PYTHONPATH=. $(PY) benchmarks/replicas_load.py $(REPLICAS_ARGS)

# plotly.js for the chart component: the cartesian bundle of the same plotly.js version as the installed plotly
# package (see ui/plot_component/assets/vendor/README.md). Needs npm; the result is committed.
vendor-plotly: $(RUN_STAMP)
	@v=$$(head -c 200 $$($(PY) -c 'import plotly, pathlib; print(pathlib.Path(plotly.__file__).parent / "package_data/plotly.min.js")') | sed -n 's/.*plotly.js v\([0-9.]*\).*/\1/p'); \
	d=$$(mktemp -d); echo "plotly.js $$v"; \
	(cd $$d && npm pack --silent plotly.js-cartesian-dist-min@$$v && tar xzf *.tgz) && \
	cp $$d/package/plotly-cartesian.min.js ui/plot_component/assets/vendor/ && \
	cp $$d/package/LICENSE ui/plot_component/assets/vendor/plotly-LICENSE.txt && rm -rf $$d && \
	sed -i "s/version [0-9.]*,/version $$v,/" ui/plot_component/assets/vendor/README.md
