"""Firmware detectors on the simulated board, under CPython AND the real MicroPython unix port.

Each scenario is one script (portable Python) run twice: by CPython with firmware/ on sys.path, and by
`micropython` with MICROPYPATH=firmware (tests/support/firmware_runner.py). The simulated board runs every IRQ
handler under micropython.heap_lock() there, so these runs also prove the handlers allocate nothing.
"""

from __future__ import annotations

import pytest
from firmware_runner import SENSOR_PRELUDE, run_on

IMPLS = ["cpython", "micropython"]

PRELUDE = (
    SENSOR_PRELUDE
    + """
def rig(cfgs, ticks0=0, ring=64):
    b = SimBoard(ticks0)
    for c in cfgs:
        if c["kind"] == "beam":
            b.pin(c["pin"], 1 if c.get("invert") else 0)  # beam intact at boot
    return b, cfgs
def start(b, cfgs, ring=64):
    return Sensors(cfgs, b, emit, Uptime(), ring)
def kinds():
    return [e[0] for e in EV]
"""
)


def run_both(impl: str, body: str) -> str:
    out = run_on(impl, PRELUDE + body + "\nprint('DONE')\n")
    assert out.strip().endswith("DONE"), out
    return out


@pytest.mark.parametrize("impl", IMPLS)
def test_half_millisecond_break_is_a_pass_with_its_duration(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam()])
s = start(b, cfgs)
b.beam(2, 10000, 500)
run(b, s, 20000)
assert EV == [("pass", "hole", 10000, {"dur_us": 500})], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_glitch_shorter_than_min_pulse_is_rejected(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(min_pulse_us=200)])
s = start(b, cfgs)
b.beam(2, 10000, 50)
b.beam(2, 30000, 199)
b.beam(2, 50000, 200)
run(b, s, 60000)
assert EV == [("pass", "hole", 50000, {"dur_us": 200})], EV
assert s.beams[0].glitches == 2
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_bounces_within_min_gap_merge_into_one_pass(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(min_gap_us=1000)])
s = start(b, cfgs)
# break, chatter at the edges (gaps 200 and 900 us), then a separate puck 1.2 ms after the last clear
b.beam(2, 10000, 100)
b.beam(2, 10300, 600)
b.beam(2, 11800, 400)
b.beam(2, 13400, 700)
run(b, s, 30000, step=100)
assert EV == [("pass", "hole", 10000, {"dur_us": 2200}), ("pass", "hole", 13400, {"dur_us": 700})], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_stuck_raised_by_poll_then_clear_without_pass(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(stuck_ms=1500)])
s = start(b, cfgs)
b.beam(2, 1000, 2000000)
run(b, s, 1400000, step=1000)
assert EV == [], EV
run(b, s, 1502000, step=1000)   # no edge since the break: poll(now) alone raises it
assert EV == [("stuck", "hole", 1501000, {"after_ms": 1500})], EV
assert s.live()["hole"] == "stuck"
run(b, s, 2100000, step=1000)
assert EV[1:] == [("clear", "hole", 2001000, {"dur_us": 2000000})], EV
assert "pass" not in kinds()
assert s.live()["hole"] == "clear"
# the beam works normally afterwards
b.beam(2, 2200000, 800)
run(b, s, 2300000, step=1000)
assert EV[2:] == [("pass", "hole", 2200000, {"dur_us": 800})], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_stuck_and_clear_between_two_polls_still_reported(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(stuck_ms=1500)])
s = start(b, cfgs)
b.beam(2, 1000, 1600000)
b.advance(1700000)   # main loop stalled for the whole break
s.step()
b.advance(2000)
s.step()
assert EV == [("stuck", "hole", 1501000, {"after_ms": 1500}), ("clear", "hole", 1601000, {"dur_us": 1600000})], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_invert(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(invert=True)])
assert b.pins[2].level == 1
s = start(b, cfgs)
b.beam(2, 5000, 700, broken=0)
run(b, s, 10000)
assert EV == [("pass", "hole", 5000, {"dur_us": 700})], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_ticks_wrap_during_a_break(impl: str) -> None:
    run_both(
        impl,
        """
from fb import compat
b, cfgs = rig([beam()], ticks0=(1 << 30) - 3000)
s = start(b, cfgs)
b.beam(2, 2800, 500)          # the tick counter wraps 200 us into the break
b.beam(2, 9000, 600)
run(b, s, 20000)
assert compat.ticks_us() < 20000   # the clock really wrapped
assert EV == [("pass", "hole", 2800, {"dur_us": 500}), ("pass", "hole", 9000, {"dur_us": 600})], EV
assert compat.ticks_diff(5, (1 << 30) - 5) == 10 and compat.ticks_diff((1 << 30) - 5, 5) == -10
assert compat.ticks_add((1 << 30) - 1, 2) == 1
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_two_beams_are_independent(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(), beam(name="ditch1", pin=3)])
s = start(b, cfgs)
b.beam(2, 1000, 3000)
b.beam(3, 2000, 600)
run(b, s, 10000)
assert sorted(EV) == [("pass", "ditch1", 2000, {"dur_us": 600}), ("pass", "hole", 1000, {"dur_us": 3000})], EV
""",
    )


