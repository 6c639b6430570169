"""Two pucks side by side on the emulated Pico: a shot from beside a resting puck gives its shot_start, through the
shipped pico_w strip's 74HC4067s on the real rp2 port.

The switches' changes come from the field model (hardware/hall_pairs.py): in each quadrant at once, a puck is placed on
the baseline, the shooter placed beside it (touching, 5, 10 or 20 mm away: one gap per quadrant), flicked towards the
centre, and the resting puck lifted off. Every arrangement played here lights one continuous run of sensors for the
two pucks (20 mm apart: two runs), which the firmware before issue 33 took for one puck (no shot_start).

`make test` plays two of them in one round: the shooter touching the resting puck (quadrant 1) and 20 mm from it
(quadrant 4); `make soak` plays all four gaps (FLICKBOARD_STRIP_LONG=1). Every quadrant plays at the same emulated
times, so the round costs the same emulated seconds either way: the time saved is the field model's."""

from __future__ import annotations

import os

import hall_field as hf
import hall_pairs as hp
from rp2_board import Host, flashed

from flickboard.sim.rp2 import Pico

ROUND_MS = 4000  # a round: placed, shot, rest lifted off, then quiet past the rest window (2.5 s)
LIFT_MS = 1100  # the resting puck is lifted off this long after the round began
LONG = os.environ.get("FLICKBOARD_STRIP_LONG") == "1"
GAPS = (0.0, 5.0, 10.0, 20.0)  # quadrant q's gap in the round: GAPS[q - 1]
QUADRANTS = (1, 2, 3, 4) if LONG else (1, 4)


def merged(c: hp.Case) -> bool:
    on: set[int] = set()
    for t, i, v in c.changes:
        if t < c.flick_ms:
            (on.add if v else on.discard)(i)
    s = sorted(on)
    return bool(s) and s[-1] - s[0] + 1 == len(s)


def pick(geo: dict, strip: hf.Strip, q: int, gap: float, k: int) -> hp.Case:
    """Of this gap's arrangements that light one run (any at 20 mm), the one k thirds of the way along the quadrant,
    leaving out the one kind the firmware still misses (a resting puck centred over a sensor: hardware/README.md)."""
    cs = []
    for c in hp.cases(geo, strip, gaps=(gap,), step_mm=6.0, quadrant=q):
        rest = sorted(i for t, i, v in c.changes if t == 0 and v)
        if (gap >= 20 or merged(c)) and rest[-1] - rest[0] + 1 == len(rest):
            cs.append(c)
    return cs[(len(cs) * k) // 3]


def test_shots_from_beside_resting_pucks_on_the_emulated_pico() -> None:
    geo = hf.load_geometry()
    strip = hf.strip_from_geometry(geo)
    rounds = [[pick(geo, strip, q, GAPS[q - 1], 1) for q in QUADRANTS]]
    events: list[dict] = []
    expected = []  # (round, quadrant, shooter's sensors, the resting puck's sensors) in order
    for r, cases in enumerate(rounds):
        base = r * ROUND_MS
        for q, c in zip(QUADRANTS, cases, strict=True):
            on: set[int] = set()
            for t, i, v in c.changes:
                events.append({"at_ms": base + t, "hall": "baseline", "seg": i, "present": v})
                (on.add if v else on.discard)(i)
            for i in sorted(on):  # the resting puck lifted off
                events.append({"at_ms": base + LIFT_MS, "hall": "baseline", "seg": i, "present": False})
            expected.append((r, q, c, sorted(on)))
    events.sort(key=lambda e: e["at_ms"])
    count = hp.strip_config(strip, geo)["count"]
    with Pico(flash=flashed("pico_w"), pace="hold") as board:
        board.play({"hall_start": [], "events": []})
        board.go("fast")
        with Host(board) as host:
            host.hello()
            t0 = board.hold() + 100_000
            board.play({"events": events}, t0)
            board.go("fast")
            host.collect(lambda: len(host.events("shot_start")) >= 2 * len(expected), timeout=240)
            host.drain()
            got = [(m.fields["q"], m.fields["seg"]) for m in host.events("shot_start")]
            assert not host.events("baseline_rest"), host.events("baseline_rest")
    assert len(got) == 2 * len(expected), got
    n = len(QUADRANTS)
    for r in range(len(rounds)):
        shots = got[2 * n * r : 2 * n * r + n]  # the round's shots (the flicks are at the same time in every quadrant)
        lifts = got[2 * n * r + n : 2 * n * (r + 1)]
        for q, c, rest in [(q, c, rest) for rr, q, c, rest in expected if rr == r]:
            seg = next(s for qq, s in shots if qq == q)
            mid = c.shooter[len(c.shooter) // 2]
            assert seg in c.shooter or abs(seg - mid) <= 1, (r, q, c.gap, seg, c.shooter)
            lift = next(s for qq, s in lifts if qq == q)
            assert rest[0] <= lift <= rest[-1], (r, q, c.gap, lift, rest)
        assert sorted(q for q, _ in shots) == list(QUADRANTS) and sorted(q for q, _ in lifts) == list(QUADRANTS)
    assert count == 128
