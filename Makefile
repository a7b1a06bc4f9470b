# One entry point for people and CI: `make run` and `make test` work from a clean clone.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/humangr review examples/actions --exit-zero

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check contracts engine actors agents tests examples
	$(BIN)/mypy --strict

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
