# Two commands for a fresh machine: `make run` and `make test`.
# Each creates .venv and installs what it needs if it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The exact version of every package the suite last passed with (`make lock` rewrites it).
LOCK := requirements.lock
EXTRAS := test,tui,dev

.PHONY: run test check bench lock clean

# The locked packages first (pip and setuptools included), then the project itself,
# editable, without resolving anything again: what runs is what the lock says.
$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -r $(LOCK)
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
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

# Lint, format and types (configured in pyproject.toml): all three report, then any failure fails.
# mypy runs twice: strict over the packages and the benchmarks, then the tests with their own
# config (tests/mypy.ini: imports resolved the way pytest's prepend mode does); the
# per-directory conftests all named `conftest` get one pass each.
TEST_CONFTESTS := $(filter-out tests/web/% tests/tui/%,$(wildcard tests/*/conftest.py))
check: $(STAMP)
	status=0; \
	$(BIN)/ruff check . || status=1; \
	$(BIN)/ruff format --check . || status=1; \
	$(BIN)/mypy || status=1; \
	$(BIN)/mypy --config-file tests/mypy.ini || status=1; \
	for conftest in $(TEST_CONFTESTS); do $(BIN)/mypy --config-file tests/mypy.ini $$conftest || status=1; done; \
	exit $$status

bench: $(STAMP)
	$(BIN)/python bench/rules_bench.py

# Resolve pyproject.toml's ranges afresh in a throwaway venv and write the exact versions
# to the lock; then run `make test` (which reinstalls from the new lock) before committing it.
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --upgrade pip setuptools
	$(LOCK_VENV)/bin/python -m pip install -q -e '.[$(EXTRAS)]'
	{ echo "# Exact versions for 'make' (pip install -r); regenerate with 'make lock'."; \
	  $(LOCK_VENV)/bin/python -m pip freeze --all --exclude-editable; } > $(LOCK)
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) $(LOCK_VENV) build *.egg-info
