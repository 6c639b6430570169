# Flickboard — every target does its own set-up: `make demo` and `make test` work on a fresh clone.
# Set-up steps print what they do; failures print one plain sentence and stop.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.flickboard-installed
# Distribution packages the tests use (real parts, never mocks): the MQTT broker.
SYSTEM_PACKAGES := mosquitto mosquitto-clients
SYSTEM_COMMANDS := mosquitto

.PHONY: help setup system demo test unit lint typecheck clean

help:
	@echo "make demo   replay the bundled sample game and print the scoreboard"
	@echo "make test   lint, type-check and run every test (installs what it needs)"
	@echo "make lint | make typecheck | make unit | make clean"

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null || \
	  { echo "flickboard needs Python 3.11 or newer as '$(PYTHON)' (try: make PYTHON=python3.11 ...)."; exit 1; }
	@if [ ! -x $(BIN)/python ]; then \
	  echo "==> creating $(VENV)"; \
	  $(PYTHON) -m venv $(VENV) >/dev/null 2>&1 || { rm -rf $(VENV); \
	    echo "Could not create $(VENV): install the venv module (Debian/Ubuntu: apt-get install python3-venv) and run make again."; exit 1; }; \
	fi
	@echo "==> installing flickboard and its test tools into $(VENV)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]' || \
	  { echo "pip could not install flickboard's dependencies (see the lines above); check your network or proxy and run make again."; exit 1; }
	@touch $(STAMP)

# Installs the system packages the tests need, once, from the distribution.
system:
	@missing=""; for c in $(SYSTEM_COMMANDS); do \
	  command -v $$c >/dev/null 2>&1 || [ -x /usr/sbin/$$c ] || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "The tests need:$$missing. This is not a Debian/Ubuntu system: install them with your package manager, then run make again."; exit 1; fi; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "The tests need:$$missing. Installing it needs root: run 'sudo apt-get install -y $(SYSTEM_PACKAGES)', then make again."; exit 1; fi; \
	  echo "==> installing$$missing from the distribution packages"; \
	  { $$SUDO apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(SYSTEM_PACKAGES) >/dev/null; } || \
	    { echo "apt-get could not install $(SYSTEM_PACKAGES); see the messages above."; exit 1; }; \
	fi

demo: setup
	@$(BIN)/flickboard replay --sample

lint: setup
	@echo "==> ruff"
	@$(BIN)/ruff check host rules tests
	@$(BIN)/ruff format --check host rules tests >/dev/null || { $(BIN)/ruff format --diff host rules tests | head -40; \
	  echo "Formatting differs: run '$(BIN)/ruff format host rules tests'."; exit 1; }

typecheck: setup
	@echo "==> mypy (host, rules)"
	@$(BIN)/mypy

unit: setup system
	@echo "==> pytest"
	@$(BIN)/python -m pytest

test: lint typecheck unit

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
