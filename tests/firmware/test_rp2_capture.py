"""The capture path's defences on the emulated Pico (host/sim/rp2), the real rp2 port's hard IRQs: a burst of edge
chatter on the hole beam is never a pass (it was a false twenty), and an interrupt ring that overflows leaves every beam
on its pin's live level with a fault, never a false `stuck`."""

from __future__ import annotations

from rp2_board import IRQ_LATE_US, Host, flashed

from flickboard.sim.rp2 import Pico


def test_ten_ms_of_chatter_on_the_hole_beam_is_chatter_not_a_twenty() -> None:
    with Pico(flash=flashed("pico_w")) as board, Host(board, expect=("chatter", "fault:irq_overflow")) as host:
        host.hello()
        t0 = board.hold() + 20_000
        widths = [50, 150, 80, 120, 60, 140, 100, 90]
        t, n = t0, 0
        while t < t0 + 10_000:  # breaks of 50 to 150 us with 60 us between: none stays broken for min_pulse_us
            board.schedule_beam("hole", t, widths[n % len(widths)])
            t += widths[n % len(widths)] + 60
            n += 1
        board.schedule_beam("hole", t0 + 100_000, 2000)  # then a real pass
        board.go("fast")
        host.collect(lambda: bool(host.events("chatter")) and bool(host.events("pass")), timeout=60)
        chatter = host.events("chatter")
        passes = host.events("pass")
        assert len(passes) == 1 and abs(passes[0].fields["dur_us"] - 2000) <= 5, "the chatter made no pass"
        # 2n edges in 10 ms: more than the 64-entry ring holds if a pass of the main loop is long meanwhile; the
        # edges it could not keep are counted lost (a fault), the rest are the chatter.
        lost = sum(int(m.fields["msg"].split()[0]) for m in host.events("fault") if m.fields["code"] == "irq_overflow")
        assert len(chatter) == 1 and chatter[0].fields["bursts"] == 1, chatter
        assert chatter[0].fields["edges"] + lost >= 2 * n - 2, (chatter, lost, n)
        assert abs(passes[0].t_us - chatter[0].t_us - 100_000) <= IRQ_LATE_US, "each at the time of its first edge"


def test_an_overflowing_ring_resyncs_the_beams_and_says_so() -> None:
    """Edges every 40 us on the hole beam for 12 ms, far faster than the main loop drains them (an IRQ costs about
    26 us here): the 64-entry ring overflows. The beam ends clear, so it must not become `stuck`; a fault says how
    many edges were lost, and the next pass is seen as usual."""
    with Pico(flash=flashed("pico_w")) as board, Host(board, expect=("fault:irq_overflow", "chatter")) as host:
        host.hello()
        t0 = board.hold() + 20_000
        for k in range(150):  # 300 edges, the beam clear at the end
            board.schedule_beam("hole", t0 + k * 80, 40)
        board.schedule_beam("hole", t0 + 2_000_000, 3000)  # after the stuck limit (1.5 s) would have passed
        board.go("fast")
        host.collect(lambda: any(m.fields.get("dur_us") == 3000 for m in host.events("pass")), timeout=90)
        faults = [m for m in host.events("fault") if m.fields["code"] == "irq_overflow"]
        assert faults and "sensor edges lost" in faults[0].fields["msg"], host.events("fault")
        assert not host.events("stuck"), "a lost clear edge left the beam standing broken"
        status = host.command("status")
        assert status.fields["d"]["ring_drop"] > 0, status.fields
