"""Beams on the emulated Pico (host/sim/rp2): pulses set at exact emulated times on the IR receivers' pins reach the
real rp2 port's hard pin IRQs; the firmware reports each pass with its width to the microsecond, filters a pulse shorter
than min_pulse_us, and reports a beam broken for longer than stuck_ms as `stuck`, then `clear`."""

from __future__ import annotations

from rp2_board import IRQ_LATE_US, Host, flashed

from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.parts import load_profile

PROFILE = load_profile("pico_w")
HOLE = next(s for s in PROFILE["sensors"] if s["name"] == "hole")


def test_passes_to_the_microsecond_and_a_glitch_filtered() -> None:
    # (start after t0, width) in µs: 5 ms, 1 ms and 0.3 ms passes, a 0.1 ms glitch, then a 2 ms pass that shows
    # the glitch was judged (had it been taken for a pass, it would come before this one).
    pulses = [(0, 5000), (100_000, 1000), (200_000, 300), (300_000, 100), (400_000, 2000)]
    assert HOLE["min_pulse_us"] > 100
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        host.hello()
        t0 = board.hold() + 50_000
        for at, width in pulses:
            board.schedule_beam("hole", t0 + at, width)
        board.go("fast")
        host.collect(lambda: len(host.events("pass")) >= 4)
        passes = [m for m in host.events("pass") if m.fields["n"] == "hole"]
        widths = [m.fields["dur_us"] for m in passes]
        expected = [w for _, w in pulses if w >= HOLE["min_pulse_us"]]
        assert len(widths) == len(expected), widths
        for got, want in zip(widths, expected, strict=True):
            assert abs(got - want) <= 5, (got, want)
        # The pass times keep the spacing of the pulses (the board's µs since its boot).
        starts = [m.t_us - passes[0].t_us for m in passes]
        for got, (at, _) in zip(starts, [p for p in pulses if p[1] >= HOLE["min_pulse_us"]], strict=True):
            assert abs(got - at) <= IRQ_LATE_US, (starts, pulses)


def test_every_beam_of_the_profile_is_wired() -> None:
    beams = [s["name"] for s in PROFILE["sensors"] if s["kind"] == "beam"]
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        host.hello()
        t0 = board.hold() + 20_000
        for k, name in enumerate(beams):
            board.schedule_beam(name, t0 + 10_000 * k, 1500)
        board.go("fast")
        host.collect(lambda: len(host.events("pass")) >= len(beams))
        got = [(m.fields["n"], m.fields["dur_us"]) for m in host.events("pass")]
        assert [n for n, _ in got] == beams
        assert all(abs(d - 1500) <= 5 for _, d in got), got


def test_a_beam_broken_too_long_is_stuck_then_clear() -> None:
    stuck_ms = HOLE["stuck_ms"]
    with Pico(flash=flashed("pico_w")) as board, Host(board, expect=("stuck", "clear")) as host:
        host.hello()
        t0 = board.hold() + 20_000
        board.schedule_beam("hole", t0, 1000)  # a pass first: it ties the board's clock to the rig's
        held_us = stuck_ms * 1000 + 700_000
        board.schedule_beam("hole", t0 + 100_000, held_us)
        board.go("fast")
        first = host.wait_kind("pass", n="hole")
        offset = first.t_us - t0  # board µs = rig µs + offset
        stuck = host.wait_kind("stuck", n="hole")
        assert stuck.fields["after_ms"] == stuck_ms
        assert abs(stuck.t_us - (t0 + 100_000 + stuck_ms * 1000 + offset)) <= 5
        clear = host.wait_kind("clear", n="hole")
        assert abs(clear.fields["dur_us"] - held_us) <= 5
        assert abs(clear.t_us - (t0 + 100_000 + held_us + offset)) <= 5
        assert [m.fields["n"] for m in host.events("pass")] == ["hole"]  # a stuck beam is not also a pass
