# Every target sets itself up: a fresh clone needs only `make demo` or `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The HTML report's test opens it in a headless browser; installed once (the machine runs as root).
BROWSER_STAMP := $(VENV)/.chromium
# The PostgreSQL state tests start a throw-away server (bridge/localpg.py) from the distribution's binaries.
PG_STAMP := $(VENV)/.postgresql

.PHONY: test check demo fleet-demo bench soak lint types format clean

$(STAMP): requirements.lock pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

$(BROWSER_STAMP): | $(STAMP)
	command -v chromium || (apt-get update && apt-get install -y chromium)
	touch $(BROWSER_STAMP)

$(PG_STAMP): | $(STAMP)
	ls /usr/lib/postgresql/*/bin/initdb || (apt-get update && apt-get install -y postgresql)
	touch $(PG_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bridge mappings state tests bench conformance
	$(BIN)/ruff format --check bridge mappings state tests bench conformance

types: $(STAMP)
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format bridge mappings state tests bench conformance
	$(BIN)/ruff check --fix bridge mappings state tests bench conformance

check: lint types

test: check $(BROWSER_STAMP) $(PG_STAMP)
	$(BIN)/pytest -n 2 -q

demo: $(STAMP)
	$(BIN)/bridge demo

# Six workspaces, two workers, one killed mid-run, on a throw-away PostgreSQL (bridge fleet demo --help).
fleet-demo: $(STAMP) $(PG_STAMP)
	$(BIN)/bridge fleet demo

bench: $(STAMP) $(PG_STAMP)
	$(BIN)/python -m bench

# Long runs kept out of `make test`: bridge mode's watch killed 20 times at random while legacy changes, then an
# hour of edits every second with its memory and state measured (the figures are printed).
soak: $(STAMP)
	SYNC_KILLS=20 SOAK_SECONDS=3600 $(BIN)/pytest -q -s -p no:randomly tests/sync/test_sync_kills.py tests/sync/test_soak.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
