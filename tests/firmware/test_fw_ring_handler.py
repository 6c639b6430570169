"""The IRQ handler of fb.ring: the viper one (native code, compiled when fb.ring is imported on MicroPython) and the
plain-Python one (EdgeIrq.on_edge: CPython, and any MicroPython without a native emitter) behave the same, edge for
edge, through overflow and the counters' wrap; on MicroPython the viper one is in use, from the sources and from the
precompiled .mpy files a board runs. Its cost on the real rp2 port is figure 7 of docs/performance.md."""

from __future__ import annotations

import pytest
from firmware_runner import BOARD_HEAP, check_micropython, run_on

SAME = """
from fb import ring
from fb.ring import EdgeIrq, Ring


class Pin:
    level = 0

    def value(self):
        return self.level


ticks = [1000]


def clock():
    return ticks[0]


def make(size, idx):
    r = Ring(size)
    irq = EdgeIrq(r, idx)
    irq._clock = clock  # both handlers read this clock (the viper one closed over it below)
    if ring._make_viper is not None:
        irq.handler = ring._make_viper(r.m, irq._c, clock)
    return r, irq


fast_ring, fast = make(8, 3)
slow_ring, slow = make(8, 3)
pin = Pin()
seed = 7
k = 0
while k < 70000:  # past 2**16 edges: the counters wrap
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    pin.level = (seed >> 9) & 1
    ticks[0] = (ticks[0] + (seed >> 12) % 300) & 0x3FFFFFFF
    fast.handler(pin)
    slow.on_edge(pin)
    if (seed >> 5) % 3 == 0:  # the main loop drains now and then: the ring fills and overflows in between
        fast_ring.clear()
        slow_ring.clear()
    k += 1
assert list(fast_ring.m) == list(slow_ring.m), (list(fast_ring.m), list(slow_ring.m))
assert fast.edges == slow.edges == 70000 % 65536, (fast.edges, slow.edges)
assert 0 < fast_ring.overflow == slow_ring.overflow < 65536 and fast_ring.high_water == 8
print(ring.HANDLER)
"""


@pytest.mark.parametrize("impl", ["cpython", "micropython"])
def test_the_viper_and_the_python_handler_store_the_same(impl: str) -> None:
    out = run_on(impl, SAME, timeout=300).split()
    assert out[-1] == ("viper" if impl == "micropython" else "python"), out


def test_a_board_sized_heap_runs_the_precompiled_firmware_with_the_viper_handler() -> None:
    """The precompiled .mpy files (as on a board: mpy-cross without an architecture) still give the viper handler:
    it is compiled at import by MicroPython's own compiler."""
    out = check_micropython(
        "from fb import ring\nr = ring.Ring(4)\nh = ring.EdgeIrq(r, 1).handler\n"
        "print(ring.HANDLER, type(h).__name__, __import__('fb.ring').ring.__file__)",
        heapsize=BOARD_HEAP,
    )
    handler, kind, path = out.split()
    assert handler == "viper" and kind != "bound_method", out
    assert path.endswith(".mpy"), out
