# Two commands for a fresh machine: `make run` and `make test`.
# Each creates .venv and installs what it needs if it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,tui]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/solrace serve $(ARGS)

# The browser tests (tests/web) drive Debian's chromium through playwright
# (installed by the test extras); install it when it is missing (CI runs as root).
CHROMIUM ?= /usr/bin/chromium
$(CHROMIUM):
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

test: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest $(ARGS)

bench: $(STAMP)
	$(BIN)/python bench/rules_bench.py

clean:
	rm -rf $(VENV) build *.egg-info
