"""The PIO edge counter on the hole beam (`"counter": "pio"`) on the emulated Pico (host/sim/rp2): a PIO state machine
counts the beam's edges beside the hard pin IRQ. Two edges 100 ns apart come faster than the IRQ handler runs: the
GPIO latches both before MicroPython's handler acknowledges them (about 0.2 µs after the first edge), the handler
runs once, the PIO counts two. The firmware must say so with a `count` event
(expected = edges the PIO counted, seen = edges the IRQ handler saw), and go on reporting passes."""

from __future__ import annotations

from rp2_board import Host, flashed

from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.parts import load_profile


def test_an_irq_lost_to_an_edge_burst_is_a_count_event() -> None:
    hole = next(s for s in load_profile("pico_w")["sensors"] if s["name"] == "hole")
    assert hole["counter"] == "pio"
    with Pico(flash=flashed("pico_w")) as board, Host(board, expect=("count",)) as host:
        host.hello()
        pin = board.wiring.beam("hole").pin
        t0 = board.hold() + 20_000
        broken = board.wiring.beam("hole").level(True)
        # A 0.1 µs spike: broken, then intact again, faster than the IRQ handler acknowledges the first edge.
        board.schedule([(t0, pin, broken), (t0 + 0.1, pin, 1 - broken)])
        board.schedule_beam("hole", t0 + 100_000, 1000)  # then an ordinary pass
        board.go("fast")
        count = host.wait_kind("count", n="hole")
        assert (count.fields["expected"], count.fields["seen"]) == (2, 1)
        passes = [m for m in host.events("pass") if m.fields["n"] == "hole"]
        if not passes:
            passes = [host.wait_kind("pass", n="hole")]
        assert len(passes) == 1 and abs(passes[0].fields["dur_us"] - 1000) <= 5


def test_edges_the_irq_sees_are_not_a_count_event() -> None:
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        host.hello()
        t0 = board.hold() + 20_000
        for k in range(5):  # 70 ms apart: beyond the hole's rebound_ms (60), each break is a pass of its own
            board.schedule_beam("hole", t0 + 70_000 * k, 500)
        board.go("fast")
        host.collect(lambda: len(host.events("pass")) >= 5)
        assert not host.events("count")
        assert not [m for m in host.events("fault") if m.fields.get("n") == "hole"]


def test_a_lost_edge_of_a_scenario_is_a_count_event() -> None:
    """The simulated board's scenario format: `lost` makes an edge burst before the edge (host/sim/rp2/scenario.py)."""
    with Pico(flash=flashed("pico_w")) as board, Host(board, expect=("count",)) as host:
        host.hello()
        t0 = board.hold() + 20_000
        board.play({"events": [{"at_ms": 0, "beam": "hole", "dur_us": 2000, "lost": "start"}]}, t0)
        board.go("fast")
        count = host.wait_kind("count", n="hole")
        # The burst's three edges against one IRQ (plus the clear edge on both sides if the main loop looked later).
        assert count.fields["expected"] - count.fields["seen"] == 2, count.fields
        assert count.fields["expected"] in (3, 4), count.fields
