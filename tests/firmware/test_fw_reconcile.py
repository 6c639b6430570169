"""The cross-check of a beam's hardware edge counter against the edges its IRQ handler saw (fb.detect.Reconciler and
the re-reading of a beam's pin after a `count`, fb.detect.Sensors), on the simulated board, under CPython and the real
MicroPython unix port.

This is where the ESP32's path is proven: its PCNT counts in hardware while its pin IRQs are soft (MicroPython's
scheduler runs them later), and there is no ESP32 to run here, so the simulated board stands for it
(`SimBoard(irq_delay_us=...)` runs each handler late, as the scheduler does). The PIO path on the real rp2 port is
tests/firmware/test_rp2_count.py, on the emulated Pico. Both go through the same Reconciler.

An edge is "in flight" while one side has counted it and the other not yet: a soft IRQ not run yet, or a counter that
shows its count late. A `count` event must mean edges were lost, never that they were in flight.
"""

from __future__ import annotations

import pytest
from firmware_runner import SENSOR_PRELUDE, run_on

IMPLS = ["cpython", "micropython"]

PRELUDE = (
    SENSOR_PRELUDE
    + """
from fb.simpins import SimCounter
from fb.detect import SETTLE_US
class Lcg:
    # the same numbers under CPython and MicroPython
    def __init__(self, seed):
        self.x = seed
    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n
class LateCounter:
    # A hardware counter whose count shows lag_us after the edge (as a PIO stepped late shows it).
    def __init__(self, board, lag_us):
        self.board = board
        self.lag = lag_us
        self.n = 0
        self.log = [(-1 << 40, 0)]
    @property
    def count(self):
        return self.n
    @count.setter
    def count(self, v):
        self.n = v
        self.log.append((self.board.now, v))
    def value(self):
        cut = self.board.now - self.lag
        while len(self.log) > 1 and self.log[1][0] <= cut:
            self.log.pop(0)
        return self.log[0][1]
class LateCounterBoard(SimBoard):
    def __init__(self, lag_us, **kw):
        SimBoard.__init__(self, **kw)
        self.lag = lag_us
    def make_counter(self, pin_no, kind, pin=None):
        if not kind:
            return None
        c = LateCounter(self, self.lag)
        self.pin(pin_no).counters.append(c)
        return c
def passes():
    return [(e[2], e[3]["dur_us"]) for e in EV if e[0] == "pass"]
def others():
    return [e for e in EV if e[0] != "pass"]
"""
)