HALL_SCENARIO = """
s = start(b, cfgs)
STRIP.at(50000, OTHER, True)       # a puck placed before any shot: no event
STRIP.at(100000, REST, False)      # the resting puck is flicked
STRIP.at(300000, LAND, True)       # a puck comes to rest on the baseline
STRIP.at(400000, 2, True)          # a puck slides over segment 2 for 20 ms: not at rest
STRIP.at(420000, 2, False)
run(b, s, 600000, step=1000)
assert EV == [
    ("shot_start", "baseline", 100000, {"q": Q_REST, "seg": REST}),
    ("baseline_rest", "baseline", 300000, {"q": Q_LAND, "seg": LAND}),
], EV
assert s.live()["baseline"] == sorted([OTHER, LAND])
"""


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_direct_pins_shot_start_and_rest_by_quadrant(impl: str) -> None:
    run_both(
        impl,
        """
cfgs = [{"name": "baseline", "kind": "hall", "count": 8, "pins": [10, 11, 12, 13, 14, 15, 16, 17], "mux": None,
         "active_low": True, "settle_ms": 60, "quadrants": 4}]
b = SimBoard()
STRIP = b.strip(cfgs[0])
REST, Q_REST, LAND, Q_LAND, OTHER = 5, 3, 1, 1, 7
STRIP.set(REST, True)            # resting on the baseline at boot
assert b.pins[15].level == 0     # active low
"""
        + HALL_SCENARIO,
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_through_two_multiplexers(impl: str) -> None:
    run_both(
        impl,
        """
cfgs = [{"name": "baseline", "kind": "hall", "count": 24, "pins": None,
         "mux": {"select": [20, 21, 22, 23], "signal": [24, 25], "enable": 26},
         "active_low": True, "settle_ms": 60, "quadrants": 4}]
b = SimBoard()
STRIP = b.strip(cfgs[0])
REST, Q_REST, LAND, Q_LAND, OTHER = 5, 1, 18, 4, 13
STRIP.set(REST, True)
"""
        + HALL_SCENARIO
        + """
assert b.pins[26].level == 0      # multiplexers enabled
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_active_high_and_flicker_settles(impl: str) -> None:
    run_both(
        impl,
        """
cfgs = [{"name": "baseline", "kind": "hall", "count": 4, "pins": [10, 11, 12, 13], "mux": None,
         "active_low": False, "settle_ms": 60, "quadrants": 4}]
b = SimBoard()
STRIP = b.strip(cfgs[0])
STRIP.set(0, True)
assert b.pins[10].level == 1
s = start(b, cfgs)
STRIP.at(10000, 0, False)
STRIP.at(40000, 0, True)     # magnet wobbles back within settle: still at rest
STRIP.at(45000, 0, False)
run(b, s, 200000, step=1000)
assert EV == [("shot_start", "baseline", 50000, {"q": 1, "seg": 0})], EV   # dated by the scan that saw it (10 ms)
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_mux_too_small_for_the_strip_is_a_clear_error(impl: str) -> None:
    run_both(
        impl,
        """
cfg = {"name": "baseline", "kind": "hall", "count": 24, "pins": None,
       "mux": {"select": [20, 21, 22, 23], "signal": 24, "enable": None},
       "active_low": True, "settle_ms": 60, "quadrants": 4}
b = SimBoard()
try:
    start(b, [cfg])
    raise AssertionError("expected ValueError")
except ValueError as e:
    assert "2 mux signals" in str(e), e
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_puck_placed_to_shoot_after_the_rest_window_is_not_a_rest(impl: str) -> None:
    """baseline_rest means a puck came to rest after a shot: an arrival within rest_window_ms of the latest
    shot_start. A puck placed later (the next player getting ready) gives no event; its segment shows in live()."""
    run_both(
        impl,
        """
cfgs = [{"name": "baseline", "kind": "hall", "count": 8, "pins": [10, 11, 12, 13, 14, 15, 16, 17], "mux": None,
         "active_low": True, "settle_ms": 60, "quadrants": 4, "rest_window_ms": 1000}]
b = SimBoard()
STRIP = b.strip(cfgs[0])
STRIP.set(5, True)
s = start(b, cfgs)
STRIP.at(100000, 5, False)       # shot from quadrant 3
STRIP.at(900000, 1, True)        # 0.8 s later: the shot's puck stops on the baseline
STRIP.at(2500000, 7, True)       # 2.4 s after the shot: the next player places a puck
run(b, s, 3000000, step=1000)
assert EV == [
    ("shot_start", "baseline", 100000, {"q": 3, "seg": 5}),
    ("baseline_rest", "baseline", 900000, {"q": 1, "seg": 1}),
], EV
assert s.live()["baseline"] == [1, 7]
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_lifting_a_rested_puck_does_not_restart_the_rest_window(impl: str) -> None:
    """R-5A: a puck at rest on the baseline is out of bounds and is lifted off to the ditch. The strip sees it
    leave (a shot_start on the segment of its baseline_rest, which the host recognises); that removal must not
    restart the rest window, or the next player placing a puck would be reported as a puck coming to rest."""
    run_both(
        impl,
        """
cfgs = [{"name": "baseline", "kind": "hall", "count": 8, "pins": [10, 11, 12, 13, 14, 15, 16, 17], "mux": None,
         "active_low": True, "settle_ms": 60, "quadrants": 4, "rest_window_ms": 1000}]
b = SimBoard()
STRIP = b.strip(cfgs[0])
STRIP.set(1, True)
s = start(b, cfgs)
STRIP.at(100000, 1, False)       # shot from quadrant 1
STRIP.at(500000, 2, True)        # its puck stops on the baseline: out of bounds
STRIP.at(900000, 2, False)       # lifted off to the ditch
STRIP.at(1500000, 6, True)       # 1.4 s after the shot, 0.6 s after the lift: the next player places a puck
STRIP.at(2500000, 6, False)      # and shoots
run(b, s, 3000000, step=1000)
assert EV == [
    ("shot_start", "baseline", 100000, {"q": 1, "seg": 1}),
    ("baseline_rest", "baseline", 500000, {"q": 2, "seg": 2}),
    ("shot_start", "baseline", 900000, {"q": 2, "seg": 2}),
    ("shot_start", "baseline", 2500000, {"q": 4, "seg": 6}),
], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_chatter_burst_is_never_a_pass_and_is_reported(impl: str) -> None:
    """10 ms of edge chatter on the hole beam (breaks of 50 to 150 us, none reaching min_pulse_us): before the
    delayed-on filter this was one `pass` of about 10 ms, a false twenty. Now: no pass, one `chatter` event."""
    run_both(
        impl,
        """
b, cfgs = rig([beam(min_pulse_us=200, min_gap_us=1000)])
s = start(b, cfgs)
t = 10000
widths = [50, 150, 80, 120, 60, 140, 100, 90]
n = 0
while t < 20000:
    w = widths[n % len(widths)]
    b.beam(2, t, w)
    t += w + 60
    n += 1
run(b, s, 40000, step=100)
assert "pass" not in kinds(), EV
assert EV == [("chatter", "hole", 10000, {"bursts": 1, "edges": 2 * n})], EV
assert s.beams[0].chatter == 1 and s.beams[0].glitches == n
# the beam still works: a real 800 us break right after is a pass
b.beam(2, 50000, 800)
run(b, s, 60000, step=100)
assert EV[1:] == [("pass", "hole", 50000, {"dur_us": 800})], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_chatter_reports_are_rate_limited(impl: str) -> None:
    """A beam that flickers all the time: one `chatter` event per second, each with the bursts since the last."""
    run_both(
        impl,
        """
b, cfgs = rig([beam(min_pulse_us=200, min_gap_us=1000)])
s = start(b, cfgs)
for k in range(30):                       # a two-glitch burst every 100 ms for 3 s
    t = 10000 + k * 100000
    b.beam(2, t, 50)
    b.beam(2, t + 100, 50)
run(b, s, 3200000, step=1000)
chat = [e for e in EV if e[0] == "chatter"]
assert [e[3]["bursts"] for e in chat] == [1, 10, 10, 9], chat
assert sum(e[3]["edges"] for e in chat) == 30 * 4, chat
assert "pass" not in kinds(), EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_a_single_glitch_is_not_chatter(impl: str) -> None:
    run_both(
        impl,
        """
b, cfgs = rig([beam(min_pulse_us=200, min_gap_us=1000)])
s = start(b, cfgs)
b.beam(2, 10000, 150)
b.beam(2, 20000, 150)                     # 9.85 ms later: another run, another lone glitch
run(b, s, 2000000, step=1000)
assert EV == [] and s.beams[0].glitches == 2 and s.beams[0].chatter == 0, (EV, s.beams[0].chatter)
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_short_pulses_either_side_of_min_pulse(impl: str) -> None:
    """The delayed-on filter keeps what a real puck gives: 5 ms, 1 ms and 0.3 ms breaks are passes with their exact
    widths; 0.1 ms is filtered."""
    run_both(
        impl,
        """
b, cfgs = rig([beam(min_pulse_us=200)])
s = start(b, cfgs)
for k, w in enumerate([5000, 1000, 300, 100]):
    b.beam(2, 10000 + k * 20000, w)
run(b, s, 100000, step=100)
assert EV == [("pass", "hole", 10000, {"dur_us": 5000}), ("pass", "hole", 30000, {"dur_us": 1000}),
              ("pass", "hole", 50000, {"dur_us": 300})], EV
""",
    )


WIDE_STRIP = """
cfgs = [{"name": "baseline", "kind": "hall", "count": 64, "pins": None,
         "mux": {"select": [20, 21, 22, 23], "signal": [24, 25, 26, 27], "enable": None},
         "active_low": True, "settle_ms": 60, "quadrants": 4, "rest_window_ms": 2500}]
b = SimBoard()
STRIP = b.strip(cfgs[0])
def puck(t, segs, present):
    for seg in segs:
        STRIP.at(t, seg, present)
"""


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_a_puck_on_neighbouring_sensors_is_one_puck(impl: str) -> None:
    """A puck's magnet switches one to three neighbouring sensors of a dense strip (hardware/README.md): one event
    per puck, at its middle sensor, never one per sensor (a second `shot_start` would end the shot at once)."""
    run_both(
        impl,
        WIDE_STRIP
        + """
for seg in (10, 11):
    STRIP.set(seg, True)             # the shooter's puck covers two sensors of quadrant 1
s = start(b, cfgs)
puck(100000, (10, 11), False)        # flicked
puck(600000, (36, 37, 38), True)     # the shot's puck comes to rest on quadrant 3's baseline, over three sensors
STRIP.at(900000, 36, False)          # it settles a little: now over 37-39, the same puck
STRIP.at(900000, 39, True)
puck(1500000, (37, 38, 39), False)   # lifted off to the ditch
run(b, s, 2000000, step=1000)
assert EV == [
    ("shot_start", "baseline", 100000, {"q": 1, "seg": 10}),
    ("baseline_rest", "baseline", 600000, {"q": 3, "seg": 37}),
    ("shot_start", "baseline", 1500000, {"q": 3, "seg": 37}),   # named by its rest: a removal, not a shot
], EV
""",
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_hall_pucks_either_side_of_a_quadrant_line_are_two_pucks(impl: str) -> None:
    run_both(
        impl,
        WIDE_STRIP
        + """
STRIP.set(15, True)                  # the last sensor of quadrant 1
STRIP.set(16, True)                  # the first of quadrant 2: adjacent sensors, two seats
s = start(b, cfgs)
run(b, s, 1000)
assert s.halls[0].runs() == [(15, 15), (16, 16)], s.halls[0].runs()
puck(100000, (16,), False)
run(b, s, 500000, step=1000)
assert EV == [("shot_start", "baseline", 100000, {"q": 2, "seg": 16})], EV
""",
    )


@pytest.mark.parametrize("impl", ["cpython", "micropython"])
def test_a_twenty_bouncing_back_into_the_hole_beam_is_not_a_second_pass(impl: str) -> None:
    """A twenty that lands on one already on the slide bounces back into the beam 22-41 ms after its pass ended
    (hardware/mechanics.py, hole_rebound) for tens of ms. With the hole's rebound_ms (60) that break is counted as a
    rebound, not a second twenty; a ditch beam (no rebound_ms) and a puck 200 ms later are passes as before."""
    out = run_on(
        impl,
        SENSOR_PRELUDE
        + """
b = SimBoard()
b.pin(2, 0)
b.pin(3, 0)
s = Sensors([beam(rebound_ms=60), beam(name="ditch1", pin=3)], b, emit, Uptime())
for pin in (2, 3):
    b.beam(pin, 10000, 20000)            # the twenty falls through: 20 ms
    b.beam(pin, 30000 + 25000, 45000)    # 25 ms later it bounces back into the beam for 45 ms
    b.beam(pin, 300000, 22000)           # another twenty
run(b, s, 600000)
print([(e[0], e[1], e[2], e[3].get("dur_us")) for e in EV])
print(s.beams[0].notpass[0], s.beams[1].notpass[0])
""",
    ).split("\n")
    assert out[0] == str(
        [
            ("pass", "hole", 10000, 20000),
            ("pass", "ditch1", 10000, 20000),
            ("pass", "ditch1", 55000, 45000),
            ("pass", "hole", 300000, 22000),
            ("pass", "ditch1", 300000, 22000),
        ]
    ), out
    assert out[1] == "1 0", out


@pytest.mark.parametrize("impl", ["cpython", "micropython"])
def test_fingers_in_the_ditch_are_no_puck(impl: str) -> None:
    """A puck falls through a ditch beam in tens of ms; a shooter's fingers hang in it for longer. With the ditch
    beams' max_pass_ms (250) a break longer than that is a `clear` (a block that counts no puck), not a `pass`; one
    that reaches stuck_ms is still `stuck` then `clear` (a puck resting across the beam)."""
    out = run_on(
        impl,
        SENSOR_PRELUDE
        + """
b = SimBoard()
b.pin(3, 0)
s = Sensors([beam(name="ditch1", pin=3, max_pass_ms=250, stuck_ms=3000)], b, emit, Uptime())
b.beam(3, 10000, 40000)        # a puck
b.beam(3, 100000, 900000)      # fingers, 0.9 s
b.beam(3, 2000000, 240000)     # a slow, tumbling puck: still a pass
b.beam(3, 3000000, 4000000)    # a puck resting across the beam for 4 s
run(b, s, 8000000, step=1000)
print([(e[0], e[2], e[3].get("dur_us", e[3].get("after_ms"))) for e in EV])
print(s.beams[0].notpass[1])
""",
    ).split("\n")
    assert out[0] == str(
        [
            ("pass", 10000, 40000),
            ("clear", 1000000, 900000),
            ("pass", 2000000, 240000),
            ("stuck", 6000000, 3000),
            ("clear", 7000000, 4000000),
        ]
    ), out
    assert out[1] == "1", out
