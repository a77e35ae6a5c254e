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
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(DEVSTAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
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

clean:
	rm -rf $(VENV) zhbench-data
