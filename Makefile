# Driftproof: two commands a newcomer needs.
#   make reports   validate the committed receipts and build the public site into site/
#   make test      run the test suite
# Both create .venv and install the pinned dependencies (requirements.lock) themselves.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
export SOURCE_DATE_EPOCH ?= 1764374400
export MPLBACKEND := Agg

.PHONY: reports test test-slow lint venv clean bench

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@echo "Installing the pinned dependencies into $(VENV): about a minute the first time."
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

reports: $(STAMP)
	$(BIN)/driftproof reports build --receipts receipts --reports reports --out-dir site

# two workers (pytest-xdist), one test file each at a time; a bare `pytest` runs in one process
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# the minutes-long stress tests (24 builds killed at random moments), left out of make test
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

# ruff holds docstrings to the Google convention; mypy --strict the receipt, statistics and page
# models; lint-imports the layers of ARCHITECTURE.md ([tool.importlinter] in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy --strict driftproof/receipt driftproof/stats driftproof/pages
	$(BIN)/lint-imports --no-cache --no-logo

# every script runs even when one fails; the failed ones are named at the end (exit 1)
bench: $(STAMP)
	@failed=""; for f in benchmarks/*.py; do echo "== $$f"; \
	  $(BIN)/python $$f || failed="$$failed $$f"; done; \
	if [ -n "$$failed" ]; then echo "make bench: failed:$$failed" >&2; exit 1; fi

clean:
	rm -rf site .pytest_cache .driftproof-cache
