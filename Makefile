# One entry point for people and CI: `make run` and `make test` work from a clean clone.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SOURCES := humangr $(shell ./.ci/mapped-folders) tests examples

.PHONY: install run test lint clean browser screenshots

# PYTHONWARNINGS: setuptools' notes on editable installs are noise for users; the wheel test
# (tests/test_packaging.py) checks the layout.
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/humangr review examples/actions --exit-zero

# The inbox's browser tests need Debian's chromium: installed here if missing (never fails).
browser:
	./.ci/install-browser

test: $(STAMP) browser
	$(BIN)/python -m pytest

# The README's screenshots of the review inbox, taken by its browser test.
screenshots: $(STAMP) browser
	HUMANGR_SCREENSHOTS=1 $(BIN)/python -m pytest tests/inbox/test_inbox_browser.py

lint: $(STAMP)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	./.ci/typecheck-tree
	$(BIN)/mypy --strict
	./.ci/typecheck-tests

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .typecheck
