"""The hole beam's edge-count cross-check on the real rp2 port (host/sim/rp2): the PIO counts the beam's edges beside
the hard pin IRQ, and the firmware compares the two (fb.detect.Reconciler). A `count` event puts the board's LED on
"fault" and the game on hold for a person, so it must mean that edges were really lost:

- many breaks of every width from the detection floor up (and glitches below it), with the PIO counting exactly and
  then made to count 8 ms late (as rp2040js's own PIO stepping did): every break is its pass, and not one alarm;
- the GPIO interrupt held off (as a long critical section holds it) while a glitch's two edges come: the handler runs
  once for both, a real loss, and each is a `count`; a pass the held-off IRQ never saw is a `count` too; and every
  pass around them is still reported, whenever the `count` is sent (also while the beam clears);
- the board booted again and again, each time the first breaks right after its hello: each is reported.

The sizes here keep `make test` short; `make soak` runs them long (FLICKBOARD_RP2_LONG=1: thousands of breaks, 50
boots). Every test also fails on any alarm its scenario did not cause (rp2_board.Host)."""

from __future__ import annotations

import os
import random
from functools import partial

from fb.detect import SETTLE_US
from rp2_board import IRQ_LATE_US, Host, flashed

from flickboard.board.protocol import BoardMessage
from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.parts import load_profile

HOLE = next(s for s in load_profile("pico_w")["sensors"] if s["name"] == "hole")
LONG = os.environ.get("FLICKBOARD_RP2_LONG") == "1"
FLOOR_US = 250  # the shortest break the default glitch filter detects every time (docs/performance.md, figure 5)
PIO_LATE_US = 8000  # how late the PIO is made to count: far more than any real board's, less than the settle time
WIDTHS = [FLOOR_US, 300, 400, 600, 1000, 2000, 3500, 5000, 8000, 12000]
GLITCHES = [50, 100, 150]  # below min_pulse_us: never a pass
# After a loss, how long the beam stays still beyond SETTLE_US before the next one: room for the board's main loop to
# be slow for a while (a pass that sends an event, a garbage collection: tens of ms at most).
QUIET_US = 80_000
# A break that starts within rebound_ms of a pass's end is the same twenty bouncing: no pass, a `rebounds` count.
REBOUND_US = 1000 * HOLE["rebound_ms"]


def _healthy(host: Host) -> None:
    """The board's own account: no fault sent, the LED not on "fault", no edge dropped from the IRQ ring."""
    d = host.command("status").fields["d"]
    assert (d["faults"], d["state"], d["ring_drop"]) == (0, "ok", 0), d


def _passes(host: Host, boot: int | None = None) -> list[BoardMessage]:
    return [m for m in host.events("pass", boot) if m.fields["n"] == "hole"]


def _arrived(host: Host, boot: int, n: int) -> bool:
    return len(_passes(host, boot)) >= n


def _check_passes(got: list[BoardMessage], want: list[tuple[float, float]]) -> None:
    """Each break (start, width) once, in order: its width and its start (against the first) as the IRQ timestamps
    them, within how late an IRQ can be. A pass shortened or lengthened by a re-sync would be off by milliseconds."""
    assert len(got) == len(want), f"{len(got)} passes for {len(want)} breaks"
    for m, (_, w) in zip(got, want, strict=True):
        assert abs(m.fields["dur_us"] - w) <= IRQ_LATE_US, (m.fields, w)  # (each edge's IRQ is 5 to 22 µs late)
    for m, (at, _) in zip(got, want, strict=True):
        assert abs((m.t_us - got[0].t_us) - (at - want[0][0])) <= IRQ_LATE_US, (m.t_us, at)