def run_both(impl: str, body: str, timeout: float = 180) -> str:
    # A heap with room for the scenario's own lists (the firmware's heap is proven elsewhere: test_fw_capture.py).
    out = run_on(impl, PRELUDE + body + "\nprint('DONE')\n", heapsize="2m", timeout=timeout)
    assert out.strip().endswith("DONE"), out
    return out


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("late", ["irq", "counter"])
def test_edges_in_flight_for_milliseconds_are_never_a_count(impl: str, late: str) -> None:
    """300 breaks of every width while one side runs late: soft IRQs 5 ms after their edges (an ESP32 whose main loop
    is busy), or a counter that shows an edge 8 ms late. Every break is a pass with its width; no `count`."""
    run_both(
        impl,
        f"""
LATE = {late!r}
if LATE == "irq":
    b = SimBoard(irq_delay_us=5000)
    widths = [6000, 7000, 9000, 12000, 20000]        # longer than the IRQ's delay: it reads the pin when it runs
    s_cfg = beam(counter="pcnt")
    slack = 5000
else:
    b = LateCounterBoard(8000)
    widths = [250, 300, 400, 700, 1000, 2000, 3500, 5000, 8000, 15000]
    s_cfg = beam(counter="pio")
    slack = 8000
b.pin(2, 0)
s = Sensors([s_cfg], b, emit, Uptime())
rng = Lcg(35)
t = 10000
want = []
for k in range(300):
    w = widths[rng.below(len(widths))] + rng.below(40)
    b.beam(2, t, w)
    want.append((t + (5000 if LATE == "irq" else 0), w))
    t += w + slack + 1500 + rng.below(25000)
run(b, s, t + 100000)
assert passes() == want, [p for p in passes() if p not in want][:5]
assert others() == [], others()[:5]
assert s.recs[0][1].mismatches == 0
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_a_count_reported_during_a_break_keeps_that_break(impl: str) -> None:
    """Breaks of 2 to 26 ms, each after a glitch whose two IRQs are lost: each is a real loss, reported as a `count`.
    Sending an event takes the board milliseconds (encoding, the USB write), and here the beam clears meanwhile for
    some of the lengths. The beam is then re-read against its pin: an edge that came in the meantime (in the ring, not
    yet seen by the detector) must not make it drop the break, so every break is still its pass, with its width."""
    run_both(
        impl,
        """
def slow_emit(kind, sensor, t_us, fields):
    emit(kind, sensor, t_us, fields)
    if kind == "count":
        b.advance(2500)              # the board is busy sending the event; edges keep coming, into the ring
b = SimBoard()
b.pin(2, 0)
s = Sensors([beam(counter="pcnt")], b, slow_emit, Uptime())
t = 10000
want = []
w = 2000
while w <= 26000:
    b.at(t - 20, 2, 1, lost=True)    # a glitch faster than the IRQ: both its edges lost to it
    b.at(t - 10, 2, 0, lost=True)
    b.beam(2, t, w)
    want.append((t, w))
    t += w + SETTLE_US + 40000
    w += 250
run(b, s, t + 100000)
got = passes()
assert got == want, ("lost", [p for p in want if p not in got][:5], "wrong", [p for p in got if p not in want][:5])
counts = [e[3] for e in EV if e[0] == "count"]
assert len(counts) == len(want), (len(counts), len(want))
assert all(c["expected"] - c["seen"] == 2 for c in counts), counts[:5]
assert [e for e in EV if e[0] not in ("pass", "count")] == []
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_an_edge_while_the_counter_is_first_read_is_not_a_count(impl: str) -> None:
    """The beam breaks just as the board reads its counter for the first time, at start: the counter and the IRQ
    count must not be taken as disagreeing from then on."""
    run_both(
        impl,
        """
class EdgeOnFirstRead(SimCounter):
    def __init__(self, board):
        SimCounter.__init__(self)
        self.board = board
        self.reads = 0
    def value(self):
        v = self.count
        self.reads += 1
        if self.reads == 1:
            self.board.pin(2).drive(1)   # the beam breaks right after the counter was read
        return v
class Board(SimBoard):
    def make_counter(self, pin_no, kind, pin=None):
        c = EdgeOnFirstRead(self)
        self.pin(pin_no).counters.append(c)
        return c
b = Board()
b.pin(2, 0)
s = Sensors([beam(counter="pcnt")], b, emit, Uptime())
b.at(3000, 2, 0)                     # the puck is through 3 ms later
b.beam(2, 100000, 1200)              # then another pass
run(b, s, 300000)
assert [e[0] for e in EV] == ["pass", "pass"], EV
assert EV[1][2:] == (100000, {"dur_us": 1200}), EV
assert s.recs[0][1].mismatches == 0
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_a_real_loss_is_reported_once_the_beam_is_still(impl: str) -> None:
    """Lost IRQs are still reported, and soon: once both counts have stood still for SETTLE_US after the pass that
    lost them, whether the IRQs are soft and late (ESP32) or not; each loss once, the passes around it untouched."""
    run_both(
        impl,
        """
for delay in (0, 3000):
    EV[:] = []
    b = SimBoard(irq_delay_us=delay)
    b.pin(2, 0)
    s = Sensors([beam(counter="pcnt")], b, emit, Uptime())
    b.beam(2, 10000, 5000)
    b.beam(2, 100000, 5000, lost="both")      # a whole pass the CPU never saw
    b.beam(2, 200000, 5000)
    b.at(299980, 2, 1, lost=True)             # a glitch lost to the IRQ just before a pass
    b.at(299990, 2, 0, lost=True)
    b.beam(2, 300000, 5000)
    run(b, s, 500000, step=500)
    got = [(e[0], e[2]) for e in EV]
    assert [k for k, _ in got] == ["pass", "count", "pass", "pass", "count"], (delay, EV)
    assert [e[3] for e in EV if e[0] == "count"] == [{"expected": 2, "seen": 0}, {"expected": 4, "seen": 2}], EV
    for (kind, t), quiet in ((got[1], 105000), (got[4], 305000 + delay)):
        assert quiet + SETTLE_US <= t <= quiet + SETTLE_US + 2000, (delay, kind, t)   # within a pass of the board
    assert [e[3]["dur_us"] for e in EV if e[0] == "pass"] == [5000, 5000, 5000], EV
""",
    )
