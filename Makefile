# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

export PREFECT_SERVER_ANALYTICS_ENABLED = false
export HF_HUB_OFFLINE = 1

.PHONY: demo test test-slow test-all install install-dev clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch first, pinned: with it in place, sentence-transformers takes the CPU build instead of CUDA's.
# pip compiles what it installs one file at a time (66 of the install's 142 s here); compileall does it on
# every core afterwards (52 s on two). Left to the first imports instead, every process of the first test
# run compiled the same modules again (2.5 minutes more). A few packages ship files that are not Python 3
# (test data, templates) and never imported: compileall reports them and exits 1, which is not a failure here.
PIP := $(BIN)/python -m pip install --quiet --no-compile
COMPILE := $(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null 2>&1 || true

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) torch==2.13.0
	$(PIP) -e .
	$(COMPILE)
	@touch $@

$(DEVSTAMP): $(STAMP)
	$(PIP) -e '.[dev]'
	$(COMPILE)
	@touch $@

install: $(STAMP)
install-dev: $(DEVSTAMP)

demo: $(STAMP)
	$(BIN)/zhbench run

# Two pytest-xdist workers, each handed whole files (a module's fixtures built once), the longest first
# (tests/conftest.py: FIRST); they share one demo run.
test: $(DEVSTAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

test-slow: $(DEVSTAMP)
	$(BIN)/python -m pytest -q -m slow

test-all: $(DEVSTAMP)
	$(BIN)/python -m pytest -q -m ''

clean:  # releases are sealed read-only: their directories made writable first, so that rm can empty them
	if [ -d zhbench-data ]; then chmod -R u+w zhbench-data; fi
	rm -rf $(VENV) zhbench-data
