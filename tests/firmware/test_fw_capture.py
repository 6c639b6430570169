"""Firmware capture path: IRQ ring, allocation-free handler, reconciliation, 10,000 events in a board-sized heap.

Scripts are portable Python run by CPython (firmware/ on sys.path) and by the real MicroPython unix port
(tests/support/firmware_runner.py). Heap proofs need MicroPython: micropython.heap_lock() makes any allocation
raise MemoryError, and gc.mem_alloc() measures the live heap.
"""

from __future__ import annotations

import pytest
from firmware_runner import APP_PRELUDE, BOARD_HEAP, SENSOR_PRELUDE, check_micropython, run_on

IMPLS = ["cpython", "micropython"]

PRELUDE = (
    SENSOR_PRELUDE
    + """
from fb.compat import IS_MICROPYTHON
from fb.detect import SETTLE_US
from fb.ring import Ring, EdgeIrq
"""
)


def run_both(impl: str, body: str, heapsize: str = "256k", timeout: float = 120) -> str:
    out = run_on(impl, PRELUDE + body + "\nprint('DONE')\n", heapsize, timeout)
    assert out.strip().endswith("DONE"), out
    return out


@pytest.mark.parametrize("impl", IMPLS)
def test_ring_fifo_and_overflow_drops_newest_and_counts(impl: str) -> None:
    run_both(
        impl,
        """
from array import array
try:
    Ring(6)
    raise AssertionError("size must be a power of two")
except ValueError:
    pass
r = Ring(8)
i = 0
while i < 20:
    r.push(i % 3, i & 1, 1000 + i)
    i += 1
assert len(r) == 8 and r.overflow == 12 and r.high_water == 8
out = array("i", [0, 0, 0])
got = []
while r.pop_into(out):
    got.append((out[0], out[1], out[2]))
assert got == [(k % 3, k & 1, 1000 + k) for k in range(8)], got   # the oldest kept, the newest dropped
assert not r.pop_into(out) and len(r) == 0
# head/tail stay bounded (small ints) however many entries pass through
k = 0
while k < 1000:
    r.push(0, 1, (1 << 30) - 1)
    r.pop_into(out)
    k += 1
assert 0 <= r.head < 16 and 0 <= r.tail < 16 and out[2] == (1 << 30) - 1
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_overflow_in_a_burst_is_counted_and_visible(impl: str) -> None:
    run_both(
        impl,
        """
b = SimBoard()
b.pin(2, 0)
s = Sensors([beam()], b, emit, Uptime(), ring_size=8)
t = 1000
while t < 1000 + 20 * 10:        # 20 edges while the main loop is busy elsewhere
    b.at(t, 2, (t // 10 + 1) & 1)
    t += 10
b.advance(2000)
assert s.dropped == 12, s.dropped
s.step()
assert s.ring.high_water == 8
""",
    )


def test_irq_handler_allocates_nothing_under_heap_lock() -> None:
    """The real handler, as wired by Sensors on the simulated board, called 5,000 times with the heap locked.

    Both paths (ring has room, ring full) run; an allocation anywhere in them raises MemoryError.
    """
    out = check_micropython(
        PRELUDE
        + """
import micropython
b = SimBoard()
b.pin(2, 0)
s = Sensors([beam(counter="pio")], b, emit, Uptime(), ring_size=64)
pin = b.pins[2]
h = pin.handler                     # exactly what Pin.irq() was given
assert h == s.irqs[0].handler
n = 0
micropython.heap_lock()
try:
    while n < 5000:
        pin.level = n & 1
        h(pin)
        n += 1
finally:
    micropython.heap_unlock()
assert len(s.ring) == 64 and s.dropped == 5000 - 64, (len(s.ring), s.dropped)
assert s.irqs[0].edges == 5000
# and a dry run proving heap_lock really catches an allocation here
micropython.heap_lock()
try:
    x = [n]
    caught = False
except MemoryError:
    caught = True
micropython.heap_unlock()
assert caught
print("DONE")
""",
        heapsize=BOARD_HEAP,
    )
    assert out.strip().endswith("DONE")


@pytest.mark.parametrize("impl", IMPLS)
def test_lost_irq_is_reported_as_count_and_beam_resyncs(impl: str) -> None:
    run_both(
        impl,
        """
b = SimBoard()
b.pin(2, 0)
b.pin(3, 0)
s = Sensors([beam(counter="pcnt"), beam(name="ditch1", pin=3, counter="pio")], b, emit, Uptime())
b.beam(2, 1000, 800)
b.beam(2, 10000, 800, lost="end")     # the clear edge's IRQ never runs
b.beam(3, 20000, 900, lost="both")    # a whole pass missed by the CPU
run(b, s, 50000)
assert ("pass", "hole", 1000, {"dur_us": 800}) in EV
counts = [e for e in EV if e[0] == "count"]
assert counts[0][1] == "hole" and counts[0][3] == {"expected": 1, "seen": 0}, EV   # the break edge agreed
assert counts[1][1] == "ditch1" and counts[1][3] == {"expected": 2, "seen": 0}, EV
# once both counts have stood still for SETTLE_US after the lost edge (at 10.8 ms)
assert 10800 + SETTLE_US <= counts[0][2] <= 10800 + SETTLE_US + 500, counts
assert len(counts) == 2
assert s.live()["hole"] == "clear"    # re-synchronised to the live pin: no false stuck later
run(b, s, 3000000, step=5000)
assert not [e for e in EV if e[0] in ("stuck", "count") and e[2] > 50000], EV
b.beam(2, 3100000, 700)
run(b, s, 3200000)
assert EV[-1] == ("pass", "hole", 3100000, {"dur_us": 700}), EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_no_count_event_when_nothing_is_lost(impl: str) -> None:
    run_both(
        impl,
        """
b = SimBoard()
b.pin(2, 0)
s = Sensors([beam(counter="pcnt")], b, emit, Uptime())
t = 1000
while t < 200000:
    b.beam(2, t, 500 + t % 300)
    t += 3000
run(b, s, 210000)
assert EV and all(e[0] == "pass" for e in EV), EV
assert s.recs[0][1].mismatches == 0
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_ten_thousand_passes_in_a_board_sized_heap_without_growth(impl: str) -> None:
    run_both(
        impl,
        """
import gc
state = {"n": 0, "bad": 0}
def count_emit(kind, sensor, t_us, fields):
    n = state["n"]
    if kind != "pass" or fields["dur_us"] != 500 + (n % 7) * 100 or t_us != 1000 + n * 5000:
        state["bad"] += 1
    state["n"] = n + 1
b = SimBoard((1 << 30) - 20000)     # and the tick clock wraps early in the run
b.pin(2, 0)
s = Sensors([beam(counter="pio")], b, count_emit, Uptime(), ring_size=64)
mem = [0, 0]   # pre-allocated: the measurement itself must not allocate between the two readings
i = 0
while i < 10000:
    b.beam(2, 1000 + i * 5000, 500 + (i % 7) * 100)
    end = (i + 1) * 5000
    while b.now < end:
        b.advance(1000)
        s.step()
    i += 1
    if i == 1000 or i == 10000:
        gc.collect()
        if IS_MICROPYTHON:
            mem[i // 10000] = gc.mem_alloc()
assert state["n"] == 10000 and state["bad"] == 0, state
assert s.dropped == 0 and s.ring.high_water <= 2, (s.dropped, s.ring.high_water)
assert s.recs[0][1].mismatches == 0
if IS_MICROPYTHON:
    assert mem[1] <= mem[0], mem
    print("mem", mem[0], mem[1])
""",
        heapsize=BOARD_HEAP,
        timeout=300,
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hardware_seam_imports_without_hardware(impl: str) -> None:
    run_both(
        impl,
        """
from fb import pins
assert pins.Pin is None and pins.make_counter(2, None) is None
for kind, words in (("pio", "needs an RP2040"), ("pcnt", "needs 1.26 or newer")):
    try:
        pins.make_counter(2, kind)
        raise AssertionError("a counter without hardware")
    except pins.NoCounter as e:
        assert words in str(e), e
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_overflow_resyncs_beams_to_their_pins_and_sends_a_fault(impl: str) -> None:
    """A burst fills the ring while the main loop is busy; the newest edges (the beam clearing) are dropped. Before:
    the hole beam stayed broken in the detector and became `stuck` with the pin clear. Now every beam adopts its
    live level, nothing is invented, and a fault says how many edges were lost."""
    run_both(
        impl,
        """
FAULTS = []
b = SimBoard()
b.pin(2, 0)
s = Sensors([beam(stuck_ms=1500)], b, emit, Uptime(), ring_size=8, fault=lambda code, msg: FAULTS.append((code, msg)))
t = 1000
for k in range(21):                       # 21 edges, 10 us apart: the beam ends broken... then clears
    b.at(t + 10 * k, 2, (k + 1) & 1)
b.at(t + 1000, 2, 0)                      # the beam clears for good: this edge is lost too (ring full)
b.advance(2000)                           # the main loop was busy for all of it
assert s.dropped == 14, s.dropped
run(b, s, 2000000, step=1000)
assert FAULTS == [("irq_overflow", "14 sensor edges lost: the main loop fell behind; beams re-read their pins")], FAULTS
assert "stuck" not in [e[0] for e in EV], EV
assert s.live()["hole"] == "clear"
b.beam(2, 2100000, 800)
run(b, s, 2200000, step=1000)
assert EV[-1] == ("pass", "hole", 2100000, {"dur_us": 800}), EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_times_stay_small_ints_and_right_across_the_epoch(impl: str) -> None:
    """A board up for hours: on a 32-bit port µs since boot would be heap ints after 18 minutes, an allocation in
    every pass. The time scale moves on every 256 s (compat.Uptime); a beam break that spans the move, a stuck beam
    and a puck's rest keep their right times and durations, and the wire's `t` is still µs since boot."""
    run_both(
        impl,
        APP_PRELUDE
        + """
from fb.compat import EPOCH_US
CFG = {"board_id": "long", "profile": "pico_w", "outbox_size": 64, "heartbeat_ms": 60000,
       "sensors": [beam(stuck_ms=1500),
                   {"name": "baseline", "kind": "hall", "count": 8, "pins": [10, 11, 12, 13, 14, 15, 16, 17],
                    "mux": None, "active_low": True, "settle_ms": 60, "quadrants": 4, "rest_window_ms": 2500}]}
b = SimBoard()
b.pin(2, 0)
STRIP = b.strip(CFG["sensors"][1])
STRIP.set(1, True)
start = 3 * EPOCH_US - 1000000          # 1 s before the scale moves for the first time (2 * EPOCH_US of scale)
sink = Sink(keep=True)
app = App(Settings(CFG), b, 1, "test", sink, uptime=Uptime(start))
assert app.uptime.base == EPOCH_US and app.uptime.now() < 2 * EPOCH_US
b.beam(2, 500000, 1000000)               # a break of 1 s from 0.5 s: it spans the move at 1 s
b.beam(2, 3000000, 2000000)              # stuck after 1.5 s, cleared after 2 s
STRIP.at(6000000, 1, False)              # a shot, then its puck stops on the baseline
STRIP.at(6500000, 5, True)
t = 0
while t < 8000000:
    t += 1000
    b.run_until(t)
    app.step()
    assert app.uptime.now() < 2 * EPOCH_US, "the scale never leaves the small ints"
assert app.uptime.base == 2 * EPOCH_US
got = [(l.split('"m":"')[1].split('"')[0], int(l.split('"t":')[1].split(",")[0])) for l in sink.lines
       if '"m":"heartbeat"' not in l]
durs = [int(l.split('"dur_us":')[1].split(",")[0].rstrip("}")) for l in sink.lines if '"dur_us"' in l]
assert got == [("hello", start), ("pass", start + 500000), ("stuck", start + 4500000), ("clear", start + 5000000),
               ("shot_start", start + 6000000), ("baseline_rest", start + 6500000)], got
assert durs == [1000000, 2000000], durs
""",
    )