def test_no_count_fault_over_many_breaks_of_every_width() -> None:
    n = 3000 if LONG else 120
    rng = random.Random(35)
    assert HOLE["counter"] == "pio" and HOLE["min_pulse_us"] < FLOOR_US
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        host.hello()
        t = board.hold() + 20_000
        want: list[tuple[float, float]] = []
        halves = []
        for late in (0, PIO_LATE_US):
            for _ in range(n // 2):
                # Between two breaks (or a break and a glitch): more than min_gap_us, and more than the PIO's lateness
                # (so that the PIO has one break's edges at a time to catch up on). Less than the hole's rebound_ms
                # (60): the break after a pass is read as that twenty bouncing, and the one after it is a pass again.
                if rng.random() < 0.15:  # a glitch on its own
                    g = rng.choice(GLITCHES)
                    board.schedule_beam("hole", t, g)
                    t += g + late + 1500
                w = rng.choice(WIDTHS) + rng.random() * 40
                board.schedule_beam("hole", t, w)
                want.append((t, w))
                t += w + late + 1500 + rng.random() * 6000
            halves.append(t)
        # The first half with the PIO counting exactly, as on a Pico; the second with every edge reaching its count up
        # to 8 ms late.
        board.pio_lag(PIO_LATE_US, at_us=halves[0])
        board.go("fast")
        host.collect(lambda: len(_passes(host)) >= len(_rebounds(want)[0]), timeout=60 + n * 0.3)
        board.run_until(halves[1] + 100_000)
        board.go("fast")
        passes, rebounds = _rebounds(want)
        assert rebounds == len(want) // 2, rebounds  # every other break: the test means it, far from the boundary
        _check_passes(_passes(host), passes)
        _healthy(host)
        assert host.command("status").fields["d"]["rebounds"] == rebounds


def _rebounds(breaks: list[tuple[float, float]]) -> tuple[list[tuple[float, float]], int]:
    """The breaks the board reports as passes, and how many it takes for a twenty bouncing (detect.py, rebound_ms)."""
    passes: list[tuple[float, float]] = []
    end: float | None = None
    rebounds = 0
    for t, w in breaks:
        if end is not None and t - end < REBOUND_US:
            rebounds += 1
            end = None  # one rebound per pass
        else:
            passes.append((t, w))
            end = t + w
    return passes, rebounds


def test_a_starved_irq_is_a_count_fault_and_every_pass_stays() -> None:
    lengths = [2000 + 250 * k for k in range(97 if LONG else 25)]  # to 8 ms; to 26 ms (past SETTLE_US) when long
    whole = 10 if LONG else 3  # passes that come entirely while the IRQ is held off
    with Pico(flash=flashed("pico_w")) as board, Host(board, expect=("count",)) as host:
        host.hello()
        # Once the board has settled after its start (its first main-loop passes come tens of ms apart, which would
        # only delay the first count).
        t = board.hold() + 300_000
        want: list[tuple[float, float]] = []
        groups = []
        pin = board.wiring.beam("hole").pin
        broken, intact = board.wiring.beam("hole").level(True), board.wiring.beam("hole").level(False)
        for w in lengths:
            # A glitch while the GPIO interrupt is held off: two edges, one handler call when the hold ends.
            board.hold_irq(t, t + 300)
            board.schedule([(t + 50, pin, broken), (t + 150, pin, intact)])
            board.schedule_beam("hole", t + 400, w)
            want.append((t + 400, w))
            groups.append((t, t + 400 + w, 1))
            t += w + SETTLE_US + QUIET_US
        for _ in range(whole):
            board.hold_irq(t, t + 6000)  # a 3 ms pass the CPU never sees: its handler runs once, after it
            board.schedule_beam("hole", t + 1000, 3000)
            groups.append((t, t + 4000, 1))
            t += SETTLE_US + QUIET_US
        board.go("fast")
        host.collect(lambda: len(host.events("count")) >= len(groups), timeout=60 + 2 * len(groups))
        board.run_until(t + 100_000)
        board.go("fast")
        _check_passes(_passes(host), want)
        counts = host.events("count")
        assert len(counts) == len(groups), [c.fields for c in counts]
        # Each loss once, and soon: before the next group starts, QUIET_US after both counts stood still for SETTLE_US.
        offset = _passes(host)[0].t_us - want[0][0]  # board µs = rig µs + offset
        for c, (start, end, lost) in zip(counts, groups, strict=True):
            assert c.fields["expected"] - c.fields["seen"] == lost, c.fields
            assert start < c.t_us - offset < end + SETTLE_US + QUIET_US, (c.t_us - offset, start, end)


def test_the_first_breaks_after_boot_are_reported_every_time() -> None:
    """The breaks of 5, 1, 0.3 and 0.1 ms, 70 ms apart (beyond the hole's rebound_ms), right after the board's hello,
    boot after boot; every other boot with the PIO counting 8 ms late."""
    boots = 50 if LONG else 4
    breaks = [5000, 1000, 300, 100]
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        for k in range(boots):
            if k:
                board.pio_lag(PIO_LATE_US if k % 2 else 0)
                board.hold()
                host.drain()  # (nothing left unread: the reset need not wait for the host to read it)
                board.reset()
                board.go("fast")
                host.reopen()
            hello = host.hello()
            t0 = board.hold() + 1000 + (k * 7919) % 40_000  # a different moment of the main loop each time
            for j, w in enumerate(breaks):
                board.schedule_beam("hole", t0 + 70_000 * j, w)
            board.run_until(t0 + 70_000 * len(breaks) + 50_000)
            board.go("fast")
            want = [(t0 + 70_000 * j, w) for j, w in enumerate(breaks) if w >= HOLE["min_pulse_us"]]
            host.collect(partial(_arrived, host, hello.boot, len(want)), timeout=30)
            got = _passes(host, hello.boot)
            _check_passes(got, want)
            _healthy(host)
